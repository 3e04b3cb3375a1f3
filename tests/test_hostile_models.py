"""Plain PyTorch models a stranger writes, fed to ``site``/``presheaf``/``equivariance``/``fragment``:
boolean masks, circular padding captured by torch.export, in-place ops that break the model's own
backward, forwards that raise or call ``sys.exit``, forwards that print.

The factories below are the targets (``this_file.py:factory``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import torch
from torch import nn
from typer.testing import CliRunner

from pybridge.cli import app

HERE = str(Path(__file__).resolve())
runner = CliRunner()


def _x(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(1))


class Where(nn.Module):
    """Leaky ReLU via ``torch.where``: the join reads a boolean mask."""

    def __init__(self) -> None:
        super().__init__()
        self.l1, self.l2 = nn.Linear(8, 16), nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.l1(x)
        return self.l2(torch.where(h > 0, h, 0.1 * h))


class MaskedFill(Where):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.l1(x)
        return self.l2(h.masked_fill(h < 0, 0.0))


class BoolIndex(Where):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.l1(x)
        return h[h > 0].sum().reshape(1)


class BoolIndexAssign(Where):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.l1(x)
        h[h < 0] = 0.0
        return self.l2(h)


class CircConv(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(1, 4, 3, padding=1, padding_mode="circular")
        self.c2 = nn.Conv2d(4, 1, 3, padding=1, padding_mode="circular")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c2(torch.relu(self.c1(x)))


class InPlace(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l1, self.l2 = nn.Linear(8, 8), nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.l1(x)
        h.relu_()
        h += x
        h.mul_(2.0)
        h.clamp_(min=-1.0, max=1.0)
        return self.l2(h)


class ItemOnly(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        print("mean", x.mean().item())
        return torch.relu(self.l(x))


class ZeroSizeInside(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.l(torch.cat([x, x[:, :0]], dim=1)))


class ControlFlow(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = nn.Linear(8, 4), nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum() > 0:
            return self.a(x)
        return torch.relu(self.b(x))


class Raises(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise RuntimeError("forward exploded")


class Exits(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        sys.exit(5)


def where():
    torch.manual_seed(0)
    return Where(), _x(2, 8)


def masked_fill():
    torch.manual_seed(0)
    return MaskedFill(), _x(2, 8)


def bool_index():
    torch.manual_seed(0)
    return BoolIndex(), _x(2, 8)


def bool_index_assign():
    torch.manual_seed(0)
    return BoolIndexAssign(), _x(2, 8)


def circ_conv():
    torch.manual_seed(0)
    return CircConv(), _x(1, 1, 8, 8)


def inplace():
    torch.manual_seed(0)
    return InPlace(), _x(2, 8)


def item_only():
    torch.manual_seed(0)
    return ItemOnly(), _x(2, 8)


def zero_size_inside():
    torch.manual_seed(0)
    return ZeroSizeInside(), _x(2, 8)


def lstm_raw():
    torch.manual_seed(0)
    return nn.LSTM(3, 4, batch_first=True), _x(1, 3, 3)


def control_flow():
    torch.manual_seed(0)
    return ControlFlow(), _x(2, 8)


def forward_raises():
    return Raises(), torch.randn(1, 2)


def forward_exits():
    return Exits(), torch.randn(1, 2)


class Float64Only(nn.Module):
    """Captured and traced in float32 without trouble; the fragment probe's float64 copy is what raises,
    exits or prints (the probe called the forward outside the user-code container)."""

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what
        self.l = nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype == torch.float64:
            if self.what == "raise":
                raise ValueError("no float64 here")
            if self.what == "exit":
                sys.exit(7)
            if self.what == "print":
                print("probe point")
        return torch.relu(self.l(x))


class ExitsUnderVmap(nn.Module):
    """Exits only when the probe batches it with ``torch.func.vmap`` (the batched grid)."""

    def __init__(self) -> None:
        super().__init__()
        self.l = nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch._C._functorch.is_batchedtensor(x):
            sys.exit(9)
        return torch.relu(self.l(x))


def float64_raises():
    torch.manual_seed(0)
    return Float64Only("raise"), _x(1, 4)


def float64_exits():
    torch.manual_seed(0)
    return Float64Only("exit"), _x(1, 4)


def float64_prints():
    torch.manual_seed(0)
    return Float64Only("print"), _x(1, 4)


def exits_under_vmap():
    torch.manual_seed(0)
    return ExitsUnderVmap(), _x(1, 4)


def _rows(output: str) -> dict[str, str]:
    """``{check: rest of the line}`` from the presheaf table (columns are two or more spaces apart)."""
    out = {}
    for line in output.splitlines():
        parts = [p for p in line.strip().split("  ") if p]
        if len(parts) >= 2:
            out[parts[0].strip()] = "  ".join(p.strip() for p in parts[1:])
    return out


def _row(output: str, prefix: str) -> str:
    return next(line for line in output.splitlines() if line.strip().startswith(prefix))


# -- 1. boolean and integer factors are not perturbed -------------------------------------------------


@pytest.mark.parametrize("factory", ["where", "masked_fill", "bool_index", "bool_index_assign"])
def test_presheaf_on_boolean_masks(factory: str) -> None:
    res = runner.invoke(app, ["presheaf", f"{HERE}:{factory}"])
    assert res.exit_code == 0, res.output
    assert "internal error" not in res.output
    assert " ok " in _row(res.stdout, "that section reproduces model(x)")


def test_raw_control_keeps_masks_and_perturbs_floats() -> None:
    from pybridge.site.graph import extract
    from pybridge.site.presheaf import ActivityPresheaf, propagate

    m, x = where()
    g = extract(m, (x,), "where")
    neg = propagate(ActivityPresheaf(g), {n: g.values[n] for n in g.inputs})
    assert not neg.unique
    # the where join reads (mask, h, 0.1 h): on the raw site the mask and 0.1 h are free (h is pinned by
    # its covering tine); only 0.1 h is perturbed
    assert [f.split(" (")[0] for f in neg.free] == ["A[where] factor 0", "A[where] factor 2"]
    assert neg.perturbed == ("A[where] factor 2 (mul)",)
    assert all(p in neg.free for p in neg.perturbed)
    # both families are sections, and they differ at the output: the control is real
    assert neg.section.ok and neg.alternative_section is not None and neg.alternative_section.ok
    assert neg.alternative_output_gap is not None and neg.alternative_output_gap > 0.1
    # independent reference for the perturbed output: where(mask, h, 0.1 h + 1) through l2
    with torch.no_grad():
        md = m.double()
        h = md.l1(x.double())
        base = md.l2(torch.where(h > 0, h, 0.1 * h))
        alt = md.l2(torch.where(h > 0, h, 0.1 * h + 1.0))
    expected = float((alt - base).norm() / base.norm())
    assert abs(neg.alternative_output_gap - expected) <= 1e-12 * max(expected, 1.0)


def test_raw_control_without_float_free_factor_is_na() -> None:
    for factory in ("masked_fill", "zero_size_inside"):
        res = runner.invoke(app, ["presheaf", f"{HERE}:{factory}"])
        assert res.exit_code == 0, res.output
        line = _row(res.stdout, "raw site: unique?")
        assert " n/a " in line and "nothing to perturb" in line, line
        assert "differ by 0.0e+00" not in res.stdout


# -- 2. circular padding captured by torch.export -----------------------------------------------------


def test_presheaf_circular_padding_with_export() -> None:
    res = runner.invoke(app, ["presheaf", f"{HERE}:circ_conv"])
    assert res.exit_code == 0, res.output
    for check in ("forward natural in W", "forward from inputs", "Thm 1.1: SGD step on W(x)",
                  "Thm 1.1: step natural along covers"):
        assert " ok " in _row(res.stdout, check), check


def test_circular_capture_has_no_uninitialised_buffers() -> None:
    from pybridge.capture import capture
    from pybridge.site.graph import extract
    from pybridge.site.weights import WeightPresheaf, forward_naturality, learning_naturality

    m, x = circ_conv()
    cap = capture(m.double(), (x.double(),))
    assert cap.method == "torch.export"
    targets = {str(n.target) for n in cap.gm.graph.nodes if n.op == "call_function"}
    assert not any("empty" in t for t in targets), targets
    # two captures record the same activations everywhere, and the graph reproduces the module
    g1, g2 = extract(m, (x,), "c"), extract(m, (x,), "c")
    assert all(torch.equal(g1.values[k], g2.values[k]) for k in g1.values)
    with torch.no_grad():
        ref = m.double()(x.double())
    assert torch.allclose(g1.values[g1.outputs[0]], ref, rtol=1e-12, atol=1e-12)
    W = WeightPresheaf(g1.normalized())
    fw = forward_naturality(W, m, (x,))
    assert fw.ok, fw
    ln = learning_naturality(W, m, (x,))
    assert ln.ok and ln.steps, ln


# -- 3. a model whose own backward fails --------------------------------------------------------------


def test_presheaf_inplace_model_backward_is_na() -> None:
    m, x = inplace()
    with pytest.raises(RuntimeError, match="inplace operation"):  # the user's model, as written
        m(x).sum().backward()
    res = runner.invoke(app, ["presheaf", f"{HERE}:inplace"])
    assert res.exit_code == 0, res.output
    line = _row(res.stdout, "Thm 1.1: SGD step on W(x)")
    assert " n/a " in line and "own backward fails" in line, line


# -- 4. the user's forward is contained ---------------------------------------------------------------


@pytest.mark.parametrize(
    "command", [["site"], ["presheaf"], ["fragment"], ["equivariance", "--group", "shift"]]
)
def test_forward_exits_is_user_error(command: list[str]) -> None:
    res = runner.invoke(app, [command[0], f"{HERE}:forward_exits", *command[1:]])
    assert res.exit_code == 16, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "test_hostile_models:forward_exits" in lines[0] and "SystemExit: 5" in lines[0]


@pytest.mark.parametrize("command", ["site", "presheaf", "fragment"])
def test_forward_raises_is_user_error(command: str) -> None:
    res = runner.invoke(app, [command, f"{HERE}:forward_raises"])
    assert res.exit_code == 16, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "RuntimeError: forward exploded" in lines[0]
    assert "control flow" not in lines[0] and len(lines[0]) < 200


def test_control_flow_stays_a_capture_failure() -> None:
    res = runner.invoke(app, ["site", f"{HERE}:control_flow"])
    assert res.exit_code == 8, res.output


# -- 5. what the user's code prints goes to stderr ----------------------------------------------------


def test_site_json_is_clean_when_forward_prints() -> None:
    res = runner.invoke(app, ["site", f"{HERE}:item_only", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["target"] == "test_hostile_models:item_only"
    assert "mean" in res.stderr


# -- 6. vacuous rows say n/a --------------------------------------------------------------------------


def test_thm11_without_unsplit_objects_is_na() -> None:
    res = runner.invoke(app, ["presheaf", f"{HERE}:lstm_raw"])
    assert res.exit_code == 0, res.output
    line = _row(res.stdout, "Thm 1.1: SGD step on W(x)")
    assert " n/a " in line and " ok " not in line, line
    assert " ok " not in _row(res.stdout, "Thm 1.1: step natural along covers")


def test_presheaf_prints_no_torch_jit_deprecation_warning() -> None:
    import os
    import subprocess

    env = dict(os.environ, PYTHONWARNINGS="default")
    proc = subprocess.run(
        [sys.executable, "-m", "pybridge.cli", "presheaf", f"{HERE}:where"],
        capture_output=True, text=True, timeout=300, cwd=str(Path(HERE).parent.parent), env=env,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "path sum" in proc.stdout  # the jvp that loads torch's forward-AD decompositions ran
    assert "torch.jit.script" not in proc.stderr, proc.stderr[-2000:]


# -- 7. the fragment probe contains the user's forward ------------------------------------------------


@pytest.mark.parametrize(
    ("factory", "raised"),
    [
        ("float64_raises", "ValueError: no float64 here"),
        ("float64_exits", "SystemExit: 7"),
        ("exits_under_vmap", "SystemExit: 9"),
    ],
)
def test_fragment_probe_contains_the_forward(factory: str, raised: str) -> None:
    # before: a raise in the probe was exit 8 ("the model failed on a probe input"), and sys.exit ended
    # the process with the model's own status (7, 9)
    res = runner.invoke(app, ["fragment", f"{HERE}:{factory}", "--json"])
    assert res.exit_code == 16, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    assert lines[0].startswith(f"error: test_hostile_models:{factory}: the model's forward on a probe input")
    assert raised in lines[0], lines[0]
    assert res.stdout == ""


def test_fragment_json_is_clean_when_the_probe_prints() -> None:
    for factory in ("float64_prints", "item_only"):
        res = runner.invoke(app, ["fragment", f"{HERE}:{factory}", "--json"])
        assert res.exit_code == 0, res.output
        data = json.loads(res.stdout)  # before: the probe's prints came first on stdout
        assert data["target"] == f"test_hostile_models:{factory}"
        assert ("probe point" if factory == "float64_prints" else "mean") in res.stderr
