"""The typing rules of ``Formal.Arch``, constructor for constructor.

In Lean, ``Arch s t`` is intrinsically typed: each constructor fixes its domain and codomain from
its arguments, and ``comp f g`` only exists when the codomain of ``f`` is the domain of ``g``.
:func:`signature` computes ``(dom, cod)`` by the same rules and raises :class:`ShapeError` where
Lean's elaborator would reject the term. Run-time dimensions (names such as ``seq``) compare by name.
"""

from __future__ import annotations

from dataclasses import dataclass

from pybridge.errors import ShapeError
from pybridge.spec.shapes import CoprodShape, Dim, ProdShape, Shape, TensorShape, format_shape
from pybridge.spec.terms import (
    Add,
    CausalSoftmax,
    Comp,
    Copair,
    Copy,
    Fst,
    Id,
    LayerNorm,
    Linear,
    MatMul,
    MergeLast,
    Mul,
    Par,
    ReLU,
    RepeatInterleave,
    RmsNorm,
    Rope,
    Route,
    Scale,
    Sdpa,
    Sigmoid,
    Snd,
    Softmax,
    SplitLast,
    Term,
    Transpose,
)


@dataclass(frozen=True)
class Signature:
    """The domain and codomain of a term: ``f : Arch dom cod``."""

    dom: Shape
    cod: Shape

    def __str__(self) -> str:
        return f"{format_shape(self.dom)} -> {format_shape(self.cod)}"


def dim_mul(a: Dim, b: Dim) -> Dim:
    """``a * b`` on dimensions; symbolic when either factor is a run-time dimension."""
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    return f"{a}*{b}"


def _t(*parts: tuple[Dim, ...] | list[Dim]) -> TensorShape:
    dims: list[Dim] = []
    for part in parts:
        dims.extend(part)
    return TensorShape(dims=tuple(dims))


def _where(term: Term) -> str:
    return f"{term.loc}: " if term.loc else ""


def signature(term: Term) -> Signature:
    """``(dom, cod)`` of a term, by the typing rules of ``Formal.Arch``; raises :class:`ShapeError`."""
    match term:
        case Id(s=s):
            return Signature(s, s)
        case Comp(f=f, g=g):
            sf, sg = signature(f), signature(g)
            if sf.cod != sg.dom:
                raise ShapeError(
                    f"{_where(term)}shape mismatch in composition: the first layer outputs "
                    f"{format_shape(sf.cod)} but the second expects {format_shape(sg.dom)}"
                )
            return Signature(sf.dom, sg.cod)
        case Par(f=f, g=g):
            sf, sg = signature(f), signature(g)
            return Signature(ProdShape(a=sf.dom, b=sg.dom), ProdShape(a=sf.cod, b=sg.cod))
        case Copy(s=s):
            return Signature(s, ProdShape(a=s, b=s))
        case Fst(a=a, b=b):
            return Signature(ProdShape(a=a, b=b), a)
        case Snd(a=a, b=b):
            return Signature(ProdShape(a=a, b=b), b)
        case Add(s=s) | Mul(s=s):
            x = _t(s)
            return Signature(ProdShape(a=x, b=x), x)
        case Scale(s=s) | ReLU(s=s) | Sigmoid(s=s):
            return Signature(_t(s), _t(s))
        case Linear(pre=pre, m=m, n=n):
            return Signature(_t(pre, [m]), _t(pre, [n]))
        case Softmax(pre=pre, n=n) | LayerNorm(pre=pre, n=n):
            return Signature(_t(pre, [n]), _t(pre, [n]))
        case MatMul(pre=pre, m=m, k=k, post=post):
            return Signature(ProdShape(a=_t(pre, [m, k]), b=_t(pre, [k], post)), _t(pre, [m], post))
        case Transpose(pre=pre, a=a, b=b, post=post):
            return Signature(_t(pre, [a, b], post), _t(pre, [b, a], post))
        case SplitLast(pre=pre, a=a, b=b):
            return Signature(_t(pre, [dim_mul(a, b)]), _t(pre, [a, b]))
        case MergeLast(pre=pre, a=a, b=b):
            return Signature(_t(pre, [a, b]), _t(pre, [dim_mul(a, b)]))
        case Route(k=k, s=s):
            if isinstance(k, int) and k <= 0:
                raise ShapeError(f"{_where(term)}route needs at least one branch (hk : 0 < k), got k = {k}")
            return Signature(ProdShape(a=TensorShape(dims=(k,)), b=s), CoprodShape(k=k, a=s))
        case Copair(k=k, f=f):
            sf = signature(f)
            return Signature(CoprodShape(k=k, a=sf.dom), sf.cod)
        case CausalSoftmax(pre=pre, n=n):
            return Signature(_t(pre, [n, n]), _t(pre, [n, n]))
        case RmsNorm(pre=pre, n=n):
            return Signature(_t(pre, [n]), _t(pre, [n]))
        case Rope(pre=pre, seq=seq, k=k):
            return Signature(_t(pre, [seq, k]), _t(pre, [seq, k]))
        case RepeatInterleave(pre=pre, a=a, r=r, post=post):
            return Signature(_t(pre, [a], post), _t(pre, [dim_mul(a, r)], post))
        case Sdpa(heads=heads, seq=seq, k=k):
            x = TensorShape(dims=(heads, seq, k))
            return Signature(ProdShape(a=ProdShape(a=x, b=x), b=x), x)
    raise ShapeError(f"not a layer term: {term!r}")  # pragma: no cover - the union is closed


def check(term: Term) -> Signature:
    """Type-check a whole term and return its signature (every subterm is checked on the way)."""
    return signature(term)
