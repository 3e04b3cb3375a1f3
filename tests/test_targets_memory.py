"""The memory limit (``--max-memory``, exit 14) on what the model commands allocate, for every target.

* Zoo layers were counted from their term, but a ``file.py:factory`` model was not counted at all: the
  float64 copy that ``site``/``presheaf``/``equivariance``/``fragment`` make, the activations that
  ``site`` records and the probe's grids now count against the same limit, and the probe batches fewer
  points when the limit leaves room for fewer.
* Dimensions of at most 2^62 each whose product overflows a 64-bit byte count used to reach PyTorch
  under a large ``--max-memory`` ("Storage size calculation overflowed", exit 70): any request beyond
  2^63 bytes is now exit 14 before anything is allocated.

The factories below are the targets (``this_file.py:factory``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch import nn
from typer.testing import CliRunner

from pybridge import budget
from pybridge.cli import app
from pybridge.errors import ResourceLimitError

HERE = str(Path(__file__).resolve())
runner = CliRunner()


class Wide(nn.Module):
    """No weights; one point's forward allocates two tensors of ``width * 1000`` float64 entries."""

    def __init__(self, times: int = 1000) -> None:
        super().__init__()
        self.times = times

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x.repeat(1, self.times)).sum(dim=1, keepdim=True)


def big_linear():
    torch.manual_seed(0)
    return nn.Linear(1000, 1000), torch.randn(2, 1000)


def wide():
    return Wide(), torch.randn(1, 1000, generator=torch.Generator().manual_seed(0))


@pytest.fixture(autouse=True)
def _no_limit():
    budget.set_limit(None)
    yield
    budget.set_limit(None)


def _one_error_line(res) -> str:  # type: ignore[no-untyped-def]
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.output
    assert "internal error" not in lines[0] and "Traceback" not in res.output
    return lines[0]


# --- 1. factory targets count against --max-memory ---------------------------------------------------

#: Linear(1000, 1000) copied to float64: 1000·1000 + 1000 parameters of 8 bytes; its float32 input
#: [2, 1000] in float64; one nn.Module object of MODULE_BYTES (4096). Worked out by hand.
BIG_LINEAR_COPY = (1000 * 1000 + 1000) * 8 + 2 * 1000 * 8 + 4096


@pytest.mark.parametrize(
    "command", [["site"], ["presheaf"], ["fragment"], ["equivariance", "--group", "shift"]]
)
def test_factory_copy_counts_against_the_limit(command: list[str]) -> None:
    below = runner.invoke(
        app, ["--max-memory", str(BIG_LINEAR_COPY - 1), command[0], f"{HERE}:big_linear", *command[1:]]
    )
    assert below.exit_code == 14, below.output  # before: exit 0, nothing counted
    line = _one_error_line(below)
    assert line.startswith("error: copying test_targets_memory:big_linear to float64"), line
    assert "would need 7.7 MiB (weights 7.6 MiB, 1 modules), more than --max-memory (7.7 MiB)" in line, line


def test_factory_copy_estimate_is_exact() -> None:
    model, x = big_linear()
    est = budget.model_estimate(model, (x,))
    assert (est.weights, est.activations, est.modules) == ((1000 * 1000 + 1000) * 8, 2 * 1000 * 8, 1)
    assert est.total == BIG_LINEAR_COPY
    budget.set_limit(BIG_LINEAR_COPY)
    budget.require(est, "copying")  # exactly at the limit: allowed
    budget.set_limit(BIG_LINEAR_COPY - 1)
    with pytest.raises(ResourceLimitError):
        budget.require(est, "copying")


def test_tied_parameters_count_once() -> None:
    enc, dec = nn.Linear(8, 4, bias=False), nn.Linear(4, 8, bias=False)
    dec.weight = nn.Parameter(enc.weight.t())  # not tied: a new tensor
    tied = nn.Sequential(nn.Linear(8, 8, bias=False), nn.Linear(8, 8, bias=False))
    tied[1].weight = tied[0].weight
    assert budget.model_estimate(tied).weights == 64 * 8


@pytest.mark.parametrize("command", ["site", "presheaf"])
def test_factory_recorded_activations_count(command: str) -> None:
    # the copy (1000 inputs + 3 modules: a few KiB) fits in 1 MiB; the recorded run holds two float64
    # tensors of 1000 * 1000 entries (the repeat and the relu), 16 MB: refused before running
    res = runner.invoke(app, ["--max-memory", "1M", command, f"{HERE}:wide"])
    assert res.exit_code == 14, res.output  # before: exit 0
    line = _one_error_line(res)
    assert "recording the activations of test_targets_memory:wide (float64) would need" in line, line
    assert "at least" not in line  # counted from torch.export's shapes, before running
    ok = runner.invoke(app, ["--max-memory", "64M", command, f"{HERE}:wide"])
    assert ok.exit_code == 0, ok.output


def test_fx_fallback_counts_activations_as_they_are_recorded() -> None:
    from pybridge.site.graph import extract

    model, x = wide()
    budget.set_limit(1024 * 1024)
    with pytest.raises(ResourceLimitError, match=r"recording the activations of wide \(float64\) would need "
                       r"at least"):
        extract(model, (x,), "wide", method="fx")  # fx has no shapes: stopped after the first big node
    budget.set_limit(64 * 1024 * 1024)
    graph = extract(model, (x,), "wide", method="fx")
    assert graph.values[graph.outputs[0]].shape == (1, 1)


def test_probe_grid_counts_against_the_limit() -> None:
    # attention with seq=64, d_model=64: the output has 2 * 64 * 64 entries, and a line's 4097 points
    # times that in float64, 4 copies alive, is 4 * 4097 * 8192 * 8 bytes = 1.0 GiB
    res = runner.invoke(
        app, ["--max-memory", "200M", "fragment", "attention", "-p", "seq=64", "-p", "d_model=64"]
    )
    assert res.exit_code == 14, res.output  # before: the probe ran, allocating over a GiB
    line = _one_error_line(res)
    assert "probing attention along lines of 4097 points would need 1.0 GiB" in line, line
    res = runner.invoke(app, ["--max-memory", "2M", "fragment", f"{HERE}:wide"])
    assert res.exit_code == 14, res.output
    assert "probing test_targets_memory:wide along lines of 4097 points" in _one_error_line(res)


def test_probe_batches_fewer_points_under_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    probe_module = importlib.import_module("pybridge.fragment.probe")  # the package exports probe()

    model = Wide(times=256)  # one point allocates 2 * 64 * 256 float64 entries, 256 KiB
    x = torch.randn(1, 64, generator=torch.Generator().manual_seed(0))
    sizes: list[int] = []
    original = probe_module._Evaluator._vmapped

    def spy(self, dirs, ts):  # type: ignore[no-untyped-def]
        sizes.append(ts.numel())
        return original(self, dirs, ts)

    monkeypatch.setattr(probe_module._Evaluator, "_vmapped", spy)
    free = probe_module.probe(model, (x,), lines=1)
    assert max(sizes) == 512
    sizes.clear()
    budget.set_limit(4 * 1024 * 1024)  # room for about 15 points beside the grid
    tight = probe_module.probe(model, (x,), lines=1)
    assert 1 <= max(sizes) <= 16, max(sizes)
    assert tight == free  # the same measurements, in smaller batches


# --- 2. a shape whose byte count overflows 64 bits is exit 14, never a torch overflow ---------------

_BIG_LEAN = """import Formal.Network.Derived

namespace Big

open Formal
open scoped Formal.Arch

/-- ReLU on a [2^32, 2^32] tensor: each dimension fits, the product (2^64 entries) does not.

Example: `a=4294967296 b=4294967296` -/
def bigRelu (a b : Nat) : Arch (.tensor [a, b]) (.tensor [a, b]) :=
  Arch.relu [a, b]

end Big
"""


@pytest.mark.parametrize(
    "args",
    [
        ["check", "{lean}:bigRelu"],
        ["site", "{lean}:bigRelu"],
        ["site", "mlp", "--param", "d_in=10000000000", "--param", "d_hidden=10000000000",
         "--param", "d_out=1"],
    ],
)
def test_overflowing_shapes_are_a_memory_error(tmp_path: Path, args: list[str]) -> None:
    lean = tmp_path / "Big.lean"
    lean.write_text(_BIG_LEAN, encoding="utf-8")
    argv = ["--max-memory", "999999999999999T", *(a.format(lean=lean) for a in args)]
    res = runner.invoke(app, argv)
    # before: exit 70, "internal error (RuntimeError: Storage size calculation overflowed ...)"
    assert res.exit_code == 14, res.output
    line = _one_error_line(res)
    assert "more than PyTorch can address (2^63 bytes); choose smaller dimensions" in line, line


def test_require_refuses_beyond_2_63_bytes_whatever_the_limit() -> None:
    budget.set_limit(10**30)
    budget.require(budget.Estimate(2**63 - 1 - 4096, 0, 1), "at the bound")  # 2^63 - 1 bytes: allowed
    with pytest.raises(ResourceLimitError, match=r"more than PyTorch can address \(2\^63 bytes\)"):
        budget.require(budget.Estimate(2**63 - 4096, 0, 1), "one byte more")
    budget.set_limit(2**40)  # a smaller limit is named as the bound
    with pytest.raises(ResourceLimitError, match=r"more than --max-memory \(1\.0 TiB\)"):
        budget.require(budget.Estimate(2**70, 0, 0), "far beyond")
