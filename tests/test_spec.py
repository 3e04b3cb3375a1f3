"""Typing rules of the Python mirror of ``Formal.Arch`` (pybridge.spec)."""

from __future__ import annotations

import pydantic
import pytest

from pybridge.errors import ShapeError
from pybridge.spec import (
    CONSTRUCTORS,
    Add,
    CausalSoftmax,
    Comp,
    Copair,
    CoprodShape,
    Copy,
    Fst,
    Id,
    InvSqrt,
    LayerNorm,
    Linear,
    MatMul,
    MergeLast,
    Mul,
    Par,
    ProdShape,
    Rat,
    ReLU,
    RmsNorm,
    Route,
    Scale,
    Sdpa,
    Sigmoid,
    Snd,
    Softmax,
    SplitLast,
    TensorShape,
    Term,
    Transpose,
    signature,
)
from pybridge.spec.terms import RepeatInterleave, Rope


def t(*dims: int | str) -> TensorShape:
    return TensorShape(dims=tuple(dims))


# Each constructor's (domain, codomain), written out by hand from Formal/Network/Arch.lean.
CASES = [
    (Id(s=t(3)), t(3), t(3)),
    (Copy(s=t(2, 5)), t(2, 5), ProdShape(a=t(2, 5), b=t(2, 5))),
    (Fst(a=t(1), b=t(2)), ProdShape(a=t(1), b=t(2)), t(1)),
    (Snd(a=t(1), b=t(2)), ProdShape(a=t(1), b=t(2)), t(2)),
    (Add(s=(4,)), ProdShape(a=t(4), b=t(4)), t(4)),
    (Mul(s=(4, 2)), ProdShape(a=t(4, 2), b=t(4, 2)), t(4, 2)),
    (Scale(c=Rat(num=-1, den=2), s=(3,)), t(3), t(3)),
    (Linear(pre=("seq",), m=8, n=5), t("seq", 8), t("seq", 5)),
    (ReLU(s=(7,)), t(7), t(7)),
    (Sigmoid(s=(7,)), t(7), t(7)),
    (Softmax(pre=(2, 3), n=3), t(2, 3, 3), t(2, 3, 3)),
    (LayerNorm(pre=(5,), n=8, eps=Rat(num=1, den=100000)), t(5, 8), t(5, 8)),
    (MatMul(pre=(2,), m=5, k=4, post=(5,)), ProdShape(a=t(2, 5, 4), b=t(2, 4, 5)), t(2, 5, 5)),
    (MatMul(pre=(), m=3, k=4, post=()), ProdShape(a=t(3, 4), b=t(4)), t(3)),
    (Transpose(pre=(2,), a=5, b=4, post=()), t(2, 5, 4), t(2, 4, 5)),
    (Transpose(pre=(), a="seq", b=2, post=(4,)), t("seq", 2, 4), t(2, "seq", 4)),
    (SplitLast(pre=(5,), a=2, b=4), t(5, 8), t(5, 2, 4)),
    (MergeLast(pre=(5,), a=2, b=4), t(5, 2, 4), t(5, 8)),
    (Route(k=3, s=t(4)), ProdShape(a=t(3), b=t(4)), CoprodShape(k=3, a=t(4))),
    (Copair(k=3, f=Linear(pre=(), m=4, n=2)), CoprodShape(k=3, a=t(4)), t(2)),
    (CausalSoftmax(pre=(2,), n=5), t(2, 5, 5), t(2, 5, 5)),
    (CausalSoftmax(pre=(), n="seq"), t("seq", "seq"), t("seq", "seq")),
    (RmsNorm(pre=("seq",), n=8, eps=Rat(num=1, den=1000000)), t("seq", 8), t("seq", 8)),
    (Rope(pre=(4,), seq="seq", k=6, base=10000), t(4, "seq", 6), t(4, "seq", 6)),
    (RepeatInterleave(pre=(), a=2, r=3, post=("seq", 4)), t(2, "seq", 4), t(6, "seq", 4)),
    (
        Sdpa(heads=2, seq="seq", k=4, causal=True),
        ProdShape(a=ProdShape(a=t(2, "seq", 4), b=t(2, "seq", 4)), b=t(2, "seq", 4)),
        t(2, "seq", 4),
    ),
]


@pytest.mark.parametrize(("term", "dom", "cod"), CASES, ids=[c[0].kind + str(i) for i, c in enumerate(CASES)])
def test_constructor_signatures(term: Term, dom: object, cod: object) -> None:
    sig = signature(term)
    assert (sig.dom, sig.cod) == (dom, cod)


def test_every_lean_constructor_is_covered() -> None:
    # the constructors of `inductive Arch`, in order (20, then this round's appended ones)
    assert list(CONSTRUCTORS) == [
        "id",
        "comp",
        "par",
        "copy",
        "fst",
        "snd",
        "add",
        "mul",
        "scale",
        "linear",
        "relu",
        "sigmoid",
        "softmax",
        "layerNorm",
        "matmul",
        "transpose",
        "splitLast",
        "mergeLast",
        "route",
        "copair",
        "causalSoftmax",
        "rmsNorm",
        "rope",
        "repeatInterleave",
        "sdpa",
    ]
    covered = {case[0].kind for case in CASES} | {"comp", "par"}
    assert covered == set(CONSTRUCTORS)


def test_composition_checks_the_middle_shape() -> None:
    ok = Comp(f=Linear(pre=(), m=4, n=16), g=ReLU(s=(16,)))
    assert str(signature(ok)) == "[4] -> [16]"
    with pytest.raises(ShapeError, match=r"outputs \[16\] but the second expects \[15\]"):
        signature(Comp(f=Linear(pre=(), m=4, n=16), g=ReLU(s=(15,))))


def test_mismatch_deep_inside_is_found() -> None:
    bad = Par(f=Id(s=t(1)), g=Comp(f=Copy(s=t(2)), g=Add(s=(3,))))
    with pytest.raises(ShapeError):
        signature(bad)


def test_runtime_dimensions_compare_by_name() -> None:
    with pytest.raises(ShapeError):
        signature(Comp(f=Linear(pre=("seq",), m=2, n=2), g=ReLU(s=("len", 2))))


def test_route_needs_a_branch() -> None:
    with pytest.raises(ShapeError, match="0 < k"):
        signature(Route(k=0, s=t(2)))


def test_terms_are_immutable_and_roundtrip_through_json() -> None:
    term = Comp(f=Scale(c=InvSqrt(n=4), s=(2,)), g=Copair(k=2, f=Linear(pre=(), m=2, n=2)))
    with pytest.raises(pydantic.ValidationError):
        term.f = Id(s=t(2))  # type: ignore[misc]
    again = pydantic.TypeAdapter(Term).validate_json(term.model_dump_json())
    assert again == term
    assert InvSqrt(n=4).value() == 0.5 and Rat(num=-3, den=4).value() == -0.75
    assert InvSqrt(n=0).value() == 0.0 and Rat(num=1, den=0).value() == 0.0  # Lean's x / 0 = 0


def test_negative_dimensions_are_rejected() -> None:
    with pytest.raises(pydantic.ValidationError):
        Linear(pre=(), m=-1, n=2)
