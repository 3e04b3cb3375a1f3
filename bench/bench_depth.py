"""Benchmark: ``site`` on LLaMA configs of growing depth (4, 8, 16, 32 layers, width 64), by phase.

Not a test. Run ``python bench/bench_depth.py [DEPTH ...]`` (needs the ``models`` extra). For each depth it
prints the seconds of: capture (``torch.export`` and the decomposition to core ATen), the recorded float64
run that builds Γ, and the site with thinness and every |Ω(x)| counted exactly (the phase that the
issue-11 target, < 10 s for 32 layers, is about), with the plain forward pass beside it. The machine the
README's figures come from is a shared 2-core machine: the timings are as measured under that load.
"""

from __future__ import annotations

import sys
import time

import torch

from pybridge.capture import capture_copy
from pybridge.corpus import llama
from pybridge.site.commands import site_report
from pybridge.site.graph import extract


def run(depth: int) -> None:
    """Print one line of timings for a ``depth``-layer LLaMA of width 64."""
    model, example = llama(depth, 64)
    from pybridge.capture import keyword_inputs

    module, inputs = keyword_inputs(model, example)
    t0 = time.perf_counter()
    cap, _ = capture_copy(module, inputs, f"llama{depth}")
    t_capture = time.perf_counter() - t0
    t0 = time.perf_counter()
    graph = extract(module, inputs, f"llama{depth}")  # captures again, then records every value
    t_extract = time.perf_counter() - t0 - graph.capture.seconds  # type: ignore[union-attr]
    report, _ = site_report(f"llama{depth}", graph, raw=False)
    with torch.no_grad():
        t0 = time.perf_counter()
        module(*inputs)
        t_fwd = time.perf_counter() - t0
    print(
        f"depth {depth:>2}: {len(cap.gm.graph.nodes):>5} graph nodes, {report.layers:>5} layers, "
        f"{report.x_objects:>5} objects in X, {report.x_objects - len(report.omega_bounds)} counted exactly "
        f"({len(report.omega_bounds)} bounded), largest exact |Omega(x)| = {report.largest_omega:.3e} "
        f"at {report.largest_omega_at}, "
        f"thin raw/normal {report.raw_thin}/{report.thin} | capture {t_capture:6.1f} s, "
        f"record {t_extract:5.2f} s, site + all |Omega(x)| {report.seconds_site_and_omega:6.2f} s, "
        f"forward {t_fwd * 1e3:6.1f} ms",
        flush=True,
    )


def main() -> None:
    """Run the depths given on the command line (default 4 8 16 32)."""
    depths = [int(a) for a in sys.argv[1:]] or [4, 8, 16, 32]
    for d in depths:
        run(d)


if __name__ == "__main__":
    main()
