"""A numerical probe of the PL fragment, independent of the syntax.

The model runs in float64 with its weights rounded to 4 significant bits and its inputs to
multiples of 1/8 (dyadic rationals), so that affine maps, ReLU, max-pooling and sums are computed
exactly: on a linear piece a second difference is exactly ``0.0``, not merely small.

Along random lines ``t ↦ x + t·v`` (``v`` dyadic, ``t ∈ [-T, T]``) the probe evaluates the model on
one grid of step ``h = 2⁻¹⁰`` and reads three grids off it (steps ``h``, ``8h``, ``64h``):

* second differences ``D(t, h) = f(t+h) − 2f(t) + f(t−h)``: for a PL map they vanish except at the
  few stencils that straddle a kink, and that count does not grow when ``h`` shrinks; for a map that
  is not PL almost every stencil is non-zero and ``|D| ∝ h²`` (the exponent is fitted from ``8h`` and
  ``h``);
* first differences: for a continuous map ``max |f(t+h) − f(t)|`` shrinks like ``h``; a jump keeps it
  at the jump's size, so the ratio between the steps ``h`` and ``8h`` is ``≈ 1/8`` or ``≈ 1`` (the
  reported *jump ratio*). A ramp steeper than ``1/h`` (``relu(1e4·x) − relu(1e4·x − 1)``) also reads
  ``≈ 1``, so the verdict rests on bisection instead: every stencil whose ``|Δf|`` at ``h`` is more
  than twice that of both neighbours (at most 32, the largest always among them) is halved
  :data:`BISECTIONS` times, keeping the half with the larger ``|Δf|``, down to step ``2⁻⁴⁰``; a jump
  keeps at least half of its ``|Δf|``, a continuous map's shrinks with the step. A line with such a
  *confirmed jump* makes a PL verdict ``discontinuous-PL`` (a ramp steeper than ``2⁴⁰`` times its
  height still reads as a jump);
* refinement, for a line that is not PL at step ``h``: a PL map with thousands of kinks on the line
  (a CNN) makes most stencils at ``h`` straddle a kink, which is no evidence of curvature. Four
  windows of 257 points at step ``h/16`` decide, read at the tolerance scaled by ``(1/16)²`` (a ``C²``
  map keeps ``|D| ∝ h²`` above it, a linear piece stays at rounding level): all windows with
  ``≤ 25 %`` non-vanishing stencils, the line is PL (*refined*); a window with ``≥ 75 %``, curvature
  (*curved*); otherwise *unresolved*. No curved line and some unresolved line make the verdict
  ``inconclusive``: the probe then neither confirms nor contradicts the syntax. PL pieces shorter
  than ``h/16`` still read as curvature (then the degree test finds degree ``≤ 1`` and the verdict is
  ``inconclusive`` as well, or it finds none and says transcendental: that limit is the probe's);
* the degree test, on the coarse step ``64h`` and on the widest power-of-two step that keeps
  ``max_degree + 4`` points (``1/2`` by default): a polynomial map of degree ``d`` restricted to a
  line is a polynomial of degree ``≤ d`` in ``t``, so its differences of order ``d + 1`` vanish at
  every step (exactly, with dyadic data); a smooth map has ``Δᵏ ≈ f⁽ᵏ⁾ sᵏ``, which at ``s = 1/16``
  can fall under the tolerance for ``k ≈ 6`` (a GELU encoder passed as degree 5) but not at ``s = 1/2``.
  A map that is a polynomial to within the tolerance over the whole line still passes;
* the piecewise degree test, for a curved line with no degree: the least ``d ≥ 2`` whose differences of
  order ``d + 1`` vanish on the same two grids at every stencil that holds no kink, the kinks located
  output by output by the same differences at ``h`` (at most 25 % of them; see
  :func:`_piecewise_degree`). ``x·relu(x)``, ``relu(x)²`` and hardswish are polynomial of degree 2 on
  each piece between kinks: a ``bilinear`` verdict with ``piecewise`` set, not ``transcendental``;
* homogeneity: for a map without biases, ``f(2x) = 2ᵈ f(x)`` exactly for a degree-``d``
  homogeneous polynomial (``d = 1`` for a bias-free ReLU network).

"Vanishes" means ``|Δᵏ| ≤ 2^(k+10)·ε·S`` (``ε`` the float64 machine epsilon, ``S`` the largest output
magnitude on the line, relative: an output of size ``1e-8`` is judged at its own size; ``S`` is floored
at ``2⁻⁹⁷⁰`` so that ``ε·S`` stays a normal float, and an output that is exactly constant, zero
included, has only ``0.0`` differences: PL of degree 0); the probe also reports how many stencils are
exactly ``0.0``.

Before any line, the probe checks that the model is a function: a call at the example point leaves
every parameter and buffer as it was, and three more calls there repeat its output exactly. Otherwise
(dropout in training mode, a random gate, a buffer updated in ``forward``) it stops with a one-line
:class:`TargetError` (exit 8) that says so and suggests ``model.eval()``.

The model is the user's code: every call runs inside :func:`pybridge.targets.user_code` (what it prints
goes to stderr; whatever it raises, ``SystemExit`` included, is a one-line :class:`UserCodeError`, exit
16). Memory is counted against :mod:`pybridge.budget` before it is allocated: the float64 copy of the
model, then (after one evaluation has measured the bytes one point allocates and the size of the output)
the grid of a line, ``_GRID_COPIES`` times its ``points × outputs`` float64 values, plus one point's
allocations; batches hold at most 512 points, and fewer when the limit leaves room for fewer.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Sequence
from typing import Any, Literal

import torch
from pydantic import BaseModel, ConfigDict
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from pybridge.errors import BridgeError, TargetError, UserCodeError
from pybridge.fragment.classify import ClassLabel, FragmentClass
from pybridge.targets import quote, user_code, user_stdout

_EPS = torch.finfo(torch.float64).eps
#: Floor of the output scale ``S`` in the tolerances: ``ε·S`` stays a normal float (``2⁻⁹⁷⁰``). Outputs
#: wholly below it (denormal territory, where differences lose relative accuracy) are judged at it.
_SCALE_FLOOR = torch.finfo(torch.float64).tiny / _EPS


def _scale(values: torch.Tensor) -> float:
    """The scale ``S`` of the tolerances: the largest output magnitude, relative (no absolute term, so
    that an output of size ``1e-8`` or ``1e-26`` is judged by its own size), floored at
    :data:`_SCALE_FLOOR`. An output that is exactly constant has all its differences ``0.0``, which
    vanish at any scale."""
    m = float(values.abs().max()) if values.numel() else 0.0
    return max(m, _SCALE_FLOOR) if math.isfinite(m) else m


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


#: ``resolved``: PL at step ``h`` (few stencils straddle a kink, their count does not grow with ``8h →
#: h``); ``refined``: too many kinks to resolve at ``h``, but every refinement window at ``h/16`` is PL;
#: ``curved``: a refinement window at ``h/16`` has non-vanishing second differences almost everywhere,
#: at a tolerance scaled by ``(1/16)²`` (curvature seen at two steps: not PL); ``unresolved``: neither,
#: the kinks are too dense to tell pieces from curvature.
Pieces = Literal["resolved", "refined", "curved", "unresolved"]

#: Fraction of non-vanishing stencils up to which a grid shows resolved linear pieces, and from which
#: it shows curvature (in between: unresolved).
_PL_FRACTION = 0.25
_CURVED_FRACTION = 0.75
#: Refinement: step ``h / _REFINE``, ``_WINDOWS`` windows of ``_WINDOW_POINTS`` points each.
_REFINE = 16
_WINDOWS = 4
_WINDOW_POINTS = 257
#: Jump confirmation: halvings of a candidate stencil (``h = 2⁻¹⁰`` down to ``2⁻⁴⁰``), the most
#: candidates per line, and the contrast over both neighbours that makes a stencil a candidate.
BISECTIONS = 30
_MAX_JUMP_CANDIDATES = 32
_JUMP_CONTRAST = 2.0
#: Most points per batched evaluation, and the copies of a line's ``points × outputs`` float64 values
#: alive at once (the values, their pieces before ``cat``, a difference and its absolute value).
_MAX_BATCH = 512
_GRID_COPIES = 4
#: Further calls at the base point that must repeat the first output exactly (a random gate that fires
#: with probability 1/2 passes all of them with probability 2⁻³).
_REPEATS = 3


class LineProbe(_Frozen):
    """What one random line shows."""

    #: Stencils of the second difference at the fine step ``h`` that do not vanish, and all of them.
    kinks_fine: int
    stencils_fine: int
    #: The same at the step ``8h``.
    kinks_coarse: int
    stencils_coarse: int
    #: Fine-step second-difference stencils that are exactly ``0.0``.
    exact_zeros_fine: int
    #: ``max|Δ¹f|`` at step ``h`` over the same at ``8h``: ``≈ 1/8`` continuous, ``≈ 1`` at a jump.
    jump_ratio: float
    #: Fitted exponent ``p`` of ``median |D(h)| ∝ hᵖ`` (``None`` when the medians vanish: PL).
    d2_exponent: float | None
    #: Median ``|D|`` at step ``h``.
    d2_median_fine: float
    #: Smallest ``d`` whose differences of order ``d + 1`` vanish at step ``64h`` and at the wide step
    #: (``None``: none up to the maximum tested degree).
    degree: int | None
    #: For a line with no ``degree``: the least ``d ≥ 2`` for which the line is a polynomial of degree
    #: ``≤ d`` on each piece between kinks (see :func:`_piecewise_degree`; ``None``: none up to the
    #: maximum, or the degree was found on the whole line).
    piecewise_degree: int | None = None
    #: What the second differences show along the line (see :data:`Pieces`).
    pieces: Pieces = "resolved"
    #: Non-vanishing second differences and stencils in the refinement windows at step ``h/16``
    #: (``(0, 0)``: no refinement was needed).
    refined_kinks: int = 0
    refined_stencils: int = 0
    #: Stencils at step ``h`` whose ``|Δf|`` kept at least half its size through :data:`BISECTIONS`
    #: halvings (a jump; counted on lines whose pieces are linear, 0 on the others).
    jumps: int = 0


class ProbeResult(_Frozen):
    """The probe's verdict and its measurements."""

    #: ``inconclusive``: no line showed curvature, and some line had kinks too dense to resolve.
    cls: ClassLabel | Literal["inconclusive"]
    #: Polynomial degree measured along the lines (``None``: not polynomial, not even piece by piece).
    degree: int | None
    #: ``True`` when that degree holds only piece by piece (a ``bilinear`` verdict for a map such as
    #: ``x·relu(x)`` or hardswish: polynomial between kinks, not on the whole line).
    piecewise: bool = False
    #: ``d`` with ``f(2x) = 2ᵈ f(x)`` (``None``: not homogeneous of degree ≤ the maximum).
    homogeneity: int | None
    #: Largest kink count (non-vanishing fine second differences) over the lines.
    kinks: int
    #: How many lines needed the refinement at ``h/16``, and how many stayed unresolved.
    refined_lines: int = 0
    unresolved_lines: int = 0
    #: Largest first-difference ratio over the lines.
    jump_ratio: float
    #: Largest number of confirmed jumps on a line (see :attr:`LineProbe.jumps`): a PL verdict with
    #: some is ``discontinuous-PL``.
    jumps: int = 0
    #: Median fitted exponent of ``|D| ∝ hᵖ`` over the lines, refined and unresolved lines left out
    #: (``None``: PL).
    d2_exponent: float | None
    #: Steps ``(h, 8h, 64h)`` and the half-length ``T`` of the lines.
    steps: tuple[float, float, float]
    half_length: float
    #: Model evaluations (grid points times lines, plus checks) and whether grids ran batched (by
    #: ``torch.func.vmap``, after it agreed with the point-by-point loop on the example's line).
    evaluations: int
    batched: bool
    lines: tuple[LineProbe, ...]


def dyadic(t: torch.Tensor, bits: int = 4) -> torch.Tensor:
    """Round ``t`` to ``bits`` significant bits relative to its largest entry (a dyadic tensor)."""
    if not t.is_floating_point() or t.numel() == 0:
        return t
    m = float(t.abs().max())
    if m == 0.0 or not math.isfinite(m):
        return t
    scale = 2.0 ** (bits - 1 - math.floor(math.log2(m)))
    return torch.round(t * scale) / scale


def dyadic_model(module: nn.Module, bits: int = 4) -> nn.Module:
    """A float64 copy of ``module`` in eval mode with every floating parameter and buffer dyadic."""
    model = copy.deepcopy(module).to(torch.float64).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(dyadic(p, bits))
        for name, b in model.named_buffers():
            if b.is_floating_point() and "var" not in name:  # keep variances positive
                b.copy_(dyadic(b, bits))
    return model


class _Evaluator:
    """Evaluates the model at many points of a line ``x + t·v``, the point being every floating input
    at once (one point of Rⁿ); integer inputs stay fixed.

    It batches only when it has shown the model batch-polymorphic at the example: ``torch.func.vmap``
    over a new leading axis must run and agree with the point-by-point loop on three points of the
    line (relative difference ``<= 1e-9``). Otherwise it evaluates point by point. No axis of the
    example input is assumed to be a batch axis.
    """

    def __init__(self, model: nn.Module, base: Sequence[torch.Tensor], name: str) -> None:
        self.model = model
        self.base = list(base)
        self.name = name
        self.calls = 0
        self.batched: bool | None = None
        #: Most points per batched evaluation (lowered by :func:`probe` to fit the memory limit).
        self.chunk = _MAX_BATCH

    def _call(self, inputs: list[torch.Tensor]) -> Any:
        self.calls += 1
        with torch.no_grad(), user_code(self.name, "the model's forward on a probe input (float64 copy)"):
            return self.model(*inputs)

    def measure(self) -> tuple[int, torch.Tensor]:
        """Bytes that one evaluation at the base point allocates (every new tensor an op returns,
        counted as live at once) and the flattened floating output there."""
        counter = _AllocationCounter()
        self.calls += 1
        try:
            with torch.no_grad(), user_stdout(), counter:
                out = self.model(*self.base)
        except Exception:  # the plain call below reports the model's own error, contained
            out = self._call(self.base)
            return 0, _flatten_all(out, self.name)
        except BaseException as err:  # noqa: BLE001 - SystemExit, KeyboardInterrupt from the forward
            raise UserCodeError(
                f"{self.name}: the model's forward on a probe input (float64 copy) raised {quote(err)}"
            ) from None
        return counter.bytes, _flatten_all(out, self.name)

    def check_deterministic(self, first: torch.Tensor, before: dict[str, Any]) -> None:
        """Stop (exit 8) unless the model is a function: the call that gave ``first`` left every
        parameter and buffer as it was (``before``, from :func:`_state`), and :data:`_REPEATS` more
        calls at the same point give exactly the same output. Dropout in training mode, a random gate
        (stochastic depth) or a buffer updated in ``forward`` (BatchNorm forced into training mode, a
        counter) would otherwise make every difference along a line noise."""
        after = _state(self.model)
        changed = [k for k, v in after.items() if k not in before or not _same(before[k], v)]
        changed += [k for k in before if k not in after]
        if changed:
            raise TargetError(
                f"{self.name}: the model is not a function of its input: its forward changes its own "
                f"state ({_names(changed)}, e.g. a buffer updated in forward or BatchNorm in training "
                "mode); call model.eval() or remove the update")
        for _ in range(_REPEATS):
            again = _flatten_all(self._call(self.base), self.name)
            if again.shape != first.shape or not torch.equal(again.nan_to_num(0.0, 0.0, 0.0),
                                                              first.nan_to_num(0.0, 0.0, 0.0)):
                raise TargetError(
                    f"{self.name}: the model is not a deterministic function of its input: two calls "
                    "at the same point gave different outputs (dropout in training mode, or other "
                    "randomness in forward); call model.eval() or remove the randomness")

    def _single(self, dirs: list[torch.Tensor | None], t: float) -> torch.Tensor:
        inputs = [x + t * v if v is not None else x for x, v in zip(self.base, dirs, strict=True)]
        return _flatten_all(self._call(inputs), self.name).reshape(1, -1)

    def _vmapped(self, dirs: list[torch.Tensor | None], ts: torch.Tensor) -> torch.Tensor:
        g = ts.numel()
        stacked: list[torch.Tensor] = []
        in_dims: list[int | None] = []
        for x, v in zip(self.base, dirs, strict=True):
            if v is None:
                stacked.append(x)
                in_dims.append(None)
            else:
                stacked.append(x.unsqueeze(0) + ts.reshape(g, *([1] * x.dim())) * v.unsqueeze(0))
                in_dims.append(0)

        def point(*xs: torch.Tensor) -> torch.Tensor:
            return _flatten_all(self.model(*xs), self.name)

        self.calls += g
        try:
            with torch.no_grad(), user_stdout():
                return torch.func.vmap(point, in_dims=tuple(in_dims))(*stacked)
        except Exception:
            raise
        except BaseException as err:  # noqa: BLE001 - SystemExit, KeyboardInterrupt from the forward
            raise UserCodeError(
                f"{self.name}: the model's forward on a probe input (float64 copy, under vmap) raised "
                f"{quote(err)}"
            ) from None

    def values(self, dirs: list[torch.Tensor | None], ts: torch.Tensor) -> torch.Tensor:
        """``f(x + t v)`` for every ``t`` in ``ts``, as a ``[len(ts), outputs]`` matrix."""
        if self.batched is None:
            self.batched = False
            probe_ts = ts[[0, ts.numel() // 3, -1]]
            want = torch.cat([self._single(dirs, float(t)) for t in probe_ts])
            try:
                got = self._vmapped(dirs, probe_ts)
            except BridgeError:
                raise
            except Exception:  # vmap cannot batch this model: point by point
                got = None
            if got is not None and got.shape == want.shape:
                scale = _scale(want)
                if float((got - want).abs().max()) <= 1e-9 * scale:
                    self.batched = True
        if self.batched:
            c = self.chunk
            try:
                return torch.cat([self._vmapped(dirs, ts[i : i + c]) for i in range(0, ts.numel(), c)])
            except BridgeError:
                raise
            except Exception:  # pragma: no cover - shown to work on three points of this line
                self.batched = False
        return torch.cat([self._single(dirs, float(t)) for t in ts])


class _AllocationCounter(TorchDispatchMode):
    """Sums the bytes of every tensor an ATen op returns that does not share storage with its
    arguments (views and in-place results are free), all counted as live at once."""

    def __init__(self) -> None:
        super().__init__()
        self.bytes = 0

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        try:
            inputs = {_storage(t) for t in tree_leaves((args, kwargs)) if isinstance(t, torch.Tensor)}
            for t in tree_leaves(out):
                if isinstance(t, torch.Tensor) and _storage(t) not in inputs:
                    self.bytes += int(t.numel()) * t.element_size()
        except Exception:  # noqa: BLE001 - a tensor without a plain storage: counted by its shape
            self.bytes += sum(int(t.numel()) * t.element_size() for t in tree_leaves(out)
                              if isinstance(t, torch.Tensor))
        return out


def _state(model: nn.Module) -> dict[str, Any]:
    """Each parameter (by name) with its storage and version counter (an in-place update bumps the
    version, a reassignment changes the storage; nothing is copied), and a copy of each buffer (a
    kernel such as BatchNorm's updates its running statistics without bumping the version)."""
    state: dict[str, Any] = {k: (_storage(t), t._version)
                             for k, t in model.named_parameters(remove_duplicate=False)}
    state.update({k: t.detach().clone() for k, t in model.named_buffers(remove_duplicate=False)})
    return state


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.is_floating_point():
            a, b = a.nan_to_num(), b.nan_to_num()
        return bool(torch.equal(a, b))
    return bool(a == b)


def _names(names: list[str]) -> str:
    shown = ", ".join(f"'{n}'" for n in names[:3])
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "") + " changed by one call"


def _storage(t: torch.Tensor) -> int:
    return t.untyped_storage().data_ptr()


def _flatten_all(out: Any, name: str) -> torch.Tensor:
    parts: list[torch.Tensor] = []

    def visit(o: Any) -> None:
        if isinstance(o, torch.Tensor):
            if o.is_floating_point():
                parts.append(o.reshape(-1).to(torch.float64))
        elif isinstance(o, list | tuple):
            for x in o:
                visit(x)
        elif isinstance(o, dict):  # HF ModelOutput is an OrderedDict
            for x in o.values():
                visit(x)
        elif dataclasses.is_dataclass(o) and not isinstance(o, type):  # a plain @dataclass output
            for f in dataclasses.fields(o):
                visit(getattr(o, f.name, None))

    visit(out)
    if sum(p.numel() for p in parts) == 0:
        raise TargetError(f"{name}: the model has no floating-point output to probe (it returns "
                          f"{_describe(out)}: no floating tensor in it, or all empty; tensors are read "
                          "in tuples, lists, dicts and dataclasses)")
    return torch.cat(parts)


def _describe(out: Any) -> str:
    """The output's type, with the dtype and shape of a tensor (for the error message)."""
    if isinstance(out, torch.Tensor):
        return f"a {str(out.dtype).removeprefix('torch.')} tensor of shape {list(out.shape)}"
    return "None" if out is None else f"a {type(out).__qualname__}"


def _tol(k: int, scale: float) -> float:
    return 2.0 ** (k + 10) * _EPS * scale


def _nonvanishing(values: torch.Tensor, k: int, scale: float) -> tuple[int, int, torch.Tensor]:
    d = torch.diff(values, n=k, dim=0).abs().amax(dim=1)
    return int((d > _tol(k, scale)).sum()), d.numel(), d


def _degree(values: torch.Tensor, max_degree: int, scale: float) -> int | None:
    """Least ``d ≤ max_degree`` whose differences of order ``d + 1`` vanish on the degree grid
    (``values`` at step ``64h``) and on the widest power-of-two sub-grid that keeps ``max_degree + 4``
    points. A smooth map's ``Δᵏ`` at step ``s`` is ``≈ f⁽ᵏ⁾ sᵏ``: at ``64h = 1/16`` high orders fall under
    the tolerance (Whisper's encoder passed ``d = 5``), at the wide step (``1/2`` by default) they do
    not; a polynomial's vanish at every step. At most 25 % of the stencils may fail (a kink or two)."""
    n = values.shape[0]
    stride = 1
    while (n - 1) // (2 * stride) + 1 >= max_degree + 4:
        stride *= 2
    grids = [values] if stride == 1 else [values, values[::stride]]
    for k in range(1, max_degree + 2):
        ok = True
        for g in grids:
            if g.shape[0] <= k:
                continue
            nz, m, _ = _nonvanishing(g, k, scale)
            ok = ok and nz <= 0.25 * m
        if ok:
            return k - 1
    return None


def _piecewise_degree(values: torch.Tensor, max_degree: int, scale: float) -> int | None:
    """Least ``d`` in ``2 … max_degree`` for which ``values`` (the fine grid, step ``h``) is a polynomial
    of degree ``≤ d`` on each piece between kinks, output by output.

    Differences of order ``k = d + 1`` at step ``h`` locate the kinks: on a polynomial piece they vanish,
    a stencil that straddles a kink (a jump in a derivative of order ``< k``) does not. At most 25 % of
    the fine stencils (over all outputs) may be such kinks. Then, on the grids of step ``64h`` and the
    widest power-of-two step that keeps ``max_degree + 4`` points (as in :func:`_degree`), every stencil
    whose span holds no fine kink of its output must vanish, and at least 25 % of the ``64h`` stencils
    must be such clean ones. A smooth map that is not polynomial fails: at order ``k`` its differences at
    ``h`` (``≈ f⁽ᵏ⁾hᵏ``) either fail the 25 % bound (``k = 3``) or fall under the tolerance, and then its
    clean stencils at the wide steps do not vanish. Limit: a kink smooth to order ``≥ d`` (``relu(x)⁵``)
    may leave no mark at ``h`` and then reads as curvature at the wide steps."""
    n, outputs = values.shape
    stride = 1
    while (n - 1) // (2 * stride) + 1 >= max_degree + 4:
        stride *= 2
    strides = sorted({min(64, stride), stride})
    for k in range(3, max_degree + 2):
        if n <= k * stride:
            break
        tol = _tol(k, scale)
        kinks = torch.diff(values, n=k, dim=0).abs() > tol  # [n - k, outputs]; stencil j spans j … j + k
        found = int(kinks.sum())
        if found > _PL_FRACTION * kinks.numel():
            continue
        # prefix[j] = kink stencils before j, per output: the fine kinks in any range in O(1)
        prefix = None
        if found:
            prefix = torch.cat([torch.zeros(1, outputs, dtype=torch.int32),
                                kinks.to(torch.int32).cumsum(dim=0, dtype=torch.int32)])
        del kinks
        ok = True
        for st in strides:
            d = torch.diff(values[::st], n=k, dim=0).abs() > tol  # coarse stencil i spans i·st … (i+k)·st
            if d.shape[0] == 0:
                continue
            if prefix is None:  # no kink at h: every coarse stencil is clean
                ok = not bool(d.any())
            else:  # clean: no fine kink stencil overlaps its span (j + k > i·st and j < (i+k)·st)
                i = torch.arange(d.shape[0])
                lo = (i * st - k + 1).clamp(min=0)
                hi = ((i + k) * st).clamp(max=n - k)
                clean = (prefix[hi] - prefix[lo]) == 0
                ok = not bool((d & clean).any())
                if ok and st == strides[0]:
                    ok = int(clean.sum()) >= _PL_FRACTION * clean.numel()
            if not ok:
                break
        if ok:
            return k - 1
    return None


def _line(values: torch.Tensor, max_degree: int) -> LineProbe:
    scale = _scale(values)
    fine, coarse, deg = values, values[::8], values[::64]
    nz_f, n_f, d2f = _nonvanishing(fine, 2, scale)
    nz_c, n_c, d2c = _nonvanishing(coarse, 2, scale)
    m1f = float(torch.diff(fine, dim=0).abs().max())
    m1c = float(torch.diff(coarse, dim=0).abs().max())
    ratio = m1f / m1c if m1c > 0 else 0.0
    med_f, med_c = float(d2f.median()), float(d2c.median())
    exponent = None
    if med_f > _tol(2, scale) and med_c > _tol(2, scale):
        exponent = math.log2(med_c / med_f) / 3.0
    degree = _degree(deg, max_degree, scale)
    piecewise = None
    if degree is None and nz_f > _PL_FRACTION * n_f:  # curved at h, and no polynomial on the whole line
        piecewise = _piecewise_degree(fine, max_degree, scale)
    return LineProbe(kinks_fine=nz_f, stencils_fine=n_f, kinks_coarse=nz_c, stencils_coarse=n_c,
                     exact_zeros_fine=int((d2f == 0).sum()), jump_ratio=ratio, d2_exponent=exponent,
                     d2_median_fine=med_f, degree=degree, piecewise_degree=piecewise)


def _is_pl(line: LineProbe) -> bool:
    return (line.kinks_fine <= _PL_FRACTION * line.stencils_fine
            and line.kinks_fine <= 3 * line.kinks_coarse + 8)


def _refine(ev: _Evaluator, dirs: list[torch.Tensor | None], line: LineProbe, values: torch.Tensor,
            half_length: float, h: float) -> LineProbe:
    """Settle a line that is not PL at step ``h``: PL pieces shorter than a few ``h`` (a CNN has
    thousands of ReLUs, so thousands of kinks on a line) make most stencils at ``h`` straddle a kink,
    which is no evidence of curvature. Re-evaluate ``_WINDOWS`` windows of ``_WINDOW_POINTS`` points at
    step ``h/16`` (centres evenly spread over the line) and read their second differences at the
    tolerance ``tol · (1/16)²``: a ``C²`` map with ``|D(h)| > tol`` still has ``|D(h/16)| > tol/256``,
    while on a linear piece ``D`` stays at rounding level. All windows ``≤ 25 %`` non-vanishing:
    ``refined`` (PL); some window ``≥ 75 %``: ``curved`` (the first such window ends the refinement);
    otherwise ``unresolved``."""
    scale = _scale(values)
    s = h / _REFINE
    half = (_WINDOW_POINTS - 1) // 2
    offsets = torch.arange(-half, half + 1, dtype=torch.float64) * s
    tol = _tol(2, scale) / _REFINE**2
    fractions: list[float] = []
    nz_total = n_total = 0
    for i in range(_WINDOWS):
        centre = -half_length + (2 * i + 1) * half_length / _WINDOWS
        v = ev.values(dirs, centre + offsets)
        scale = max(scale, _scale(v))
        d = torch.diff(v, n=2, dim=0).abs().amax(dim=1)
        nz = int((d > tol).sum())
        nz_total, n_total = nz_total + nz, n_total + d.numel()
        fractions.append(nz / d.numel())
        if fractions[-1] >= _CURVED_FRACTION:  # one curved window settles it (and saves evaluations)
            break
    if all(f <= _PL_FRACTION for f in fractions):
        pieces: Pieces = "refined"
    elif any(f >= _CURVED_FRACTION for f in fractions):
        pieces = "curved"
    else:
        pieces = "unresolved"
    return line.model_copy(update={"pieces": pieces, "refined_kinks": nz_total, "refined_stencils": n_total})


def _jumps(ev: _Evaluator, dirs: list[torch.Tensor | None], ts: torch.Tensor, values: torch.Tensor,
           line: LineProbe) -> LineProbe:
    """Count the confirmed jumps of a line whose pieces are linear (see the module docstring).

    Candidates are the fine stencils whose ``|Δf|`` (largest over the outputs) exceeds the first-order
    tolerance and twice that of both neighbours, at most :data:`_MAX_JUMP_CANDIDATES` by contrast, plus
    the largest ``|Δf|``. Each is bisected :data:`BISECTIONS` times (all candidates evaluated together,
    one batch per halving), keeping the half with the larger ``|Δf|``; a candidate whose final ``|Δf|``
    is at least half its ``|Δf|`` at ``h`` is a jump."""
    if line.pieces not in ("resolved", "refined") or values.shape[0] < 2:
        return line
    scale = _scale(values)
    d1 = torch.diff(values, dim=0).abs().amax(dim=1)
    zero = d1.new_zeros(1)
    neighbours = torch.maximum(torch.cat([zero, d1[:-1]]), torch.cat([d1[1:], zero]))
    significant = d1 > _tol(1, scale)
    contrast = d1 / neighbours.clamp_min(torch.finfo(torch.float64).tiny)
    ranked = [int(i) for i in torch.argsort(contrast, descending=True, stable=True)
              if significant[i] and contrast[i] > _JUMP_CONTRAST][:_MAX_JUMP_CANDIDATES]
    top = int(torch.argmax(d1))
    if significant[top] and top not in ranked:
        ranked.append(top)
    if not ranked:
        return line.model_copy(update={"jumps": 0})
    idx = torch.tensor(ranked)
    a, b = ts[idx].clone(), ts[idx + 1].clone()
    fa, fb = values[idx].clone(), values[idx + 1].clone()
    for _ in range(BISECTIONS):
        m = (a + b) / 2
        fm = ev.values(dirs, m)
        left = (fm - fa).abs().amax(dim=1) >= (fb - fm).abs().amax(dim=1)
        b = torch.where(left, m, b)
        a = torch.where(left, a, m)
        fb = torch.where(left.unsqueeze(1), fm, fb)
        fa = torch.where(left.unsqueeze(1), fa, fm)
    kept = (fb - fa).abs().amax(dim=1)
    return line.model_copy(update={"jumps": int((kept >= 0.5 * d1[idx]).sum())})


def _homogeneity(ev: _Evaluator, max_degree: int) -> int | None:
    dirs: list[torch.Tensor | None] = [x if x.is_floating_point() else None for x in ev.base]
    ts = torch.tensor([0.0, 1.0], dtype=torch.float64)  # x + 0·x and x + 1·x = 2x
    f1, f2 = ev.values(dirs, ts)
    scale = _scale(torch.cat([f1, f2]))
    for d in range(max_degree + 1):
        if float((f2 - 2.0**d * f1).abs().max()) <= _tol(d, scale):
            return d
    return None


def _grid(half_length: float, fine_exponent: int) -> tuple[float, torch.Tensor]:
    h = 2.0 ** (-fine_exponent)
    n = int(round(half_length / h))
    return h, torch.arange(-n, n + 1, dtype=torch.float64) * h


def probe_line(model: nn.Module, inputs: Sequence[torch.Tensor], directions: Sequence[torch.Tensor | None], *,
               half_length: float = 2.0, fine_exponent: int = 10, max_degree: int = 5,
               name: str = "model") -> LineProbe:
    """Probe ``model`` as given (no copy, no rounding) along ``t ↦ inputs + t·directions``.

    ``directions[i]`` is ``None`` for an input that stays fixed.
    """
    h, ts = _grid(half_length, fine_exponent)
    ev = _Evaluator(model, list(inputs), name)
    values = ev.values(list(directions), ts)
    line = _line(values, max_degree)
    if not _is_pl(line):
        line = _refine(ev, list(directions), line, values, half_length, h)
    return _jumps(ev, list(directions), ts, values, line)


def probe(module: nn.Module, inputs: Sequence[torch.Tensor], *, lines: int = 3, half_length: float = 2.0,
          fine_exponent: int = 10, max_degree: int = 5, seed: int = 0, name: str = "model") -> ProbeResult:
    """Probe ``module`` at ``inputs`` along ``lines`` random dyadic lines (see the module docstring).

    The module is copied, converted to float64 and made dyadic; the caller's module is untouched.
    Floating inputs vary along the line; integer inputs (token ids) stay fixed.
    """
    if not any(x.is_floating_point() and x.numel() > 0 for x in inputs):
        raise TargetError(f"{name}: the probe needs a non-empty floating-point input to move along a line")
    from pybridge import budget

    gen = torch.Generator().manual_seed(seed)
    cap = budget.limit()  # read once: the available memory shrinks as the probe allocates
    with user_code(name, "listing the model's parameters and buffers"):
        est = budget.model_estimate(module, tuple(inputs))
    budget.require(est, f"copying {name} to float64 for the probe", cap=cap)
    with user_code(name, "copying the model to float64"):
        model = dyadic_model(module)
    base = [torch.round(x.to(torch.float64) * 8) / 8 if x.is_floating_point() else x for x in inputs]
    ev = _Evaluator(model, base, name)
    h, ts = _grid(half_length, fine_exponent)
    with user_code(name, "listing the model's parameters and buffers"):
        before = _state(model)
    per_point, first = ev.measure()
    outputs = first.numel()
    ev.check_deterministic(first, before)
    grid = _GRID_COPIES * ts.numel() * outputs * 8
    need = budget.Estimate(est.weights, est.activations + grid + per_point, est.modules)
    budget.require(need, f"probing {name} along lines of {ts.numel()} points", cap=cap)
    if cap[0] is not None and per_point > 0:
        ev.chunk = int(max(1, min(_MAX_BATCH, (cap[0] - need.total + per_point) // per_point)))
    results: list[LineProbe] = []
    for _ in range(lines):
        dirs: list[torch.Tensor | None] = []
        for x in base:
            if x.is_floating_point():
                dirs.append(torch.randint(-8, 9, x.shape, generator=gen).to(torch.float64) / 8)
            else:
                dirs.append(None)
        values = ev.values(dirs, ts)
        line = _line(values, max_degree)
        if not _is_pl(line):
            line = _refine(ev, dirs, line, values, half_length, h)
        results.append(_jumps(ev, dirs, ts, values, line))
    homog = _homogeneity(ev, max_degree)

    continuous = all(r.jumps == 0 for r in results)
    degree: int | None
    label: str
    piecewise = False
    curved = [r for r in results if r.pieces == "curved"]
    if all(r.pieces in ("resolved", "refined") for r in results):
        label = (FragmentClass.PL if continuous else FragmentClass.DISCONTINUOUS_PL).label
        degree = max(min(r.degree if r.degree is not None else 1, 1) for r in results)
    elif curved:  # curvature seen on some line: not PL; the degree test on the curved lines decides
        # a polynomial on the whole line, else piece by piece between kinks (x·relu(x), hardswish)
        degrees = [r.degree if r.degree is not None else r.piecewise_degree for r in curved]
        degree = None if any(d is None for d in degrees) else max(d for d in degrees if d is not None)
        piecewise = degree is not None and any(r.degree is None for r in curved)
        label = (FragmentClass.TRANSCENDENTAL if degree is None else FragmentClass.BILINEAR).label
        if degree is not None and degree <= 1:  # curvature, yet affine on the degree grids: PL pieces
            # PL pieces shorter than h/16 look curved; the probe cannot tell
            label, degree, piecewise = "inconclusive", None, False
    else:  # kinks too dense on some line, curvature on none: the probe cannot tell
        label, degree = "inconclusive", None
    # a line whose kinks were too dense at h has no meaningful |D| ∝ hᵖ fit
    exps = sorted(r.d2_exponent for r in results
                  if r.d2_exponent is not None and r.pieces not in ("refined", "unresolved"))
    return ProbeResult(
        cls=label,  # type: ignore[arg-type]
        degree=degree,
        piecewise=piecewise,
        homogeneity=homog,
        kinks=max(r.kinks_fine for r in results),
        refined_lines=sum(r.pieces != "resolved" for r in results),
        unresolved_lines=sum(r.pieces == "unresolved" for r in results),
        jump_ratio=max(r.jump_ratio for r in results),
        jumps=max(r.jumps for r in results),
        d2_exponent=exps[len(exps) // 2] if exps else None,
        steps=(h, 8 * h, 64 * h),
        half_length=half_length,
        evaluations=ev.calls,
        batched=bool(ev.batched),
        lines=tuple(results),
    )
