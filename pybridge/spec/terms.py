"""Layer terms, one class per constructor of ``Formal.Arch`` (``Formal/Network/Arch.lean``).

The class names are the Lean constructor names in Python style (``Arch.comp`` is :class:`Comp`,
``Arch.layerNorm`` is :class:`LayerNorm`); the fields are the constructor's explicit arguments in the
same order. Terms are immutable pydantic models, so they serialise to JSON (``pybridge show --json``)
and compare by value. Typing rules are in :mod:`pybridge.spec.typing`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from pybridge.spec.shapes import Dim, Shape


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --- constants (``Formal.Const``) -----------------------------------------------------------------


class Rat(_Frozen):
    """``Const.rat num den``: the rational ``num / den``."""

    kind: Literal["rat"] = "rat"
    num: int
    den: Annotated[int, Field(ge=0)]

    def value(self) -> float:
        """The constant as a float (``0`` for ``den = 0``, the field convention ``x / 0 = 0``)."""
        return self.num / self.den if self.den else 0.0


class InvSqrt(_Frozen):
    """``Const.invSqrt n``: ``1 / √n``."""

    kind: Literal["invSqrt"] = "invSqrt"
    n: Dim

    def value(self) -> float:
        """The constant as a float (``0`` for ``n = 0``, as ``inv 0 = 0`` in Lean)."""
        if not isinstance(self.n, int):
            raise ValueError(f"invSqrt of the run-time dimension {self.n!r} has no value yet")
        return 1.0 / self.n**0.5 if self.n else 0.0


Const = Annotated[Rat | InvSqrt, Field(discriminator="kind")]


# --- terms ------------------------------------------------------------------------------------------


class _Term(_Frozen):
    #: ``file:line`` of the Lean source this term came from, when it came from one. It is metadata:
    #: not serialised, not shown, and not part of equality.
    loc: str | None = Field(default=None, exclude=True, repr=False)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.model_dump() == other.model_dump()  # type: ignore[union-attr]

    def __hash__(self) -> int:
        return hash(self.model_dump_json())


class Id(_Term):
    """``Arch.id s``."""

    kind: Literal["id"] = "id"
    s: Shape


class Comp(_Term):
    """``Arch.comp f g``, written ``f ≫ g``: first ``f``, then ``g``."""

    kind: Literal["comp"] = "comp"
    f: Term
    g: Term


class Par(_Term):
    """``Arch.par f g``, written ``f ⊗ g``."""

    kind: Literal["par"] = "par"
    f: Term
    g: Term


class Copy(_Term):
    """``Arch.copy s``: ``x ↦ (x, x)``."""

    kind: Literal["copy"] = "copy"
    s: Shape


class Fst(_Term):
    """``Arch.fst a b``."""

    kind: Literal["fst"] = "fst"
    a: Shape
    b: Shape


class Snd(_Term):
    """``Arch.snd a b``."""

    kind: Literal["snd"] = "snd"
    a: Shape
    b: Shape


class Add(_Term):
    """``Arch.add s``: entrywise sum."""

    kind: Literal["add"] = "add"
    s: tuple[Dim, ...]


class Mul(_Term):
    """``Arch.mul s``: entrywise product."""

    kind: Literal["mul"] = "mul"
    s: tuple[Dim, ...]


class Scale(_Term):
    """``Arch.scale c s``."""

    kind: Literal["scale"] = "scale"
    c: Const
    s: tuple[Dim, ...]


class Linear(_Term):
    """``Arch.linear pre m n``: affine map ``[*pre, m] → [*pre, n]``."""

    kind: Literal["linear"] = "linear"
    pre: tuple[Dim, ...]
    m: Dim
    n: Dim


class ReLU(_Term):
    """``Arch.relu s``."""

    kind: Literal["relu"] = "relu"
    s: tuple[Dim, ...]


class Sigmoid(_Term):
    """``Arch.sigmoid s``."""

    kind: Literal["sigmoid"] = "sigmoid"
    s: tuple[Dim, ...]


class Softmax(_Term):
    """``Arch.softmax pre n``: softmax over the last axis."""

    kind: Literal["softmax"] = "softmax"
    pre: tuple[Dim, ...]
    n: Dim


class LayerNorm(_Term):
    """``Arch.layerNorm pre n eps``."""

    kind: Literal["layerNorm"] = "layerNorm"
    pre: tuple[Dim, ...]
    n: Dim
    eps: Const


class MatMul(_Term):
    """``Arch.matmul pre m k post``: ``[*pre, m, k] × [*pre, k, *post] → [*pre, m, *post]``."""

    kind: Literal["matmul"] = "matmul"
    pre: tuple[Dim, ...]
    m: Dim
    k: Dim
    post: tuple[Dim, ...]


class Transpose(_Term):
    """``Arch.transpose pre a b post``: ``[*pre, a, b, *post] → [*pre, b, a, *post]``."""

    kind: Literal["transpose"] = "transpose"
    pre: tuple[Dim, ...]
    a: Dim
    b: Dim
    post: tuple[Dim, ...]


class SplitLast(_Term):
    """``Arch.splitLast pre a b``: ``[*pre, a * b] → [*pre, a, b]``."""

    kind: Literal["splitLast"] = "splitLast"
    pre: tuple[Dim, ...]
    a: Dim
    b: Dim


class MergeLast(_Term):
    """``Arch.mergeLast pre a b``: ``[*pre, a, b] → [*pre, a * b]``."""

    kind: Literal["mergeLast"] = "mergeLast"
    pre: tuple[Dim, ...]
    a: Dim
    b: Dim


class Route(_Term):
    """``Arch.route k hk s``: ``([k] × s) → (k · s)``, tagging with the first arg-max (``hk : 0 < k``)."""

    kind: Literal["route"] = "route"
    k: Dim
    s: Shape


class Copair(_Term):
    """``Arch.copair k f``: ``k`` independently parametrised copies of ``f``, one per tag."""

    kind: Literal["copair"] = "copair"
    k: Dim
    f: Term


class CausalSoftmax(_Term):
    """``Arch.causalSoftmax pre n``: on each ``[n, n]`` block, row ``i`` is the softmax of its entries
    ``j ≤ i``, and ``0`` at ``j > i``."""

    kind: Literal["causalSoftmax"] = "causalSoftmax"
    pre: tuple[Dim, ...]
    n: Dim


class RmsNorm(_Term):
    """``Arch.rmsNorm pre n eps``: ``x * inv (sqrt (mean (x²) + eps)) * γ`` over the last axis."""

    kind: Literal["rmsNorm"] = "rmsNorm"
    pre: tuple[Dim, ...]
    n: Dim
    eps: Const


class Rope(_Term):
    """``Arch.rope pre seq k base``: rotary position embedding on each ``[seq, k]`` block of
    ``[*pre, seq, k]`` ("rotate half" convention), position = index on the ``seq`` axis."""

    kind: Literal["rope"] = "rope"
    pre: tuple[Dim, ...]
    seq: Dim
    k: Dim
    base: Dim


class RepeatInterleave(_Term):
    """``Arch.repeatInterleave pre a r post``: ``[*pre, a, *post] → [*pre, a * r, *post]``, entry ``c``
    of the repeated axis is entry ``c / r`` of the input (``torch.repeat_interleave``)."""

    kind: Literal["repeatInterleave"] = "repeatInterleave"
    pre: tuple[Dim, ...]
    a: Dim
    r: Dim
    post: tuple[Dim, ...]


class Sdpa(_Term):
    """``Arch.sdpa heads seq k causal``: fused attention ``((Q, K), V) ↦ softmax(Q Kᵀ · (1/√k)) V`` per
    head (causal-softmax rows when ``causal``), on ``[heads, seq, k]`` tensors. The optimiser
    (:mod:`pybridge.torch.optimize`) introduces it; Zoo files do not write it."""

    kind: Literal["sdpa"] = "sdpa"
    heads: Dim
    seq: Dim
    k: Dim
    causal: bool


Term = Annotated[
    (
        Id
        | Comp
        | Par
        | Copy
        | Fst
        | Snd
        | Add
        | Mul
        | Scale
        | Linear
        | ReLU
        | Sigmoid
        | Softmax
        | LayerNorm
        | MatMul
        | Transpose
        | SplitLast
        | MergeLast
        | Route
        | Copair
        | CausalSoftmax
        | RmsNorm
        | Rope
        | RepeatInterleave
        | Sdpa
    ),
    Field(discriminator="kind"),
]

for _cls in (Comp, Par, Copair):
    _cls.model_rebuild()

#: Lean constructor name (``Arch.<name>``) → Python class, in the order of the Lean inductive.
CONSTRUCTORS: dict[str, type[_Term]] = {
    "id": Id,
    "comp": Comp,
    "par": Par,
    "copy": Copy,
    "fst": Fst,
    "snd": Snd,
    "add": Add,
    "mul": Mul,
    "scale": Scale,
    "linear": Linear,
    "relu": ReLU,
    "sigmoid": Sigmoid,
    "softmax": Softmax,
    "layerNorm": LayerNorm,
    "matmul": MatMul,
    "transpose": Transpose,
    "splitLast": SplitLast,
    "mergeLast": MergeLast,
    "route": Route,
    "copair": Copair,
    "causalSoftmax": CausalSoftmax,
    "rmsNorm": RmsNorm,
    "rope": Rope,
    "repeatInterleave": RepeatInterleave,
    "sdpa": Sdpa,
}


def children(term: _Term) -> tuple[_Term, ...]:
    """The immediate subterms (``f, g`` of a composite, ``f`` of a copairing)."""
    if isinstance(term, Comp | Par):
        return (term.f, term.g)
    if isinstance(term, Copair):
        return (term.f,)
    return ()


def walk(term: _Term) -> Iterator[_Term]:
    """All subterms, depth first, parents before children, left to right."""
    yield term
    for child in children(term):
        yield from walk(child)
