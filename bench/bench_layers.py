"""Forward-pass speed of the compiled Zoo layers against the plain PyTorch modules they mirror.

Run: ``python bench/bench_layers.py [--device cpu|cuda] [--repeat N] [--memory]``. For every layer with
a PyTorch counterpart it loads the counterpart's weights into the compiled layer and times both on the
same inputs in one process, interleaved, reporting medians and the ratio ours/PyTorch.

With ``--memory`` it also measures the extra peak memory of the forward passes: on CUDA with
``torch.cuda.max_memory_allocated``; on the CPU as the growth of the peak resident set
(``ru_maxrss``) of a fresh child process that builds one of the two modules and its input, then runs
the forward passes (one child per module, so neither sees the other's allocations). Not a test.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import torch

from pybridge.laws.checks import build_counterpart, call_counterpart, load_counterpart_weights
from pybridge.lean.catalogue import load_catalogue
from pybridge.torch import compile_term

CASES = {
    "mlp": {"d_in": 256, "d_hidden": 1024, "d_out": 256},
    "glu": {"d_in": 256, "d_out": 256},
    "attention": {"d_model": 256, "heads": 8},
    "encoderBlock": {"d_model": 256, "heads": 8, "d_ff": 1024},
}


def _time(fn: Callable[[torch.Tensor], object], x: torch.Tensor, device: str) -> float:
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    with torch.no_grad():
        fn(x)
    if device == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start


def _build(name: str, which: str, device: str, batch: int, seq: int) -> tuple[Callable, torch.Tensor]:
    """One side of a comparison: the compiled layer (``ours``) or the PyTorch module (``torch``)."""
    cat = load_catalogue()
    info = cat.layer(name)
    term, sig = cat.instantiate(name, CASES[name])
    dims = [seq if isinstance(d, str) else d for d in sig.dom.dims]  # type: ignore[union-attr]
    x = torch.randn([batch, *dims], device=device)
    if which == "ours":
        module = compile_term(term, dtype=torch.float32, device=device).eval()
        return module, x
    ref = build_counterpart(info.pytorch or "", CASES[name], torch.float32).to(device)
    return (lambda v: call_counterpart(ref, v)), x


def _child(name: str, which: str, device: str, batch: int, seq: int, repeat: int) -> None:
    """Measure one side in this (fresh) process and print the extra peak memory in MiB as JSON."""
    torch.manual_seed(0)
    fn, x = _build(name, which, device, batch, seq)
    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
    else:
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    with torch.no_grad():
        for _ in range(repeat):
            fn(x)
    if device == "cuda":
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated()
    else:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"extra_mib": (peak - base) / 2**20}))


def _memory(name: str, which: str, args: argparse.Namespace) -> float:
    cmd = [sys.executable, __file__, "--child", name, which, "--device", args.device, "--batch",
           str(args.mem_batch), "--seq", str(args.seq), "--repeat", "3"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return float(json.loads(out.stdout.strip().splitlines()[-1])["extra_mib"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memory", action="store_true", help="also measure the extra peak memory")
    parser.add_argument("--mem-batch", type=int, default=256,
                        help="batch size of the memory runs (large, so the forward pass dominates the peak)")
    parser.add_argument("--child", nargs=2, metavar=("LAYER", "SIDE"), help=argparse.SUPPRESS)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--seq", type=int, default=64)
    args = parser.parse_args()
    if args.child:
        _child(args.child[0], args.child[1], args.device, args.batch, args.seq, args.repeat)
        return
    torch.manual_seed(0)
    cat = load_catalogue()
    print(f"device={args.device} batch={args.batch} seq={args.seq} repeat={args.repeat} dtype=float32"
          + (f"; memory runs: batch={args.mem_batch}" if args.memory else ""))
    print(f"{'layer':13} {'ours ms':>9} {'torch ms':>9} {'ratio':>6}  counterpart")
    for name, params in CASES.items():
        info = cat.layer(name)
        term, sig = cat.instantiate(name, params)
        ref = build_counterpart(info.pytorch or "", params, torch.float32).to(args.device)
        ours = compile_term(term, dtype=torch.float32, device=args.device).eval()
        load_counterpart_weights(ours, ref, info)
        dims = [args.seq if isinstance(d, str) else d for d in sig.dom.dims]  # type: ignore[union-attr]
        x = torch.randn([args.batch, *dims], device=args.device)

        def plain(v: torch.Tensor, ref: torch.nn.Module = ref) -> torch.Tensor:
            return call_counterpart(ref, v)

        for _ in range(3):  # warm-up
            _time(ours, x, args.device), _time(plain, x, args.device)
        ours_t, ref_t = [], []
        for _ in range(args.repeat):
            ours_t.append(_time(ours, x, args.device))
            ref_t.append(_time(plain, x, args.device))
        mo, mr = statistics.median(ours_t) * 1e3, statistics.median(ref_t) * 1e3
        line = f"{name:13} {mo:9.3f} {mr:9.3f} {mo / mr:6.2f}  {info.pytorch.split('(')[0]}"  # type: ignore[union-attr]
        if args.memory:
            mem_o, mem_r = _memory(name, "ours", args), _memory(name, "torch", args)
            ratio = f"{mem_o / mem_r:.2f}" if mem_r > 0 else "n/a"
            line += f"   peak +{mem_o:.0f} vs +{mem_r:.0f} MiB ({ratio})"
        print(line)


if __name__ == "__main__":
    main()
