"""The activity presheaf X^w on the poset X (Belfiore & Bennequin §1.2-1.3).

``F(v)`` is the space of activations of layer ``v``; ``F(A) = ∏ F(a'_i)`` for the fork object ``A`` of a
join with tips ``a'_i`` (the sheaf condition at the tang ``A*``, transported to X). The restriction maps
along the generating relations of X (orientation of :mod:`pybridge.site.fork`: restriction goes down, i.e.
along the data flow) are

* ``v <= u`` (``v`` reads ``u``): ``F(u) -> F(v)``, the layer ``v`` itself (:meth:`LayerGraph.evaluate`);
* ``a'_i <= A`` (a tine composed with its tang): the projection ``F(A) -> F(a'_i)``;
* ``a <= A`` (the handle): ``F(A) -> F(a)``, the join ``a`` applied to the tuple.

A *section* over the Hasse diagram is a family ``s_x ∈ F(x)`` with ``F(x <= y)(s_y) = s_x`` for every
covering relation and each generating relation that realises it. :func:`check_section` tests the
recorded forward pass; :func:`propagate` builds the section from the inputs alone, using only the
restriction maps of covering relations, and reports whether it is unique (every fork object ``A`` is
glued from projections onto all its tips) and reproduces ``model(x)``.

On a raw residual site the tine ``f(s) <= A`` is not a covering relation (``f(s) < s < A``), so no
covering relation pins the first factor of ``F(A)``: the section is *not* determined by the inputs.
:func:`propagate` then exhibits two different sections that agree on the inputs (the negative control).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from pybridge.errors import SiteError
from pybridge.site.fork import Arrow, Poset, Site
from pybridge.site.graph import LayerGraph

#: Relative tolerance of the section and reproduction checks in float64 (recomputing the same ops:
#: equal up to floating-point reassociation, i.e. "lax").
SECTION_RTOL = 1e-10


def _norm(value: Any) -> float:
    if isinstance(value, torch.Tensor):
        return float(value.detach().double().norm())
    return sum(_norm(v) ** 2 for v in value) ** 0.5


def _diff(a: Any, b: Any) -> float:
    """Relative difference ``‖a - b‖ / ‖b‖`` of tensors or tuples of tensors (0 when ``a == b``); when the
    reference ``b`` vanishes against ``a`` (``‖b‖ < 1e-12 ‖a‖``) it is relative to ``‖a‖`` instead, never
    ``x / 1e-300``."""
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape:
            return float("inf")
        a, b = a.detach().double(), b.detach().double()
        num = float((a - b).norm())
        return 0.0 if num == 0.0 else num / _denominator(float(a.norm()), float(b.norm()))
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        num = (
            sum(
                float((x.detach().double() - y.detach().double()).norm()) ** 2
                for x, y in zip(a, b, strict=True)
            )
            ** 0.5
        )
        return 0.0 if num == 0.0 else num / _denominator(_norm(a), _norm(b))
    return float("inf")


def _denominator(norm_a: float, norm_b: float) -> float:
    """``‖b‖``, or ``‖a‖`` when ``‖b‖`` is below ``1e-12 ‖a‖`` (a vanishing reference)."""
    return norm_b if norm_b >= 1e-12 * norm_a else norm_a


class ActivityPresheaf:
    """The activity presheaf of a layer graph with semantics (from :func:`pybridge.site.graph.extract`)."""

    def __init__(self, graph: LayerGraph) -> None:
        if graph.program is None:
            raise SiteError("the activity presheaf needs a traced model, not a hand-built graph")
        self.graph = graph
        self.site = Site(graph)
        self.poset: Poset = self.site.poset()
        self.objects = self.site.objects

    def restrict(self, chain: tuple[Arrow, ...], value: Any) -> Any:
        """The restriction map of a generating relation of X (an arrow, or a tine followed by its tang)."""
        first = chain[0]
        lower = self.objects[first.src]
        if first.kind == "layer":
            return self.graph.evaluate(lower.name, [value])
        if first.kind == "tine":
            return value[first.index]
        if first.kind == "handle":
            return self.graph.evaluate(lower.name, list(value))
        raise SiteError(f"no restriction map for an arrow of kind {first.kind!r}")

    def recorded(self) -> dict[str, Any]:
        """The recorded forward pass as a family over X: activations, and tuples of tips at fork objects."""
        out: dict[str, Any] = {}
        for name in self.poset.names:
            o = self.objects[self.site.index[name]]
            if o.kind == "fork":
                out[name] = tuple(self.graph.values[u] for u in self.graph.nodes[o.layer].preds)
            else:
                out[name] = self.graph.values[name]
        return out


@dataclass(frozen=True)
class SectionCheck:
    """Worst relative residual of ``F(x <= y)(s_y) = s_x`` over all covering relations and realisers."""

    relations: int
    worst: float
    worst_at: str | None
    tolerance: float

    @property
    def ok(self) -> bool:
        """All residuals within the tolerance."""
        return self.worst <= self.tolerance


@torch.no_grad()
def check_section(pre: ActivityPresheaf, family: dict[str, Any], rtol: float = SECTION_RTOL) -> SectionCheck:
    """Check that ``family`` is a section over the Hasse diagram of X."""
    worst, worst_at, count = 0.0, None, 0
    P = pre.poset
    for lo, hi in P.covers:
        for chain in P.realisers[(lo, hi)]:
            count += 1
            r = _diff(pre.restrict(chain, family[P.names[hi]]), family[P.names[lo]])
            if worst_at is None or r > worst:
                worst, worst_at = r, f"{P.names[hi]} -> {P.names[lo]}"
    return SectionCheck(relations=count, worst=worst, worst_at=worst_at, tolerance=rtol)


@dataclass(frozen=True)
class Propagation:
    """The outcome of building a section from the inputs with the covering relations' maps."""

    unique: bool
    free: tuple[str, ...]  # "A[join] factor i (tip)" for each factor no covering relation pins
    section: SectionCheck
    reproduces_model: float | None  # worst relative error against model(x) in float64; None if not unique
    alternative_section: SectionCheck | None  # a second section agreeing on the inputs (when not unique)
    alternative_output_gap: float | None  # relative gap between the two sections' outputs
    #: The free factors the alternative section actually perturbs: floating-point factors with at least
    #: one entry. Boolean and integer factors (masks, indices) and factors with no entries are kept as
    #: recorded, so when this is empty the two sections coincide and the control shows nothing.
    perturbed: tuple[str, ...] = ()


@torch.no_grad()
def propagate(
    pre: ActivityPresheaf,
    inputs: dict[str, torch.Tensor],
    *,
    reference: list[torch.Tensor] | None = None,
    rtol: float = SECTION_RTOL,
) -> Propagation:
    """Build the section from ``inputs`` using only covering relations, and test its uniqueness.

    A non-fork element takes its value from a known upper cover; a fork object ``A`` is glued when every
    factor of ``F(A)`` is pinned by a covering relation ``a'_i <= A`` realised by the projection ``i``.
    If some factor is pinned by none, the section is not unique: the factor is filled once with the
    recorded activation and once perturbed (+1), and both families are checked to be sections. Only
    floating-point factors with entries are perturbed (:attr:`Propagation.perturbed`); a boolean or
    integer factor (a mask, an index) keeps its recorded value, since adding 1 would change its dtype.
    ``reference`` (the model's own outputs, in the order of ``graph.outputs``) is compared with the
    propagated outputs.
    """
    P = pre.poset
    recorded = pre.recorded()

    def run(fill: float | None) -> tuple[dict[str, Any], list[str], list[str]]:
        values: dict[str, Any] = dict(inputs)
        free: list[str] = []
        perturbed: list[str] = []
        upper: list[list[tuple[int, tuple[Arrow, ...]]]] = [[] for _ in range(P.n)]
        pins: dict[int, dict[int, int]] = {}
        for lo, hi in P.covers:
            for chain in P.realisers[(lo, hi)]:
                upper[lo].append((hi, chain))
                if chain[0].kind == "tine":
                    pins.setdefault(hi, {}).setdefault(chain[0].index, lo)
        changed = True
        forced: set[int] = set()
        while changed:
            changed = False
            for x in range(P.n):
                name = P.names[x]
                if name in values:
                    continue
                if P.kinds[x] == "fork":
                    preds = pre.graph.nodes[pre.objects[pre.site.index[name]].layer].preds
                    pin = pins.get(x, {})
                    if all(i in pin and P.names[pin[i]] in values for i in range(len(preds))):
                        values[name] = tuple(values[P.names[pin[i]]] for i in range(len(preds)))
                        changed = True
                    elif fill is not None and x not in forced and all(P.names[pin[i]] in values for i in pin):
                        parts = []
                        for i, u in enumerate(preds):
                            if i in pin:
                                parts.append(values[P.names[pin[i]]])
                            else:
                                label = f"{name} factor {i} ({u})"
                                free.append(label)
                                part = recorded[name][i]
                                if (
                                    isinstance(part, torch.Tensor)
                                    and part.is_floating_point()
                                    and part.numel() > 0
                                ):
                                    perturbed.append(label)
                                    part = part + fill
                                parts.append(part)
                        values[name] = tuple(parts)
                        forced.add(x)
                        changed = True
                    continue
                for hi, chain in upper[x]:
                    if P.names[hi] in values:
                        values[name] = pre.restrict(chain, values[P.names[hi]])
                        changed = True
                        break
        return values, free, perturbed

    values, _, _ = run(None)
    missing = [n for n in P.names if n not in values]
    if not missing:
        sec = check_section(pre, values, rtol)
        gap = None
        if reference is not None:
            got = [values[o] for o in pre.graph.outputs]
            gap = max((_diff(g, r) for g, r in zip(got, reference, strict=True)), default=0.0)
        return Propagation(True, (), sec, gap, None, None)
    base, free, _ = run(0.0)
    alt, _, perturbed = run(1.0)
    sec = (
        check_section(pre, base, rtol)
        if all(n in base for n in P.names)
        else SectionCheck(0, float("inf"), missing[0], rtol)
    )
    alt_sec = check_section(pre, alt, rtol) if all(n in alt for n in P.names) else None
    gap = None
    if all(o in base and o in alt for o in pre.graph.outputs):
        gap = max(_diff(alt[o], base[o]) for o in pre.graph.outputs)
    return Propagation(
        False, tuple(dict.fromkeys(free)), sec, None, alt_sec, gap, tuple(dict.fromkeys(perturbed))
    )


def model_outputs(module: torch.nn.Module, inputs: tuple[torch.Tensor, ...], *, name: str = "model"
                  ) -> list[torch.Tensor]:
    """The model's own outputs in float64, flattened in return order (the independent reference).

    The user's forward is contained (:func:`pybridge.targets.user_code`): its prints go to stderr, and
    what it raises is a one-line :class:`pybridge.errors.UserCodeError` naming ``name``.
    """
    from pybridge.capture import copy_model, flatten_tensors
    from pybridge.errors import TargetError
    from pybridge.targets import user_code

    model = copy_model(module, torch.float64, name)
    xs = tuple(x.double() if x.is_floating_point() else x for x in inputs)
    with user_code(name, "listing the model's parameters and buffers"):
        state = {k: v.detach().clone() for k, v in (*model.named_parameters(), *model.named_buffers())}
    with torch.no_grad(), user_code(name, "the model's forward (float64 copy)"):
        first = flatten_tensors(model(*xs))
    with user_code(name, "listing the model's parameters and buffers"):
        after = dict((*model.named_parameters(), *model.named_buffers()))
    changed = sorted(k for k, v in state.items() if k not in after or not _same(v, after[k]))
    if changed:
        raise TargetError(
            f"{name}: the model changes its state in forward ({changed[0]!r}"
            f"{f' and {len(changed) - 1} more' if len(changed) > 1 else ''} differs after one call); "
            "the presheaf needs a model that is a function of its input"
        )
    with torch.no_grad(), user_code(name, "the model's forward (float64 copy, second call)"):
        second = flatten_tensors(model(*xs))
    if len(first) != len(second) or not all(_same(a, b) for a, b in zip(first, second, strict=False)):
        raise TargetError(
            f"{name}: the model is not deterministic: two calls on the same input give different outputs "
            "(dropout or sampling in training mode, random numbers in forward?); the presheaf needs a "
            "model that is a function of its input"
        )
    return first


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Equal shapes, dtypes and entries, NaN equal to NaN."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.is_floating_point() or a.is_complex():
        return bool(torch.equal(a, b) or ((a == b) | (torch.isnan(a) & torch.isnan(b))).all())
    return bool(torch.equal(a, b))
