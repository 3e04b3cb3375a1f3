"""Layer graphs of three families of any size, built directly (no model, no capture): the test and
benchmark inputs of the site's scaling (``tests/test_site_scale.py``, ``bench/bench_site.py``)."""

from __future__ import annotations

from pybridge.site.graph import LayerGraph


def chain(length: int) -> LayerGraph:
    """``x → l0 → l1 → … → l{length-1}``."""
    preds: dict[str, list[str]] = {"x": []}
    prev = "x"
    for i in range(length):
        preds[f"l{i}"] = [prev]
        prev = f"l{i}"
    return LayerGraph.from_edges(preds)


def residual_stack(blocks: int) -> LayerGraph:
    """``h <- add(relu(lin(h)), h)``, ``blocks`` times."""
    preds: dict[str, list[str]] = {"x": []}
    h = "x"
    for i in range(blocks):
        preds[f"lin{i}"] = [h]
        preds[f"relu{i}"] = [f"lin{i}"]
        preds[f"add{i}"] = [f"relu{i}", h]
        h = f"add{i}"
    return LayerGraph.from_edges(preds)


def dense_block(layers: int) -> LayerGraph:
    """``f_k = lin_k(cat_k(x, f_0, ..., f_{k-1}))`` (``cat_0`` reads ``x`` alone, so it is no join)."""
    preds: dict[str, list[str]] = {"x": []}
    feats = ["x"]
    for k in range(layers):
        preds[f"cat{k}"] = list(feats)
        preds[f"lin{k}"] = [f"cat{k}"]
        preds[f"f{k}"] = [f"lin{k}"]
        feats.append(f"f{k}")
    return LayerGraph.from_edges(preds)
