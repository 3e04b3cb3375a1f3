"""The fragment probe on the third audit's stranger models (each case failed before its fix).

* F1: a map that is polynomial between kinks (``x·relu(x)``, ``relu(x)²``, hardswish) was
  "transcendental (degree ∞, homogeneous of degree 2)", against the syntax's ``bilinear (degree 2)``:
  the degree test ran across the kinks. The probe now also tests the degree piece by piece.
* F2/F3: the tolerances were absolute (``S = max|f| + 1``): ``tanh(Wx)·1e-8`` read as PL, and a
  ReLU network with outputs near ``1e-26`` as "degree 0". ``S`` is now ``max|f|`` (floored at
  ``2⁻⁹⁷⁰``).
* F4: dropout in training mode, a random gate or a buffer updated in ``forward`` gave a verdict on
  noise; the probe now stops with a one-line error (exit 8).
* F11: a plain ``@dataclass`` output was "no floating-point output".
"""

from __future__ import annotations

import dataclasses

import pytest
import torch
import torch.nn.functional as F
from models_fragment import Map
from torch import nn
from typer.testing import CliRunner

from pybridge.capture import capture
from pybridge.cli import app
from pybridge.errors import TargetError
from pybridge.fragment.classify import classify_captured
from pybridge.fragment.probe import probe
from pybridge.fragment.report import FragmentReport, agree, render_text

runner = CliRunner()


def _syntax(model: nn.Module, x: torch.Tensor, name: str = "model"):  # type: ignore[no-untyped-def]
    """The syntax verdict as ``pybridge fragment`` computes it (torch.export, core ATen)."""
    return classify_captured(capture(model, (x,), name), (x,), name)


def _x() -> torch.Tensor:
    return torch.randn(2, 4, generator=torch.Generator().manual_seed(1))


# --- F1: piecewise polynomial ------------------------------------------------------------------------

PIECEWISE = {
    "x_relu_x": lambda a: a * torch.relu(a),
    "relu_sq": lambda a: torch.relu(a) ** 2,
    "hardswish": lambda a: F.hardswish(a * 4),
    "relu6_hardswish": lambda a: F.relu6(a) + F.hardtanh(a) + F.leaky_relu(a, 0.1) + F.hardswish(a),
}


@pytest.mark.parametrize("name", sorted(PIECEWISE))
def test_piecewise_polynomial_is_bilinear_on_pieces(name: str) -> None:
    model, x = Map(PIECEWISE[name]), _x()
    p = probe(model, (x,), name=name)
    # before: cls "transcendental", degree None (and agree False)
    assert (p.cls, p.degree, p.piecewise) == ("bilinear", 2, True), p
    syntax = _syntax(model, x, name)
    assert (syntax.verdict.cls, syntax.verdict.degree) == ("bilinear", 2)
    assert agree(syntax, p) is True
    text = render_text(FragmentReport(target=name, syntax=syntax, probe=p, agree=agree(syntax, p)))
    assert "degree 2 on each piece between kinks (piecewise polynomial)" in text
    assert "degree ∞" not in text and "agree: yes" in text


def test_global_polynomials_and_smooth_maps_keep_their_verdicts() -> None:
    x = _x()
    cube = probe(Map(lambda a: a**3 + a * a), (x,))
    assert (cube.cls, cube.degree, cube.piecewise) == ("bilinear", 3, False)
    for fn in (torch.tanh, lambda a: torch.sqrt(a.abs() + 1), lambda a: 1.0 / (a * a + 1.0), F.gelu):
        p = probe(Map(fn), (x,))
        assert (p.cls, p.degree, p.piecewise) == ("transcendental", None, False), p


def test_homogeneous_non_polynomial_message_is_not_contradictory() -> None:
    # the norm is positively homogeneous of degree 1 and not polynomial: "degree ∞, homogeneous of
    # degree 1" read as a contradiction
    model, x = Map(lambda a: torch.linalg.vector_norm(a, dim=-1)), _x()
    p = probe(model, (x,))
    assert p.cls == "transcendental" and p.homogeneity == 1
    text = render_text(FragmentReport(target="norm", syntax=_syntax(model, x), probe=p,
                                      agree=None))
    assert "homogeneous of degree" not in text
    assert "f(2x) = 2^1·f(x) (positively homogeneous, not polynomial)" in text


# --- F2/F3: relative tolerances ----------------------------------------------------------------------


class TinyTanh(nn.Module):
    def __init__(self, factor: float) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.factor = factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.lin(x)) * self.factor


class TinyRelu(TinyTanh):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.lin(x)) * self.factor


@pytest.mark.parametrize("factor", [1e-8, 1e-26, 1e-200])
def test_tiny_tanh_is_transcendental(factor: float) -> None:
    torch.manual_seed(0)
    p = probe(TinyTanh(factor), (_x(),))
    assert p.cls == "transcendental", p  # before: PL (degree 1 at 1e-8, degree 0 at 1e-26)


@pytest.mark.parametrize("factor", [1e-26, 1e-200])
def test_tiny_relu_net_has_degree_one(factor: float) -> None:
    torch.manual_seed(0)
    p = probe(TinyRelu(factor), (_x(),))
    assert (p.cls, p.degree) == ("PL", 1), p  # before: "degree 0, homogeneous of degree 0"


@pytest.mark.parametrize("value", [0.0, 3.0, 1e-30])
def test_constant_map_is_pl_of_degree_zero(value: float) -> None:
    p = probe(Map(lambda a: torch.full((3,), value, dtype=a.dtype) + 0 * a.sum()), (_x(),))
    assert (p.cls, p.degree, p.kinks) == ("PL", 0, 0), p


# --- F4: not a function ------------------------------------------------------------------------------


class DropTrain(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.dropout(torch.relu(self.lin(x)), 0.5, training=True)


class RandomGate(DropTrain):
    def forward(self, x: torch.Tensor) -> torch.Tensor:  # stochastic depth, in eval mode too
        for _ in range(8):
            if torch.rand(()) < 0.5:
                x = x + 0.25 * x.flip(-1)
        return torch.relu(self.lin(x))


class Counter(DropTrain):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("n", torch.zeros(()))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.n.add_(1.0)
        return torch.relu(self.lin(x))  # the output does not even read the counter


class BatchNormTrain(DropTrain):
    def __init__(self) -> None:
        super().__init__()
        self.bn = nn.BatchNorm1d(8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.bn.train()
        return torch.relu(self.bn(self.lin(x)))


def drop_train() -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    return DropTrain(), _x()


def random_gate() -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    return RandomGate(), _x()


def counter() -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    return Counter(), _x()


def bn_train() -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    return BatchNormTrain(), torch.randn(5, 4, generator=torch.Generator().manual_seed(1))


@pytest.mark.parametrize(
    ("factory", "says"),
    [
        (drop_train, "not a deterministic function of its input: two calls at the same point gave "
                     "different outputs"),
        (random_gate, "not a deterministic function of its input"),
        (counter, "its forward changes its own state ('n' changed by one call"),
        (bn_train, "its forward changes its own state ('bn.running_mean', 'bn.running_var', "
                   "'bn.num_batches_tracked' changed by one call, e.g. a buffer updated in forward or "
                   "BatchNorm in training mode)"),
    ],
)
def test_a_model_that_is_not_a_function_is_refused(factory, says: str) -> None:  # type: ignore[no-untyped-def]
    model, x = factory()
    with pytest.raises(TargetError, match="call model.eval()") as err:
        probe(model, (x,))  # before: a verdict ("transcendental") read off noise
    assert says in str(err.value)


@pytest.mark.parametrize("factory", ["drop_train", "random_gate", "counter"])
def test_cli_exit_8_one_line(factory: str) -> None:
    res = runner.invoke(app, ["fragment", f"{__file__}:{factory}"])
    assert res.exit_code == 8, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: test_fragment_audit3:{factory}: the model is not")
    assert "model.eval()" in lines[0]


def test_a_deterministic_model_still_probes() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.BatchNorm1d(8), nn.ReLU())  # train mode
    p = probe(model, (_x(),))  # the probe's copy is in eval mode: a function
    assert p.cls == "PL"
    assert model.training and int(model[2].num_batches_tracked) == 0  # the caller's module untouched


# --- F11: dataclass outputs --------------------------------------------------------------------------


@dataclasses.dataclass
class Out:
    y: torch.Tensor
    extra: object = None


class ReturnsDataclass(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> Out:
        return Out(torch.relu(self.lin(x)), "meta")


def test_dataclass_output_is_probed() -> None:
    torch.manual_seed(0)
    p = probe(ReturnsDataclass(), (_x(),))  # before: "no floating-point output to probe"
    assert (p.cls, p.degree) == ("PL", 1)


def test_unreadable_output_names_its_type() -> None:
    with pytest.raises(TargetError, match=r"it returns a str: no floating tensor in it"):
        probe(Map(lambda a: "text"), (_x(),))
    with pytest.raises(TargetError, match=r"it returns a int64 tensor of shape \[2\]"):
        probe(Map(lambda a: a.argmax(-1)), (_x(),))
