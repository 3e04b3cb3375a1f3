"""Ω, the subobject classifier of the presheaf topos on a poset X.

A sieve on ``x`` is a set of arrows into ``x`` closed under precomposition; in a poset it is a down-set of
the principal down-set ``↓x = {y : y <= x}`` (with the orientation of :mod:`pybridge.site.fork`: ``y``
below ``x`` means ``y`` is downstream of ``x`` in the data flow). So ``Ω(x)`` is the set of down-sets of
``↓x``, a Heyting algebra under ∩ (∧), ∪ (∨) and ``S ⇒ T = {y <= x : ↓y ∩ S ⊆ T}``, with ``¬S = S ⇒ ∅``.
Restriction along ``y <= x`` is ``S ↦ S ∩ ↓y``. Sieves are bitsets over the elements of X.

Counting. ``|Ω(x)|`` is the number of down-sets of ``↓x``. :func:`omega_sizes` gets them all in one pass up
the Hasse diagram: ``|Ω(x)| = 1 + ∏ |Ω(y)|`` over the lower covers ``y`` of ``x`` when their down-sets are
disjoint (``1 + |Ω(y)|`` on a chain), which is always so on a site's poset; overlapping lower covers go to
the general counter. :class:`DownsetCounter` computes the number of down-sets of any subset ``P`` exactly
with the recursion

    D(∅) = 1,    D(P) = ∏ D(component)    over the connected components of P's comparability graph,
    D(P) = D(P ∖ ↑m) + D(P ∖ ↓m)          for a pivot m in P (down-sets without m, and those with m),

memoized on the bitset of ``P`` and shared by all objects. The pivot is the element comparable to the
most others (ties: the most balanced split), which cuts chains in halves and disconnects forks. Counting
down-sets of a general poset is #P-complete, so the recursion carries a state budget and raises
:class:`SiteError` when it is exceeded. :func:`brute_force_downsets` (plain enumeration of subsets) is
the test oracle.

The global count ``|Ω(1)|`` (the down-sets of X itself) is computed only when X has at most
:data:`GLOBAL_OMEGA_LIMIT` objects; above that it is refused with a :class:`SiteError`.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from pybridge.errors import SiteError
from pybridge.site.fork import Poset, gc_paused

#: |Ω(1)| is computed exactly for posets with at most this many objects, and refused above.
GLOBAL_OMEGA_LIMIT = 128
#: Memoized states the counter may create before it gives up (a guard against exponential blow-up).
STATE_BUDGET = 2_000_000
#: Largest subset that :func:`brute_force_downsets` enumerates (2**BRUTE_FORCE_LIMIT subsets).
BRUTE_FORCE_LIMIT = 18


class DownsetCounter:
    """Exact counts of down-sets of subsets of a poset, memoized across calls."""

    def __init__(self, poset: Poset, budget: int = STATE_BUDGET) -> None:
        self.poset = poset
        self.budget = budget
        self.memo: dict[int, int] = {0: 1}
        self._comparable: list[int] | None = None

    @property
    def comparable(self) -> list[int]:
        """``comparable[i]``: the elements comparable to ``i`` (built on the first count, not before)."""
        if self._comparable is None:
            up, down = self.poset.up, self.poset.down
            self._comparable = [up[i] | down[i] for i in range(self.poset.n)]
        return self._comparable

    def count(self, mask: int) -> int:
        """The number of down-sets of the subposet on ``mask`` (empty set and ``mask`` included)."""
        memo = self.memo
        if mask in memo:
            return memo[mask]
        # Iterative post-order over the recursion, so deep posets do not hit Python's recursion limit.
        stack: list[tuple[int, bool]] = [(mask, False)]
        plan: dict[int, tuple[str, list[int]]] = {}
        while stack:
            m, expanded = stack.pop()
            if m in memo:
                continue
            if expanded:
                how, parts = plan.pop(m)
                if how == "prod":
                    r = 1
                    for p in parts:
                        r *= memo[p]
                else:
                    r = memo[parts[0]] + memo[parts[1]]
                memo[m] = r
                continue
            if len(memo) > self.budget:
                raise SiteError(
                    f"counting sieves needs more than {self.budget} states on a {mask.bit_count()}-object "
                    "subposet; the poset is too wide for an exact count"
                )
            parts = self._components(m)
            if len(parts) > 1:
                plan[m] = ("prod", parts)
            else:
                pivot = self._pivot(m)
                parts = [m & ~self.poset.up[pivot], m & ~self.poset.down[pivot]]
                plan[m] = ("sum", parts)
            stack.append((m, True))
            for p in parts:
                if p not in memo:
                    stack.append((p, False))
        return memo[mask]

    def _components(self, mask: int) -> list[int]:
        comps = []
        rest = mask
        comparable = self.comparable
        while rest:
            seed = rest & -rest
            comp = seed
            frontier = seed
            while frontier:
                low = frontier & -frontier
                frontier ^= low
                new = comparable[low.bit_length() - 1] & mask & ~comp
                comp |= new
                frontier |= new
            comps.append(comp)
            rest &= ~comp
        return comps

    def _pivot(self, mask: int) -> int:
        best, best_key = -1, (-1, -1)
        m = mask
        up, down = self.poset.up, self.poset.down
        while m:
            low = m & -m
            m ^= low
            i = low.bit_length() - 1
            u = (up[i] & mask).bit_count()
            d = (down[i] & mask).bit_count()
            key = (u + d, min(u, d))
            if key > best_key:
                best, best_key = i, key
        return best


@gc_paused
def omega_sizes(poset: Poset, counter: DownsetCounter | None = None) -> list[int]:
    """``|Ω(x)|`` for every element ``x`` of the poset (the number of down-sets of ``↓x``).

    Bottom-up over the Hasse diagram, exactly. ``x`` is the top of ``↓x``, so a down-set of ``↓x`` is
    either ``↓x`` itself or a down-set of ``↓x ∖ {x} = ⋃ ↓y`` over the lower covers ``y`` of ``x``.
    Lower covers whose down-sets meet are grouped; different groups have disjoint down-sets and then no
    order relation between them either (``a <= b`` with ``b`` in one puts ``a`` in it too), so

        |Ω(x)| = 1 + ∏ over the groups of D(union of the group),    D({y}) = |Ω(y)|,

    and only a group of two or more overlapping down-sets needs the general counter. On a chain this is
    ``|Ω(x)| = 1 + |Ω(y)|``. When no element has two non-maximal upper covers (true of every site's
    poset: an element's only non-maximal successor is its argument), two lower covers of ``x`` never
    share an element ``z`` (two upper covers of ``z`` below ``x`` would include a maximal one, which must
    then be ``x``, and a second one strictly between), so no group has two members, no bitset is built and
    the pass costs O(covers) big-integer products.
    """
    n = poset.n
    lower: list[list[int]] = [[] for _ in range(n)]
    upper_inner = [0] * n  # non-maximal upper covers of each element
    has_upper = [False] * n
    for lo, _ in poset.covers:
        has_upper[lo] = True
    for lo, hi in poset.covers:
        lower[hi].append(lo)
        if has_upper[hi]:
            upper_inner[lo] += 1
    disjoint = all(k <= 1 for k in upper_inner)
    sizes = [0] * n
    for x in reversed(poset.tops_first):  # minimal elements first: lower covers are done
        ys = lower[x]
        if not ys:
            sizes[x] = 2
        elif len(ys) == 1:
            sizes[x] = 1 + sizes[ys[0]]
        elif disjoint:
            r = 1
            for y in ys:
                r *= sizes[y]
            sizes[x] = 1 + r
        else:
            counter = counter or DownsetCounter(poset)
            sizes[x] = 1 + _count_union(poset, ys, sizes, counter)
    return sizes


def _count_union(poset: Poset, ys: list[int], sizes: list[int], counter: DownsetCounter) -> int:
    """The number of down-sets of ``⋃ ↓y`` (``ys`` an antichain): a product over groups of overlapping
    down-sets, each group of two or more counted by ``counter``."""
    down = poset.down
    groups: list[tuple[int, list[int]]] = []  # (union mask, members)
    for y in ys:
        mask, members = down[y], [y]
        keep = []
        for g_mask, g_members in groups:
            if g_mask & mask:
                mask |= g_mask
                members += g_members
            else:
                keep.append((g_mask, g_members))
        keep.append((mask, members))
        groups = keep
    r = 1
    for mask, members in groups:
        r *= sizes[members[0]] if len(members) == 1 else counter.count(mask)
    return r


def global_omega(poset: Poset, limit: int = GLOBAL_OMEGA_LIMIT) -> int:
    """``|Ω(1)|``, the global sections of Ω (the down-sets of X); refused above ``limit`` objects."""
    if poset.n > limit:
        raise SiteError(
            f"|Omega(1)| is computed only for sites with at most {limit} objects; this one has {poset.n}"
        )
    return DownsetCounter(poset).count(poset.all_mask)


def brute_force_downsets(poset: Poset, mask: int, limit: int = BRUTE_FORCE_LIMIT) -> int:
    """The number of down-sets of the subposet on ``mask`` by enumerating all its subsets (the oracle)."""
    elems = poset.elements(mask)
    k = len(elems)
    if k > limit:
        raise SiteError(f"brute force enumeration is limited to {limit} elements, got {k}")
    local = {e: i for i, e in enumerate(elems)}
    below = []
    for e in elems:
        b = 0
        for f in poset.elements(poset.down[e] & mask):
            if f != e:
                b |= 1 << local[f]
        below.append(b)
    total = 0
    for s in range(1 << k):
        ok = True
        t = s
        while t:
            low = t & -t
            t ^= low
            if below[low.bit_length() - 1] & ~s:
                ok = False
                break
        total += ok
    return total


def enumerate_downsets(poset: Poset, mask: int, limit: int = 4096) -> list[int]:
    """All down-sets of the subposet on ``mask`` as bitsets; :class:`SiteError` if more than ``limit``."""
    out: list[int] = []

    def rec(m: int, base: int) -> Iterator[int]:
        if m == 0:
            yield base
            return
        low = m & -m
        top = low.bit_length() - 1
        while True:  # walk up to a maximal element of m: "contains top" then only forces ↓top
            above = poset.up[top] & m & ~(1 << top)
            if not above:
                break
            top = (above & -above).bit_length() - 1
        yield from rec(m & ~(1 << top), base)  # without top
        yield from rec(m & ~poset.down[top], base | (poset.down[top] & m))  # with top (and ↓top)

    for s in rec(mask, 0):
        out.append(s)
        if len(out) > limit:
            raise SiteError(f"more than {limit} sieves; refusing to enumerate them")
    return out


class OmegaAt:
    """The Heyting algebra Ω(x): down-sets of ``↓x`` as bitsets, with the operations and restriction."""

    def __init__(self, poset: Poset, x: int) -> None:
        self.poset = poset
        self.x = x
        self.top = poset.down[x]
        self.bottom = 0

    def is_sieve(self, s: int) -> bool:
        """``s`` is a down-set contained in ``↓x``."""
        if s & ~self.top:
            return False
        return all(not (self.poset.down[i] & ~s) for i in self.poset.elements(s))

    def meet(self, s: int, t: int) -> int:
        """``S ∧ T = S ∩ T``."""
        return s & t

    def join(self, s: int, t: int) -> int:
        """``S ∨ T = S ∪ T``."""
        return s | t

    def implies(self, s: int, t: int) -> int:
        """``S ⇒ T = {y <= x : ↓y ∩ S ⊆ T}``, the largest sieve R with ``R ∧ S ⊆ T``."""
        down = self.poset.down
        r = 0
        for y in self.poset.elements(self.top):
            if not (down[y] & s & ~t):
                r |= 1 << y
        return r

    def neg(self, s: int) -> int:
        """``¬S = S ⇒ ∅``."""
        return self.implies(s, 0)

    def restrict(self, s: int, y: int) -> int:
        """Restriction along ``y <= x``: ``S ↦ S ∩ ↓y``."""
        return s & self.poset.down[y]


@dataclass(frozen=True)
class LawReport:
    """How many instances of the laws were checked, how many failed, and one failure if any."""

    checked: int
    failures: int
    example: str | None
    boolean: bool | None = None


def _sample(sieves: list[int], arity: int, max_instances: int, rng: random.Random) -> list[tuple[int, ...]]:
    n = len(sieves)
    if n**arity <= max_instances:
        out: list[tuple[int, ...]] = [()]
        for _ in range(arity):
            out = [t + (s,) for t in out for s in sieves]
        return out
    return [tuple(rng.choice(sieves) for _ in range(arity)) for _ in range(max_instances)]


def check_heyting(
    poset: Poset, x: int, *, max_sieves: int = 512, max_instances: int = 4096, seed: int = 0
) -> LawReport:
    """Check the Heyting algebra laws in Ω(x): closure, lattice laws, distributivity, residuation
    (``R ∧ S ⊆ T ⟺ R ⊆ S ⇒ T``), ``¬S = S ⇒ ⊥``; exhaustively when there are few triples, else on a
    seeded sample. Also reports whether Ω(x) is Boolean (``S ∨ ¬S = ⊤`` for all S)."""
    alg = OmegaAt(poset, x)
    sieves = enumerate_downsets(poset, alg.top, limit=max_sieves)
    rng = random.Random(seed)
    checked = failures = 0
    example = None

    def fail(msg: str) -> None:
        nonlocal failures, example
        failures += 1
        if example is None:
            example = f"at {poset.names[x]!r}: {msg}"

    for s in sieves:
        checked += 1
        if not alg.is_sieve(s):
            fail(f"enumerated set {s:#x} is not a sieve")
    for (s,) in _sample(sieves, 1, max_instances, rng):
        checked += 1
        n = alg.neg(s)
        if not alg.is_sieve(n) or n != alg.implies(s, alg.bottom) or alg.meet(s, n) != 0:
            fail(f"negation of {s:#x}")
    for r, s, t in _sample(sieves, 3, max_instances, rng):
        checked += 1
        imp = alg.implies(s, t)
        if not alg.is_sieve(imp):
            fail(f"{s:#x} => {t:#x} is not a sieve")
        if ((alg.meet(r, s) & ~t) == 0) != ((r & ~imp) == 0):
            fail(f"residuation fails for R={r:#x}, S={s:#x}, T={t:#x}")
        if alg.meet(r, alg.join(s, t)) != alg.join(alg.meet(r, s), alg.meet(r, t)):
            fail("distributivity")
        if alg.join(r, alg.meet(r, s)) != r or alg.meet(r, alg.join(r, s)) != r:
            fail("absorption")
        if alg.meet(alg.meet(r, s), t) != alg.meet(r, alg.meet(s, t)):
            fail("associativity")
    boolean = all(alg.join(s, alg.neg(s)) == alg.top for s in sieves)
    return LawReport(checked=checked, failures=failures, example=example, boolean=boolean)


def check_naturality(
    poset: Poset,
    *,
    max_sieves: int = 256,
    max_instances: int = 512,
    seed: int = 0,
    max_covers: int | None = None,
) -> LawReport:
    """Check that restriction along every covering relation ``y ⋖ x`` is natural: it maps sieves to sieves
    and commutes with ⊤, ⊥, ∧, ∨, ⇒ and ¬ (so these are natural transformations of Ω)."""
    rng = random.Random(seed)
    checked = failures = 0
    example = None
    covers = poset.covers if max_covers is None else poset.covers[:max_covers]
    for y, x in covers:
        ax, ay = OmegaAt(poset, x), OmegaAt(poset, y)
        try:
            sieves = enumerate_downsets(poset, ax.top, limit=max_sieves)
        except SiteError:
            continue
        for s, t in _sample(sieves, 2, max_instances, rng):
            checked += 1
            r = ax.restrict
            ok = (
                ay.is_sieve(r(s, y))
                and r(ax.top, y) == ay.top
                and r(ax.meet(s, t), y) == ay.meet(r(s, y), r(t, y))
                and r(ax.join(s, t), y) == ay.join(r(s, y), r(t, y))
                and r(ax.implies(s, t), y) == ay.implies(r(s, y), r(t, y))
                and r(ax.neg(s), y) == ay.neg(r(s, y))
            )
            if not ok:
                failures += 1
                if example is None:
                    example = f"restriction {poset.names[x]!r} -> {poset.names[y]!r} on S={s:#x}, T={t:#x}"
    return LawReport(checked=checked, failures=failures, example=example)
