"""Γ extraction, the fork category and its thinness (Prop. 1.1(i)) on hand-built models."""

from __future__ import annotations

import itertools

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from models_site import ALL, convnet, inplace_alias, lstm_cell, residual, untraceable

from pybridge.errors import SiteError, TargetError
from pybridge.site.fork import Site
from pybridge.site.graph import LayerGraph, extract
from pybridge.site.presheaf import model_outputs


def _graph(factory, method="auto"):
    m, x = factory()
    x = x if isinstance(x, tuple) else (x,)
    return extract(m, x, factory.__name__, method=method), m, x


def _brute_paths(site: Site) -> dict[tuple[int, int], int]:
    """Count paths between all pairs by explicit depth-first enumeration (independent of Site.thinness)."""
    counts: dict[tuple[int, int], int] = {}
    for s in range(len(site.objects)):
        stack = [s]
        while stack:
            u = stack.pop()
            counts[(s, u)] = counts.get((s, u), 0) + 1
            stack.extend(a.dst for a in site.out[u])
    return counts


def test_residual_graph_and_counterexample() -> None:
    g, _, _ = _graph(residual, "fx")
    assert list(g.nodes) == ["x", "lin1", "relu", "lin2", "add", "relu_1"]
    assert g.nodes["add"].preds == ("lin2", "x") and g.joins == ("add",)
    raw = Site(g).thinness()
    assert not raw.thin and raw.witness == ("lin2", "A*[add]", 2)
    assert raw.nonthin_pairs == 2 and raw.pairs_into_tangs == 1
    norm = Site(g.normalized()).thinness()
    assert norm.thin and norm.nonthin_pairs == 0


def test_size_and_getitem_are_folded() -> None:
    g, _, _ = _graph(convnet, "fx")
    view = [n for n in g.nodes.values() if n.op == ".view()"]
    assert len(view) == 1 and view[0].preds == ("pool",)  # h.size(0) is a constant, not an edge
    g, _, _ = _graph(lstm_cell, "fx")
    getitems = [n for n in g.nodes.values() if n.op == "getitem"]
    assert len(getitems) == 4 and all(n.preds == ("add",) for n in getitems)  # chunk is transparent
    assert "chunk" not in g.nodes and g.outputs == ("mul_2", "add_1")


def test_residual_graph_by_export_in_core_aten() -> None:
    g, _, _ = _graph(residual)
    assert g.capture is not None and g.capture.method == "torch.export"
    assert [(n.name, n.op) for n in g.nodes.values()] == [
        ("x", "input"), ("addmm", "addmm.default"), ("relu", "relu.default"), ("addmm_1", "addmm.default"),
        ("add", "add.Tensor"), ("relu_1", "relu.default")]
    assert g.nodes["add"].preds == ("addmm_1", "x") and g.joins == ("add",)
    raw = Site(g).thinness()
    assert not raw.thin and raw.witness == ("addmm_1", "A*[add]", 2)
    assert Site(g.normalized()).thinness().thin


def test_integer_inputs_are_held_fixed() -> None:
    class Embed(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb = torch.nn.Embedding(5, 3)
            self.lin = torch.nn.Linear(3, 2)

        def forward(self, x: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
            return self.lin(x + self.emb(ids))

    g = extract(Embed(), (torch.randn(4, 3), torch.tensor([0, 1, 4, 2])), "embed")
    assert g.inputs == ("x",)  # the ids are a constant of the graph, not an input layer
    assert all("ids" not in n.preds for n in g.nodes.values())


def test_inplace_alias_is_folded() -> None:
    g, m, x = _graph(inplace_alias, "fx")
    (add,) = [n for n in g.nodes.values() if n.op == "add"]
    assert add.preds == ("relu_", "mul")  # the reader after y.relu_() reads the in-place node
    assert g.nodes["mul"].preds == ("lin",)
    assert torch.equal(g.values["lin"], model_outputs(m.lin, x)[0])  # recorded before the mutation


@pytest.mark.parametrize("name", sorted(ALL))
def test_thinness_matches_brute_force_path_counts(name: str) -> None:
    g, _, _ = _graph(ALL[name])
    for graph in (g, g.normalized()):
        site = Site(graph)
        counts = _brute_paths(site)
        nonthin = sum(1 for c in counts.values() if c > 1)
        th = site.thinness()
        assert th.nonthin_pairs == nonthin
        assert th.thin == (nonthin == 0)
        if th.witness:
            i, j = site.index[th.witness[0]], site.index[th.witness[1]]
            assert th.witness[2] == counts[(i, j)] >= 2
    assert Site(g.normalized()).thinness().thin  # the repair works on every model


def test_which_raw_sites_are_thin() -> None:
    expect = {
        "mlp": True,
        "residual": False,
        "unet": False,
        "inception": True,
        "densenet": False,
        "convnet": True,
        "lstm_cell": True,
    }
    got = {k: Site(_graph(ALL[k])[0]).thinness().thin for k in expect}
    assert got == expect


def test_untraceable_model_is_one_line_error() -> None:
    with pytest.raises(TargetError) as err:
        _graph(untraceable)
    msg = str(err.value)
    assert "cannot trace" in msg and "\n" not in msg
    assert "torch.export cannot capture the model (GuardOnDataDependentSymNode" in msg
    assert "strict=False" in msg and "torch.export.Dim" in msg and "wrapper" in msg


def test_cycle_is_one_line_error() -> None:
    with pytest.raises(SiteError, match="cycle") as err:
        LayerGraph.from_edges({"x": [], "a": ["x", "c"], "b": ["a"], "c": ["b"]})
    assert "\n" not in str(err.value)
    with pytest.raises(SiteError, match="not a node"):
        LayerGraph.from_edges({"x": [], "a": ["y"]})


@st.composite
def dags(draw: st.DrawFn) -> dict[str, list[str]]:
    n = draw(st.integers(2, 9))
    preds: dict[str, list[str]] = {"v0": []}
    for i in range(1, n):
        k = draw(st.integers(0 if i > 1 else 1, min(3, i)))
        preds[f"v{i}"] = [f"v{draw(st.integers(0, i - 1))}" for _ in range(k)]
    return preds


@settings(max_examples=60, deadline=None)
@given(dags())
def test_normal_form_is_always_thin_and_raw_counts_agree(preds: dict[str, list[str]]) -> None:
    g = LayerGraph.from_edges(preds)
    for graph in (g, g.normalized()):
        site = Site(graph)
        counts = _brute_paths(site)
        assert site.thinness().nonthin_pairs == sum(1 for c in counts.values() if c > 1)
    assert Site(g.normalized()).thinness().thin
    # the poset order is reachability, and every covering relation is a generating relation
    P = Site(g).poset()
    for a, b in itertools.product(range(P.n), repeat=2):
        if a != b and P.leq(a, b):
            assert not P.leq(b, a)
