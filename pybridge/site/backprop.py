"""Backpropagation on the site (Belfiore & Bennequin §1.4, Lemma 1.1 and Thm 1.1).

Lemma 1.1 (path sums): the derivative of an output with respect to an input is the sum, over the
directed paths ``in = u_0 -> u_1 -> ... -> u_k = out`` of Γ (an edge per argument slot, so ``x * x``
gives two edges), of the products of the local Jacobians ``∂u_{j+1}/∂u_j`` taken at the recorded point.
:func:`path_sum_check` enumerates the paths explicitly (depth-first, sharing prefixes; each step one
local JVP with ``torch.func.jvp``) and compares the sum with ``torch.func.jvp`` of the whole original
model (the independent reference), in float64.

Thm 1.1 (a flow of natural transformations): along a generating arrow ``v -> u`` of the site (``v`` reads
``u``) naturality of the backward flow asks ``g_u = J_{v,u}^T g_v`` for the gradients ``g`` of a scalar
loss. :func:`gradient_naturality` measures that residual for every edge: it holds on chains (``u`` read
once, and not an output) and fails wherever ``u`` is read several times (fan-out; residual nets,
U-Net skips, DenseNet), where autograd *adds* the contributions: there the sum rule
``g_u = Σ_readers J^T g_reader`` holds instead, and is checked.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import torch
from torch.func import jvp, vjp

from pybridge.errors import BridgeError, SiteError, UserCodeError
from pybridge.site.graph import LayerGraph
from pybridge.targets import quote, user_stdout

#: Relative tolerance for float64 derivative comparisons (lax: reassociated sums of products).
GRAD_RTOL = 1e-9
#: The path-sum tolerance when the model itself computes some layers in float32 (transformers' RMSNorm
#: and softmax cast to float32 explicitly): float32 rounding of those layers bounds the agreement.
GRAD_RTOL_FLOAT32 = 1e-5
#: Path enumeration refuses graphs with more input-to-output paths than this.
MAX_PATHS = 20_000


def _rel(a: torch.Tensor, b: torch.Tensor) -> float:
    """``‖a - b‖ / max(‖a‖, ‖b‖)`` (0 when both are 0): relative to the larger of the two norms, so that a
    reference that is (numerically) zero gives a residual of at most 2, never ``x / 1e-300``."""
    a, b = a.detach().double(), b.detach().double()
    num = float((a - b).norm())
    if num == 0.0:
        return 0.0
    return num / max(float(a.norm()), float(b.norm()))


def count_paths(graph: LayerGraph, src: str) -> dict[str, int]:
    """The number of directed paths of Γ from ``src`` to every node (argument slots counted separately)."""
    count = {v: 0 for v in graph.nodes}
    count[src] = 1
    for node in graph.nodes.values():
        if node.name != src:
            count[node.name] = sum(count[u] for u in node.preds)
    return count


def _local(graph: LayerGraph, v: str, slot: int, args: list[Any]) -> Any:
    def f(z: torch.Tensor) -> Any:
        a = list(args)
        a[slot] = z
        return graph.evaluate(v, a)

    return f


@dataclass(frozen=True)
class PathSumResult:
    """Lemma 1.1 for one input/output pair: the path sum against the whole-model JVP."""

    input: str
    output: str
    paths: int
    rel_error: float
    tolerance: float

    @property
    def ok(self) -> bool:
        """Within tolerance."""
        return self.rel_error <= self.tolerance


def _floating(value: Any) -> bool:
    """Whether a recorded value carries derivatives (a floating tensor, or a tuple holding one)."""
    if isinstance(value, torch.Tensor):
        return value.is_floating_point() or value.is_complex()
    if isinstance(value, tuple | list):
        return any(_floating(v) for v in value)
    return False


def _load_jvp_decompositions() -> None:
    """Import torch's forward-AD decompositions before the first ``jvp``, without the warning they emit.

    ``torch.func.jvp`` imports ``torch._decomp.decompositions_for_jvp`` on first use, which registers its
    decompositions with ``torch.jit.script`` and so emits "DeprecationWarning: `torch.jit.script` is
    deprecated" (torch's own internal use, harmless). Importing it here under a filter for exactly that
    warning keeps it off the user's terminal; later imports are no-ops.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message=r".*torch\.jit\.script.* is deprecated", category=DeprecationWarning
        )
        try:
            import torch._decomp.decompositions_for_jvp  # noqa: F401
        except Exception:  # noqa: BLE001 - a torch without it: jvp imports what it needs itself
            pass


def path_sum_check(
    graph: LayerGraph,
    module: torch.nn.Module,
    inputs: tuple[torch.Tensor, ...],
    *,
    seed: int = 0,
    max_paths: int = MAX_PATHS,
    name: str = "model",
) -> list[PathSumResult]:
    """Check Lemma 1.1 for every floating-point input and every output (float64, random tangents)."""
    if graph.program is None:
        raise SiteError("path sums need a traced model, not a hand-built graph")
    _load_jvp_decompositions()
    gen = torch.Generator().manual_seed(seed)
    xs = tuple(x.detach().double() if x.is_floating_point() else x for x in inputs)
    from pybridge.capture import copy_model

    model = copy_model(module, torch.float64, name)
    readers = graph.consumers()
    values = graph.values
    results: list[PathSumResult] = []
    skipped: set[str] = set()
    single = any(isinstance(v, torch.Tensor) and v.dtype in (torch.float32, torch.float16, torch.bfloat16)
                 for v in values.values())
    tol = GRAD_RTOL_FLOAT32 if single else GRAD_RTOL
    # the position of each input layer among the model's inputs (integer inputs are not layers)
    order = graph.capture.user_inputs if graph.capture is not None else graph.inputs
    position = {n: i for i, n in enumerate(order)}
    for name in graph.inputs:
        k = position.get(name, -1)
        if not 0 <= k < len(xs) or not xs[k].is_floating_point():
            continue
        counts = count_paths(graph, name)
        total = sum(counts[o] for o in graph.outputs)
        if total > max_paths:
            raise SiteError(
                f"{total} paths from {name!r} to the outputs; path sums are limited to {max_paths}"
            )
        tangent = torch.randn(xs[k].shape, generator=gen, dtype=torch.float64)
        sums: dict[str, torch.Tensor] = {}
        n_paths: dict[str, int] = {}
        stack: list[tuple[str, torch.Tensor]] = [(name, tangent)]
        while stack:
            u, t = stack.pop()
            if u in graph.outputs:
                sums[u] = sums.get(u, torch.zeros_like(t)) + t
                n_paths[u] = n_paths.get(u, 0) + 1
            for v, slot in readers[u]:
                if not _floating(values[v]):
                    # an integer-valued layer (arg-max routing, indices) is locally constant:
                    # its paths contribute nothing to the derivative
                    continue
                args = [values[p] for p in graph.nodes[v].preds]
                _, tv = jvp(_local(graph, v, slot, args), (values[u],), (t,))
                stack.append((v, tv))

        def whole(z: torch.Tensor, k: int = k) -> Any:
            a = list(xs)
            a[k] = z
            return model(*a)

        try:
            with user_stdout():
                _, ref = jvp(whole, (xs[k],), (tangent,))
        except (NotImplementedError, RuntimeError) as err:  # an op without forward-mode AD
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise SiteError(f"the model has no forward-mode derivative ({first[:120]})") from None
        except BridgeError:
            raise
        except BaseException as err:  # noqa: BLE001 - the user's forward (SystemExit, a ValueError, ...)
            what = "the model's forward (float64, under jvp)"
            raise UserCodeError(f"{name}: {what} raised {quote(err)}") from None
        from pybridge.capture import flatten_tensors

        flat = flatten_tensors(ref)
        for out_name, r in zip(graph.outputs, flat, strict=False):
            if not (r.is_floating_point() or r.is_complex()):
                # an integer or boolean output (arg-max, a mask) is locally constant: no derivative
                skipped.add(f"{out_name} ({str(r.dtype).removeprefix('torch.')})")
                continue
            got = sums.get(out_name, torch.zeros_like(r))
            results.append(PathSumResult(name, out_name, n_paths.get(out_name, 0), _rel(got, r), tol))
    if not results and skipped:
        raise SiteError(
            f"no floating-point output: {', '.join(sorted(skipped))} is integer-valued, locally constant, "
            "with no derivative to compare"
        )
    return results


@dataclass(frozen=True)
class EdgeNaturality:
    """Naturality of the backward flow along one generating arrow ``reader -> node`` of the site."""

    node: str
    reader: str
    slot: int
    readers: int  # how many argument slots read ``node`` (its fan-out), +1 if it is an output
    residual: float  # ‖g_node - J^T g_reader‖ / ‖g_node‖

    @property
    def chain(self) -> bool:
        """The node is read exactly once and is not an output: naturality is expected to hold."""
        return self.readers == 1


@dataclass(frozen=True)
class NaturalityReport:
    """Per-edge residuals, the worst on chains and the largest at fan-outs, and the sum rule's residual."""

    edges: tuple[EdgeNaturality, ...]
    worst_chain: float
    worst_fanout: float | None
    worst_sum_rule: float
    tolerance: float


def gradient_naturality(graph: LayerGraph, *, seed: int = 0) -> NaturalityReport:
    """Gradients of ``L = Σ_outputs <out, r>`` at every layer (autograd through Γ), then for every edge the
    residual of ``g_u = J^T g_v`` (one local VJP with ``torch.func.vjp``), and of the sum rule."""
    if graph.program is None:
        raise SiteError("gradient naturality needs a traced model, not a hand-built graph")
    rng = torch.Generator().manual_seed(seed)
    live: dict[str, torch.Tensor] = {}
    for node in graph.nodes.values():
        if node.kind == "input":
            v = graph.values[node.name]
            live[node.name] = v.clone().requires_grad_(v.is_floating_point())
        else:
            live[node.name] = graph.evaluate(node.name, [live[u] for u in node.preds])
        if live[node.name].requires_grad and not live[node.name].is_leaf:
            live[node.name].retain_grad()
    loss = torch.zeros((), dtype=torch.float64)
    cot: dict[str, torch.Tensor] = {}
    for o in dict.fromkeys(graph.outputs):
        r = torch.randn(live[o].shape, generator=rng, dtype=torch.float64)
        cot[o] = r
        loss = loss + (live[o] * r).sum()
    loss.backward()
    # The backward flow lives on the layers that depend differentiably on the inputs; a floating layer
    # reached only through integer indices (an expert's weights picked by top-k routing) is locally
    # constant in the input, like an integer layer, and carries no gradient.
    grads = {
        n: (t.grad if t.grad is not None else torch.zeros_like(t)).detach()
        for n, t in live.items()
        if t.is_floating_point() and t.requires_grad
    }
    values = graph.values
    readers = graph.consumers()
    edges: list[EdgeNaturality] = []
    worst_chain, worst_fan, worst_sum = 0.0, None, 0.0
    for u, rs in readers.items():
        if u not in grads:
            continue
        fan = len(rs) + (1 if u in cot else 0)
        total = cot.get(u, torch.zeros_like(grads[u])).clone()
        for v, slot in rs:
            if v not in grads:  # an integer or locally constant reader (arg-max routing): no gradient
                continue
            args = [values[p] for p in graph.nodes[v].preds]
            _, pullback = vjp(_local(graph, v, slot, args), values[u])
            (back,) = pullback(grads[v])
            total = total + back
            res = _rel(back, grads[u])
            e = EdgeNaturality(u, v, slot, fan, res)
            edges.append(e)
            if e.chain:
                worst_chain = max(worst_chain, res)
            else:
                worst_fan = res if worst_fan is None else max(worst_fan, res)
        if rs:
            worst_sum = max(worst_sum, _rel(total, grads[u]))
    return NaturalityReport(tuple(edges), worst_chain, worst_fan, worst_sum, GRAD_RTOL)
