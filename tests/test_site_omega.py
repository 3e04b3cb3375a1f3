"""Ω: fast counts against brute-force enumeration, the Heyting laws, naturality, the global count."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from models_site import ALL

from pybridge.errors import SiteError
from pybridge.site.fork import Poset, Site
from pybridge.site.graph import extract
from pybridge.site.omega import (
    GLOBAL_OMEGA_LIMIT,
    DownsetCounter,
    OmegaAt,
    brute_force_downsets,
    check_heyting,
    check_naturality,
    enumerate_downsets,
    global_omega,
    omega_sizes,
)

_POSETS: dict[str, Poset] = {}


def _posets() -> dict[str, Poset]:
    if not _POSETS:
        for name, factory in ALL.items():
            m, x = factory()
            g = extract(m, x if isinstance(x, tuple) else (x,), name, method="fx")
            _POSETS[f"{name}/raw"] = Site(g).poset()
            _POSETS[f"{name}/normal"] = Site(g.normalized()).poset()
    return _POSETS


@pytest.mark.parametrize("key", [f"{n}/{f}" for n in sorted(ALL) for f in ("raw", "normal")])
def test_fast_counts_match_brute_force(key: str) -> None:
    P = _posets()[key]
    sizes = omega_sizes(P)
    checked = 0
    for x in range(P.n):
        if P.down[x].bit_count() <= 14:
            assert sizes[x] == brute_force_downsets(P, P.down[x]), P.names[x]
            assert sizes[x] == len(enumerate_downsets(P, P.down[x], limit=1 << 14))
            checked += 1
    assert checked >= P.n // 2
    if P.n <= 16:
        assert global_omega(P) == brute_force_downsets(P, P.all_mask)


def test_known_counts() -> None:
    mlp = _posets()["mlp/raw"]  # a chain x > l1 > relu > l2 > relu_1 > l3
    assert sorted(omega_sizes(mlp)) == [2, 3, 4, 5, 6, 7]  # |Ω(x)| = |↓x| + 1 on a chain
    res = _posets()["residual/raw"]
    sizes = dict(zip(res.names, omega_sizes(res), strict=True))
    # ↓A[add] = {A, x, lin1, relu, lin2, add, relu_1}: the chain below x (5 + 1 down-sets)
    # times the chain add > relu_1 (3), minus the overcount, plus A's own: 6 * 3 - 3 + 1 = 16
    assert sizes["A[add]"] == 16 and global_omega(res) == 16


@st.composite
def posets(draw: st.DrawFn) -> Poset:
    n = draw(st.integers(1, 12))
    pairs = []
    for hi in range(1, n):
        for lo in range(hi):
            if draw(st.integers(0, 3)) == 0:
                pairs.append((lo, hi))
    return Poset.from_relations(n, pairs)


@settings(max_examples=80, deadline=None)
@given(posets())
def test_counter_matches_brute_force_on_random_posets(P: Poset) -> None:
    counter = DownsetCounter(P)
    assert counter.count(P.all_mask) == brute_force_downsets(P, P.all_mask)
    for x in range(P.n):
        assert counter.count(P.down[x]) == brute_force_downsets(P, P.down[x])


def test_wide_antichain_and_long_chain() -> None:
    chain = Poset.from_relations(300, [(i, i + 1) for i in range(299)])
    assert DownsetCounter(chain).count(chain.all_mask) == 301
    anti = Poset.from_relations(100, [])
    assert DownsetCounter(anti).count(anti.all_mask) == 2**100
    with pytest.raises(SiteError, match="at most"):
        global_omega(Poset.from_relations(GLOBAL_OMEGA_LIMIT + 1, []))


def test_state_budget_refuses() -> None:
    # a crown-like bipartite poset without useful splits: the budget guard must fire, in one line
    n = 40
    pairs = [(i, n + j) for i in range(n) for j in range(n) if (i + j) % 3]
    P = Poset.from_relations(2 * n, pairs)
    with pytest.raises(SiteError, match="states"):
        DownsetCounter(P, budget=50).count(P.all_mask)


@pytest.mark.parametrize("key", ["residual/normal", "unet/raw", "densenet/normal", "lstm_cell/normal"])
def test_heyting_laws_and_naturality(key: str) -> None:
    P = _posets()[key]
    nonboolean = 0
    for x in range(P.n):
        rep = check_heyting(P, x, max_sieves=4096, max_instances=600)
        assert rep.failures == 0, rep.example
        assert rep.checked > 0
        nonboolean += rep.boolean is False
    assert nonboolean > 0  # Ω is not Boolean: some S has S ∨ ¬S ≠ ⊤
    nat = check_naturality(P, max_instances=200)
    assert nat.failures == 0 and nat.checked > 0, nat.example


def test_checks_catch_a_wrong_implication(monkeypatch: pytest.MonkeyPatch) -> None:
    P = _posets()["residual/normal"]
    x = P.index["A[add]"]
    monkeypatch.setattr(OmegaAt, "implies", lambda self, s, t: (self.top & ~s) | t)  # the Boolean formula
    assert check_heyting(P, x).failures > 0


def test_restriction_is_intersection() -> None:
    P = _posets()["residual/normal"]
    top = P.index["A[add]"]
    alg = OmegaAt(P, top)
    for y in P.elements(P.down[top]):
        for s in enumerate_downsets(P, P.down[top]):
            r = alg.restrict(s, y)
            assert OmegaAt(P, y).is_sieve(r) and r == s & P.down[y]
