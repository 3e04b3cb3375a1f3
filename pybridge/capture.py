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
from pybridge.targets import _quote, user_code, user_stdout

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


def _eager_check(module: nn.Module, args: tuple[Any, ...], name: str) -> None:
    """Call ``module(*args)`` once (no gradients); :class:`UserCodeError` when the user's forward raises."""
    dtypes = sorted({str(a.dtype).removeprefix("torch.") for a in args
                     if isinstance(a, torch.Tensor) and a.is_floating_point()})
    where = f" ({', '.join(dtypes)} inputs)" if dtypes else ""
    with torch.no_grad(), user_code(name, f"the model's forward on the example input{where}"):
        module(*args)


def _fx_contained(module: nn.Module, args: tuple[Any, ...], name: str) -> Captured:
    """:func:`_fx`; ``SystemExit``/``KeyboardInterrupt`` from the forward become :class:`UserCodeError`."""
    try:
        return _fx(module, len(args))
    except Exception:
        raise
    except BaseException as err:  # only the user's forward raises these
        raise UserCodeError(f"{name}: the model's forward raised {_quote(err)}") from None


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
        with user_stdout():
            return _export(module, args, decompose)
    except Exception as err:  # export raises many kinds (UserError, GuardOnDataDependent, ...)
        export_error = _first_line(err)
    except BaseException as err:  # SystemExit, KeyboardInterrupt: only the user's forward raises these
        raise UserCodeError(f"{name}: the model's forward raised {_quote(err)}") from None
    # Export failed: if the plain eager call fails as well, the user's forward is at fault (exit 16), not
    # the capture (exit 8).
    _eager_check(module, args, name)
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


def capture_copy(module: nn.Module, inputs: Sequence[torch.Tensor], name: str = "model", *,
                 dtype: torch.dtype = torch.float64, method: Method = "auto"
                 ) -> tuple[Captured, tuple[torch.Tensor, ...]]:
    """Capture a ``dtype`` copy of ``module`` at ``inputs`` cast to ``dtype`` (integer inputs kept).

    The caller's module is untouched. Returns the capture and the cast inputs.
    """
    try:
        model = copy.deepcopy(module).eval().to(dtype)
    except Exception as err:
        raise TargetError(f"{name}: cannot copy the model to {dtype} ({_first_line(err)})") from None
    xs = tuple(x.detach().to(dtype) if x.is_floating_point() else x.detach() for x in inputs)
    return capture(model, xs, name, method=method), xs


__all__ = ["Captured", "KeywordInputs", "Method", "capture", "capture_copy", "keyword_inputs"]
