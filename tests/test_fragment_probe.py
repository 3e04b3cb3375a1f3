"""The numerical probe: closed forms first, then the model list and the Zoo, where syntax and probe
must agree."""

from __future__ import annotations

import pytest
import torch
from models_fragment import MODELS, Map
from torch import nn

from pybridge import zoo
from pybridge.fragment.classify import classify_module, classify_term
from pybridge.fragment.probe import dyadic, dyadic_model, probe, probe_line
from pybridge.fragment.report import agree

H = 2.0**-10  # the default fine step


def _line(fn, x: list[float], v: list[float], **kw):  # type: ignore[no-untyped-def]
    base = torch.tensor([x], dtype=torch.float64)
    direction = torch.tensor([v], dtype=torch.float64)
    return probe_line(Map(fn), (base,), (direction,), **kw)


# --- closed forms ------------------------------------------------------------------------------------


def test_relu_kinks_are_counted_exactly() -> None:
    # x + t v = 0 at t = -0.5 and t = 0.25 (fine grid points: one non-zero stencil each), at t = -3
    # (outside [-2, 2]: none) and at t = 3·2⁻¹¹ (dyadic, between two grid points: two stencils)
    r = _line(torch.relu, [0.5, -0.25, 3.0, -3 * 2.0**-11], [1.0, 1.0, 1.0, 1.0])
    assert r.kinks_fine == 1 + 1 + 0 + 2
    assert r.exact_zeros_fine == r.stencils_fine - r.kinks_fine  # dyadic: the rest are exactly 0.0
    assert r.d2_exponent is None and r.jump_ratio == 1 / 8


def test_square_second_difference_is_2h2() -> None:
    r = _line(lambda x: x * x, [0.375], [0.5])
    # D = (x + (t+h)v)² − 2(x + tv)² + (x + (t−h)v)² = 2h²v², at every t
    assert r.d2_median_fine == 2 * H * H * 0.25
    assert r.kinks_fine == r.stencils_fine
    assert r.degree == 2 and r.d2_exponent == pytest.approx(2.0, abs=1e-9)


def test_cube_has_degree_three() -> None:
    r = _line(lambda x: x**3 - x, [0.25], [1.0])
    assert r.degree == 3


def test_exp_is_not_polynomial_and_d_scales_like_h2() -> None:
    r = _line(torch.exp, [0.0], [0.5])
    assert r.degree is None
    assert r.d2_exponent == pytest.approx(2.0, abs=0.01)


def test_step_jumps() -> None:
    r = _line(lambda x: (x > 0).to(x.dtype) + 0.5 * x, [0.1], [1.0])
    assert r.jump_ratio == pytest.approx(1.0, abs=0.01)
    assert r.kinks_fine == 2


def test_dyadic_rounding() -> None:
    t = torch.tensor([0.3, -1.7, 0.01, 2.9], dtype=torch.float64)
    d = dyadic(t, bits=4)
    scaled = d * 2.0 ** (4 - 1 - 1)  # max |t| = 2.9 ∈ [2, 4): unit 2^-2
    assert torch.equal(scaled, torch.round(scaled))
    assert float((d - t).abs().max()) <= 2.0**-3
    model = nn.Linear(3, 2)
    before = model.weight.detach().clone()
    copy = dyadic_model(model)
    assert torch.equal(model.weight, before) and model.weight.dtype == torch.float32
    assert copy.weight.dtype == torch.float64


def test_homogeneity_of_bias_free_relu_net() -> None:
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 5, bias=False), nn.ReLU(), nn.Linear(5, 2, bias=False))
    p = probe(net, (torch.randn(2, 3),))
    assert p.cls == "PL" and p.homogeneity == 1


# --- models: syntax and probe agree -----------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(MODELS))
def test_models_syntax_and_probe_agree(name: str) -> None:
    factory, expected_cls, expected_degree = MODELS[name]
    model, x = factory()
    syntax = classify_module(model, (x,), name)
    measured = probe(model, (x,), name=name)
    assert measured.cls == expected_cls, measured
    assert syntax.verdict.cls == expected_cls
    assert agree(syntax, measured)
    if expected_cls in ("PL", "discontinuous-PL"):
        # PL: the second differences vanish except at a few kinks, exactly (dyadic data)
        for line in measured.lines:
            assert line.kinks_fine <= 0.1 * line.stencils_fine
            assert line.exact_zeros_fine == line.stencils_fine - line.kinks_fine
    else:
        assert measured.d2_exponent == pytest.approx(2.0, abs=0.1)
    if expected_cls == "bilinear":
        assert measured.degree == expected_degree == syntax.verdict.degree
        assert measured.homogeneity == expected_degree  # bias-free: f(2x) = 2^d f(x) exactly
    if expected_cls == "discontinuous-PL":
        assert measured.jump_ratio > 0.9
    else:
        assert measured.jump_ratio == pytest.approx(1 / 8, abs=0.02)


@pytest.mark.parametrize("name", zoo.layer_names())
def test_zoo_syntax_and_probe_agree(name: str) -> None:
    term, _ = zoo.instantiate(name)
    syntax = classify_term(term, name)
    model, x = zoo.build_example(name)
    measured = probe(model, x, name=name)
    assert agree(syntax, measured), (syntax.verdict, measured.cls, measured.degree)
    # the compiled module, read by fx, gives the same verdict as the Lean term
    assert classify_module(model, x, name).verdict.cls == syntax.verdict.cls


def test_probe_is_seeded() -> None:
    model, x = MODELS["mlp"][0]()
    assert probe(model, (x,), seed=3) == probe(model, (x,), seed=3)
    assert probe(model, (x,), seed=3).lines != probe(model, (x,), seed=4).lines
