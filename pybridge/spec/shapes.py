"""Shapes, mirroring ``Formal.Shape`` (``Formal/Network/Shape.lean``).

A dimension is a natural number, or a symbolic name for a dimension that is only known at run time
(an implicit binder of a Zoo layer, such as the sequence length ``seq``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

#: A dimension: a natural number, or the name of a run-time dimension.
Dim = Annotated[int, Field(ge=0)] | str


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TensorShape(_Frozen):
    """``Shape.tensor dims``: a tensor with the given dimensions."""

    kind: Literal["tensor"] = "tensor"
    dims: tuple[Dim, ...]


class ProdShape(_Frozen):
    """``Shape.prod a b``: a pair of values."""

    kind: Literal["prod"] = "prod"
    a: Shape
    b: Shape


class CoprodShape(_Frozen):
    """``Shape.coprod k a``: a value of ``a`` tagged with one of ``k`` branches."""

    kind: Literal["coprod"] = "coprod"
    k: Dim
    a: Shape


Shape = Annotated[TensorShape | ProdShape | CoprodShape, Field(discriminator="kind")]

ProdShape.model_rebuild()
CoprodShape.model_rebuild()


def format_dims(dims: tuple[Dim, ...]) -> str:
    """``[seq, 8]``."""
    return "[" + ", ".join(str(d) for d in dims) + "]"


def format_shape(shape: Shape) -> str:
    """A compact rendering: ``[seq, 8]``, ``([4] × [4])``, ``(3 · [4])`` for a 3-fold coproduct."""
    if isinstance(shape, TensorShape):
        return format_dims(shape.dims)
    if isinstance(shape, ProdShape):
        return f"({format_shape(shape.a)} × {format_shape(shape.b)})"
    return f"({shape.k} · {format_shape(shape.a)})"


def tensor(*dims: Dim) -> TensorShape:
    """Shorthand for ``TensorShape(dims=dims)``."""
    return TensorShape(dims=tuple(dims))
