"""Benchmark: the site and every |Ω(x)| of a generated ~300-node model, against a plain forward pass.

Not a test. Run ``python bench/bench_site.py``; it prints the timings side by side and their ratio.
The target (README, issue 5): site plus all |Ω(x)| in under 1 s for a 300-node graph.
"""

from __future__ import annotations

import time

import torch
from torch import nn

from pybridge.site.fork import Site
from pybridge.site.graph import extract
from pybridge.site.omega import DownsetCounter, omega_sizes


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


def _best(fn, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    """Print the timings."""
    torch.manual_seed(0)
    model, x = Generated().eval(), torch.randn(4, 8)
    t0 = time.perf_counter()
    raw = extract(model, (x,), "generated")
    t_extract = time.perf_counter() - t0
    for label, graph in (("raw", raw), ("normalized", raw.normalized())):
        holder: dict[str, object] = {}

        def site_and_omega(graph=graph, holder=holder) -> None:
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


if __name__ == "__main__":
    main()
