"""The layer graph Γ of a model: its tensor-producing graph nodes and the data flow between them.

Extraction (:func:`extract`) copies the model to float64, captures it with :func:`pybridge.capture.capture`
(``torch.export`` decomposed to the core ATen opset; ``torch.fx`` only as the named fallback, see
``LayerGraph.capture``) and runs the captured graph once on the example input with an
:class:`torch.fx.Interpreter` that records every value. Each graph node is then classified:

* **layer** -- its value is a tensor that depends on a floating input (floating placeholders are the
  ``input`` layers; integer inputs such as token ids and masks are held fixed, as constants);
* **transparent** -- its value is a tuple or list holding tensors (``chunk``, ``split``, an ``nn.LSTM``
  result): it is folded away, and the ``getitem`` nodes reading it become layers that read its
  arguments directly;
* **constant** -- anything else: ``size``/``shape``/``dim`` results and other Python values (folded as
  the recorded constants, valid at the example's shape), parameters read by ``get_attr``, and tensors
  that depend on no input.

In-place operations (``x.relu_()``, ``out += identity``, ``nn.ReLU(inplace=True)``) are layers of their
own; every later reader of the mutated tensor is rewired to the in-place node (the alias is folded), so
Γ shows the true data flow. Layers that no output depends on are dropped.

Edges follow the data flow: ``u -> v`` when ``v`` reads ``u``. A layer's ``preds`` lists its tensor
arguments in argument order, with repetition (``x * x`` reads ``x`` twice): a layer with two or more
arguments is a *join*. :meth:`LayerGraph.evaluate` recomputes one layer from values for its arguments,
which gives the restriction maps of the activity presheaf.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx

from pybridge.capture import Captured, Method, capture_copy
from pybridge.errors import BridgeError, SiteError, TargetError

_INPLACE_FUNCTIONS = {
    operator.iadd,
    operator.isub,
    operator.imul,
    operator.itruediv,
    operator.ifloordiv,
    operator.imod,
    operator.ipow,
    operator.iand,
    operator.ior,
    operator.ixor,
    operator.imatmul,
    operator.setitem,
}


@dataclass(frozen=True)
class LayerNode:
    """A vertex of Γ: one tensor-producing computation.

    ``kind`` is ``input`` (a model input), ``layer`` (an fx node) or ``copy`` (an identity inserted by
    :meth:`LayerGraph.normalized`). ``preds`` are the argument layers in argument order, with repetition.
    """

    name: str
    kind: str
    op: str
    preds: tuple[str, ...]
    shape: tuple[int, ...] | None = None

    @property
    def is_join(self) -> bool:
        """True for a layer with two or more tensor arguments (counted with repetition)."""
        return len(self.preds) >= 2


@dataclass
class _Program:
    """What :meth:`LayerGraph.evaluate` needs to rerun single fx nodes."""

    gm: torch.fx.GraphModule
    nodes: dict[str, torch.fx.Node]
    layers: set[str]
    transparent: set[str]
    constants: dict[str, Any]
    inplace: set[str]


@dataclass
class LayerGraph:
    """The layer graph Γ: nodes in a topological order of the data flow, and the output layers.

    ``values`` holds the float64 activations recorded on the example input (empty for hand-built graphs).
    """

    nodes: dict[str, LayerNode]
    outputs: tuple[str, ...]
    values: dict[str, torch.Tensor] = field(default_factory=dict)
    program: _Program | None = None
    copies_of: dict[str, str] = field(default_factory=dict)
    #: How the model was captured (``None`` for hand-built graphs).
    capture: Captured | None = None

    # -- construction --------------------------------------------------------------------------------
    @classmethod
    def from_edges(cls, preds: dict[str, Sequence[str]], outputs: Sequence[str] | None = None) -> LayerGraph:
        """Build a structure-only Γ from ``{node: [argument nodes ...]}``; nodes without arguments are inputs.

        Raises :class:`SiteError` on a cycle or an argument that is not a node.
        """
        names = list(preds)
        for v, ps in preds.items():
            for u in ps:
                if u not in preds:
                    raise SiteError(f"layer graph: {v!r} reads {u!r}, which is not a node")
        order = _topological_order(names, {v: list(ps) for v, ps in preds.items()})
        nodes = {
            v: LayerNode(v, "input" if not preds[v] else "layer", "given", tuple(preds[v])) for v in order
        }
        if outputs is None:
            read = {u for ps in preds.values() for u in ps}
            outputs = [v for v in order if v not in read]
        return cls(nodes=nodes, outputs=tuple(outputs))

    # -- queries -------------------------------------------------------------------------------------
    @property
    def inputs(self) -> tuple[str, ...]:
        """The input layers, in order."""
        return tuple(n.name for n in self.nodes.values() if n.kind == "input")

    @property
    def joins(self) -> tuple[str, ...]:
        """The layers with two or more arguments."""
        return tuple(n.name for n in self.nodes.values() if n.is_join)

    def consumers(self) -> dict[str, list[tuple[str, int]]]:
        """For every node, its readers as ``(reader, argument index)`` pairs."""
        out: dict[str, list[tuple[str, int]]] = {v: [] for v in self.nodes}
        for node in self.nodes.values():
            for i, u in enumerate(node.preds):
                out[u].append((node.name, i))
        return out

    def normalized(self) -> LayerGraph:
        """The normal form: an identity ``copy`` node on every edge into a join.

        After it every argument of a join is read by that join alone, so no argument of a join is an
        ancestor of another one (the graph being acyclic). This is the informal reason the fork category
        becomes thin; it is checked per model by :meth:`Site.thinness` (see :mod:`fork`), not proved in
        general.
        """
        nodes: dict[str, LayerNode] = {}
        copies: dict[str, str] = dict(self.copies_of)
        values = dict(self.values)
        for node in self.nodes.values():
            if not node.is_join:
                nodes[node.name] = node
                continue
            new_preds = []
            for i, u in enumerate(node.preds):
                c = f"copy[{u}->{node.name}#{i}]"
                src = self.nodes[u]
                nodes[c] = LayerNode(c, "copy", "identity", (u,), src.shape)
                copies[c] = u
                if u in self.values:
                    values[c] = self.values[u]
                new_preds.append(c)
            nodes[node.name] = LayerNode(node.name, node.kind, node.op, tuple(new_preds), node.shape)
        return LayerGraph(
            nodes=nodes, outputs=self.outputs, values=values, program=self.program, copies_of=copies,
            capture=self.capture,
        )

    # -- semantics -----------------------------------------------------------------------------------
    def evaluate(self, name: str, args: Sequence[Any]) -> Any:
        """Recompute layer ``name`` from values for its arguments (one per entry of ``preds``).

        Raises :class:`SiteError` for hand-built graphs, which have no semantics.
        """
        node = self.nodes[name]
        if node.kind == "copy":
            return args[0]
        if node.kind == "input":
            raise SiteError(f"layer graph: {name!r} is an input; it has no map to evaluate")
        if self.program is None:
            raise SiteError(f"layer graph: {name!r} has no semantics (the graph was built by hand)")
        if len(args) != len(node.preds):
            raise SiteError(f"layer {name!r} reads {len(node.preds)} tensors, got {len(args)}")
        prog = self.program
        it = iter(args)
        return _run_node(prog, prog.nodes[name], it)


# -- extraction ----------------------------------------------------------------------------------------


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0] if text else ''}".rstrip(": ")


def _node_op(gm: torch.fx.GraphModule, node: torch.fx.Node) -> str:
    if node.op == "call_module":
        return f"{node.target} ({type(gm.get_submodule(str(node.target))).__name__})"
    if node.op == "call_function":
        return getattr(node.target, "__name__", str(node.target))
    if node.op == "call_method":
        return f".{node.target}()"
    return node.op


def _is_inplace(gm: torch.fx.GraphModule, node: torch.fx.Node) -> bool:
    if node.op == "call_method":
        t = str(node.target)
        return t.endswith("_") and not t.endswith("__")
    if node.op == "call_function":
        if node.target in _INPLACE_FUNCTIONS:
            return True
        name = getattr(node.target, "__name__", "")
        return name.endswith("_") and not name.endswith("__")
    if node.op == "call_module":
        return bool(getattr(gm.get_submodule(str(node.target)), "inplace", False))
    return False


def _contains_tensor(value: Any) -> bool:
    if isinstance(value, torch.Tensor):
        return True
    if isinstance(value, (tuple, list)):
        return any(_contains_tensor(v) for v in value)
    if isinstance(value, dict):
        return any(_contains_tensor(v) for v in value.values())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # a plain @dataclass output
        return any(_contains_tensor(getattr(value, f.name, None)) for f in dataclasses.fields(value))
    return False


def _detached(value: Any) -> Any:
    return value.detach() if isinstance(value, torch.Tensor) else value


def _clone(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, (tuple, list)):
        return type(value)(_clone(v) for v in value)
    return value


def extract(
    module: torch.nn.Module,
    inputs: Sequence[torch.Tensor],
    name: str = "model",
    dtype: torch.dtype = torch.float64,
    method: Method = "auto",
) -> LayerGraph:
    """Γ of ``module`` with the activations recorded on ``inputs`` (computed in ``dtype``, default float64).

    The model is captured by :func:`pybridge.capture.capture` (``torch.export`` decomposed to core ATen,
    ``torch.fx`` as the fallback; ``method`` chooses). Integer inputs (token ids, masks) are held fixed:
    they are constants of Γ, not input layers. Raises :class:`TargetError` (one line) when the model
    cannot be captured or the captured graph fails on the example input, and
    :class:`~pybridge.errors.ResourceLimitError` (exit 14) when the memory limit of :mod:`pybridge.budget`
    cannot hold the ``dtype`` copy of the model (checked before copying) or the recorded values (checked
    before running from torch.export's shapes, and node by node as they are recorded).
    """
    from pybridge import budget
    from pybridge.targets import user_code

    dtype_bytes = torch.empty((), dtype=dtype).element_size()
    with user_code(name, "listing the model's parameters and buffers"):
        copy_est = budget.model_estimate(module, tuple(inputs), dtype_bytes=dtype_bytes)
    dtype_name = str(dtype).removeprefix("torch.")
    cap_now = budget.limit()  # read once: the available memory shrinks as the copy and the record grow
    budget.require(copy_est, f"copying {name} to {dtype_name}", cap=cap_now)
    cap, xs = capture_copy(module, inputs, name, dtype=dtype, method=method)
    gm = cap.gm
    # The recorded run keeps a clone of every node's value: count them before running where the capture
    # knows their shapes (torch.export), and as they are recorded in any case (the torch.fx fallback).
    what = f"recording the activations of {name} ({dtype_name})"
    vals = [n.meta.get("val") for n in gm.graph.nodes if n.op != "output"]
    if all(v is not None for v in vals):
        ahead = copy_est.activations + budget.value_bytes(vals)
        budget.require(budget.Estimate(copy_est.weights, ahead, copy_est.modules), what, cap=cap_now)
    recorded = [copy_est.activations]
    fx_nodes = list(gm.graph.nodes)
    placeholders = [n for n in fx_nodes if n.op == "placeholder"]
    if len(placeholders) < len(xs):
        raise TargetError(f"{name}: the model takes {len(placeholders)} inputs, the example has {len(xs)}")

    # Fold in-place aliases: later readers of a mutated tensor read the in-place node instead.
    position = {n: i for i, n in enumerate(fx_nodes)}
    for n in fx_nodes:
        if n.op in ("call_method", "call_function", "call_module") and _is_inplace(gm, n) and n.args:
            target = n.args[0]
            if isinstance(target, torch.fx.Node):
                for user in list(target.users):
                    if user is not n and position[user] > position[n]:
                        user.replace_input_with(target, n)
    gm.recompile()

    # Record every value (clones: in-place ops must not rewrite history).
    record: dict[str, Any] = {}

    class _Recorder(torch.fx.Interpreter):
        def run_node(self, n: torch.fx.Node) -> Any:
            result = super().run_node(n)
            recorded[0] += budget.value_bytes(result)
            budget.require(
                budget.Estimate(copy_est.weights, recorded[0], copy_est.modules), what, at_least=True,
                cap=cap_now,
            )
            record[n.name] = _clone(result)
            return result

    try:
        with torch.no_grad():
            _Recorder(gm).run(*xs)
    except BridgeError:
        raise
    except Exception as err:
        if budget.is_allocation_failure(err):
            raise budget.allocation_error(err, what) from None
        raise TargetError(
            f"{name}: the traced model fails on the example input ({_first_line(err)})"
        ) from None

    layers: dict[str, LayerNode] = {}
    transparent: set[str] = set()
    constants: dict[str, Any] = {}
    inplace: set[str] = set()
    deps_of: dict[str, list[str]] = {}
    outputs: list[str] = []
    for n in fx_nodes:
        if n.op == "output":

            def _collect(a: torch.fx.Node) -> torch.fx.Node:
                if a.name in layers:
                    outputs.append(a.name)
                elif a.name in transparent and dataclasses.is_dataclass(record.get(a.name)):
                    # torch.fx records a plain @dataclass output as a call of its class: its fields'
                    # layers, in argument order, are the outputs (as export flattens it)
                    outputs.extend(deps_of[a.name])
                return a

            torch.fx.node.map_arg(n.args, _collect)
            continue
        value = record.get(n.name)
        if n.op == "placeholder":
            if isinstance(value, torch.Tensor) and (value.is_floating_point() or value.is_complex()):
                layers[n.name] = LayerNode(n.name, "input", "input", (), tuple(value.shape))
                deps_of[n.name] = [n.name]
            else:
                constants[n.name] = value
                deps_of[n.name] = []
            continue
        deps: list[str] = []

        def _dep(a: torch.fx.Node, deps: list[str] = deps) -> torch.fx.Node:
            if a.name in layers:
                deps.append(a.name)
            elif a.name in transparent:
                deps.extend(deps_of[a.name])
            return a

        torch.fx.node.map_arg((n.args, n.kwargs), _dep)
        if n.op == "get_attr" or not deps:
            constants[n.name] = value
        elif isinstance(value, torch.Tensor):
            layers[n.name] = LayerNode(n.name, "layer", _node_op(gm, n), tuple(deps), tuple(value.shape))
            if _is_inplace(gm, n):
                inplace.add(n.name)
        elif _contains_tensor(value):
            transparent.add(n.name)
        else:
            constants[n.name] = value
        deps_of[n.name] = deps

    if not outputs:
        raise TargetError(f"{name}: the model returns no tensor that depends on its input")
    # Drop layers that no output depends on (inputs stay).
    needed: set[str] = set()
    stack = list(outputs)
    while stack:
        v = stack.pop()
        if v in needed:
            continue
        needed.add(v)
        stack.extend(layers[v].preds)
    kept = {v: node for v, node in layers.items() if v in needed or node.kind == "input"}
    values = {v: _detached(record[v]) for v in kept}
    prog = _Program(
        gm=gm,
        nodes={n.name: n for n in fx_nodes},
        layers=set(layers),
        transparent=transparent,
        constants=constants,
        inplace=inplace,
    )
    return LayerGraph(nodes=kept, outputs=tuple(outputs), values=values, program=prog, capture=cap)


def _run_node(prog: _Program, n: torch.fx.Node, it: Any) -> Any:
    """Run fx node ``n``: layer arguments come from ``it`` in argument order, the rest is folded."""

    def _arg(a: torch.fx.Node) -> Any:
        if a.name in prog.layers:
            return next(it)
        if a.name in prog.transparent:
            return _run_node(prog, prog.nodes[a.name], it)
        return prog.constants[a.name]

    args, kwargs = torch.fx.node.map_arg((n.args, n.kwargs), _arg)
    if n.name in prog.inplace and args and isinstance(args[0], torch.Tensor):
        args = (args[0].clone(), *args[1:])
    gm = prog.gm
    if n.op == "call_module":
        return gm.get_submodule(str(n.target))(*args, **kwargs)
    if n.op == "call_function":
        fn: Callable[..., Any] = rerunnable(n.target)  # type: ignore[arg-type]
        return fn(*args, **kwargs)
    if n.op == "call_method":
        return getattr(args[0], str(n.target))(*args[1:], **kwargs)
    raise SiteError(f"fx node {n.name!r}: cannot rerun an {n.op!r} node")


def _copy_into(self: torch.Tensor, src: torch.Tensor, non_blocking: bool = False) -> torch.Tensor:
    """``aten.copy(self, src)``: ``src`` broadcast to ``self``'s shape and dtype (differentiable)."""
    return src.to(self.dtype).expand(self.shape).clone()


def rerunnable(target: Any) -> Any:
    """The function that reruns a graph node: the node's own target, except ``aten.copy`` (which
    export's decompositions produce, e.g. for circular padding, and which has no autograd formula),
    rerun as the equivalent differentiable broadcast."""
    if target is torch.ops.aten.copy.default:
        return _copy_into
    return target


def _topological_order(names: Iterable[str], preds: dict[str, list[str]]) -> list[str]:
    """Kahn's algorithm; :class:`SiteError` naming a node on a cycle if there is one."""
    names = list(names)
    indeg = {v: len(set(preds[v])) for v in names}
    readers: dict[str, list[str]] = {v: [] for v in names}
    for v in names:
        for u in set(preds[v]):
            readers[u].append(v)
    ready = [v for v in names if indeg[v] == 0]
    order: list[str] = []
    while ready:
        v = ready.pop(0)
        order.append(v)
        for w in readers[v]:
            indeg[w] -= 1
            if indeg[w] == 0:
                ready.append(w)
    if len(order) != len(names):
        stuck = sorted(v for v in names if indeg[v] > 0)
        raise SiteError(
            f"layer graph has a cycle through {stuck[0]!r} ({len(stuck)} nodes on or after cycles)"
        )
    return order
