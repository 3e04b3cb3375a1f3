"""Model capture, in one place: a module and example inputs in, one ``torch.fx`` graph out.

``fragment``, ``site``, ``presheaf`` and ``equivariance`` all read the graph that :func:`capture`
returns, so that a model that captures once works everywhere.

* **torch.export** (the default): ``torch.export.export(module, inputs, strict=False)``, decomposed to the
  core ATen opset with ``run_decompositions()``, uninitialised allocations (``empty``) made zeros
  (:func:`_zero_empty`). The graph is the exported program's *unlifted* module
  (``ExportedProgram.module()``): every ``call_function`` node is a core ATen op (``aten.addmm.default``)
  and parameters, buffers and lifted constants are ``get_attr`` nodes whose targets are the names in the
  export's graph signature (:attr:`Captured.parameters`, :attr:`Captured.buffers`,
  :attr:`Captured.constants`). Its placeholders are the user inputs, in order.
* **torch.fx** (the named fallback, used only when export fails, or when asked for):
  ``torch.fx`` symbolic tracing with every built-in ``torch.nn`` module kept as one leaf node. Its
  parameters are those of the traced module.

:attr:`Captured.method` says which one was used, and :attr:`Captured.export_error` why export was not.

Keyword inputs: :class:`KeywordInputs` wraps a model whose example input is a dict of keyword arguments
(``input_ids=..., attention_mask=...``) as a module with positional tensor inputs, the non-tensor
keywords (``use_cache=False``) fixed; this is how :mod:`pybridge.targets` presents such a model.
"""

from __future__ import annotations

import contextlib
import copy
import io
import logging
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import torch
import torch.fx as fx
from torch import nn

from pybridge.errors import TargetError, UserCodeError
from pybridge.targets import quote, user_code, user_stdout, watch_sigint

#: How a model may be captured: ``auto`` tries torch.export and falls back to torch.fx.
Method = Literal["auto", "export", "fx"]


class KeywordInputs(nn.Module):
    """``model`` called with keyword arguments: ``forward(*tensors)`` calls
    ``model(**dict(zip(names, tensors)), **fixed)``.

    The non-tensor keywords of an example (``use_cache=False``, ``return_dict=True``) are ``fixed``.
    """

    def __init__(self, model: nn.Module, names: Sequence[str], fixed: Mapping[str, Any]) -> None:
        super().__init__()
        self.model = model
        self.names = tuple(names)
        self.fixed = dict(fixed)

    def forward(self, *tensors: torch.Tensor) -> Any:
        """Call the wrapped model with the tensors as the keyword arguments named in :attr:`names`."""
        return self.model(**dict(zip(self.names, tensors, strict=True)), **self.fixed)


def keyword_inputs(model: nn.Module, example: Mapping[str, Any]
                   ) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    """Wrap ``model`` for a dict of keyword inputs: ``(KeywordInputs(...), tensors in dict order)``."""
    names = [k for k, v in example.items() if isinstance(v, torch.Tensor)]
    fixed = {k: v for k, v in example.items() if not isinstance(v, torch.Tensor)}
    return KeywordInputs(model, names, fixed), tuple(example[k] for k in names)


@dataclass
class Captured:
    """A captured model: its graph, how it was captured, and the roles of its ``get_attr`` targets."""

    gm: fx.GraphModule
    method: Literal["torch.export", "torch.fx"]
    #: Parameter names (``get_attr`` targets) from the export's graph signature (fx: the module's).
    parameters: tuple[str, ...]
    #: Buffer names (``rotary_emb.inv_freq``, batch-norm statistics).
    buffers: tuple[str, ...]
    #: Lifted tensor constants (tensors created in ``forward`` and folded by export).
    constants: tuple[str, ...]
    #: The placeholder names of the user inputs, in order.
    user_inputs: tuple[str, ...]
    #: Why torch.export was not used (``None`` when it was, or when fx was asked for).
    export_error: str | None = None
    #: Seconds spent capturing (export and decomposition, or tracing).
    seconds: float = 0.0

    @property
    def opset(self) -> str:
        """``core ATen`` for an exported graph, ``torch functions`` for an fx trace."""
        return "core ATen" if self.method == "torch.export" else "torch functions"


def _first_line(err: BaseException) -> str:
    lines = [ln.strip() for ln in str(err).strip().splitlines() if ln.strip()]
    text = lines[0] if lines else ""
    if len(text) > 200:
        text = text[:197] + "..."
    return f"{type(err).__name__}: {text}".rstrip(": ")


def _strip_guards(gm: fx.GraphModule) -> None:
    """Remove the input-guard call that ``ExportedProgram.module()`` may insert (``_guards_fn``)."""
    changed = False
    for n in list(gm.graph.nodes):
        if n.op == "call_module" and str(n.target).startswith("_guards_fn") and not n.users:
            gm.graph.erase_node(n)
            changed = True
    if changed:
        gm.recompile()


def _zero_empty(gm: fx.GraphModule) -> None:
    """Make every uninitialised allocation (``aten.empty``, ``aten.empty_strided``, ``aten.empty_like``)
    an allocation of zeros (``aten.full`` / ``aten.full_like`` with ``0``).

    Export's decompositions allocate with ``empty`` and then write into the buffer (circular padding is
    ``empty`` followed by ``slice_scatter`` and ``copy``): the intermediate values then hold whatever the
    memory held, and two captures of one model disagree on them. A program whose result depends on
    uninitialised memory has no determined value anyway, so zeros are one valid realisation; with them
    the recorded activations are reproducible.
    """
    aten = torch.ops.aten
    changed = False
    for n in gm.graph.nodes:
        if n.op != "call_function":
            continue
        kwargs = {k: v for k, v in n.kwargs.items() if k != "memory_format"}
        if n.target is aten.empty.memory_format and len(n.args) == 1:
            n.target, n.args, n.kwargs = aten.full.default, (n.args[0], 0), kwargs
        elif n.target is aten.empty_strided.default and len(n.args) == 2:
            n.target, n.args, n.kwargs = aten.full.default, (n.args[0], 0), kwargs
        elif n.target is aten.empty_like.default and len(n.args) == 1:
            n.target, n.args = aten.full_like.default, (n.args[0], 0)
        else:
            continue
        changed = True
    if changed:
        gm.recompile()


def _export(module: nn.Module, inputs: tuple[Any, ...], decompose: bool) -> Captured:
    import time

    t0 = time.perf_counter()
    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)  # export logs warnings to stderr; the CLI prints one line only
    try:
        with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            ep = torch.export.export(module, inputs, strict=False)
            if decompose:
                ep = ep.run_decompositions()
            try:
                gm = ep.module(check_guards=False)  # type: ignore[call-arg]
            except TypeError:  # older torch: no check_guards
                gm = ep.module()
    finally:
        logging.disable(previous)
    _strip_guards(gm)
    _zero_empty(gm)  # type: ignore[arg-type]
    sig = ep.graph_signature
    placeholders = tuple(n.name for n in gm.graph.nodes if n.op == "placeholder")
    return Captured(
        gm=gm,  # type: ignore[arg-type]
        method="torch.export",
        parameters=tuple(sig.parameters),
        buffers=tuple(sig.buffers),
        constants=tuple(sig.lifted_tensor_constants),
        user_inputs=placeholders,
        seconds=time.perf_counter() - t0,
    )


def _fx(module: nn.Module, n_inputs: int) -> Captured:
    """Trace with ``torch.fx`` (the fallback); the classifier's tracer wraps built-in leaf modules."""
    import time

    from pybridge.fragment.classify import trace as fx_trace

    t0 = time.perf_counter()
    gm = fx_trace(module, n_inputs)
    placeholders = tuple(n.name for n in gm.graph.nodes if n.op == "placeholder")
    return Captured(
        gm=gm,
        method="torch.fx",
        parameters=tuple(name for name, _ in gm.named_parameters(remove_duplicate=False)),
        buffers=tuple(name for name, _ in gm.named_buffers(remove_duplicate=False)),
        constants=(),
        user_inputs=placeholders,
        seconds=time.perf_counter() - t0,
    )


def _eager_check(module: nn.Module, args: tuple[Any, ...], name: str) -> Any:
    """Call ``module(*args)`` once (no gradients) and return its output; :class:`UserCodeError` when the
    user's forward raises."""
    dtypes = sorted({str(a.dtype).removeprefix("torch.") for a in args
                     if isinstance(a, torch.Tensor) and a.is_floating_point()})
    where = f" ({', '.join(dtypes)} inputs)" if dtypes else ""
    with torch.no_grad(), user_code(name, f"the model's forward on the example input{where}"):
        return module(*args)


def _dataclass_types(value: Any, found: set[type], depth: int = 0) -> None:
    """The plain ``@dataclass`` types (not registered with pytree) in a model's output, nested anywhere."""
    import dataclasses

    from torch.utils import _pytree as pytree

    if depth > 50:
        return
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        cls = type(value)
        if cls not in pytree.SUPPORTED_NODES:
            found.add(cls)
        for f in dataclasses.fields(value):
            _dataclass_types(getattr(value, f.name, None), found, depth + 1)
    elif isinstance(value, (tuple, list)):
        for v in value:
            _dataclass_types(v, found, depth + 1)
    elif isinstance(value, dict):
        for v in value.values():
            _dataclass_types(v, found, depth + 1)


def register_output_dataclass(cls: type) -> None:
    """Register a plain ``@dataclass`` type with torch's pytree, so that ``torch.export`` flattens a model
    output of that type as it flattens transformers' ``ModelOutput``: its tensor fields (in field order)
    are the leaves, the other fields are kept as they are."""
    import dataclasses

    from torch.utils import _pytree as pytree

    if cls in pytree.SUPPORTED_NODES:
        return
    names = [f.name for f in dataclasses.fields(cls)]

    def _split(o: Any) -> tuple[tuple[str, ...], tuple[tuple[str, Any], ...]]:
        leaves = tuple(n for n in names if _holds_tensor(getattr(o, n, None)))
        rest = tuple((n, getattr(o, n, None)) for n in names if n not in leaves)
        return leaves, rest

    def flatten(o: Any) -> tuple[list[Any], Any]:
        leaves, rest = _split(o)
        return [getattr(o, n) for n in leaves], (leaves, rest)

    def flatten_with_keys(o: Any) -> tuple[list[tuple[Any, Any]], Any]:
        leaves, rest = _split(o)
        return [(pytree.GetAttrKey(n), getattr(o, n)) for n in leaves], (leaves, rest)

    def unflatten(values: Any, ctx: Any) -> Any:
        leaves, rest = ctx
        obj = object.__new__(cls)
        for n, v in (*zip(leaves, values, strict=True), *rest):
            object.__setattr__(obj, n, v)
        return obj

    pytree.register_pytree_node(cls, flatten, unflatten, flatten_with_keys_fn=flatten_with_keys)


def _holds_tensor(value: Any, depth: int = 0) -> bool:
    import dataclasses

    if isinstance(value, torch.Tensor):
        return True
    if depth > 50:
        return False
    if isinstance(value, (tuple, list)):
        return any(_holds_tensor(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return any(_holds_tensor(v, depth + 1) for v in value.values())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(_holds_tensor(getattr(value, f.name, None), depth + 1) for f in dataclasses.fields(value))
    return False


def flatten_tensors(value: Any) -> list[torch.Tensor]:
    """The tensors of a model's output in return order: a tensor, tuples, lists, dicts (transformers'
    ``ModelOutput``) and plain ``@dataclass`` objects, nested."""
    import dataclasses

    flat: list[torch.Tensor] = []

    def walk(v: Any, depth: int) -> None:
        if isinstance(v, torch.Tensor):
            flat.append(v)
        elif depth > 50:
            return
        elif isinstance(v, (tuple, list)):
            for w in v:
                walk(w, depth + 1)
        elif isinstance(v, dict):
            for w in v.values():
                walk(w, depth + 1)
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            for f in dataclasses.fields(v):
                walk(getattr(v, f.name, None), depth + 1)

    walk(value, 0)
    return flat


def _fx_contained(module: nn.Module, args: tuple[Any, ...], name: str) -> Captured:
    """:func:`_fx`; ``SystemExit``/``KeyboardInterrupt`` from the forward become :class:`UserCodeError`."""
    try:
        return _fx(module, len(args))
    except Exception:
        raise
    except BaseException as err:  # only the user's forward raises these
        raise UserCodeError(f"{name}: the model's forward raised {quote(err)}") from None


def capture(module: nn.Module, inputs: Sequence[Any], name: str = "model", *, method: Method = "auto",
            decompose: bool = True) -> Captured:
    """Capture ``module`` (put in eval mode) at the example ``inputs`` (see the module docstring).

    ``method``: ``auto`` (torch.export, falling back to torch.fx when export fails), ``export`` or ``fx``.
    Raises :class:`TargetError` with one line when no allowed method captures the model; for export the
    line names export's error and what to try. The user's forward is contained: what it prints goes to
    stderr, and when it raises (``SystemExit`` and ``KeyboardInterrupt`` included, or any exception also
    raised by a plain eager call after export failed) the error is a one-line :class:`UserCodeError`
    (exit 16), not a capture failure (exit 8).
    """
    args = tuple(inputs)
    with user_code(name, "the model's eval()"):
        module = module.eval()
    if method == "fx":
        with user_stdout():
            return _fx_contained(module, args, name)
    try:
        with watch_sigint() as interrupted, user_stdout():
            return _export(module, args, decompose)
    except Exception as err:  # export raises many kinds (UserError, GuardOnDataDependent, ...)
        export_error = _first_line(err)
    except BaseException as err:  # SystemExit, KeyboardInterrupt: only the user's forward raises these
        if isinstance(err, KeyboardInterrupt) and interrupted[0]:
            raise  # a real Ctrl-C: exit 130
        raise UserCodeError(f"{name}: the model's forward raised {quote(err)}") from None
    # Export failed: if the plain eager call fails as well, the user's forward is at fault (exit 16), not
    # the capture (exit 8).
    eager_out = _eager_check(module, args, name)
    unknown: set[type] = set()
    _dataclass_types(eager_out, unknown)
    if unknown:  # a plain @dataclass output: register it with pytree (as ModelOutput is) and export again
        for cls in unknown:
            register_output_dataclass(cls)
        try:
            with user_stdout():
                return _export(module, args, decompose)
        except Exception as err:
            export_error = _first_line(err)
        except BaseException as err:  # noqa: BLE001 - SystemExit, KeyboardInterrupt from the forward
            raise UserCodeError(f"{name}: the model's forward raised {quote(err)}") from None
    hint = ("what to try: the capture already uses strict=False; mark sizes dynamic (torch.export.Dim) "
            "if the model branches on them, remove data-dependent Python control flow, or return "
            "(wrapper, inputs) from the factory with a wrapper module that fixes the keyword inputs")
    if method == "export":
        raise TargetError(f"{name}: torch.export cannot capture the model ({export_error}); {hint}")
    try:
        with user_stdout():
            cap = _fx_contained(module, args, name)
    except TargetError as fx_err:
        if isinstance(fx_err, UserCodeError):
            raise
        raise TargetError(
            f"{name}: torch.export cannot capture the model ({export_error}; torch.fx fallback: "
            f"{fx_err.message.split(': ', 1)[-1]}); {hint}"
        ) from None
    cap.export_error = export_error
    return cap


#: The recursion limit a model copy may raise to (deeply nested modules: ``copy.deepcopy`` and
#: ``Module._apply`` recurse a few frames per level of nesting).
COPY_RECURSION_LIMIT = 50_000
#: The stack of the thread that copies a deeply nested model (the raised limit needs a deep C stack).
COPY_STACK_BYTES = 512 * 2**20


def _copy_now(module: nn.Module, dtype: torch.dtype | None) -> nn.Module:
    model = copy.deepcopy(module).eval()
    return model if dtype is None else model.to(dtype)


def deep_call(fn: Any, *, force: bool = False) -> Any:
    """``fn()``; when it raises :class:`RecursionError` (a deeply nested model: ``copy.deepcopy``,
    ``Module._apply`` and tracing recurse a few frames per level), ``fn()`` again in a thread with a large
    stack and the recursion limit raised to :data:`COPY_RECURSION_LIMIT` (both restored after). What the
    second call raises is re-raised in the calling thread. ``force``: the thread at once."""
    import sys
    import threading

    if not force:
        try:
            return fn()
        except RecursionError:
            pass
    result: list[Any] = []

    def run() -> None:
        try:
            result.append((True, fn()))
        except BaseException as err:  # noqa: BLE001 - re-raised below, in the calling thread
            result.append((False, err))

    old_limit, old_stack = sys.getrecursionlimit(), threading.stack_size()
    try:
        threading.stack_size(COPY_STACK_BYTES)
        sys.setrecursionlimit(max(old_limit, COPY_RECURSION_LIMIT))
        worker = threading.Thread(target=run, name="pybridge-deep")
        worker.start()
        worker.join()
    finally:
        sys.setrecursionlimit(old_limit)
        threading.stack_size(old_stack)
    if not result:
        raise RuntimeError("the deep call did not finish")
    ok, value = result[0]
    if ok:
        return value
    raise value


def copy_model(module: nn.Module, dtype: torch.dtype | None, name: str = "model") -> nn.Module:
    """A copy of ``module`` in eval mode, cast to ``dtype`` (floating parameters and buffers; None: kept).

    A model nested too deeply for the default recursion limit is copied by :func:`deep_call`. Raises
    :class:`ResourceLimitError` (exit 14) when an allocation fails, :class:`UserCodeError` when the
    model's own code raises ``SystemExit``/``KeyboardInterrupt`` (``__deepcopy__``, ``_apply``), and
    :class:`TargetError` (one line) otherwise.
    """
    from pybridge import budget

    what = f"copying {name}" + ("" if dtype is None else f" to {str(dtype).removeprefix('torch.')}")
    try:
        with user_stdout():
            return deep_call(lambda: _copy_now(module, dtype))
    except RecursionError:
        raise TargetError(
            f"{name}: cannot copy the model to {dtype}: it is nested too deeply even for a recursion "
            f"limit of {COPY_RECURSION_LIMIT}"
        ) from None
    except Exception as err:
        if budget.is_allocation_failure(err):
            raise budget.allocation_error(err, what) from None
        raise TargetError(f"{name}: cannot copy the model to {dtype} ({_first_line(err)})") from None
    except BaseException as err:  # noqa: BLE001 - SystemExit, KeyboardInterrupt from the user's code
        raise UserCodeError(f"{name}: copying the model raised {quote(err)}") from None


def capture_copy(module: nn.Module, inputs: Sequence[torch.Tensor], name: str = "model", *,
                 dtype: torch.dtype = torch.float64, method: Method = "auto"
                 ) -> tuple[Captured, tuple[torch.Tensor, ...]]:
    """Capture a ``dtype`` copy of ``module`` at ``inputs`` cast to ``dtype`` (integer inputs kept).

    The caller's module is untouched. Returns the capture and the cast inputs.
    """
    model = copy_model(module, dtype, name)
    xs = tuple(x.detach().to(dtype) if x.is_floating_point() else x.detach() for x in inputs)
    try:
        return capture(model, xs, name, method=method), xs
    except TargetError as err:
        if isinstance(err, UserCodeError) or "RecursionError" not in str(err):
            raise
    # a deeply nested model: export and fx recurse a few frames per level; capture again with room
    return deep_call(lambda: capture(model, xs, name, method=method), force=True), xs


__all__ = [
    "Captured",
    "KeywordInputs",
    "Method",
    "capture",
    "capture_copy",
    "copy_model",
    "flatten_tensors",
    "keyword_inputs",
    "register_output_dataclass",
]
