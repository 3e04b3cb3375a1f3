"""Speed and memory of the six Zoo layers, compiled from their Lean terms, against PyTorch counterparts.

Not a test. Run ``python bench/bench_layers.py [options]``; ``--help`` lists them. For every layer, size,
dtype and mode (eager, or ``torch.compile`` in its default mode, with Dynamo's
``capture_dynamic_output_shape_ops`` on, so that our ``copair`` runs its dispatch when compiled: see
:data:`COMPILED_DYNAMO_CONFIG`) it times these candidates on the same weights and inputs, in one process:

* ``ours``: the optimised realisation, ``compile_term(term, literal=False)``; only where
  :func:`pybridge.torch.compile_term` has the ``literal`` switch (feature-detected; otherwise absent);
* ``ours-literal``: the realisation that follows the Lean term primitive by primitive
  (``compile_term(term, literal=True)``, or plain ``compile_term(term)`` where there is no switch);
* the counterpart: the module of the layer's ``PyTorch:`` line (weights copied into ours through the
  adapter that ``Layer.from_torch`` uses); for ``moe`` a hand-written top-1 dispatch
  (:class:`Top1Dispatch`), for ``hyperLinear`` a batched einsum (:class:`HyperEinsum`, the reference
  counterpart) and a per-sample loop (:class:`HyperLoop`); these take our layer's weights.

Timing: grad mode on (parameters require gradients); ``fwd`` is one forward call, ``fwd+bwd`` one forward
call and ``out.backward(g)`` with a fixed random cotangent ``g``, gradients set to ``None`` before each
call (outside the timed region). Each candidate gets ``--warmup`` untimed calls (in compiled mode the
first one compiles; its wall time is reported as the first-call time, not in the timings), then
``--rounds`` rounds; in each round the candidates run in a random order (seeded), each timed over the
same number of consecutive calls. Reported: per candidate the median time of one call, and per ``ours``
candidate the median over rounds of the ratio ours / counterpart in that round. The clock is the process
CPU time (``time.process_time``) on the CPU, so that other processes' load does not count, and the wall
clock with ``torch.cuda.synchronize`` on CUDA. One intra-op thread by default.

Memory (eager only): (a) ``rss``: the growth of the peak resident set during ``--mem-calls`` measured
calls, in a fresh child process per candidate (the peak is reset through ``/proc/self/clear_refs`` after
the model and input are built; where that file cannot be written, ``ru_maxrss`` is used instead and the
results say so), median over ``--mem-procs`` processes, for the passes of ``--rss-passes``; the children
run with glibc's ``MALLOC_MMAP_THRESHOLD_`` fixed (``--mmap-threshold``, see
:data:`DEFAULT_MMAP_THRESHOLD`), so that freed tensors go back to the system; (b) ``live``:
PyTorch's peak of live tensor storage bytes allocated during one call: on CPU a ``TorchDispatchMode``
that adds up the bytes of each new storage an operator returns (storages aliasing an operand, i.e. views
and in-place results, are not new) and subtracts them when a ``weakref.finalize`` on the storage fires;
on CUDA ``torch.cuda.max_memory_allocated`` above the memory allocated before the call.

Output: a JSON results file (``--out``, default ``bench/results/layers.json``; ``--force`` replaces it;
``--append`` adds this run to it as a further run, its rows replacing earlier rows of the same layer,
size, dtype and mode, so that a matrix can be measured in several invocations) and, with
``--write-readme``, the README block between the markers of :data:`BEGIN` and :data:`END`, generated from that
results file (``--from-results FILE --write-readme`` regenerates it without running anything).
``--quick`` is a smoke run: tiny sizes, two rounds, no compile, one memory process. ``--device cuda`` on
a machine without CUDA prints one line and exits with status 0, having run nothing.
"""

from __future__ import annotations

import argparse
import gc
import inspect
import json
import math
import os
import platform
import random
import re
import resource
import shlex
import statistics
import subprocess
import sys
import time
import weakref
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from pybridge.errors import BridgeError, UsageError  # noqa: E402
from pybridge.files import write_atomic  # noqa: E402
from pybridge.laws.checks import (  # noqa: E402
    build_counterpart,
    call_counterpart,
    leaf_pairs,
    load_counterpart_weights,
)
from pybridge.lean.catalogue import load_catalogue  # noqa: E402
from pybridge.torch import compile_term, runtime  # noqa: E402

LAYERS = ("mlp", "glu", "attention", "encoderBlock", "moe", "hyperLinear")
MODES = ("eager", "compiled")
#: Dynamo settings of the compiled mode (recorded in each compiled row). With them, Dynamo can trace the
#: data-dependent size of a dispatch's ``nonzero``, so that ``moe``'s ``ours`` runs its dispatch when
#: compiled (without them the emitted code runs its masked form, every expert on every row); the
#: counterparts are compiled under the same settings.
COMPILED_DYNAMO_CONFIG = {"capture_dynamic_output_shape_ops": True}
PASSES = ("fwd", "fwdbwd")
DTYPES = {"float32": torch.float32, "float64": torch.float64}
DEFAULT_OUT = ROOT / "bench" / "results" / "layers.json"
README = ROOT / "README.md"
BEGIN = "<!-- BEGIN GENERATED: layer benchmark (python bench/bench_layers.py --write-readme) -->"
END = "<!-- END GENERATED: layer benchmark -->"
SCHEMA = 1

#: Issue 13's targets: ratio ours / counterpart (time and memory) at most this.
TIME_TARGET = {"moe": 1.10, "hyperLinear": 1.10}
TIME_TARGET_DEFAULT = 1.05
MEMORY_TARGET = 1.10
#: glibc's mmap threshold in the RSS child processes. glibc's default threshold is dynamic: it rises
#: to the size of a freed mmapped block, after which tensor-sized blocks come from the heap and stay
#: there after ``free``, so a process's peak RSS depends on the order of its frees (in the results
#: committed at 3a015f6, run 0: mlp's ``ours`` forward, small float32, grew by 40.4, 40.4 and 32.4 MiB
#: in three fresh processes; its live-tensor peak is 16.0 MiB). A fixed threshold of 64 KiB sends every
#: block of 64 KiB or more to its own mapping, returned to the system on ``free``, so that the peak
#: growth follows the live tensors (run 2: 16.4, 16.3, 16.4 MiB for the same case;
#: tests/test_bench_layers.py checks two processes agree within 1 MiB and lie between the live peak
#: and 4 MiB above it, for an mlp forward).
DEFAULT_MMAP_THRESHOLD = 65536

#: hyperLinear: the per-sample loop must take at least this many times as long as ours.
LOOP_SPEEDUP_TARGET = 8.0


@dataclass(frozen=True)
class Size:
    """A benchmark size: batch, sequence length and the width that each layer maps onto its parameters."""

    name: str
    batch: int
    seq: int
    width: int


SIZES = {"small": Size("small", 32, 64, 256), "large": Size("large", 8, 256, 1024)}
QUICK = Size("quick", 2, 4, 32)


@dataclass(frozen=True)
class Setup:
    """One layer at one size: its Lean parameters and the shape of the batched input."""

    params: dict[str, int]
    input_shape: tuple[int, ...]
    mapping: str


def setup(layer: str, size: Size) -> Setup:
    """Map a size onto the layer's parameters (see each line's ``mapping`` text)."""
    b, s, w = size.batch, size.seq, size.width
    rows = b * s
    heads = max(1, w // 32)
    if layer == "mlp":
        return Setup(
            {"d_in": w, "d_hidden": 4 * w, "d_out": w},
            (rows, w),
            "d_in=d_out=width, d_hidden=4·width; rows = batch·seq",
        )
    if layer == "glu":
        return Setup({"d_in": w, "d_out": w}, (rows, w), "d_in=d_out=width; rows = batch·seq")
    if layer == "attention":
        return Setup({"d_model": w, "heads": heads}, (b, s, w), "d_model=width, heads=width/32")
    if layer == "encoderBlock":
        return Setup(
            {"d_model": w, "heads": heads, "d_ff": 4 * w},
            (b, s, w),
            "d_model=width, heads=width/32, d_ff=4·width",
        )
    if layer == "moe":
        return Setup({"d": w, "experts": 4}, (rows, w), "d=width, 4 experts; rows = batch·seq")
    if layer == "hyperLinear":
        d = max(1, w // 4)
        return Setup(
            {"d_in": d, "d_out": d},
            (max(1, rows // 8), d),
            "d_in=d_out=width/4, rows = batch·seq/8 (a d_out×d_in matrix per row)",
        )
    raise UsageError(f"unknown layer {layer!r}; the benchmark has: {', '.join(LAYERS)}")


# --- counterparts of the layers PyTorch has no module for -------------------------------------------


class Top1Dispatch(nn.Module):
    """Hand-written top-1 mixture of experts: the router's first arg-max picks the expert; each expert
    runs only on its own rows (``nonzero`` of the tag, gather, scatter back)."""

    def __init__(self, d: int, experts: int, dtype: torch.dtype, device: str) -> None:
        super().__init__()
        self.router = nn.Linear(d, experts, dtype=dtype, device=device)
        self.experts = nn.ModuleList(nn.Linear(d, d, dtype=dtype, device=device) for _ in range(experts))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        tag = self.router(x).argmax(dim=-1)
        out = x.new_empty(x.shape[0], self.experts[0].out_features)
        for e, expert in enumerate(self.experts):
            rows = (tag == e).nonzero(as_tuple=True)[0]
            out[rows] = expert(x[rows])
        return out


class HyperEinsum(nn.Module):
    """``W(x) x`` batched: one linear map gives every row's matrix, one einsum applies them."""

    def __init__(self, d_in: int, d_out: int, dtype: torch.dtype, device: str) -> None:
        super().__init__()
        self.d_in, self.d_out = d_in, d_out
        self.hyper = nn.Linear(d_in, d_out * d_in, dtype=dtype, device=device)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.hyper(x).reshape(x.shape[0], self.d_out, self.d_in)
        return torch.einsum("boi,bi->bo", w, x)


class HyperLoop(HyperEinsum):
    """``W(x) x`` one sample at a time: a Python loop over the rows, each computing its own matrix."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.stack([self.hyper(xi).reshape(self.d_out, self.d_in) @ xi for xi in x.unbind(0)])


class SelfAttentionCall(nn.Module):
    """A ``PyTorch:`` counterpart called on a batch-first input the way ``pybridge check`` calls it."""

    def __init__(self, module: nn.Module) -> None:
        super().__init__()
        self.module = module

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return call_counterpart(self.module, x)


def _load_pairs(module: nn.Module, pairs: list[tuple[torch.Tensor, torch.Tensor]]) -> None:
    linears = [m for m in module.modules() if isinstance(m, nn.Linear)]
    with torch.no_grad():
        for lin, (w, b) in zip(linears, pairs, strict=True):
            lin.weight.copy_(w)
            lin.bias.copy_(b)


# --- candidates ---------------------------------------------------------------------------------------


def literal_switch() -> bool:
    """Whether ``compile_term`` has the ``literal`` switch (the optimised realisation exists)."""
    return "literal" in inspect.signature(compile_term).parameters


def _ours(term: Any, dtype: torch.dtype, device: str, literal: bool) -> nn.Module:
    if literal_switch():
        return compile_term(term, dtype=dtype, device=device, literal=literal)  # type: ignore[call-arg]
    return compile_term(term, dtype=dtype, device=device)


def candidate_names(layer: str) -> tuple[list[str], list[str]]:
    """(our candidates, counterparts); the first counterpart is the one ratios are taken against."""
    ours = (["ours"] if literal_switch() else []) + ["ours-literal"]
    if layer == "moe":
        return ours, ["top1-dispatch"]
    if layer == "hyperLinear":
        return ours, ["einsum", "loop"]
    return ours, ["pytorch"]


def build_candidates(
    layer: str, size: Size, dtype: torch.dtype, device: str, only: str | None = None
) -> dict[str, nn.Module]:
    """The candidates of one configuration, with the same weights (``only``: build that one alone,
    with its own random weights, for the memory children)."""
    cat = load_catalogue()
    info = cat.layer(layer)
    st = setup(layer, size)
    term, _ = cat.instantiate(layer, st.params)
    ours_names, cp_names = candidate_names(layer)
    wanted = [only] if only else ours_names + cp_names
    out: dict[str, nn.Module] = {}
    for name in wanted:
        if name in ("ours", "ours-literal"):
            out[name] = _ours(term, dtype, device, literal=name == "ours-literal")
        elif name == "pytorch":
            out[name] = SelfAttentionCall(build_counterpart(info.pytorch or "", st.params, dtype).to(device))
        elif name == "top1-dispatch":
            out[name] = Top1Dispatch(st.params["d"], st.params["experts"], dtype, device)
        elif name in ("einsum", "loop"):
            cls = HyperEinsum if name == "einsum" else HyperLoop
            out[name] = cls(st.params["d_in"], st.params["d_out"], dtype, device)
        else:
            raise UsageError(f"{layer}: unknown candidate {name!r}")
    if only is None:
        if "pytorch" in out:
            for name in ours_names:
                load_counterpart_weights(out[name], out["pytorch"].module, info)
        else:
            pairs = leaf_pairs(out["ours-literal"])
            for name in ours_names:
                runtime.load_leaves(out[name], pairs)
            for name in cp_names:
                _load_pairs(out[name], pairs)
    for m in out.values():
        m.eval()
    return out


# --- timing -------------------------------------------------------------------------------------------


def _clock(device: str) -> Callable[[], float]:
    if device == "cuda":

        def wall() -> float:
            torch.cuda.synchronize()
            return time.perf_counter()

        return wall
    return time.process_time


def _one_call(
    fn: Callable[[torch.Tensor], torch.Tensor],
    module: nn.Module,
    x: torch.Tensor,
    cot: torch.Tensor,
    which: str,
    clock: Callable[[], float],
    keep: list[torch.Tensor] | None = None,
) -> float:
    """Time one call (forward, or forward and backward); gradients are cleared before the clock starts.
    With ``keep``, the (detached) output is appended to it."""
    module.zero_grad(set_to_none=True)
    start = clock()
    out = fn(x)
    if which == "fwdbwd":
        out.backward(cot)
    elapsed = clock() - start
    if keep is not None:
        keep.append(out.detach())
    del out
    return elapsed


def time_config(
    cands: dict[str, nn.Module],
    x: torch.Tensor,
    cot: torch.Tensor,
    mode: str,
    args: argparse.Namespace,
    rng: random.Random,
    ours_names: list[str],
    primary: str,
) -> dict[str, Any]:
    """Warm up, then time every candidate over interleaved random-order rounds (both passes)."""
    clock = _clock(args.device)
    fns: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {}
    for name, m in cands.items():
        fns[name] = torch.compile(m) if mode == "compiled" else m
    result: dict[str, Any] = {
        "first_call_s": {},
        "median_s": {},
        "ratio": {},
        "rounds": {},
        "calls_per_sample": {},
    }
    outputs: dict[str, list[torch.Tensor]] = {n: [] for n in cands}
    for which in PASSES:
        first: dict[str, float] = {}
        warm: dict[str, float] = {}
        for name in cands:
            t0 = time.perf_counter()
            _one_call(fns[name], cands[name], x, cot, which, clock, outputs[name] if which == "fwd" else None)
            first[name] = time.perf_counter() - t0
            times = [_one_call(fns[name], cands[name], x, cot, which, clock) for _ in range(args.warmup)]
            warm[name] = min(times) if times else first[name]
        # the same number of consecutive calls per sample for all candidates: enough for ~5 ms
        calls = max(1, min(50, math.ceil(0.005 / max(min(warm.values()), 1e-6))))
        per_round: dict[str, list[float]] = {n: [] for n in cands}
        for _ in range(args.rounds):
            order = list(cands)
            rng.shuffle(order)
            for name in order:
                total = sum(_one_call(fns[name], cands[name], x, cot, which, clock) for _ in range(calls))
                per_round[name].append(total / calls)
        result["first_call_s"][which] = first
        result["calls_per_sample"][which] = calls
        result["rounds"][which] = per_round
        result["median_s"][which] = {n: statistics.median(v) for n, v in per_round.items()}
        result["ratio"][which] = {
            f"{o}/{c}": statistics.median(a / b for a, b in zip(per_round[o], per_round[c], strict=True))
            for o in ours_names
            for c in cands
            if c not in ours_names
        }
    # each candidate's maximal absolute difference from the primary counterpart (first forward call)
    ref = outputs[primary][0]
    result["max_abs_diff"] = {n: float((o[0] - ref).abs().max()) for n, o in outputs.items()}
    if mode == "compiled":
        torch._dynamo.reset()
    return result


# --- memory -------------------------------------------------------------------------------------------


class LivePeak(TorchDispatchMode):
    """Peak bytes of live tensor storages created by operators while the mode is active.

    A storage counts from the operator that returns it (unless it aliases one of the operator's tensor
    arguments: a view or an in-place result) until ``weakref.finalize`` on it fires.
    """

    def __init__(self) -> None:
        super().__init__()
        self.live = 0
        self.peak = 0
        self._seen: set[int] = set()

    def _free(self, key: int, nbytes: int) -> None:
        self._seen.discard(key)
        self.live -= nbytes

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        operands = {
            t.untyped_storage().data_ptr()
            for t in torch.utils._pytree.tree_leaves((args, kwargs))
            if isinstance(t, torch.Tensor)
        }
        for t in torch.utils._pytree.tree_leaves(out):
            if not isinstance(t, torch.Tensor):
                continue
            storage = t.untyped_storage()
            key, nbytes = storage.data_ptr(), storage.nbytes()
            if nbytes == 0 or key in operands or key in self._seen:
                continue
            self._seen.add(key)
            self.live += nbytes
            self.peak = max(self.peak, self.live)
            weakref.finalize(storage, self._free, key, nbytes)
        return out


def live_peak(module: nn.Module, x: torch.Tensor, cot: torch.Tensor, which: str, device: str) -> int:
    """Peak live tensor bytes allocated during one call (after one warm-up call)."""
    module.zero_grad(set_to_none=True)
    out = module(x)
    if which == "fwdbwd":
        out.backward(cot)
    del out
    module.zero_grad(set_to_none=True)
    gc.collect()
    if device == "cuda":
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        out = module(x)
        if which == "fwdbwd":
            out.backward(cot)
        del out
        torch.cuda.synchronize()
        return int(torch.cuda.max_memory_allocated() - base)
    mode = LivePeak()
    with mode:
        out = module(x)
        if which == "fwdbwd":
            out.backward(cot)
        del out
    return mode.peak


def _status_kib(field: str) -> int:
    text = Path("/proc/self/status").read_text()
    m = re.search(rf"^{field}:\s+(\d+) kB", text, flags=re.M)
    if m is None:
        raise BridgeError(f"/proc/self/status has no {field}")
    return int(m.group(1))


def memory_child(spec: dict[str, Any]) -> dict[str, Any]:
    """In a fresh process: the peak resident-set growth of ``calls`` calls of one candidate."""
    torch.set_num_threads(spec["threads"])
    torch.manual_seed(0)
    size = Size(**spec["size"])
    dtype = DTYPES[spec["dtype"]]
    device = spec["device"]
    module = build_candidates(spec["layer"], size, dtype, device, only=spec["candidate"])[spec["candidate"]]
    x = torch.randn(setup(spec["layer"], size).input_shape, dtype=dtype, device=device)
    with torch.no_grad():
        cot = torch.randn_like(module(x))
    gc.collect()
    try:
        Path("/proc/self/clear_refs").write_text("5")
        method = "VmHWM - VmRSS after resetting the peak (/proc/self/clear_refs)"
        base = _status_kib("VmRSS") * 1024
    except OSError:
        method = "ru_maxrss growth (the peak could not be reset)"
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    for _ in range(spec["calls"]):
        module.zero_grad(set_to_none=True)
        out = module(x)
        if spec["which"] == "fwdbwd":
            out.backward(cot)
        del out
    if method.startswith("VmHWM"):
        peak = _status_kib("VmHWM") * 1024
    else:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"growth_bytes": max(0, peak - base), "method": method}


def child_env(spec: dict[str, Any]) -> dict[str, str]:
    """The environment of a memory child: ours, with its thread count and, where the spec has one, glibc's
    mmap threshold (``MALLOC_MMAP_THRESHOLD_``; glibc reads it at start-up)."""
    env = {**os.environ, "OMP_NUM_THREADS": str(spec["threads"])}
    env.pop("MALLOC_MMAP_THRESHOLD_", None)
    if spec.get("mmap_threshold"):
        env["MALLOC_MMAP_THRESHOLD_"] = str(int(spec["mmap_threshold"]))
    return env


def rss_growth(specs: list[dict[str, Any]], procs: int, jobs: int) -> list[dict[str, Any]]:
    """For each spec, the median over ``procs`` fresh processes of :func:`memory_child`; up to ``jobs``
    children run at a time (each measures only its own resident set)."""
    queue = [(i, spec) for i, spec in enumerate(specs) for _ in range(procs)]
    values: list[list[int]] = [[] for _ in specs]
    methods = [""] * len(specs)
    running: list[tuple[int, dict[str, Any], subprocess.Popen[str]]] = []
    while queue or running:
        while queue and len(running) < max(1, jobs):
            i, spec = queue.pop(0)
            cmd = [sys.executable, str(Path(__file__).resolve()), "--child-memory", json.dumps(spec)]
            env = child_env(spec)
            running.append(
                (
                    i,
                    spec,
                    subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env),
                )
            )
        i, spec, child = running.pop(0)
        stdout, stderr = child.communicate()
        if child.returncode != 0:
            tail = (stderr.strip().splitlines() or ["no output"])[-1]
            raise BridgeError(f"memory child for {spec['layer']}/{spec['candidate']} failed: {tail}")
        got = json.loads(stdout.strip().splitlines()[-1])
        values[i].append(got["growth_bytes"])
        methods[i] = got["method"]
    return [
        {"bytes": v, "median": statistics.median(v), "method": m}
        for v, m in zip(values, methods, strict=True)
    ]


# --- one configuration --------------------------------------------------------------------------------


def run_config(
    layer: str, size: Size, dtype_name: str, mode: str, args: argparse.Namespace, rng: random.Random
) -> dict[str, Any]:
    """Time (and, in eager mode, measure the memory of) one layer at one size, dtype and mode."""
    dtype = DTYPES[dtype_name]
    torch.manual_seed(0)
    st = setup(layer, size)
    cands = build_candidates(layer, size, dtype, args.device)
    ours_names, cp_names = candidate_names(layer)
    skipped = {}
    if mode == "compiled" and "loop" in cands:
        # dynamo unrolls the per-sample Python loop (one graph node group per row): in the first run of
        # this benchmark, compiling it at 256 rows had not finished after 13 minutes
        del cands["loop"]
        cp_names = [c for c in cp_names if c != "loop"]
        skipped["loop"] = "not compiled: torch.compile unrolls its per-sample Python loop"
    primary = cp_names[0]
    x = torch.randn(st.input_shape, dtype=dtype, device=args.device)
    with torch.no_grad():
        cot = torch.randn_like(cands[primary](x))
    t0 = time.perf_counter()
    row: dict[str, Any] = {
        "layer": layer,
        "size": size.name,
        "batch": size.batch,
        "seq": size.seq,
        "width": size.width,
        "dtype": dtype_name,
        "mode": mode,
        "params": st.params,
        "input_shape": list(st.input_shape),
        "mapping": st.mapping,
        "ours": ours_names,
        "counterparts": cp_names,
        "primary": primary,
        "skipped": skipped,
    }
    row["lean_rewrites"] = {n: [list(r) for r in getattr(cands[n], "lean_rewrites", ())] for n in ours_names}
    if mode == "compiled":
        row["dynamo_config"] = dict(COMPILED_DYNAMO_CONFIG)
        with torch._dynamo.config.patch(**COMPILED_DYNAMO_CONFIG):
            row.update(time_config(cands, x, cot, mode, args, rng, ours_names, primary))
    else:
        row.update(time_config(cands, x, cot, mode, args, rng, ours_names, primary))
    if mode == "eager" and args.memory:
        row["live_bytes"] = {
            w: {n: live_peak(m, x, cot, w, args.device) for n, m in cands.items()} for w in PASSES
        }
        if args.device == "cpu" and args.mem_procs > 0:
            keys = [(w, n) for w in args.rss_passes for n in cands]
            specs = [
                {
                    "layer": layer,
                    "size": asdict(size),
                    "dtype": dtype_name,
                    "candidate": n,
                    "which": w,
                    "device": args.device,
                    "threads": args.threads,
                    "calls": args.mem_calls,
                    "mmap_threshold": args.mmap_threshold,
                }
                for w, n in keys
            ]
            got = rss_growth(specs, args.mem_procs, args.mem_jobs)
            row["rss"] = {w: {n: got[keys.index((w, n))] for n in cands} for w in args.rss_passes}
    row["seconds"] = round(time.perf_counter() - t0, 1)
    return row


# --- report -------------------------------------------------------------------------------------------


def _mark(value: float, ok: bool) -> str:
    return f"{value:.2f} {'✓' if ok else '✗'}"


def median_interval(values: list[float], level: float = 0.95) -> tuple[float, float, float]:
    """A distribution-free confidence interval for the median of ``values`` (i.i.d. rounds): the order
    statistics ``x_(k)`` and ``x_(n-k+1)`` with the largest ``k`` whose two tails of the binomial
    distribution B(n, 1/2) below ``k`` add up to at most ``1 - level``, and at least ``k = 1``, the whole
    range (at 95 %: ``k = 1`` for fewer than 9 values, whose coverage falls below the level for fewer
    than 6). Returns (low, high, the interval's exact coverage)."""
    xs = sorted(values)
    n = len(xs)
    tail, k = 0.0, 0
    while k < n // 2:
        nxt = tail + math.comb(n, k) / 2**n
        if 2 * nxt > 1 - level:
            break
        tail, k = nxt, k + 1
    k = max(k, 1)  # k = 1 is the whole range, with coverage 1 - 2 / 2^n
    cover = 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2**n
    return xs[k - 1], xs[n - k], cover


def _coverages(results: dict[str, Any]) -> str:
    """The exact coverage of ``median_interval`` for each number of rounds in the results' rows."""
    counts = sorted(
        {len(next(iter(r["rounds"][w].values()))) for r in results["rows"] for w in r.get("rounds", {})},
        reverse=True,
    )
    parts = []
    for n in counts:
        low, high, cover = median_interval([float(i) for i in range(n)])
        whole = " (the whole range)" if (low, high) == (0.0, float(n - 1)) else ""
        parts.append(f"{100 * cover:.1f} % with {n} rounds{whole}")
    return ", ".join(parts) if parts else "no rounds recorded"


def _round_ratios(row: dict[str, Any], ours: str, which: str) -> list[float] | None:
    rounds = row.get("rounds", {}).get(which)
    if not rounds:
        return None
    return [a / b for a, b in zip(rounds[ours], rounds[row["primary"]], strict=True)]


def _ratio_cell(row: dict[str, Any], ours: str, which: str) -> str:
    r = row["ratio"][which][f"{ours}/{row['primary']}"]
    cell = _mark(r, r <= TIME_TARGET.get(row["layer"], TIME_TARGET_DEFAULT))
    ratios = _round_ratios(row, ours, which)
    if ratios:
        lo, hi, _ = median_interval(ratios)
        cell += f" ({lo:.2f}–{hi:.2f})"
    return cell


def _memory_cell(row: dict[str, Any], key: str, ours: str) -> str:
    if key not in row:
        return "—"
    cells = []
    for which in PASSES:
        if which not in row[key]:
            cells.append("—")
            continue
        ref = row[key][which][row["primary"]]
        mine = row[key][which][ours]
        if key == "rss":
            ref, mine = ref["median"], mine["median"]
        if ref <= 0:
            cells.append(f"n/a (+{mine / 2**20:.1f} vs +0 MiB)")
        else:
            cells.append(_mark(mine / ref, mine / ref <= MEMORY_TARGET))
    return " / ".join(cells)


def _other_cell(row: dict[str, Any], ours: str) -> str:
    if row["layer"] != "hyperLinear":
        return ""
    if "loop" in row.get("skipped", {}):
        return "loop: " + row["skipped"]["loop"]
    parts = []
    for which in PASSES:
        speedup = 1.0 / row["ratio"][which][f"{ours}/loop"]
        parts.append(f"{speedup:.2f}× {'✓' if speedup >= LOOP_SPEEDUP_TARGET else '✗'}")
    cell = "loop ÷ ours: " + " / ".join(parts)
    if "rounds" in row:  # the counterpart's own speed-up over the loop, the same way (per-round ratios)
        ceiling = [
            statistics.median(
                lp / es for lp, es in zip(row["rounds"][w]["loop"], row["rounds"][w]["einsum"], strict=True)
            )
            for w in PASSES
        ]
        cell += "; loop ÷ einsum: " + " / ".join(f"{c:.2f}×" for c in ceiling)
    return cell


def misses(results: dict[str, Any]) -> list[str]:
    """The cells of the optimised realisation (``ours``) outside issue 13's targets, one phrase each."""
    out = []
    for row in results["rows"]:
        if "ours" not in row["ours"]:
            continue
        where = f"{row['layer']} {row['size']} {row['dtype']} {row['mode']}"
        bad = []
        limit = TIME_TARGET.get(row["layer"], TIME_TARGET_DEFAULT)
        for which in PASSES:
            r = row["ratio"][which][f"ours/{row['primary']}"]
            if r > limit:
                ratios = _round_ratios(row, "ours", which)
                if ratios:
                    lo, hi, _ = median_interval(ratios)
                    side = "includes" if lo <= limit else "lies above"
                    bad.append(f"{which} time {r:.2f} (interval {lo:.2f}–{hi:.2f} {side} {limit:.2f})")
                else:
                    bad.append(f"{which} time {r:.2f}")
        for key in ("rss", "live_bytes"):
            for which, cands in row.get(key, {}).items():
                ref, mine = cands[row["primary"]], cands["ours"]
                if key == "rss":
                    ref, mine = ref["median"], mine["median"]
                if ref > 0 and mine / ref > MEMORY_TARGET:
                    bad.append(f"{which} {'RSS' if key == 'rss' else 'live peak'} {mine / ref:.2f}")
        if row["layer"] == "hyperLinear" and "loop" not in row.get("skipped", {}):
            for which in PASSES:
                speedup = 1.0 / row["ratio"][which]["ours/loop"]
                if speedup < LOOP_SPEEDUP_TARGET:
                    bad.append(f"{which} only {speedup:.2f}× faster than the loop")
        if bad:
            out.append(f"{where}: {', '.join(bad)}")
    return out


def _rewrites(results: dict[str, Any]) -> dict[str, str]:
    """Per layer, the laws its optimised realisation applied (short lemma names, once each), with the
    runs that applied them when the runs differ (the optimiser changed between checkouts)."""
    sets: dict[str, dict[str, list[int]]] = {}
    for row in results["rows"]:
        laws = row.get("lean_rewrites", {}).get("ours", [])
        names = ", ".join(sorted({lemma.removeprefix("Formal.Arch.") for lemma, _ in laws})) or "none"
        runs = sets.setdefault(row["layer"], {}).setdefault(names, [])
        if row["run"] not in runs:
            runs.append(row["run"])
    out: dict[str, str] = {}
    for layer, by_names in sets.items():
        if len(by_names) == 1:
            out[layer] = next(iter(by_names))
        else:
            out[layer] = "; ".join(
                f"{names} (run{'s' if len(runs) > 1 else ''} {', '.join(map(str, sorted(runs)))})"
                for names, runs in by_names.items()
            )
    return out


def _run_line(i: int, run: dict[str, Any]) -> str:
    m, a, tree = run["machine"], run["args"], run["tree"]
    uncommitted = (
        "uncommitted: " + ", ".join(f"`{u}`" for u in tree["uncommitted"])
        if tree["uncommitted"]
        else "no uncommitted changes"
    )
    memory = (
        f"peak RSS growth over {a['mem_calls']} calls, median of {a['mem_procs']} fresh processes "
        f"({', '.join(a['rss_passes'])}"
        + (
            f"; glibc MALLOC_MMAP_THRESHOLD_={a['mmap_threshold']}"
            if a.get("mmap_threshold")
            else "; glibc's default malloc settings"
        )
        + ")"
        if a["mem_procs"]
        else "no RSS processes"
    )
    return (
        f"Run {i}: {run['started']} to {run['finished']} UTC, `{run['command']}`; "
        f"checkout `{tree['commit']}` "
        f"({uncommitted}); device {m['device']}, {m['cpu']} ({m['cpu_count']} CPUs), {a['threads']} "
        f"thread(s), torch {m['torch']}, Python {m['python']}; load average {m['loadavg_start']} at the "
        f"start, {m['loadavg_end']} at the end; clock: {m['clock']}; {a['rounds']} rounds after "
        f"{a['warmup']} warm-up calls; memory: {memory}; "
        + (
            f"inductor cache `{m['inductor_cache']['dir']}`: {m['inductor_cache']['files_at_start']} files "
            "at the start; "
            if "inductor_cache" in m
            else ""
        )
        + "optimised realisation "
        + ("present." if run["literal_switch"] else "absent (no literal switch): only the literal form ran.")
    )


def render_block(results: dict[str, Any]) -> str:
    """The README block (markers included), a function of the results file alone."""
    lines = [BEGIN]
    for i, run in enumerate(results["runs"]):
        lines += [_run_line(i, run), ""]
    lines += [
        "Lean laws the optimised realisation (`ours`) applied (`lean_rewrites`): "
        + "; ".join(f"`{k}`: {v}" for k, v in _rewrites(results).items())
        + ".",
        "",
        "Time cells: median over the rounds of the per-round ratio ours / counterpart, and in brackets a "
        "distribution-free confidence interval for that median (order statistics of the per-round "
        f"ratios; its coverage: {_coverages(results)}). Memory cells, "
        "fwd / fwd+bwd: ratio of the median peak RSS growths, and of one call's live-tensor peaks. "
        "✓: within issue 13's target (time ≤ 1.05, `moe` and `hyperLinear` ≤ 1.10; "
        f"memory ≤ {MEMORY_TARGET:.2f}; `hyperLinear` ≥ {LOOP_SPEEDUP_TARGET:.0f}× faster than the loop); "
        "✗: not; —: not measured.",
        "",
        "| run | layer | size | dtype | mode | ours | counterpart | counterpart fwd / fwd+bwd ms | fwd "
        "| fwd+bwd | peak RSS | live peak | first call s (fwd / fwd+bwd) | |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in results["rows"]:
        size = f"{row['size']} ({row['batch']}×{row['seq']}, w {row['width']})"
        ms = " / ".join(f"{row['median_s'][w][row['primary']] * 1e3:.3g}" for w in PASSES)
        for ours in row["ours"]:
            first = " / ".join(f"{row['first_call_s'][w][ours]:.2g}" for w in PASSES)
            lines.append(
                f"| {row['run']} | {row['layer']} | {size} | {row['dtype']} | {row['mode']} | {ours} "
                f"| {row['primary']} "
                f"| {ms} "
                f"| {_ratio_cell(row, ours, 'fwd')} | {_ratio_cell(row, ours, 'fwdbwd')} "
                f"| {_memory_cell(row, 'rss', ours)} | {_memory_cell(row, 'live_bytes', ours)} | {first} "
                f"| {_other_cell(row, ours)} |"
            )
    lines.append("")
    lines.append(
        "Parameters per layer (width → Lean parameters): "
        + "; ".join(f"`{k}`: {v}" for k, v in results["mappings"].items())
        + "."
    )
    missed = misses(results)
    lines.append("")
    lines.append(
        "Cells of `ours` outside the targets: " + ("; ".join(missed) if missed else "none") + "."
    )
    if results["not_run"]:
        lines.append("")
        lines.append("Not run: " + "; ".join(results["not_run"]) + ".")
    lines.append(END)
    return "\n".join(lines)


def readme_block(text: str) -> str | None:
    """The generated benchmark block of a README text, markers included (``None`` if absent)."""
    found = re.search(re.escape(BEGIN) + r".*?" + re.escape(END), text, flags=re.S)
    return found.group(0) if found else None


def write_readme(results: dict[str, Any], readme: Path) -> bool:
    """Rewrite the block in ``readme``; whether it changed."""
    text = readme.read_text(encoding="utf-8")
    old = readme_block(text)
    if old is None:
        raise UsageError(f"{readme}: no generated layer-benchmark block ({BEGIN})")
    new = render_block(results)
    if old != new:
        write_atomic(readme, text.replace(old, new), force=True)
    return old != new


def tree_facts() -> dict[str, Any]:
    """The commit of the checkout that ran, and its uncommitted changes (``git status --porcelain``)."""

    def git(*cmd: str) -> str:
        try:
            done = subprocess.run(["git", "-C", str(ROOT), *cmd], capture_output=True, text=True, check=False)
        except OSError:
            return ""
        return done.stdout.strip() if done.returncode == 0 else ""

    return {
        "commit": git("rev-parse", "--short", "HEAD"),
        "uncommitted": [line for line in git("status", "--porcelain").splitlines() if line],
    }


def machine_facts(device: str) -> dict[str, Any]:
    """Facts about this machine and run that the README block states."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    if device == "cuda":
        cpu = f"{cpu}; GPU {torch.cuda.get_device_name()}"
    try:  # compiled mode: a warm on-disk cache makes the first call (the compile) much shorter
        from torch._inductor.runtime.cache_dir_utils import cache_dir

        where = Path(cache_dir())
    except (ImportError, AttributeError):  # pragma: no cover - other torch versions
        where = Path(os.environ.get("TORCHINDUCTOR_CACHE_DIR", "unknown"))
    files = sum(1 for p in where.rglob("*") if p.is_file()) if where.is_dir() else 0
    return {
        "device": device,
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "inductor_cache": {"dir": str(where), "files_at_start": files},
        "loadavg_start": " ".join(f"{v:.2f}" for v in os.getloadavg()),
        "clock": "wall clock with torch.cuda.synchronize"
        if device == "cuda"
        else "process CPU time (time.process_time)",
    }


# --- command line -------------------------------------------------------------------------------------


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--layers", default=",".join(LAYERS), help="comma-separated Zoo layers")
    p.add_argument("--sizes", default="small,large", help="comma-separated: small, large")
    p.add_argument("--dtypes", default="float32,float64", help="comma-separated: float32, float64")
    p.add_argument("--modes", default="eager,compiled", help="comma-separated: eager, compiled")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default 1)")
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--seed", type=int, default=0, help="seed of the per-round random order")
    p.add_argument("--no-memory", dest="memory", action="store_false", help="skip both memory measurements")
    p.add_argument("--mem-procs", type=int, default=3, help="fresh processes per RSS measurement (0: none)")
    p.add_argument("--mem-calls", type=int, default=3, help="measured calls per RSS process")
    p.add_argument("--rss-passes", default="fwd,fwdbwd", help="passes whose peak RSS is measured")
    p.add_argument(
        "--append",
        action="store_true",
        help="add this run's rows to the existing results file (replacing rows of the same "
        "layer, size, dtype and mode)",
    )
    p.add_argument("--mem-jobs", type=int, default=3, help="RSS child processes run at a time")
    p.add_argument(
        "--mmap-threshold",
        type=int,
        default=DEFAULT_MMAP_THRESHOLD,
        help="glibc's MALLOC_MMAP_THRESHOLD_ in the RSS child processes, in bytes (0: glibc's default, "
        f"a dynamic threshold); default {DEFAULT_MMAP_THRESHOLD}",
    )
    p.add_argument(
        "--not-run-reason",
        default="not selected for this run",
        help="why the configurations of the full matrix that were not selected did not run",
    )
    p.add_argument("--quick", action="store_true", help="smoke run: tiny size, 2 rounds, eager only")
    p.add_argument(
        "--out", type=Path, default=None, help=f"results JSON (default {DEFAULT_OUT.relative_to(ROOT)})"
    )
    p.add_argument("--force", action="store_true", help="replace an existing results file")
    p.add_argument("--write-readme", action="store_true", help="regenerate the README block from the results")
    p.add_argument("--readme", type=Path, default=README, help=argparse.SUPPRESS)
    p.add_argument("--from-results", type=Path, default=None, help="render this results file; run nothing")
    p.add_argument("--child-memory", default=None, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def _split(value: str, allowed: tuple[str, ...] | list[str], what: str) -> list[str]:
    items = [v.strip() for v in value.split(",") if v.strip()]
    bad = [v for v in items if v not in allowed]
    if bad or not items:
        raise UsageError(f"--{what}: {', '.join(bad) or 'nothing given'} not among {', '.join(allowed)}")
    return items


def run(args: argparse.Namespace, argv: list[str]) -> dict[str, Any]:
    """Run the selected configurations and return the results document (printing a line per row)."""
    layers = _split(args.layers, LAYERS, "layers")
    if args.quick:
        sizes, modes = [QUICK], ["eager"]
        args.rounds, args.warmup, args.mem_procs, args.mem_calls = 2, 1, min(args.mem_procs, 1), 1
    else:
        sizes = [SIZES[s] for s in _split(args.sizes, list(SIZES), "sizes")]
        modes = _split(args.modes, MODES, "modes")
    dtypes = _split(args.dtypes, list(DTYPES), "dtypes")
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    started = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    facts = machine_facts(args.device)
    rows = []
    print(
        f"device={args.device} threads={args.threads} rounds={args.rounds} warmup={args.warmup} "
        f"optimised realisation: {'yes' if literal_switch() else 'no (literal form only)'}",
        flush=True,
    )
    for layer in layers:
        print(f"  {layer}: {setup(layer, sizes[0]).mapping}", flush=True)
    for size in sizes:
        for layer in layers:
            for dtype_name in dtypes:
                for mode in modes:
                    row = run_config(layer, size, dtype_name, mode, args, rng)
                    row["run"] = 0
                    rows.append(row)
                    ours_cells = ", ".join(
                        f"{o}: fwd {row['ratio']['fwd'][o + '/' + row['primary']]:.2f} "
                        f"fwd+bwd {row['ratio']['fwdbwd'][o + '/' + row['primary']]:.2f}"
                        for o in row["ours"]
                    )
                    medians = ", ".join(
                        f"{n} {t * 1e3:.3g}/{row['median_s']['fwdbwd'][n] * 1e3:.3g} ms"
                        for n, t in row["median_s"]["fwd"].items()
                    )
                    print(
                        f"{layer:12} {size.name:5} {dtype_name} {mode:8} {ours_cells} | {medians} "
                        f"| {row['seconds']} s",
                        flush=True,
                    )
    facts["loadavg_end"] = " ".join(f"{v:.2f}" for v in os.getloadavg())
    run_doc = {
        "started": started,
        "finished": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
        "command": "python bench/bench_layers.py " + shlex.join(argv),
        "machine": facts,
        "literal_switch": literal_switch(),
        "tree": tree_facts(),
        "args": {
            "threads": args.threads,
            "rounds": args.rounds,
            "warmup": args.warmup,
            "seed": args.seed,
            "mem_procs": args.mem_procs if args.memory else 0,
            "mem_calls": args.mem_calls,
            "rss_passes": list(args.rss_passes),
            "mmap_threshold": args.mmap_threshold,
        },
    }
    return {
        "schema": SCHEMA,
        "runs": [run_doc],
        "mappings": {layer: setup(layer, sizes[0]).mapping for layer in layers},
        "rows": rows,
        "not_run": not_run(rows, args.not_run_reason) if not args.quick else [],
    }


def merge(old: dict[str, Any], new: dict[str, Any], reason: str) -> dict[str, Any]:
    """``new``'s single run appended to ``old``: its rows replace those of the same configuration."""
    if old.get("schema") != SCHEMA:
        raise UsageError("the existing results file has another schema; run without --append")
    index = len(old["runs"])
    fresh = {(r["layer"], r["size"], r["dtype"], r["mode"]) for r in new["rows"]}
    rows = [r for r in old["rows"] if (r["layer"], r["size"], r["dtype"], r["mode"]) not in fresh]
    rows += [{**r, "run": index} for r in new["rows"]]
    order = {
        (la, si, dt, mo): i
        for i, (si, la, dt, mo) in enumerate(
            (si, la, dt, mo) for si in [*SIZES, QUICK.name] for la in LAYERS for dt in DTYPES for mo in MODES
        )
    }
    rows.sort(key=lambda r: order[(r["layer"], r["size"], r["dtype"], r["mode"])])
    used = sorted({r["run"] for r in rows})
    runs = [*old["runs"], *new["runs"]]
    renumber = {old_i: new_i for new_i, old_i in enumerate(used)}
    return {
        "schema": SCHEMA,
        "runs": [runs[i] for i in used],
        "mappings": {**old["mappings"], **new["mappings"]},
        "rows": [{**r, "run": renumber[r["run"]]} for r in rows],
        "not_run": not_run(rows, reason),
    }


def not_run(rows: list[dict[str, Any]], reason: str) -> list[str]:
    """The configurations of the full matrix (six layers, two sizes, two dtypes, two modes) that did not
    run, grouped by size, dtype and mode, each group with ``reason``."""
    done = {(r["layer"], r["size"], r["dtype"], r["mode"]) for r in rows}
    out = []
    for size in SIZES:
        for dtype in DTYPES:
            for mode in MODES:
                missing = [la for la in LAYERS if (la, size, dtype, mode) not in done]
                if missing:
                    which = "all six layers" if len(missing) == len(LAYERS) else ", ".join(missing)
                    out.append(f"{size} {dtype} {mode}: {which} ({reason})")
    return out


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse(argv)
    try:
        if args.child_memory is not None:
            print(json.dumps(memory_child(json.loads(args.child_memory))))
            return 0
        if args.from_results is not None:
            try:
                results = json.loads(args.from_results.read_text(encoding="utf-8"))
            except (OSError, ValueError) as err:
                raise UsageError(f"{args.from_results}: cannot read a results file: {err}") from None
        else:
            if args.device == "cuda" and not torch.cuda.is_available():
                print("CUDA is not available on this machine: nothing run")
                return 0
            out = args.out or DEFAULT_OUT
            if out.exists() and not (args.force or args.append):
                raise UsageError(f"{out}: already exists (use --force to replace it, --append to add to it)")
            old = None
            if args.append and out.exists():
                try:
                    old = json.loads(out.read_text(encoding="utf-8"))
                except (OSError, ValueError) as err:
                    raise UsageError(f"{out}: cannot read a results file: {err}") from None
            args.rss_passes = _split(args.rss_passes, list(PASSES), "rss-passes")
            if args.mmap_threshold < 0:
                raise UsageError(f"--mmap-threshold: {args.mmap_threshold} is negative (0: glibc's default)")
            results = run(args, argv)
            if old is not None:
                results = merge(old, results, args.not_run_reason)
            write_atomic(out, json.dumps(results, indent=1, sort_keys=True) + "\n", force=True)
            print(f"results: {out}")
        if args.write_readme:
            changed = write_readme(results, args.readme)
            print(
                f"{args.readme.name}: layer-benchmark block "
                + ("rewritten" if changed else "already up to date")
            )
        elif args.from_results is not None:
            print(render_block(results))
        return 0
    except BridgeError as err:
        print(f"error: {err}", file=sys.stderr)
        return err.exit_code


if __name__ == "__main__":
    raise SystemExit(main())
