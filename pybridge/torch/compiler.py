"""The compiler from :mod:`pybridge.spec` terms to ``nn.Module`` trees.

:func:`realize` maps a term to a tree of constructor calls of :mod:`pybridge.torch.runtime`, one per
Lean constructor; :func:`compile_term` instantiates that tree in this process, and the emitter renders
the same tree as source. Both paths therefore build the same modules.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import torch

from pybridge.errors import ShapeError
from pybridge.spec import terms as T
from pybridge.spec.shapes import Dim
from pybridge.torch import runtime


@dataclass(frozen=True)
class Call:
    """``cls(*args, *children, **kw)`` for a class of :mod:`pybridge.torch.runtime`.

    ``args`` are literals, rendered with ``repr`` (``source`` overrides the rendering of one argument,
    e.g. ``1 / math.sqrt(4)``); ``params`` says whether the class takes ``device``/``dtype``;
    ``list_children`` passes the children as one list (``Copair``).
    """

    cls: str
    args: tuple[object, ...] = ()
    children: tuple[Call, ...] = ()
    params: bool = False
    list_children: bool = False
    source: tuple[str | None, ...] = ()
    lean: str = ""


def _int(d: Dim, what: str, term: T.Term) -> int:
    if not isinstance(d, int):
        where = f"{term.loc}: " if term.loc else ""
        raise ShapeError(f"{where}{what} is the run-time dimension {d!r}; pass it with --param {d}=N")
    return d


def _const(c: T.Const) -> tuple[float, str]:
    if isinstance(c, T.Rat):
        return c.value(), f"{c.num} / {c.den}" if c.den else "0.0"
    if not isinstance(c.n, int):
        raise ShapeError(f"the constant 1/sqrt({c.n}) depends on a run-time dimension")
    return c.value(), (f"1 / math.sqrt({c.n})" if c.n else "0.0")


def realize(term: T.Term) -> Call:
    """The constructor-call tree that realises ``term`` (one runtime class per Lean constructor)."""
    match term:
        case T.Id():
            return Call("Id", lean="id")
        case T.Comp(f=f, g=g):
            return Call("Comp", children=(realize(f), realize(g)), lean="comp")
        case T.Par(f=f, g=g):
            return Call("Par", children=(realize(f), realize(g)), lean="par")
        case T.Copy():
            return Call("Copy", lean="copy")
        case T.Fst():
            return Call("Fst", lean="fst")
        case T.Snd():
            return Call("Snd", lean="snd")
        case T.Add():
            return Call("Add", lean="add")
        case T.Mul():
            return Call("Mul", lean="mul")
        case T.Scale(c=c):
            value, src = _const(c)
            return Call("Scale", args=(value,), source=(src,), lean="scale")
        case T.Linear(m=m, n=n):
            return Call(
                "Linear",
                args=(_int(m, "the input width", term), _int(n, "the output width", term)),
                params=True,
                lean="linear",
            )
        case T.ReLU():
            return Call("ReLU", lean="relu")
        case T.Sigmoid():
            return Call("Sigmoid", lean="sigmoid")
        case T.Softmax():
            return Call("Softmax", lean="softmax")
        case T.LayerNorm(n=n, eps=eps):
            value, src = _const(eps)
            return Call(
                "LayerNorm",
                args=(_int(n, "the normalised width", term), value),
                source=(None, src),
                params=True,
                lean="layerNorm",
            )
        case T.MatMul(post=post):
            return Call("MatMul", args=(len(post),), lean="matmul")
        case T.Transpose(post=post):
            return Call("Transpose", args=(len(post),), lean="transpose")
        case T.SplitLast(a=a, b=b):
            return Call(
                "SplitLast",
                args=(_int(a, "the split size", term), _int(b, "the split size", term)),
                lean="splitLast",
            )
        case T.MergeLast():
            return Call("MergeLast", lean="mergeLast")
        case T.Route():
            return Call("Route", lean="route")
        case T.Copair(k=k, f=f):
            n = _int(k, "the number of branches", term)
            return Call(
                "Copair", children=tuple(realize(f) for _ in range(n)), list_children=True, lean="copair"
            )
        case T.CausalSoftmax():
            return Call("CausalSoftmax", lean="causalSoftmax")
        case T.RmsNorm(n=n, eps=eps):
            value, src = _const(eps)
            return Call(
                "RmsNorm",
                args=(_int(n, "the normalised width", term), value),
                source=(None, src),
                params=True,
                lean="rmsNorm",
            )
        case T.Rope(k=k, base=base):
            base_ = _int(base, "the rotary base", term)
            if base_ <= 0:
                where = f"{term.loc}: " if term.loc else ""
                raise ShapeError(f"{where}the rotary base must be positive (log of {base_} has no value)")
            return Call("Rope", args=(_int(k, "the rotated width", term), base_), lean="rope")
        case T.RepeatInterleave(r=r, post=post):
            return Call(
                "RepeatInterleave",
                args=(_int(r, "the repeat count", term), len(post)),
                lean="repeatInterleave",
            )
        case T.Sdpa(k=k, causal=causal):
            kk = _int(k, "the head width", term)
            return Call(
                "Sdpa",
                args=(kk, causal),
                source=(None, None),
                lean="sdpa",
            )
    raise ShapeError(f"cannot realise {term!r}")  # pragma: no cover - the union is closed


def instantiate_call(
    call: Call, device: torch.device | str | None, dtype: torch.dtype | None
) -> torch.nn.Module:
    """Build the modules of a call tree."""
    cls = getattr(runtime, call.cls)
    children = [instantiate_call(c, device, dtype) for c in call.children]
    kw = {"device": device, "dtype": dtype} if call.params else {}
    if call.list_children:
        return cls(children, *call.args, **kw)
    return cls(*call.args, *children, **kw)


def compile_term(
    term: T.Term,
    *,
    dtype: torch.dtype = torch.float32,
    device: torch.device | str | None = None,
    literal: bool = False,
) -> torch.nn.Module:
    """An ``nn.Module`` computing ``term`` (batch-first), with freshly initialised weights.

    ``literal=False`` (default): the optimised straight-line realisation
    (:mod:`pybridge.torch.straight`, rewrites of :mod:`pybridge.torch.optimize` whose Lean lemmas are
    declared in ``Formal/``). ``literal=True``: the tree of runtime modules, one per constructor. Both
    have the same parametrised leaves in the same depth-first order (the same pairs load into both);
    the module's ``lean_rewrites`` lists the laws applied, ``(lemma, where)`` (empty when literal).
    """
    if literal:
        module = instantiate_call(realize(term), device, dtype)
        module.lean_rewrites = ()
        return module
    from pybridge.torch.straight import build

    return build(term, dtype=dtype, device=device)


def leaf_count(term: T.Term) -> int:
    """How many ``(weight, bias)`` sets the realisation of ``term`` has (depth-first leaves; an
    ``rmsNorm``'s set is ``(weight, None)``)."""
    return sum(1 for _ in _leaf_terms(term))


def _leaf_terms(term: T.Term) -> Iterator[T.Term]:
    if isinstance(term, T.Linear | T.LayerNorm | T.RmsNorm):
        yield term
    elif isinstance(term, T.Copair):
        for _ in range(_int(term.k, "the number of branches", term)):
            yield from _leaf_terms(term.f)
    else:
        for child in T.children(term):
            yield from _leaf_terms(child)
