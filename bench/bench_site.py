"""Benchmark: the site and every |Ω(x)| against a plain forward pass of the same network.

Not a test. ``python bench/bench_site.py`` prints, side by side, the time and peak memory of

* ``generated``: a ~300-node residual/dense model traced with ``extract``, raw and in normal form
  (issue 5's target: site plus all |Ω(x)| in under 1 s);
* ``chain``: 30,000 layers (Linear, ReLU alternating); ``residual``: 30,000 layers in blocks
  ``h <- relu(lin(h)) + h``; ``dense``: a 1,000-layer dense block ``f_k = tanh(lin_k(cat(x, f_0..f_{k-1})))``
  (issue 13's targets: chain and residual stack < 10 s, dense block without running out of memory).

For the three large cases the site is computed the way ``pybridge site`` does it (:func:`site_report`:
the normal form, its site, thinness, X, every |Ω(x)|, and the raw site's thinness), on the layer graph
built directly with :meth:`LayerGraph.from_edges` in the shape ``extract`` gives these modules, because
tracing a 30,000-layer module is itself the bottleneck (``extract`` is timed separately on a 3,000-layer
chain). Every measurement runs in a fresh process, so the peak resident memory (``ru_maxrss``) is that
computation's own; the growth over the process's memory just before it is shown too.

``--quick`` runs the large cases at a tenth of their size.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch
from torch import nn

from pybridge.site import synthetic
from pybridge.site.commands import site_report
from pybridge.site.fork import Site
from pybridge.site.graph import LayerGraph, extract
from pybridge.site.omega import DownsetCounter, omega_sizes

D = 8  # feature width of the large cases' modules


class Generated(nn.Module):
    """Residual MLP blocks with a dense block every few blocks: many joins, chains and skips."""

    def __init__(self, blocks: int = 50, d: int = 8) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, d)) for _ in range(blocks)
        )
        self.dense = nn.ModuleList(nn.Linear(d * (k + 1), d) for k in range(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for i, block in enumerate(self.blocks):
            x = torch.relu(block(x) + x)
            if i % 8 == 7:
                feats = [x]
                for lin in self.dense:
                    feats.append(torch.tanh(lin(torch.cat(feats, dim=1))))
                x = feats[-1]
        return x


class Chain(nn.Sequential):
    """``layers`` layers: Linear and ReLU alternating."""

    def __init__(self, layers: int, d: int = D) -> None:
        super().__init__(*(nn.Linear(d, d) if i % 2 == 0 else nn.ReLU() for i in range(layers)))


class ResidualStack(nn.Module):
    """``layers // 3`` blocks ``h <- relu(lin(h)) + h`` (three layers each: lin, relu, add)."""

    def __init__(self, layers: int, d: int = D) -> None:
        super().__init__()
        self.lins = nn.ModuleList(nn.Linear(d, d) for _ in range(layers // 3))

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        for lin in self.lins:
            h = torch.relu(lin(h)) + h
        return h


class DenseBlock(nn.Module):
    """``f_k = tanh(lin_k(cat(x, f_0, ..., f_{k-1})))`` for ``k < layers``."""

    def __init__(self, layers: int, d: int = D) -> None:
        super().__init__()
        self.lins = nn.ModuleList(nn.Linear(d * (k + 1), d) for k in range(layers))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        feats = [x]
        for lin in self.lins:
            feats.append(torch.tanh(lin(torch.cat(feats, dim=1))))
        return feats[-1]


def chain_graph(layers: int) -> LayerGraph:
    """The layer graph of :class:`Chain`."""
    return synthetic.chain(layers)


def residual_graph(layers: int) -> LayerGraph:
    """The layer graph of :class:`ResidualStack`."""
    return synthetic.residual_stack(layers // 3)


def dense_graph(layers: int) -> LayerGraph:
    """The layer graph of :class:`DenseBlock` (``cat_0`` reads ``x`` alone, so it is not a join)."""
    return synthetic.dense_block(layers)


CASES: dict[str, tuple[int, Callable[[int], LayerGraph], Callable[[int], nn.Module], str]] = {
    "chain": (30_000, chain_graph, Chain, "< 10 s"),
    "residual": (30_000, residual_graph, ResidualStack, "< 10 s"),
    "dense": (1_000, dense_graph, DenseBlock, "no MemoryError"),
}


def _rss_now_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _best(fn: Callable[[], object], repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _one(what: str, case: str, layers: int) -> dict[str, object]:
    """One measurement, in this (fresh) process."""
    _, make_graph, make_module, _ = CASES[case]
    if what == "site":
        t = time.perf_counter()
        graph = make_graph(layers)
        t_graph = time.perf_counter() - t
        before = _rss_now_mb()
        t = time.perf_counter()
        report, _ = site_report(case, graph, raw=False)
        wall = time.perf_counter() - t
        return {
            "graph_s": t_graph,
            "wall_s": wall,
            "site_and_omega_s": report.seconds_site_and_omega,
            "layers": report.layers,
            "copies": report.copies,
            "x_objects": report.x_objects,
            "thin": report.thin,
            "raw_thin": report.raw_thin,
            "largest_bits": report.largest_omega.bit_length(),
            "peak_mb": _peak_mb(),
            "growth_mb": _peak_mb() - before,
        }
    torch.manual_seed(0)
    model, x = make_module(layers).eval(), torch.randn(4, D)
    before = _rss_now_mb()
    with torch.no_grad():
        t_fwd = _best(lambda: model(x), repeat=3)
    return {"forward_s": t_fwd, "peak_mb": _peak_mb(), "growth_mb": _peak_mb() - before}


def _fresh(what: str, case: str, layers: int) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, __file__, "--one", what, case, str(layers)],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or [f"exit {out.returncode}"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def generated() -> None:
    """The ~300-node traced model (issue 5's benchmark)."""
    torch.manual_seed(0)
    model, x = Generated().eval(), torch.randn(4, 8)
    t0 = time.perf_counter()
    raw = extract(model, (x,), "generated")
    t_extract = time.perf_counter() - t0
    for label, graph in (("raw", raw), ("normalized", raw.normalized())):
        holder: dict[str, object] = {}

        def site_and_omega(graph: LayerGraph = graph, holder: dict[str, object] = holder) -> None:
            site = Site(graph)
            thin = site.thinness()
            poset = site.poset()
            sizes = omega_sizes(poset, DownsetCounter(poset))
            holder.update(site=site, thin=thin, poset=poset, sizes=sizes)

        t_site = _best(site_and_omega)
        with torch.no_grad():
            t_fwd = _best(lambda: model(x), repeat=20)
        poset, sizes = holder["poset"], holder["sizes"]
        print(
            f"{label:>10}: {len(graph.nodes)} layer nodes, {poset.n} objects in X, "
            f"{len(poset.covers)} covers, "
            f"thin={holder['thin'].thin}, max |Omega(x)| = {max(sizes)} (~1e{len(str(max(sizes))) - 1})"
        )
        print(
            f"{'':>10}  site + all |Omega(x)|: {t_site * 1e3:8.1f} ms   "
            f"plain forward: {t_fwd * 1e3:6.2f} ms   "
            f"ratio {t_site / t_fwd:8.1f}x   (target < 1000 ms)"
        )
    print(f"{'':>10}  extraction (fx trace + recorded float64 run): {t_extract * 1e3:.1f} ms")


def large(scale: float) -> None:
    """The three large cases, each measurement in a fresh process."""
    for case, (layers, _, _, target) in CASES.items():
        layers = max(3, int(layers * scale))
        site = _fresh("site", case, layers)
        fwd = _fresh("forward", case, layers)
        if "error" in site:
            print(f"{case:>10}: {layers} layers: site FAILED: {site['error']}")
            continue
        print(
            f"{case:>10}: {site['layers']} layers, {site['copies']} copy nodes, {site['x_objects']} objects "
            f"in X, thin={site['thin']} (raw {site['raw_thin']}), "
            f"largest |Omega(x)| has {site['largest_bits']} bits"
        )
        ratio = "" if "error" in fwd else f"   ratio {site['wall_s'] / fwd['forward_s']:8.1f}x"
        print(
            f"{'':>10}  site + all |Omega(x)| (pybridge site): {site['wall_s']:7.2f} s "
            f"(of which site+Omega {site['site_and_omega_s']:.2f} s; "
            f"graph built in {site['graph_s']:.2f} s), "
            f"peak RSS {site['peak_mb']:.0f} MB (+{site['growth_mb']:.0f} MB)   (target {target})"
        )
        if "error" in fwd:
            print(f"{'':>10}  plain forward: FAILED: {fwd['error']}")
        else:
            print(
                f"{'':>10}  plain forward (no_grad, best of 3): {fwd['forward_s'] * 1e3:8.1f} ms, "
                f"peak RSS {fwd['peak_mb']:.0f} MB (+{fwd['growth_mb']:.0f} MB){ratio}"
            )


def extraction(layers: int = 3_000) -> None:
    """How long ``extract`` takes on a chain module: why the large cases build their graphs directly."""
    torch.manual_seed(0)
    model, x = Chain(layers).eval(), torch.randn(4, D)
    t = time.perf_counter()
    graph = extract(model, (x,), "chain")
    t_extract = time.perf_counter() - t
    assert len(graph.nodes) == layers + 1
    print(f"{'extract':>10}: a {layers}-layer Chain module traced and recorded in {t_extract:.1f} s")


def main() -> None:
    """Print the timings."""
    if len(sys.argv) == 5 and sys.argv[1] == "--one":
        print(json.dumps(_one(sys.argv[2], sys.argv[3], int(sys.argv[4]))))
        return
    quick = "--quick" in sys.argv
    generated()
    large(0.1 if quick else 1.0)
    extraction(300 if quick else 3_000)


if __name__ == "__main__":
    main()
