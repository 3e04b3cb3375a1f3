"""Jumps in the fragment probe: a steep continuous PL map is PL, a real step is discontinuous-PL.

The probe used to call a line discontinuous when ``max|Δf|`` at ``h`` over the same at ``8h`` was at
least 1/2. A ramp narrower than ``h`` (``relu(1e4·x) − relu(1e4·x − 1)``, width 1e-4 < h ≈ 1e-3) rises
by its full height within one stencil at both steps, so that ratio is 1, exactly as at a jump; and a
jump beside a slope steeper than ``1/h`` gave a ratio under 1/2. A jump is now confirmed by bisecting
the stencil where it sits: a jump keeps its size at every step, a ramp's difference shrinks with it.
"""

from __future__ import annotations

import pytest
import torch
from models_fragment import Map
from torch import nn

from pybridge.fragment.classify import classify_module
from pybridge.fragment.probe import probe, probe_line
from pybridge.fragment.report import agree


def ramp(x: torch.Tensor) -> torch.Tensor:
    """0 below 0, 1 above 1e-4, linear (slope 1e4) between: continuous and PL."""
    return torch.relu(1e4 * x) - torch.relu(1e4 * x - 1)


def steep_clamp(x: torch.Tensor) -> torch.Tensor:
    return torch.clamp(3e4 * x, -1.0, 1.0)


def _line(fn, x: list[float], v: list[float]):  # type: ignore[no-untyped-def]
    base = torch.tensor([x], dtype=torch.float64)
    return probe_line(Map(fn), (base,), (torch.tensor([v], dtype=torch.float64),))


def _crossings(x: list[float], v: list[float]) -> int:
    """Points of ``[-2, 2]`` where a coordinate of ``x + t·v`` is 0 (a step there is a jump)."""
    return sum(1 for xi, vi in zip(x, v, strict=True) if vi != 0 and -2 <= -xi / vi <= 2)


X, V = [0.3, -0.7, 1.1, 5.0], [0.5, 1.0, -0.75, 1.0]  # zeros at t = -0.6, 0.7, 1.47; none for 5 + t


@pytest.mark.parametrize("fn", [ramp, steep_clamp], ids=["ramp", "clamp"])
def test_steep_ramp_reads_like_a_jump_but_has_none(fn) -> None:  # type: ignore[no-untyped-def]
    r = _line(fn, X, V)
    assert r.jump_ratio > 0.9  # the old statistic: "discontinuous"
    assert r.jumps == 0, r


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: (x > 0).to(x.dtype),
        torch.sign,
        lambda x: torch.heaviside(x, torch.tensor(0.5, dtype=x.dtype)),
    ],
    ids=["gt", "sign", "heaviside"],
)
def test_steps_are_confirmed_jumps(fn) -> None:  # type: ignore[no-untyped-def]
    r = _line(fn, X, V)
    assert r.jumps == _crossings(X, V) == 3, r


def test_small_jump_beside_a_steep_slope() -> None:
    # slope 500 along the line: |Δf| = 500·h ≈ 0.49 at h, ≈ 3.9 at 8h; the jump of 1 at x = 0.3 adds 1 to
    # one stencil: the old ratio (1 + 0.49) / (1 + 3.9) ≈ 0.3 called the map continuous
    def f(x: torch.Tensor) -> torch.Tensor:
        return 500.0 * x + (x > 0.3).to(x.dtype)

    r = _line(f, [0.0], [1.0])
    assert r.jump_ratio < 0.5
    assert r.jumps == 1, r


def test_steep_ramp_beside_a_small_jump() -> None:
    # the ramp's |Δf| (100) dwarfs the jump's (1) at every step: both are bisected, the jump is kept
    def f(x: torch.Tensor) -> torch.Tensor:
        return 100.0 * ramp(x[..., :1]) + (x[..., 1:] > 0).to(x.dtype)

    r = _line(f, [0.25, -0.5], [1.0, 1.0])
    assert r.jumps == 1, r


class SteepRamp(nn.Module):
    """A continuous PL model: a ramp of width 1e-4 per coordinate after a linear layer."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ramp(self.lin(x))


class Step(SteepRamp):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (self.lin(x) > 0).to(x.dtype)


class Sign(SteepRamp):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sign(self.lin(x))


class Heaviside(SteepRamp):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.lin(x)
        return torch.heaviside(h, torch.zeros((), dtype=h.dtype))


def _model(cls: type[nn.Module]) -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    return cls(), torch.randn(2, 4, generator=torch.Generator().manual_seed(1))


def test_steep_pl_model_is_pl_and_agrees_with_the_syntax() -> None:
    model, x = _model(SteepRamp)
    p = probe(model, (x,))
    assert p.jump_ratio > 0.9  # the old probe said discontinuous-PL here, against the syntax
    assert p.cls == "PL" and p.jumps == 0, p
    syntax = classify_module(model, (x,))
    assert syntax.verdict.cls == "PL" and agree(syntax, p) is True


@pytest.mark.parametrize("cls", [Step, Sign, Heaviside])
def test_step_models_stay_discontinuous(cls: type[nn.Module]) -> None:
    model, x = _model(cls)
    p = probe(model, (x,))
    assert p.cls == "discontinuous-PL" and p.jumps >= 1, p
    syntax = classify_module(model, (x,))
    assert syntax.verdict.cls == "discontinuous-PL" and agree(syntax, p) is True


def test_cli_reports_a_steep_pl_model_as_pl() -> None:
    from typer.testing import CliRunner

    from pybridge.cli import app

    res = CliRunner().invoke(app, ["fragment", f"{__file__}:steep_ramp"])
    assert res.exit_code == 0, res.output
    assert "probe verdict:  PL (" in res.stdout and "steep but no jump (bisected to h = 2^-40)" in res.stdout
    assert "agree: yes" in res.stdout


def steep_ramp() -> tuple[nn.Module, torch.Tensor]:
    return _model(SteepRamp)
