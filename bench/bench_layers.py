"""Forward-pass speed of the compiled Zoo layers against the plain PyTorch modules they mirror.

Run: ``python bench/bench_layers.py [--device cpu|cuda] [--repeat N]``. For every layer with a PyTorch
counterpart it loads the counterpart's weights into the compiled layer and times both on the same
inputs in one process, interleaved, reporting medians and the ratio ours/PyTorch. Not a test.
"""

from __future__ import annotations

import argparse
import statistics
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--seq", type=int, default=64)
    args = parser.parse_args()
    torch.manual_seed(0)
    cat = load_catalogue()
    print(f"device={args.device} batch={args.batch} seq={args.seq} repeat={args.repeat} dtype=float32")
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
        print(f"{name:13} {mo:9.3f} {mr:9.3f} {mo / mr:6.2f}  {info.pytorch.split('(')[0]}")  # type: ignore[union-attr]


if __name__ == "__main__":
    main()
