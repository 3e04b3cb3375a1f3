"""Lemma 1.1 (path sums against whole-model JVPs) and naturality of the backward flow (Thm 1.1)."""

from __future__ import annotations

import pytest
from models_site import ALL

from pybridge.site.backprop import count_paths, gradient_naturality, path_sum_check
from pybridge.site.graph import extract


def _load(name: str):
    m, x = ALL[name]()
    x = x if isinstance(x, tuple) else (x,)
    return extract(m, x, name, method="fx"), m, x


@pytest.mark.parametrize("name", sorted(ALL))
def test_path_sums_equal_autograd(name: str) -> None:
    g, m, x = _load(name)
    results = path_sum_check(g, m, x)
    assert results
    for r in results:
        assert r.ok, (r.input, r.output, r.rel_error)


def test_path_counts() -> None:
    g, _, _ = _load("residual")
    assert count_paths(g, "x")["relu_1"] == 2
    g, _, _ = _load("densenet")
    assert count_paths(g, "x")["cat_4"] == 16  # 2**layers
    g, _, _ = _load("mlp")
    assert count_paths(g, "x")["l3"] == 1


def test_single_path_sum_is_not_enough() -> None:
    # the residual's Jacobian is not the Jacobian of either path alone: the sum is needed
    g, m, x = _load("residual")
    (r,) = path_sum_check(g, m, x)
    assert r.paths == 2 and r.ok


@pytest.mark.parametrize("name", sorted(ALL))
def test_naturality_on_chains_and_sum_rule(name: str) -> None:
    g, _, _ = _load(name)
    rep = gradient_naturality(g)
    assert rep.worst_chain <= rep.tolerance
    assert rep.worst_sum_rule <= rep.tolerance
    has_fanout = any(not e.chain for e in rep.edges)
    if name in ("mlp", "convnet", "circular"):
        assert not has_fanout and rep.worst_fanout is None
    if name in ("residual", "unet", "inception", "densenet", "lstm_cell"):
        assert rep.worst_fanout is not None and rep.worst_fanout > 1e-3  # naturality fails at fan-outs
