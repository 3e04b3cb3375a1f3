"""Invariance structures as stacks (Belfiore & Bennequin §2.1): measured equivariance defects per layer.

A group G acting on every layer's activations makes the activity presheaf a presheaf of G-sets, i.e. a
stack over the site with fibre G, exactly when each layer map commutes with the action. This module
measures how far that holds, for the groups acting on images (the last two axes of a 4-d tensor):

* ``shift``: circular translations ``torch.roll`` by ``(step, step)``; on a layer whose resolution
  changes (by its own factor on each axis: ``AvgPool2d((2, 1))`` halves the height only) the output is
  shifted by the step scaled per axis, and when that is not an integer the layer is reported ``n/a``;
* ``rot90``: rotation by 90° (``torch.rot90`` on the last two axes); needs square images.

The defect of a layer ``f`` at the recorded arguments ``a`` is ``‖f(g·a) − g·f(a)‖ / ‖f(a)‖``. It is
*approximate*: measured and reported with the tolerance of the dtype, never asserted. Zero padding,
strided pooling and fully connected heads are expected to break equivariance; circular convolutions and
pointwise maps keep it (to rounding).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from pybridge.capture import Method
from pybridge.errors import UsageError
from pybridge.site.graph import LayerGraph, extract
from pybridge.targets import user_code

#: Relative tolerance per dtype under which a defect counts as "equivariant (to rounding)".
TOLERANCE: dict[torch.dtype, float] = {
    torch.float64: 1e-10,
    torch.float32: 1e-5,
    torch.float16: 1e-2,
    torch.bfloat16: 5e-2,
}
GROUPS = ("shift", "rot90")


@dataclass(frozen=True)
class LayerDefect:
    """The equivariance defect of one layer (``defect`` None when the action does not apply)."""

    layer: str
    op: str
    defect: float | None
    note: str
    tolerance: float

    @property
    def equivariant(self) -> bool | None:
        """Defect within the dtype tolerance; None when not applicable."""
        return None if self.defect is None else self.defect <= self.tolerance


def _act(group: str, t: torch.Tensor, step: float | tuple[float, float]) -> torch.Tensor | None:
    """``g·t``: rot90 on the last two axes, or a circular shift by ``step`` (one number for both axes, or
    a pair (height, width)); None when the action does not apply (non-square, non-integer shift)."""
    if group == "rot90":
        if t.shape[-1] != t.shape[-2]:
            return None
        return torch.rot90(t, 1, dims=(-2, -1))
    sh, sw = step if isinstance(step, tuple) else (step, step)
    if not (float(sh).is_integer() and float(sw).is_integer()):
        return None
    return torch.roll(t, shifts=(int(sh), int(sw)), dims=(-2, -1))


def _scaled(step: int, value: torch.Tensor, arg: torch.Tensor) -> tuple[tuple[float, float], str]:
    """The step on ``value`` for a step on ``arg``: scaled by the resolution ratio of each axis, with the
    note that names the ratio(s) ("" when the resolution is unchanged)."""
    rh = value.shape[-2] / arg.shape[-2]
    rw = value.shape[-1] / arg.shape[-1]
    if rh == rw == 1:
        note = ""
    elif rh == rw:
        note = f"resolution x{rw:g}"
    else:
        note = f"resolution x{rh:g} (height), x{rw:g} (width)"
    return (step * rh, step * rw), note


def _is_image(t: Any) -> bool:
    return isinstance(t, torch.Tensor) and t.dim() == 4 and t.is_floating_point() and min(t.shape[-2:]) >= 2


def _rel(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).double().norm()) / max(float(b.double().norm()), 1e-300)


@torch.no_grad()
def layer_defects(
    graph: LayerGraph, group: str, *, step: int = 1, dtype: torch.dtype = torch.float64
) -> list[LayerDefect]:
    """The defect of every layer whose arguments and value are images (one row per such layer)."""
    if group not in GROUPS:
        raise UsageError(f"--group: {group!r} is not one of {', '.join(GROUPS)}")
    tol = TOLERANCE.get(dtype, 1e-5)
    out: list[LayerDefect] = []
    for node in graph.nodes.values():
        if node.kind != "layer":
            continue
        args = [graph.values[u] for u in node.preds]
        value = graph.values[node.name]
        if not (_is_image(value) and args and all(_is_image(a) for a in args)):
            continue
        scaled, note = _scaled(step, value, args[0])
        moved = [_act(group, a, step) for a in args]
        expected = _act(group, value, scaled)
        if group == "rot90" and value.shape[-2] * args[0].shape[-1] != value.shape[-1] * args[0].shape[-2]:
            expected = None  # a rotation does not commute with a resolution change that differs per axis
        if any(m is None for m in moved) or expected is None:
            out.append(LayerDefect(node.name, node.op, None, "n/a: action does not apply", tol))
            continue
        got = graph.evaluate(node.name, moved)
        out.append(LayerDefect(node.name, node.op, _rel(got, expected), note, tol))
    return out


@dataclass(frozen=True)
class ModelDefect:
    """End to end: the equivariance defect for image outputs, else ``‖f(g·x) − f(x)‖/‖f(x)‖``."""

    kind: str
    defect: float
    tolerance: float


@torch.no_grad()
def model_defect(
    module: torch.nn.Module,
    inputs: tuple[torch.Tensor, ...],
    group: str,
    *,
    step: int = 1,
    dtype: torch.dtype = torch.float64,
    name: str = "model",
    why: list[str] | None = None,
) -> ModelDefect | None:
    """The whole model's defect on its example input; None when it does not apply (the input or the
    output is not one image tensor, or the action does not apply), with the reason appended to ``why``."""
    if group not in GROUPS:
        raise UsageError(f"--group: {group!r} is not one of {', '.join(GROUPS)}")

    def none(reason: str) -> None:
        if why is not None:
            why.append(reason)

    if len(inputs) != 1 or not _is_image(inputs[0]):
        return none("the input is not one image (a 4-d floating tensor)")
    from pybridge import budget

    dtype_name = str(dtype).removeprefix("torch.")
    with user_code(name, "listing the model's parameters and buffers"):
        est = budget.model_estimate(module, inputs, dtype_bytes=torch.empty((), dtype=dtype).element_size())
    budget.require(est, f"copying {name} to {dtype_name}")
    with user_code(name, f"copying the model to {dtype_name}"):
        from pybridge.capture import copy_model

        model = copy_model(module, dtype, name)
    x = inputs[0].to(dtype)
    gx = _act(group, x, step)
    if gx is None:
        return none("the action does not apply to the input")
    with user_code(name, f"the model's forward ({dtype_name} copy)"):
        y, gy = model(x), model(gx)
    if not isinstance(y, torch.Tensor):
        return none(f"the output is a {type(y).__name__}, not an image tensor")
    tol = TOLERANCE.get(dtype, 1e-5)
    if _is_image(y):
        scaled, _ = _scaled(step, y, x)
        expected = _act(group, y, scaled)
        if group == "rot90" and y.shape[-2] * x.shape[-1] != y.shape[-1] * x.shape[-2]:
            expected = None
        if expected is not None:
            return ModelDefect("equivariance", _rel(gy, expected), tol)
    return ModelDefect("invariance", _rel(gy, y), tol)


def equivariance_report(
    module: torch.nn.Module,
    inputs: tuple[torch.Tensor, ...],
    group: str,
    *,
    name: str = "model",
    step: int = 1,
    dtype: torch.dtype = torch.float64,
    method: Method = "auto",
    why: list[str] | None = None,
) -> tuple[list[LayerDefect], ModelDefect | None]:
    """Per-layer defects (from a graph extracted in ``dtype``, captured by ``method``) and the whole
    model's defect (None when it does not apply, the reason appended to ``why``)."""
    graph = extract(module, inputs, name, dtype=dtype, method=method)
    return layer_defects(graph, group, step=step, dtype=dtype), model_defect(
        module, inputs, group, step=step, dtype=dtype, name=name, why=why
    )
