"""Strangers' models through ``site``/``presheaf``/``equivariance`` (audit 3: F4-F7, F10-F15).

The factories below are the targets (``this_file.py:factory``); each is the smallest model that showed
the finding.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from typer.testing import CliRunner

from pybridge.cli import app

HERE = str(Path(__file__).resolve())
REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()


def _x(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(1))


def _one_error_line(res: object) -> str:
    err = res.stderr  # type: ignore[attr-defined]
    assert err.count("\n") == 1 and err.startswith("error: "), err
    return err


# --- factories -------------------------------------------------------------------------------------------


class ArgMax(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l = nn.Linear(4, 4)

    def forward(self, a: torch.Tensor) -> torch.Tensor:
        return self.l(a).argmax(-1)


class Positive(nn.Module):
    def forward(self, a: torch.Tensor) -> torch.Tensor:
        return a > 0


def argmax_out() -> tuple[nn.Module, torch.Tensor]:
    return ArgMax(), _x(2, 4)


def bool_out() -> tuple[nn.Module, torch.Tensor]:
    return Positive(), _x(2, 4)


class Dropout(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l1, self.l2 = nn.Linear(4, 8), nn.Linear(8, 2)

    def forward(self, a: torch.Tensor) -> torch.Tensor:
        return self.l2(F.dropout(torch.relu(self.l1(a)), 0.5, training=True))


class Counter(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l = nn.Linear(4, 4)
        self.register_buffer("calls", torch.zeros(()))

    def forward(self, a: torch.Tensor) -> torch.Tensor:
        self.calls.add_(1)
        return self.l(a)


def dropout_train() -> tuple[nn.Module, torch.Tensor]:
    return Dropout(), _x(2, 4)


def counter() -> tuple[nn.Module, torch.Tensor]:
    return Counter(), _x(2, 4)


class TupleOut(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c = nn.Conv2d(1, 2, 3, padding=1, padding_mode="circular")

    def forward(self, a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.c(a), a.sum()


def tuple_image() -> tuple[nn.Module, torch.Tensor]:
    return TupleOut(), _x(1, 1, 8, 8)


def aniso_pool() -> tuple[nn.Module, torch.Tensor]:
    return nn.AvgPool2d((2, 1)), _x(1, 1, 8, 8)


@dataclasses.dataclass
class Out:
    y: torch.Tensor
    tag: str


class ReturnsDataclass(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l = nn.Linear(4, 4)

    def forward(self, a: torch.Tensor) -> Out:
        return Out(torch.relu(self.l(a)), "meta")


def returns_dataclass() -> tuple[nn.Module, torch.Tensor]:
    return ReturnsDataclass(), _x(2, 4)


def mha_direct() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(0)
    q = _x(1, 4, 8)
    return nn.MultiheadAttention(8, 2, batch_first=True), (q, q, q)


class Nested(nn.Module):
    def __init__(self, depth: int) -> None:
        super().__init__()
        self.l = nn.Linear(2, 2)
        self.inner = Nested(depth - 1) if depth > 0 else None

    def forward(self, a: torch.Tensor) -> torch.Tensor:
        a = self.l(a)
        return self.inner(a) if self.inner is not None else a


def slow() -> tuple[nn.Module, torch.Tensor]:
    Path(os.environ["PYBRIDGE_TEST_MARKER"]).write_text("in factory")
    time.sleep(120)
    return nn.Linear(2, 2), _x(1, 2)


# --- F6: integer or boolean outputs ------------------------------------------------------------------------


@pytest.mark.parametrize(("factory", "dtype"), [("argmax_out", "int64"), ("bool_out", "bool")])
def test_presheaf_on_an_integer_output_is_one_line_exit_8(factory: str, dtype: str) -> None:
    res = runner.invoke(app, ["presheaf", f"{HERE}:{factory}"])
    assert res.exit_code == 8, res.output  # was 70 (vector_norm on Long; bool subtraction)
    assert f"no floating-point output (its outputs are {dtype})" in _one_error_line(res)


# --- F5: a Zoo target with an empty axis -------------------------------------------------------------------


@pytest.mark.parametrize("command", [["presheaf"], ["site", "--json"]])
def test_zoo_target_with_an_empty_axis_is_exit_8(command: list[str]) -> None:
    res = runner.invoke(app, [command[0], "attention", "--param", "seq=0", *command[1:]])
    assert res.exit_code == 8, res.output  # was 0: every law "ok" on nothing
    assert "the example input has shape [2, 0, 8] and no entries" in _one_error_line(res)
    assert res.stdout == ""


# --- F7: a resolution change on one axis -------------------------------------------------------------------


def test_anisotropic_pooling_is_shift_equivariant_per_axis() -> None:
    from pybridge.site.equivariance import equivariance_report

    x = _x(1, 1, 8, 8)
    rows, whole = equivariance_report(nn.AvgPool2d((2, 1)), (x,), "shift", step=2, method="fx")
    (row,) = rows
    assert row.defect == 0.0 and "x0.5 (height), x1 (width)" in row.note  # was 1.3, "not equivariant"
    assert whole is not None and whole.kind == "equivariance" and whole.defect == 0.0
    # a stride on the width only: shifted by (2, 1)
    conv = nn.Conv2d(1, 1, (1, 2), stride=(1, 2), bias=False)
    rows, whole = equivariance_report(conv, (x,), "shift", step=2, method="fx")
    assert rows[0].defect is not None and rows[0].defect < 1e-12
    assert whole is not None and whole.defect < 1e-12
    # an odd step on the pooled axis has no integer image: n/a, not a defect
    rows, _ = equivariance_report(nn.AvgPool2d((2, 1)), (x,), "shift", step=1, method="fx")
    assert rows[0].defect is None
    # isotropic cases unchanged
    rows, whole = equivariance_report(nn.AvgPool2d(2), (x,), "shift", step=2, method="fx")
    assert rows[0].defect == 0.0 and rows[0].note == "resolution x0.5"
    assert whole is not None and whole.defect == 0.0


def test_anisotropic_pooling_on_the_command_line() -> None:
    res = runner.invoke(app, ["equivariance", f"{HERE}:aniso_pool", "--group", "shift", "--step", "2"])
    assert res.exit_code == 0, res.output
    assert "not equivariant" not in res.stdout and "holds" in res.stdout


# --- F4: vanishing references and models that are not functions -------------------------------------------


def test_relative_residuals_have_a_scale_aware_floor() -> None:
    from pybridge.site import backprop, presheaf, weights

    a, zero = torch.full((3,), 1e-3, dtype=torch.float64), torch.zeros(3, dtype=torch.float64)
    assert backprop._rel(a, zero) == 1.0  # was 1.7e+297: ‖a‖ / 1e-300
    assert backprop._rel(zero, zero) == 0.0
    assert presheaf._diff(a, zero) == 1.0 and presheaf._diff((a,), (zero,)) == 1.0
    assert weights._rel({"w": a}, {"w": zero}, 0.0) == 1.0
    assert weights._value_rel(a, zero) == 1.0
    b = a + 1e-18
    assert backprop._rel(b, a) < 1e-14  # ordinary relative errors unchanged


@pytest.mark.parametrize(
    ("factory", "message"),
    [
        ("dropout_train", "the model is not deterministic: two calls on the same input give different"),
        ("counter", "the model changes its state in forward ('calls' differs after one call)"),
    ],
)
def test_presheaf_refuses_a_model_that_is_not_a_function(factory: str, message: str) -> None:
    res = runner.invoke(app, ["presheaf", f"{HERE}:{factory}"])
    assert res.exit_code == 8, res.output  # was 9 ("8 check(s) failed"), residuals up to 3.7e+298
    assert message in _one_error_line(res)


# --- F12: the whole model's row when the output is not an image --------------------------------------------


def test_equivariance_says_why_the_whole_model_is_not_measured() -> None:
    res = runner.invoke(app, ["equivariance", f"{HERE}:tuple_image", "--group", "shift"])
    assert res.exit_code == 0, res.output
    last = res.stdout.strip().splitlines()[-1]
    assert last.split()[0] == "(model)" and "n/a (the output is a tuple, not an image tensor)" in last


# --- F10: allocation failures ------------------------------------------------------------------------------


def test_an_allocation_failure_while_copying_is_exit_14(monkeypatch: pytest.MonkeyPatch) -> None:
    from pybridge import budget, capture

    def fail(module: nn.Module, dtype: torch.dtype | None) -> nn.Module:
        raise RuntimeError("[enforce fail at alloc_cpu.cpp:118] DefaultCPUAllocator: can't allocate memory")

    monkeypatch.setattr(capture, "_copy_now", fail)
    res = runner.invoke(app, ["site", f"{HERE}:argmax_out"])
    assert res.exit_code == 14, res.output  # was 8 ("cannot copy the model")
    assert "out of memory while copying" in _one_error_line(res)
    assert budget.is_allocation_failure(MemoryError()) and not budget.is_allocation_failure(RuntimeError("x"))


# --- F11: a plain dataclass output -------------------------------------------------------------------------


def test_a_dataclass_output_is_flattened() -> None:
    res = runner.invoke(app, ["site", f"{HERE}:returns_dataclass", "--json"])
    assert res.exit_code == 0, res.output  # was 8: "returns no tensor that depends on its input"
    res = runner.invoke(app, ["presheaf", f"{HERE}:returns_dataclass"])
    assert res.exit_code == 0, res.output
    assert "path sum a -> relu (1 paths)" in res.stdout


def test_a_dataclass_output_through_the_fx_fallback() -> None:
    from pybridge.site.graph import extract

    m, x = returns_dataclass()
    g = extract(m, (x,), method="fx")  # was: "the model returns no tensor that depends on its input"
    (out,) = g.outputs
    assert torch.equal(g.values[out], m.double()(x.double()).y)


def test_flatten_tensors_reads_dataclasses() -> None:
    from pybridge.capture import flatten_tensors

    t, u = torch.ones(1), torch.zeros(1)
    assert [v is t for v in flatten_tensors(Out(t, "x"))] == [True]
    got = flatten_tensors((Out(t, "x"), {"u": u}, [None, 3]))
    assert len(got) == 2 and got[0] is t and got[1] is u


# --- F15: slices of one parameter are not shared weights ---------------------------------------------------


def test_multihead_attention_slices_are_not_shared_weights() -> None:
    res = runner.invoke(app, ["presheaf", f"{HERE}:mha_direct"])
    assert res.exit_code == 0, res.output
    assert "shared, e.g. in_proj" not in res.stdout  # was "2 shared" and a failing split row (8.8e-01)
    assert "read in disjoint slices by several layers" in res.stdout
    split = [line for line in res.stdout.splitlines() if "split shared weights" in line]
    assert split and all(" n/a " in line and "fails" not in line for line in split)


def test_tied_weights_are_still_shared() -> None:
    from pybridge.site.graph import extract
    from pybridge.site.weights import WeightPresheaf

    class Tied(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.l1, self.l2 = nn.Linear(4, 4), nn.Linear(4, 4)
            self.l2.weight = self.l1.weight

        def forward(self, a: torch.Tensor) -> torch.Tensor:
            return self.l2(torch.relu(self.l1(a)))

    W = WeightPresheaf(extract(Tied(), (_x(2, 4),), method="fx").normalized())
    assert W.shared and not W.disjoint


# --- F13: deeply nested modules ----------------------------------------------------------------------------


def test_a_deeply_nested_model_is_copied() -> None:
    from pybridge.capture import copy_model

    limit = sys.getrecursionlimit()
    model = Nested(400)
    copied = copy_model(model, torch.float64, "nested")  # was "cannot copy ... (RecursionError)"
    assert sys.getrecursionlimit() == limit
    assert copied.l.weight.dtype == torch.float64 and copied.l.weight is not model.l.weight
    depth, m = 0, copied
    while m.inner is not None:
        depth, m = depth + 1, m.inner
    assert depth == 400


# --- F14: Ctrl-C -------------------------------------------------------------------------------------------


def test_ctrl_c_during_a_slow_factory_is_exit_130(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pybridge.cli", "site", f"{HERE}:slow"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "PYBRIDGE_TEST_MARKER": str(marker)},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 240
        while not marker.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        assert marker.exists(), proc.communicate(timeout=30)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err  # was 16: "slow() failed: KeyboardInterrupt"
    assert "slow() failed" not in err
