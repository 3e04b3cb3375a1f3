"""Model capture, in one place: a module and example inputs in, one ``torch.fx`` graph out.

``fragment``, ``site``, ``presheaf`` and ``equivariance`` all read the graph that :func:`capture`
returns, so that a model that captures once works everywhere.

* **torch.export** (the default): ``torch.export.export(module, inputs, strict=False)``, decomposed to the
  core ATen opset with ``run_decompositions()``. The graph is the exported program's *unlifted* module
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

from pybridge.errors import TargetError

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


def capture(module: nn.Module, inputs: Sequence[Any], name: str = "model", *, method: Method = "auto",
            decompose: bool = True) -> Captured:
    """Capture ``module`` (put in eval mode) at the example ``inputs`` (see the module docstring).

    ``method``: ``auto`` (torch.export, falling back to torch.fx when export fails), ``export`` or ``fx``.
    Raises :class:`TargetError` with one line when no allowed method captures the model; for export the
    line names export's error and what to try.
    """
    module = module.eval()
    args = tuple(inputs)
    if method == "fx":
        return _fx(module, len(args))
    try:
        return _export(module, args, decompose)
    except Exception as err:  # export raises many kinds (UserError, GuardOnDataDependent, ...)
        export_error = _first_line(err)
    hint = ("what to try: the capture already uses strict=False; mark sizes dynamic (torch.export.Dim) "
            "if the model branches on them, remove data-dependent Python control flow, or return "
            "(wrapper, inputs) from the factory with a wrapper module that fixes the keyword inputs")
    if method == "export":
        raise TargetError(f"{name}: torch.export cannot capture the model ({export_error}); {hint}")
    try:
        cap = _fx(module, len(args))
    except TargetError as fx_err:
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
