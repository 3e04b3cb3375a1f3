"""Numerical checks: each Zoo layer, compiled from its Lean term, against an independent reference.

The reference is the layer's PyTorch counterpart (``nn.MultiheadAttention``, ...; built from the
``PyTorch:`` line of the Lean docstring, its weights copied into our layer through the adapter that
``Layer.from_torch`` uses) or, where PyTorch has none, a hand-written function of
:mod:`pybridge.laws.references`. The law checked is *lax* equality: equal up to floating-point
reassociation, with the tolerances of :data:`TOLERANCE` on the maximal absolute error.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from pybridge.errors import BridgeError, CheckFailed, LeanParseError, ShapeError
from pybridge.laws.references import REFERENCES
from pybridge.lean.catalogue import Catalogue, LayerInfo, load_catalogue
from pybridge.spec.terms import Term
from pybridge.torch import adapters, runtime
from pybridge.torch.compiler import compile_term
from pybridge.zoo import random_input

#: Maximal absolute error allowed between a layer and its reference, per dtype.
TOLERANCE: dict[torch.dtype, float] = {torch.float64: 1e-10, torch.float32: 1e-5}

_ODD = (5, 3, 7, 9, 15)


@dataclass(frozen=True)
class CheckResult:
    """One comparison of a layer against its reference."""

    layer: str
    config: str
    params: dict[str, int]
    dtype: str
    batch: int
    seq: int | None
    reference: str
    max_abs_error: float
    tolerance: float

    @property
    def passed(self) -> bool:
        """Whether the error is within tolerance."""
        return self.max_abs_error <= self.tolerance


# --- references ------------------------------------------------------------------------------------

_ALLOWED_NN = {"Sequential", "Linear", "ReLU", "GLU", "MultiheadAttention", "TransformerEncoderLayer"}


def build_counterpart(expr: str, params: dict[str, int], dtype: torch.dtype) -> nn.Module:
    """Build the module of a ``PyTorch:`` line (``torch.nn.X(args)``, nested) with the layer's parameters.

    Only the ``torch.nn`` classes of :data:`_ALLOWED_NN`, integer arithmetic on parameters and literal
    constants are accepted; nothing else is evaluated.
    """

    def value(node: ast.AST) -> object:
        match node:
            case ast.Constant(value=v) if isinstance(v, int | float | bool | str):
                return v
            case ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=v)) if isinstance(v, int | float):
                return -v
            case ast.Name(id=name) if name in params:
                return params[name]
            case ast.BinOp(left=left, op=op, right=right) if isinstance(
                op, ast.Mult | ast.Add | ast.FloorDiv
            ):
                a, b = value(left), value(right)
                integers = isinstance(a, int) and isinstance(b, int)
                if not integers or (isinstance(op, ast.FloorDiv) and b == 0):
                    raise BridgeError(
                        f"PyTorch counterpart {expr!r}: {ast.unparse(node)!r} is not integer arithmetic"
                    )
                return a * b if isinstance(op, ast.Mult) else a + b if isinstance(op, ast.Add) else a // b
            case ast.Call(func=func, args=args, keywords=keywords):
                dotted = ast.unparse(func)
                cls_name = dotted.rsplit(".", 1)[-1]
                if not dotted.startswith(("torch.nn.", "nn.")) or cls_name not in _ALLOWED_NN:
                    raise BridgeError(
                        f"PyTorch counterpart {expr!r}: {dotted} is not an allowed torch.nn class"
                    )
                kwargs = {k.arg: value(k.value) for k in keywords if k.arg}
                if cls_name not in ("Sequential", "ReLU", "GLU"):
                    kwargs["dtype"] = dtype
                positional = [value(a) for a in args]
                try:
                    return getattr(nn, cls_name)(*positional, **kwargs)
                except (TypeError, ValueError, AssertionError, RuntimeError) as err:
                    given = " ".join(f"{k}={v}" for k, v in params.items())
                    raise ShapeError(
                        f"PyTorch counterpart {ast.unparse(node)} rejects the parameters {given}: "
                        + (str(err).splitlines() or [type(err).__name__])[0]
                    ) from None
        raise BridgeError(f"PyTorch counterpart {expr!r}: cannot read {ast.unparse(node)!r}")

    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        raise BridgeError(f"PyTorch counterpart {expr!r} is not a Python expression") from None
    module = value(tree.body)
    if not isinstance(module, nn.Module):
        raise BridgeError(f"PyTorch counterpart {expr!r} does not build a module")
    return module.to(dtype).eval()


def call_counterpart(module: nn.Module, x: torch.Tensor) -> torch.Tensor:
    """Run a PyTorch counterpart on a batch-first input (self-attention for ``nn.MultiheadAttention``)."""
    if isinstance(module, nn.MultiheadAttention):
        return module(x, x, x, need_weights=False)[0]
    return module(x)


def leaf_pairs(module: nn.Module) -> list[tuple[torch.Tensor, torch.Tensor | None]]:
    """The ``(weight, bias)`` pairs of a compiled layer, in the depth-first order of its Lean term
    (``(weight, None)`` for an ``RmsNorm``, which has no bias)."""
    return [
        (leaf.weight.detach(), None if leaf.bias is None else leaf.bias.detach())
        for leaf in runtime._leaves(module)
    ]


# --- configurations --------------------------------------------------------------------------------


def _satisfies(cat: Catalogue, name: str, params: dict[str, int]) -> bool:
    try:
        cat.instantiate(name, params)
    except ShapeError:
        return False
    return True


def configurations(name: str, cat: Catalogue | None = None) -> dict[str, dict[str, int]]:
    """Parameter sets to check: the Lean ``Example:``, the smallest (all ones where the hypotheses
    allow) and one with distinct odd dimensions."""
    cat = cat or load_catalogue()
    info = cat.layer(name)
    configs = {"example": {k: v for k, v in info.example.items() if k in info.params}}
    for label, pools in (("minimal", [(1, 2, 3)] * len(info.params)), ("odd", [_ODD] * len(info.params))):
        for values in itertools.product(*pools):
            if label == "odd" and len(set(values)) < len(values):
                continue
            candidate = dict(zip(info.params, values))
            if _satisfies(cat, name, candidate):
                configs[label] = candidate
                break
    return configs


# --- the checks ------------------------------------------------------------------------------------


def check_layer(
    name: str,
    params: dict[str, int] | None = None,
    *,
    dtypes: tuple[torch.dtype, ...] = (torch.float64, torch.float32),
    batches: tuple[int, ...] = (1, 3),
    seqs: tuple[int, ...] = (1, 4),
    seed: int = 0,
) -> list[CheckResult]:
    """Compare layer ``name`` with its reference over parameter sets, dtypes, batch sizes and sequence
    lengths. ``params`` replaces the default :func:`configurations` with one set."""
    cat = load_catalogue()
    info = cat.layer(name)
    configs = {"given": params} if params is not None else configurations(name, cat)
    results: list[CheckResult] = []
    for (label, cfg), dtype in itertools.product(configs.items(), dtypes):
        term, sig = cat.instantiate(name, cfg)
        run_seqs: tuple[int | None, ...] = tuple(seqs) if info.runtime_dims else (None,)
        torch.manual_seed(seed)
        ours, reference, ref_name = _pair(info, term, cfg, dtype)
        for batch, seq in itertools.product(batches, run_seqs):
            dims = {d: seq for d in info.runtime_dims if seq is not None}
            gen = torch.Generator().manual_seed(seed + 7 * batch + (seq or 0))
            x = random_input(sig.dom, batch, dtype=dtype, generator=gen, dims=dims)
            with torch.no_grad():
                got = ours(x)
                try:  # the reference the Lean docstring names may not fit this layer at all
                    want = reference(x)
                    err = (got - want).abs().max().item() if got.numel() else 0.0
                except (ValueError, TypeError, IndexError, KeyError, RuntimeError) as exc:
                    if isinstance(exc, RuntimeError) and "memory" in str(exc).lower():
                        raise
                    first = (str(exc).strip().splitlines() or [""])[0][:200]
                    raise CheckFailed(
                        f"{name}: its reference {ref_name} does not run on this layer's input "
                        f"({type(exc).__name__}: {first})"
                    ) from None
            results.append(
                CheckResult(
                    name,
                    label,
                    dict(cfg),
                    str(dtype).removeprefix("torch."),
                    batch,
                    seq,
                    ref_name,
                    err,
                    TOLERANCE[dtype],
                )
            )
    return results


def load_counterpart_weights(ours: nn.Module, counterpart: nn.Module, info: LayerInfo) -> None:
    """Copy the weights of ``counterpart`` into ``ours`` (layer ``info`` compiled from its Lean term)
    through the adapter that the emitted ``Layer.from_torch`` uses."""
    adapter_name = adapters.ADAPTERS.get(type(counterpart).__name__)
    if adapter_name is None:
        raise LeanParseError(
            info.file,
            info.line,
            f"the PyTorch counterpart of {info.name}, {type(counterpart).__name__}, has no weight "
            f"adapter (pybridge/torch/adapters.py has: {', '.join(sorted(adapters.ADAPTERS))})",
        )
    runtime.load_leaves(ours, getattr(adapters, adapter_name)(counterpart))


def _pair(
    info: LayerInfo, term: Term, cfg: dict[str, int], dtype: torch.dtype
) -> tuple[nn.Module, Callable[[torch.Tensor], torch.Tensor], str]:
    """Our compiled layer, the reference as a function of the input, and the reference's name."""
    ours = compile_term(term, dtype=dtype).eval()
    if info.pytorch:
        counterpart = build_counterpart(info.pytorch, cfg, dtype)
        load_counterpart_weights(ours, counterpart, info)
        return ours, (lambda x: call_counterpart(counterpart, x)), info.pytorch
    if info.reference not in REFERENCES:
        raise BridgeError(f"{info.name}: no reference function {info.reference!r}")
    fn = REFERENCES[info.reference]
    pairs = leaf_pairs(ours)
    return ours, (lambda x: fn(x, pairs, cfg)), info.reference
