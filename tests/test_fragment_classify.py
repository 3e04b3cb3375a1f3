"""Syntactic classification: Arch terms by path, fx graphs node by node, and the model list."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from models_fragment import MODELS
from torch import nn

from pybridge import zoo
from pybridge.errors import TargetError
from pybridge.fragment.classify import FragmentClass, classify_module, classify_term
from pybridge.spec import terms as T
from pybridge.spec.shapes import tensor

# --- Arch terms -----------------------------------------------------------------------------------


def test_constructor_classes_by_path() -> None:
    # copy ≫ ((linear ≫ relu) ⊗ (linear ≫ sigmoid)) ≫ mul
    branch_a = T.Comp(f=T.Linear(pre=(), m=3, n=2), g=T.ReLU(s=(2,)))
    branch_b = T.Comp(f=T.Linear(pre=(), m=3, n=2), g=T.Sigmoid(s=(2,)))
    term = T.Comp(f=T.Copy(s=tensor(3)), g=T.Comp(f=T.Par(f=branch_a, g=branch_b), g=T.Mul(s=(2,))))
    c = classify_term(term, "gated")
    rows = {n.node: (n.op, n.cls) for n in c.nodes}
    assert rows == {
        "0": ("copy", "PL"),
        "1.0.0.0": ("linear", "PL"),
        "1.0.0.1": ("relu", "PL"),
        "1.0.1.0": ("linear", "PL"),
        "1.0.1.1": ("sigmoid", "transcendental"),
        "1.1": ("mul", "bilinear"),
    }
    assert c.verdict.cls == "transcendental"
    assert c.verdict.offending == ("1.0.1.1", "1.1")
    assert c.verdict.degree is None


def test_arch_degree_counts_products() -> None:
    # x ↦ (x ⊙ x) ⊙ x: two muls, degree 3; relu keeps the degree
    sq = T.Comp(f=T.Copy(s=tensor(2)), g=T.Mul(s=(2,)))
    cube = T.Comp(f=T.Copy(s=tensor(2)), g=T.Comp(f=T.Par(f=sq, g=T.Id(s=tensor(2))), g=T.Mul(s=(2,))))
    c = classify_term(T.Comp(f=cube, g=T.ReLU(s=(2,))))
    assert c.verdict.cls == "bilinear"
    assert c.verdict.degree == 3


def test_root_primitive_path() -> None:
    c = classify_term(T.Route(k=2, s=tensor(3)))
    assert [(n.node, n.cls) for n in c.nodes] == [("ε", "discontinuous-PL")]


def test_pl_term_has_no_offenders() -> None:
    # linear ≫ scale(1/2) ≫ splitLast ≫ transpose ≫ mergeLast ≫ relu
    plumbing = T.Comp(
        f=T.SplitLast(pre=(), a=2, b=2),
        g=T.Comp(f=T.Transpose(pre=(), a=2, b=2, post=()), g=T.MergeLast(pre=(), a=2, b=2)),
    )
    term = T.Comp(
        f=T.Linear(pre=(), m=3, n=4),
        g=T.Comp(f=T.Scale(c=T.Rat(num=1, den=2), s=(4,)), g=T.Comp(f=plumbing, g=T.ReLU(s=(4,)))),
    )
    c = classify_term(term)
    assert c.verdict.cls == "PL" and c.verdict.offending == () and c.verdict.degree == 1
    assert len(c.nodes) == 6


# Classes a reader assigns to the Zoo layers from their Lean docstrings (not from the classifier).
ZOO_EXPECTED = {
    "mlp": ("PL", 1),
    "moe": ("discontinuous-PL", 1),
    "hyperLinear": ("bilinear", 2),
    "glu": ("transcendental", None),
    "attention": ("transcendental", None),
    "encoderBlock": ("transcendental", None),
}


def test_zoo_list_is_covered() -> None:
    # Every expectation names a Zoo layer; a layer added to the Zoo without one is not an error
    # (issue 10: adding a correct layer breaks nothing).
    assert set(ZOO_EXPECTED) <= set(zoo.layer_names())


@pytest.mark.parametrize("name", sorted(ZOO_EXPECTED))
def test_zoo_term_verdicts(name: str) -> None:
    term, _ = zoo.instantiate(name)
    v = classify_term(term, name).verdict
    assert (v.cls, v.degree) == ZOO_EXPECTED[name]


def test_zoo_attention_offenders_are_matmul_and_softmax() -> None:
    term, _ = zoo.instantiate("attention")
    c = classify_term(term)
    ops = sorted({n.op for n in c.nodes if n.node in c.verdict.offending})
    assert ops == ["matmul", "softmax"]


def test_zoo_moe_offender_is_route() -> None:
    term, _ = zoo.instantiate("moe")
    c = classify_term(term)
    assert [n.op for n in c.nodes if n.node in c.verdict.offending] == ["route"]


# --- fx graphs --------------------------------------------------------------------------------------


class _Fn(nn.Module):
    def __init__(self, fn, width: int = 3) -> None:  # type: ignore[no-untyped-def]
        super().__init__()
        self.fn = fn
        self.lin = nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fn(self, x)


def _cls(fn) -> tuple[str, int | None, tuple[str, ...]]:  # type: ignore[no-untyped-def]
    v = classify_module(_Fn(fn), 1).verdict
    return v.cls, v.degree, v.offending


def test_mul_by_constant_is_linear() -> None:
    assert _cls(lambda m, x: m.lin(x) * 3.0 + m.lin.weight.sum())[:2] == ("PL", 1)


def test_mul_of_two_activations_is_bilinear() -> None:
    assert _cls(lambda m, x: m.lin(x) * torch.relu(x)) == ("bilinear", 2, ("mul",))


def test_mask_times_activation_stays_pl_but_mask_jumps() -> None:
    cls, degree, off = _cls(lambda m, x: (x > 0).to(x.dtype) * m.lin(x))
    assert (cls, degree) == ("discontinuous-PL", 1)
    assert off == ("gt",)  # the comparison jumps; the product with a 0/1 mask is linear


def test_division_by_activation_is_not_polynomial() -> None:
    assert _cls(lambda m, x: x / (1.0 + m.lin(x) ** 2))[0] == "transcendental"
    assert _cls(lambda m, x: m.lin(x) / 4)[:2] == ("PL", 1)


def test_integer_power_is_polynomial() -> None:
    assert _cls(lambda m, x: m.lin(x) ** 3)[:2] == ("bilinear", 3)
    assert _cls(lambda m, x: m.lin(x) ** 0.5)[0] == "transcendental"


def test_topk_values_are_pl_indices_jump() -> None:
    assert _cls(lambda m, x: torch.topk(m.lin(x), 2, dim=-1)[0])[:2] == ("PL", 1)
    assert _cls(lambda m, x: x.max(dim=-1).values)[:2] == ("PL", 1)
    cls, _, off = _cls(lambda m, x: torch.gather(x, 1, torch.topk(m.lin(x), 2, dim=-1)[1]))
    assert cls == "discontinuous-PL" and "gather" in off


def test_shape_queries_do_not_count_as_activations() -> None:
    assert _cls(lambda m, x: m.lin(x).view(x.size(0), -1) * x.shape[1])[:2] == ("PL", 1)


def test_unknown_function_is_reported_not_guessed() -> None:
    cls, _, off = _cls(lambda m, x: torch.special.bessel_j0(x))
    assert cls == "unknown" and off == ("special_bessel_j0",)


def test_batchnorm_eval_is_affine_layernorm_is_not() -> None:
    bn = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3)).eval()
    assert classify_module(bn, 1).verdict.cls == "PL"
    assert classify_module(nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3)).train(), 1).verdict.cls == (
        "transcendental"
    )
    assert classify_module(nn.Sequential(nn.Linear(3, 3), nn.LayerNorm(3)), 1).verdict.cls == "transcendental"


def test_builtin_root_modules_become_one_leaf() -> None:
    c = classify_module(nn.MultiheadAttention(4, 2), 3)
    assert [(n.op, n.cls) for n in c.nodes] == [("call_module:MultiheadAttention", "transcendental")]
    assert classify_module(nn.RNN(3, 4, nonlinearity="relu"), 1).verdict.cls == "PL"
    assert classify_module(nn.RNN(3, 4), 1).verdict.cls == "transcendental"


def test_untraceable_model_is_one_line_target_error() -> None:
    factory = __import__("models_fragment").untraceable
    model, x = factory()
    with pytest.raises(TargetError) as info:
        classify_module(model, (x,), "branchy")
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith("branchy: torch.fx cannot trace this model")


def test_functional_forms() -> None:
    assert _cls(lambda m, x: F.relu(F.linear(x, m.lin.weight)))[:2] == ("PL", 1)
    assert _cls(lambda m, x: F.gelu(x))[0] == "transcendental"
    assert _cls(lambda m, x: torch.einsum("bi,bj->bij", x, m.lin(x)).flatten(1))[:2] == ("bilinear", 2)
    assert _cls(lambda m, x: torch.where(x > 0, x, m.lin(x)))[0] == "discontinuous-PL"


# --- the model list --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_verdicts_match_their_labels(name: str) -> None:
    factory, expected_cls, expected_degree = MODELS[name]
    model, x = factory()
    v = classify_module(model, (x,), name).verdict
    assert v.cls == expected_cls
    if expected_cls == "bilinear":
        assert v.degree == expected_degree
    assert (v.offending == ()) == (expected_cls == "PL")


def test_class_order() -> None:
    order = [FragmentClass.from_label(s) for s in ("PL", "discontinuous-PL", "bilinear", "transcendental")]
    assert order == sorted(order)
