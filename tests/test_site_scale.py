"""The sparse site algorithms (thinness, covers, every |Ω(x)|) against the frozen O(n²)-bit ones, brute
force and closed forms; and that the site's own pass builds no O(n²) bitsets. No timings here (those are
in ``bench/bench_site.py``)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from models_site import ALL
from site_reference import ReferenceCounter, reference_order, reference_thinness, site_relations

from pybridge.site.commands import site_report
from pybridge.site.fork import Arrow, Poset, Site
from pybridge.site.graph import LayerGraph, extract
from pybridge.site.omega import DownsetCounter, brute_force_downsets, omega_sizes
from pybridge.site.synthetic import chain, dense_block, residual_stack


def _model_graphs() -> dict[str, LayerGraph]:
    out = {}
    for name, factory in ALL.items():
        m, x = factory()
        g = extract(m, x if isinstance(x, tuple) else (x,), name)
        out[f"{name}/raw"] = g
        out[f"{name}/normal"] = g.normalized()
    out["chain40/raw"] = chain(40)
    out["residual12/raw"] = residual_stack(12)
    out["residual12/normal"] = residual_stack(12).normalized()
    out["dense9/raw"] = dense_block(9)
    out["dense9/normal"] = dense_block(9).normalized()
    return out


_GRAPHS: dict[str, LayerGraph] = {}


def _graphs() -> dict[str, LayerGraph]:
    if not _GRAPHS:
        _GRAPHS.update(_model_graphs())
    return _GRAPHS


def _graph_keys() -> list[str]:
    return [f"{n}/{f}" for n in sorted(ALL) for f in ("raw", "normal")] + [
        "chain40/raw",
        "residual12/raw",
        "residual12/normal",
        "dense9/raw",
        "dense9/normal",
    ]


def _check_against_reference(graph: LayerGraph) -> None:
    site = Site(graph)
    pairs, into_tangs, witness = reference_thinness(site)
    th = site.thinness()
    assert (th.nonthin_pairs, th.pairs_into_tangs, th.witness) == (pairs, into_tangs, witness)
    assert th.thin == (pairs == 0)
    assert site._thinness_all_objects() == th  # the general fallback agrees too
    P = site.poset()
    up, down, covers, order = reference_order(P.n, site_relations(site))
    assert P.covers == covers and P.tops_first == order
    assert P._up is None and P._down is None  # thinness, covers and the order built no O(n²) bitsets
    sizes = omega_sizes(P, DownsetCounter(P))
    assert P._up is None and P._down is None  # nor did every |Ω(x)| on a site's poset
    assert P.up == up and P.down == down
    ref = ReferenceCounter(P.n, up, down)
    assert sizes == [ref.count(down[x]) for x in range(P.n)]


@pytest.mark.parametrize("key", _graph_keys())
def test_sparse_site_matches_the_reference(key: str) -> None:
    _check_against_reference(_graphs()[key])


@st.composite
def layer_graphs(draw: st.DrawFn) -> dict[str, list[str]]:
    """Random layer graphs: up to 14 nodes, up to 4 arguments each, repeated arguments allowed."""
    n = draw(st.integers(2, 14))
    preds: dict[str, list[str]] = {"v0": []}
    for i in range(1, n):
        k = draw(st.integers(0 if i > 1 else 1, min(4, i)))
        preds[f"v{i}"] = [f"v{draw(st.integers(0, i - 1))}" for _ in range(k)]
    return preds


@settings(max_examples=120, deadline=None)
@given(layer_graphs())
def test_random_layer_graphs_match_the_reference(preds: dict[str, list[str]]) -> None:
    g = LayerGraph.from_edges(preds)
    _check_against_reference(g)
    _check_against_reference(g.normalized())


def test_thinness_falls_back_on_arrows_of_another_shape() -> None:
    # an extra arrow l1 -> x beside l1 -> l0 -> x: two arrows out of l1 into layers, not a site's shape
    site = Site(chain(3))
    i, j = site.index["l1"], site.index["x"]
    extra = Arrow(i, j, "layer")
    site.arrows.append(extra)
    site.out[i].append(extra)
    th = site.thinness()
    assert (th.nonthin_pairs, th.pairs_into_tangs, th.witness) == reference_thinness(site)
    assert th.nonthin_pairs == 2 and th.witness == ("l2", "x", 2)  # l1 and l2 reach x twice
    assert not th.thin


@st.composite
def posets(draw: st.DrawFn) -> tuple[int, list[tuple[int, int]]]:
    """Random posets (any DAG of relations, so down-sets overlap and the general counter is needed)."""
    n = draw(st.integers(1, 24))
    density = draw(st.integers(2, 6))
    pairs = []
    for hi in range(1, n):
        for lo in range(hi):
            if draw(st.integers(0, density)) == 0:
                pairs.append((lo, hi))
    if draw(st.booleans()):
        pairs = pairs[::-1]
    return n, pairs


@settings(max_examples=150, deadline=None)
@given(posets())
def test_random_posets_match_the_reference(data: tuple[int, list[tuple[int, int]]]) -> None:
    n, pairs = data
    P = Poset.from_relations(n, pairs)
    up, down, covers, order = reference_order(n, pairs)
    assert P.covers == covers and P.tops_first == order
    assert P.up == up and P.down == down
    sizes = omega_sizes(P)
    ref = ReferenceCounter(n, up, down)
    assert sizes == [ref.count(down[x]) for x in range(n)]
    for x in range(n):
        if down[x].bit_count() <= 12:
            assert sizes[x] == brute_force_downsets(P, down[x])


def test_overlapping_lower_covers_use_the_general_counter() -> None:
    # 0 < 1, 0 < 2, 1 < 3, 2 < 3: the lower covers 1, 2 of 3 share 0 (a diamond), so the product
    # 1 + |Ω(1)|·|Ω(2)| = 10 would be wrong; the down-sets of the diamond are 6
    P = Poset.from_relations(4, [(0, 1), (0, 2), (1, 3), (2, 3)])
    assert omega_sizes(P) == [2, 3, 3, 6]
    assert brute_force_downsets(P, P.all_mask) == 6


def test_closed_forms_on_large_generated_sites() -> None:
    """Counts derived by hand from the shape of each graph (module docstrings of the generators)."""
    L = 80
    rep, _ = site_report("dense", dense_block(L), raw=False)
    om = rep.omega
    assert rep.thin and rep.copies == L * (L - 1) // 2 + (L - 1)  # cat_k (k >= 1) reads k + 1 inputs
    for k in range(L):
        m = L - 1 - k  # copies of f_k read by later joins: ↓f_k is f_k over an antichain of m copies
        assert om[f"f{k}"] == 1 + 2**m
        assert om[f"lin{k}"] == 2 + 2**m
        assert om[f"cat{k}"] == 3 + 2**m
        if k >= 1:  # A[cat_k] over cat_k and its k + 1 (minimal) copies
            assert om[f"A[cat{k}]"] == 1 + (3 + 2**m) * 2 ** (k + 1)
            assert om[f"copy[x->cat{k}#0]"] == 2
    assert om["x"] == 1 + (3 + 2 ** (L - 1)) * 2 ** (L - 1)  # cat_0's chain and L - 1 copies of x
    rep, _ = site_report("dense", dense_block(L), raw=True)
    om = rep.omega
    assert (om["f5"], om["lin5"], om["cat5"], om["x"]) == (2, 3, 4, 5)
    for k in range(1, L):  # lower covers of A[cat_k]: cat_k (4), x (5, with f_0 below), f_1..f_{k-1}
        assert om[f"A[cat{k}]"] == 1 + 4 * 5 * 2 ** (k - 1)
    # f_0 reaches A*[cat_k] and A[cat_k] (k >= 1) directly and through lin_0 > cat_0 > x; no one else twice
    assert rep.nonthin_pairs == 2 * (L - 1)
    B = 400
    rep, _ = site_report("residual", residual_stack(B), raw=True)
    om = rep.omega
    assert rep.nonthin_pairs == 2 * B  # relu_i reaches A*[add_i] and A[add_i] directly and through h_i
    assert rep.witness == f"2 paths from relu{B - 1} to A*[add{B - 1}]"
    for i in range(B - 1):
        assert (om[f"relu{i}"], om[f"lin{i}"], om[f"add{i}"], om[f"A[add{i}]"]) == (2, 3, 4, 17)
    assert om["x"] == 4 and om[f"A[add{B - 1}]"] == 9
    rep, _ = site_report("residual", residual_stack(B), raw=False)
    om = rep.omega
    assert rep.thin and not rep.raw_thin
    for i in range(B - 1):
        assert (om[f"relu{i}"], om[f"lin{i}"], om[f"add{i}"], om[f"A[add{i}]"]) == (3, 4, 9, 37)
    assert om["x"] == 9 and om[f"A[add{B - 1}]"] == 9
    N = 2000
    rep, _ = site_report("chain", chain(N), raw=False)
    assert rep.omega == {"x": N + 2, **{f"l{i}": N - i + 1 for i in range(N)}}
