"""The optimising pass: rewrites of layer terms, each one an equation that Lean proves about ``Arch.eval``.

A rewrite replaces a subterm ``L`` by a term ``R`` only where a Lean theorem states
``eval L p = eval R p'`` (``p'`` a reparametrisation of ``p`` that keeps the depth-first order of the
parametrised leaves, so the weight pairs of :func:`pybridge.torch.runtime.load_leaves` and of the
adapters load unchanged). The pass reads the names of the theorems declared in ``Formal/`` and applies
a rewrite only when its lemma, and the congruence lemmas that carry it into its context, are declared
there; every application is recorded as ``(lemma, where)``, ``where`` being the path of the rewritten
subterm from the root of the term *as it stood when the rewrite was applied* (``f``/``g`` are the two
sides of a ``≫`` or ``⊗``, ``f`` the body of a ``copair``; ``·`` is the root).

The rewrites (:data:`REWRITES`):

* ``Formal.Arch.eval_comp_assoc_symm`` (``eval_comp_assoc`` read right to left; strict: the
  realisation is the same sequence of operations):
  ``X ≫ (M ≫ R)`` becomes ``(X ≫ M) ≫ R`` where ``X ≫ M`` is an attention core, so that the next
  rewrite has its left side;
* ``Formal.Arch.attnCore_eq_sdpa`` (lax): ``(attnWeights seq heads k ⊗ id) ≫ matmul [heads] seq seq [k]``
  becomes ``sdpa heads seq k false``, realised by ``scaled_dot_product_attention``;
* ``Formal.Arch.attnCoreCausal_eq_sdpa`` (lax): the same with ``attnWeightsCausal`` (``causalSoftmax``)
  and ``sdpa heads seq k true``.

Realisation laws, not term rewrites, recorded the same way by the straight-line realisation
(:mod:`pybridge.torch.straight`): ``Formal.Arch.copair_dispatch`` (lax) for a ``copair`` run by
dispatch (each branch only on its own rows), and ``Formal.Arch.glu_stacked`` (lax) for the gated
linear unit ``copy ≫ (linear [] m n ⊗ (linear [] m n ≫ sigmoid [n])) ≫ mul [n]`` run as
``F.glu(F.linear(x, W_stacked, b_stacked), -1)``, its two weight sets stored stacked
(:class:`pybridge.torch.runtime.StackedLinear`, still two leaves in the same order). Lax means
last-bit differences from another association of the floating-point sums; :data:`LAX_TOLERANCE` is
what ``pybridge check`` allows between the two realisations.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import torch

from pybridge.errors import BridgeError
from pybridge.spec import terms as T
from pybridge.spec.shapes import TensorShape

#: Maximal absolute difference allowed between the optimised and the literal realisation under a lax
#: law, per dtype (strict laws allow none).
LAX_TOLERANCE: dict[torch.dtype, float] = {torch.float64: 1e-10, torch.float32: 1e-5}


@dataclass(frozen=True)
class Rewrite:
    """A law the optimiser uses: the Lean theorem, and whether its realisation is bit-identical."""

    lemma: str
    law: str  # "strict" or "lax"
    summary: str


ASSOC = Rewrite(
    "Formal.Arch.eval_comp_assoc_symm",
    "strict",
    "X ≫ (M ≫ R) = (X ≫ M) ≫ R (eval_comp_assoc read right to left; parameters (p, (q, r)) ↦ "
    "((p, q), r), same leaf order)",
)
ATTN_CORE = Rewrite(
    "Formal.Arch.attnCore_eq_sdpa",
    "lax",
    "(attnWeights seq heads k ⊗ id) ≫ matmul [heads] seq seq [k] = sdpa heads seq k false",
)
ATTN_CORE_CAUSAL = Rewrite(
    "Formal.Arch.attnCoreCausal_eq_sdpa",
    "lax",
    "(attnWeightsCausal seq heads k ⊗ id) ≫ matmul [heads] seq seq [k] = sdpa heads seq k true",
)
COPAIR_DISPATCH = Rewrite(
    "Formal.Arch.copair_dispatch",
    "lax",
    "copair on a batch = each row through its own branch (run by dispatch: each branch on its own rows)",
)
GLU_STACKED = Rewrite(
    "Formal.Arch.glu_stacked",
    "lax",
    "copy ≫ (linear [] m n ⊗ (linear [] m n ≫ sigmoid [n])) ≫ mul [n] with weights (W, b), (W', b') = "
    "glu of the affine map with weight stack W W' and bias stack b b' (one F.linear, then F.glu)",
)
#: Every law the optimised realisation may cite, in the order of the README table.
REWRITES: tuple[Rewrite, ...] = (ASSOC, ATTN_CORE, ATTN_CORE_CAUSAL, COPAIR_DISPATCH, GLU_STACKED)

#: Congruence lemmas that carry a rewrite into the side of a composite, product or copairing.
CONGRUENCE: dict[tuple[str, str], str] = {
    ("comp", "f"): "Formal.Arch.eval_congr_comp_left",
    ("comp", "g"): "Formal.Arch.eval_congr_comp_right",
    ("par", "f"): "Formal.Arch.eval_congr_par_left",
    ("par", "g"): "Formal.Arch.eval_congr_par_right",
    ("copair", "f"): "Formal.Arch.eval_congr_copair",
}


@dataclass
class Optimised:
    """The rewritten term and the rewrites applied, as ``(lemma, where)`` in order of application."""

    term: T.Term
    applied: list[tuple[str, str]] = field(default_factory=list)


# --- which lemmas exist -----------------------------------------------------------------------------


@cache
def _declared(root: str, stamp: tuple[tuple[str, float], ...]) -> frozenset[str]:
    from pybridge.lean.decls import declared_names, scan_file

    base = Path(root)
    modules = [scan_file(base, Path(p)) for p, _ in stamp]
    return frozenset(
        name for name, decl in declared_names(modules).items() if decl.kind == "theorem" and not decl.private
    )


def declared_theorems(root: Path | None = None) -> frozenset[str]:
    """The fully qualified names of the (non-private) theorems declared in the Lean sources under
    ``root`` (default: the checkout; none when there is no checkout), read with
    :mod:`pybridge.lean.decls` and cached while the files are unchanged."""
    from pybridge.lean.claims import find_repo_root
    from pybridge.lean.decls import lean_sources

    try:
        base = (root or find_repo_root()).resolve()
    except BridgeError:
        return frozenset()
    paths = lean_sources(base)
    stamp = tuple((p.as_posix(), p.stat().st_mtime) for p in paths)
    return _declared(base.as_posix(), stamp)


# --- the left sides ----------------------------------------------------------------------------------


def _t(*dims: object) -> TensorShape:
    return TensorShape(dims=tuple(dims))  # type: ignore[arg-type]


def attn_weights(seq: object, heads: object, k: object, causal: bool) -> T.Term:
    """The expansion of ``Arch.attnWeights seq heads k`` (``attnWeightsCausal`` when ``causal``) as the
    reader produces it from ``Formal/Network/Derived.lean``."""
    last: T.Term
    if causal:
        last = T.CONSTRUCTORS["causalSoftmax"](pre=(heads,), n=seq)  # type: ignore[call-arg]
    else:
        last = T.Softmax(pre=(heads, seq), n=seq)  # type: ignore[arg-type]
    return T.Comp(
        f=T.Par(
            f=T.Id(s=_t(heads, seq, k)),  # type: ignore[arg-type]
            g=T.Transpose(pre=(heads,), a=seq, b=k, post=()),  # type: ignore[arg-type]
        ),
        g=T.Comp(
            f=T.MatMul(pre=(heads,), m=seq, k=k, post=(seq,)),  # type: ignore[arg-type]
            g=T.Comp(f=T.Scale(c=T.InvSqrt(n=k), s=(heads, seq, seq)), g=last),  # type: ignore[arg-type]
        ),
    )


def attn_core(seq: object, heads: object, k: object, causal: bool) -> T.Term:
    """The left side of ``attnCore_eq_sdpa`` (``attnCoreCausal_eq_sdpa`` when ``causal``):
    ``(attnWeights seq heads k ⊗ id) ≫ matmul [heads] seq seq [k]``."""
    return T.Comp(
        f=T.Par(f=attn_weights(seq, heads, k, causal), g=T.Id(s=_t(heads, seq, k))),  # type: ignore[arg-type]
        g=T.MatMul(pre=(heads,), m=seq, k=seq, post=(k,)),  # type: ignore[arg-type]
    )


def _core_params(x: T.Term, m: T.Term) -> tuple[object, object, object] | None:
    """``(heads, seq, k)`` when ``x ≫ m`` has the shape of an attention core, else None."""
    if not (isinstance(m, T.MatMul) and len(m.pre) == 1 and len(m.post) == 1 and m.m == m.k):
        return None
    if not isinstance(x, T.Par):
        return None
    return m.pre[0], m.m, m.post[0]


def match_core(x: T.Term, m: T.Term, lemmas: frozenset[str]) -> tuple[Rewrite, T.Term] | None:
    """The rewrite and right side for ``x ≫ m`` when it is an attention core whose lemma is declared."""
    found = _core_params(x, m)
    if found is None:
        return None
    heads, seq, k = found
    for causal, rule in ((False, ATTN_CORE), (True, ATTN_CORE_CAUSAL)):
        if rule.lemma not in lemmas:
            continue
        if causal and "causalSoftmax" not in T.CONSTRUCTORS:
            continue
        if T.Comp(f=x, g=m) == attn_core(seq, heads, k, causal):
            return rule, T.Sdpa(heads=heads, seq=seq, k=k, causal=causal)  # type: ignore[arg-type]
    return None


# --- the pass ---------------------------------------------------------------------------------------


def _join(path: str, step: str) -> str:
    return step if path == "·" else f"{path}.{step}"


def optimise(term: T.Term, lemmas: Iterable[str] | None = None) -> Optimised:
    """Apply the rewrites whose lemmas are in ``lemmas`` (default: :func:`declared_theorems`) everywhere
    in ``term``, outermost first, descending into a side only where its congruence lemma is declared.
    The parametrised leaves keep their depth-first order (every left side here is parameter-free)."""
    known = frozenset(declared_theorems() if lemmas is None else lemmas)
    out = Optimised(term)
    out.term = _rewrite(term, "·", known, out.applied)
    return out


def _rewrite(term: T.Term, path: str, lemmas: frozenset[str], applied: list[tuple[str, str]]) -> T.Term:
    if isinstance(term, T.Comp):
        hit = match_core(term.f, term.g, lemmas)
        if hit is not None:
            rule, rhs = hit
            applied.append((rule.lemma, path))
            return rhs.model_copy(update={"loc": term.loc})
        if isinstance(term.g, T.Comp) and ASSOC.lemma in lemmas and CONGRUENCE[("comp", "f")] in lemmas:
            hit = match_core(term.f, term.g.f, lemmas)
            if hit is not None:
                rule, rhs = hit
                applied.append((ASSOC.lemma, path))
                applied.append((rule.lemma, _join(path, "f")))
                rest = _descend(term.g.g, _join(path, "g"), ("comp", "g"), lemmas, applied)
                return T.Comp(f=rhs, g=rest, loc=term.loc)
        return T.Comp(
            f=_descend(term.f, _join(path, "f"), ("comp", "f"), lemmas, applied),
            g=_descend(term.g, _join(path, "g"), ("comp", "g"), lemmas, applied),
            loc=term.loc,
        )
    if isinstance(term, T.Par):
        return T.Par(
            f=_descend(term.f, _join(path, "f"), ("par", "f"), lemmas, applied),
            g=_descend(term.g, _join(path, "g"), ("par", "g"), lemmas, applied),
            loc=term.loc,
        )
    if isinstance(term, T.Copair):
        body = _descend(term.f, _join(path, "f"), ("copair", "f"), lemmas, applied)
        return T.Copair(k=term.k, f=body, loc=term.loc)
    return term


def _descend(
    term: T.Term, path: str, side: tuple[str, str], lemmas: frozenset[str], applied: list[tuple[str, str]]
) -> T.Term:
    if CONGRUENCE[side] not in lemmas:
        return term
    return _rewrite(term, path, lemmas, applied)
