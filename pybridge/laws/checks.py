"""Numerical checks: each Zoo layer, compiled from its Lean term, against an independent reference.

The references are the layer's counterparts, as its Lean docstring names them: the ``PyTorch:`` line
(``nn.MultiheadAttention``, ``nn.Sequential(nn.LayerNorm, nn.Linear, ...)``; built with ``ast``, never
evaluated, its weights copied into our layer through the adapter that ``Layer.from_torch`` uses), the
``Reference:`` line (``package.module:function``: imported with importlib, called with the layer's
parameters and ``dtype``, the returned module's weights copied in by its ``bridge_pairs()`` or the
adapter of its class; the user's code is contained: whatever it raises is exit 16), and a hand-written
function of :mod:`pybridge.laws.references` (``PyTorch: none (reference: ...)``). A layer with none of
them is checked against the exact interpreter of ``Arch.eval`` (:mod:`pybridge.laws.exact`): rational
arithmetic where the layer has no ``exp``/``sqrt``, floats otherwise. The law checked is *lax*
equality: equal up to floating-point reassociation, with the tolerances of :data:`TOLERANCE` on the
maximal absolute error.
"""

from __future__ import annotations

import ast
import importlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from pybridge.errors import (
    BridgeError,
    CheckFailed,
    LeanParseError,
    NotExactError,
    ShapeError,
    UsageError,
    UserCodeError,
)
from pybridge.laws.references import REFERENCES
from pybridge.lean.catalogue import REFERENCE_SYNTAX, Catalogue, LayerInfo, catalogue_for
from pybridge.spec.terms import Term
from pybridge.spec.typing import signature
from pybridge.torch import adapters, runtime
from pybridge.torch.compiler import compile_term
from pybridge.torch.optimize import LAX_TOLERANCE, REWRITES
from pybridge.zoo import random_input

#: Maximal absolute error allowed between a layer and its reference, per dtype.
TOLERANCE: dict[torch.dtype, float] = {torch.float64: 1e-10, torch.float32: 1e-5}

_ODD = (5, 3, 7, 9, 15)

#: The dtypes a check runs in (``check_layer``'s default).
DTYPES: tuple[torch.dtype, ...] = (torch.float64, torch.float32)


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
    #: Which realisation was compared: ``optimised`` (straight-line, rewritten; the default of
    #: ``compile_term``) or ``literal`` (the constructor tree), each against the reference, or
    #: ``optimised vs literal`` (the two against each other; ``reference`` then says ``literal``).
    realisation: str = "optimised"

    @property
    def passed(self) -> bool:
        """Whether the error is within tolerance."""
        return self.max_abs_error <= self.tolerance


# --- references ------------------------------------------------------------------------------------

_ALLOWED_NN = {
    "Sequential",
    "Linear",
    "ReLU",
    "GLU",
    "LayerNorm",
    "MultiheadAttention",
    "TransformerEncoderLayer",
}


#: The longest ``PyTorch:`` expression read (``ast`` recurses on its nesting).
MAX_COUNTERPART_CHARS = 2000
#: The largest integer the arithmetic of a ``PyTorch:`` line may produce (as the Lean reader's dimensions).
MAX_COUNTERPART_INT = 2**62


def _counterpart(expr: str, params: dict[str, int], dtype: torch.dtype, device: str | None) -> nn.Module:
    """The module of a ``PyTorch:`` line built on ``device`` (``"meta"``: shapes only, no memory)."""

    def value(node: ast.AST) -> object:
        match node:
            case ast.Constant(value=v) if isinstance(v, int | float | bool | str):
                return _bounded(v, node)
            case ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=v)) if isinstance(v, int | float):
                return -_bounded(v, node)  # type: ignore[operator]
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
                out = a * b if isinstance(op, ast.Mult) else a + b if isinstance(op, ast.Add) else a // b
                return _bounded(out, node)
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
                    kwargs["device"] = device
                positional = [value(a) for a in args]
                try:
                    return getattr(nn, cls_name)(*positional, **kwargs)
                except (TypeError, ValueError, AssertionError, RuntimeError, OverflowError) as err:
                    given = " ".join(f"{k}={v}" for k, v in params.items())
                    raise ShapeError(
                        f"PyTorch counterpart {ast.unparse(node)} rejects the parameters {given}: "
                        + (str(err).splitlines() or [type(err).__name__])[0]
                    ) from None
        raise BridgeError(f"PyTorch counterpart {expr!r}: cannot read {ast.unparse(node)!r}")

    def _bounded(v: object, node: ast.AST) -> object:
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > MAX_COUNTERPART_INT:
            raise BridgeError(
                f"PyTorch counterpart {expr[:80]!r}: {ast.unparse(node)[:80]!r} exceeds 2^62, larger than "
                "any tensor dimension"
            )
        return v

    if len(expr) > MAX_COUNTERPART_CHARS:
        raise BridgeError(f"PyTorch counterpart of {len(expr)} characters: at most {MAX_COUNTERPART_CHARS}")
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        raise BridgeError(f"PyTorch counterpart {expr!r} is not a Python expression") from None
    except (RecursionError, MemoryError):
        raise BridgeError(f"PyTorch counterpart {expr[:80]!r}…: nested too deeply to read") from None
    try:
        module = value(tree.body)
    except RecursionError:
        raise BridgeError(f"PyTorch counterpart {expr[:80]!r}…: nested too deeply to read") from None
    if not isinstance(module, nn.Module):
        raise BridgeError(f"PyTorch counterpart {expr!r} does not build a module")
    return module


def counterpart_bytes(expr: str, params: dict[str, int], dtype: torch.dtype) -> int:
    """Bytes of the parameters and buffers of a ``PyTorch:`` line's module, from its construction on
    the ``meta`` device (which allocates nothing)."""
    module = _counterpart(expr, params, dtype, "meta")
    tensors = itertools.chain(module.parameters(), module.buffers())
    return sum(t.numel() * t.element_size() for t in tensors)


def build_counterpart(expr: str, params: dict[str, int], dtype: torch.dtype) -> nn.Module:
    """Build the module of a ``PyTorch:`` line (``torch.nn.X(args)``, nested) with the layer's parameters.

    Only the ``torch.nn`` classes of :data:`_ALLOWED_NN`, integer arithmetic on parameters (at most
    2^62) and literal constants are accepted; nothing else is evaluated. The module is first built on
    the ``meta`` device, and its weights are allocated only within the memory limit
    (:mod:`pybridge.budget`, exit 14).
    """
    from pybridge import budget

    weights = counterpart_bytes(expr, params, dtype)
    budget.require(budget.Estimate(weights, 0, 1), f"building the PyTorch counterpart {expr[:80]}")
    return _counterpart(expr, params, dtype, None).to(dtype).eval()


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
    if cat is None:
        cat, name = catalogue_for(name)
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
    dtypes: tuple[torch.dtype, ...] = DTYPES,
    batches: tuple[int, ...] = (1, 3),
    seqs: tuple[int, ...] = (1, 4),
    seed: int = 0,
    import_references: bool = False,
) -> list[CheckResult]:
    """Compare layer ``name`` with its reference over parameter sets, dtypes, batch sizes and sequence
    lengths. ``params`` replaces the default :func:`configurations` with one set. ``name`` is a Zoo
    layer or ``path/File.lean:NAME``. Every counterpart the docstring names is checked; a layer with
    none is checked against the exact interpreter of ``Arch.eval``.

    Both realisations are checked, with the same weights: the optimised straight-line one
    (``compile_term``'s default) and the literal constructor tree, each against every reference, and
    against each other: bit-identical (tolerance 0) when every law applied is strict, within
    :data:`~pybridge.torch.optimize.LAX_TOLERANCE` when one is lax.

    A ``Reference:`` module outside ``pybridge`` is imported only with ``import_references``
    (:func:`build_module_reference`)."""
    cat, short = catalogue_for(name)
    info = cat.layer(short)
    configs = {"given": params} if params is not None else configurations(short, cat)
    results: list[CheckResult] = []
    for (label, cfg), dtype in itertools.product(configs.items(), dtypes):
        term, sig = cat.instantiate(short, cfg)
        run_seqs: tuple[int | None, ...] = tuple(seqs) if info.runtime_dims else (None,)
        laws = {r.lemma: r.law for r in REWRITES}
        literals: dict[int, nn.Module] = {}
        for ours, reference, ref_name in _pairs(info, term, cfg, dtype, seed, dtypes, import_references):
            if id(ours) not in literals:  # the literal tree, with the same weights as ``ours``
                literals[id(ours)] = compile_term(term, dtype=dtype, literal=True).eval()
                runtime.load_leaves(literals[id(ours)], leaf_pairs(ours))
                first_use = True
            else:
                first_use = False
            literal = literals[id(ours)]
            # The two realisations must agree bit for bit unless a lax law was applied.
            lax = any(laws.get(lemma) != "strict" for lemma, _ in getattr(ours, "lean_rewrites", ()))
            cross_tol = LAX_TOLERANCE[dtype] if lax else 0.0
            tol = TOLERANCE[dtype]
            for batch, seq in itertools.product(batches, run_seqs):
                dims = {d: seq for d in info.runtime_dims if seq is not None}
                gen = torch.Generator().manual_seed(seed + 7 * batch + (seq or 0))
                x = random_input(sig.dom, batch, dtype=dtype, generator=gen, dims=dims)
                with torch.no_grad():
                    got = ours(x)
                    got_literal = literal(x)
                    err = _error(name, reference, ref_name, x, got)
                    err_literal = _error(name, reference, ref_name, x, got_literal)
                common = (name, label, dict(cfg), str(dtype).removeprefix("torch."), batch, seq)
                results += [
                    CheckResult(*common, ref_name, err, tol, "optimised"),
                    CheckResult(*common, ref_name, err_literal, tol, "literal"),
                ]
                if first_use:  # once per compiled layer, not once per reference
                    cross = (got - got_literal).abs().max().item() if got.numel() else 0.0
                    results.append(CheckResult(*common, "literal", cross, cross_tol, CROSS))
    if not results:
        raise CheckFailed(f"{name}: no reference was compared in {', '.join(str(d) for d in dtypes)}")
    return results


#: A reference: the batch-first input and our output → the maximal absolute error.
Reference = Callable[[object, torch.Tensor], float]


def _error(name: str, reference: Reference, ref_name: str, x: object, got: torch.Tensor) -> float:
    try:  # the reference the Lean docstring names may not fit this layer at all
        return reference(x, got)
    except (ValueError, TypeError, IndexError, KeyError, RuntimeError) as exc:
        if isinstance(exc, RuntimeError) and "memory" in str(exc).lower():
            raise
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        raise CheckFailed(
            f"{name}: its reference {ref_name} does not run on this layer's input "
            f"({type(exc).__name__}: {first})"
        ) from None


def _tensor_error(fn: Callable[[object], torch.Tensor]) -> Reference:
    def reference(x: object, got: torch.Tensor) -> float:
        want = fn(x)
        return (got - want).abs().max().item() if got.numel() else 0.0

    return reference


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
    try:
        runtime.load_leaves(ours, getattr(adapters, adapter_name)(counterpart))
    except (ValueError, TypeError, AttributeError, RuntimeError, KeyError, IndexError) as err:
        raise ShapeError(
            f"{info.name}: the weights of its counterpart {type(counterpart).__name__} do not fit the Lean "
            f"term: {_one_line(err)}"
        ) from None


def _one_line(err: BaseException) -> str:
    from pybridge.targets import _one_line as one_line

    return one_line(err)


def own_reference(spec: str) -> bool:
    """Whether a ``Reference:`` line names a module of this package (``pybridge`` or below it)."""
    return spec.partition(":")[0].split(".", 1)[0] == "pybridge"


def build_module_reference(
    spec: str, params: dict[str, int], dtype: torch.dtype, *, import_references: bool = False
) -> nn.Module:
    """The module of a ``Reference: `package.module:function``` line: the module imported with
    importlib (never a string evaluated), ``function(**params, dtype=dtype)`` called, the result in
    eval mode. Importing a module runs its code, and the line comes from a Lean file: a module outside
    ``pybridge`` is imported only with ``import_references`` (``check --import-references``), else
    :class:`UsageError` (exit 2) before anything is imported. Whatever the user's code raises
    (``SystemExit`` and ``KeyboardInterrupt`` included), or a result that is not a
    ``torch.nn.Module``, is :class:`UserCodeError` (exit 16)."""
    if not REFERENCE_SYNTAX.fullmatch(spec):
        raise BridgeError(f"Reference {spec!r}: expected package.module:function (Python identifiers)")
    module_name, _, fn_name = spec.partition(":")
    if not (import_references or own_reference(spec)):
        raise UsageError(
            f"Reference {spec}: importing {module_name!r} would run its code; check imports a module that "
            "a Lean file names outside pybridge only with --import-references"
        )
    try:
        module = importlib.import_module(module_name)
    except BaseException as err:  # noqa: BLE001 - the user's code, contained (see the docstring)
        raise UserCodeError(f"Reference {spec}: importing {module_name!r} failed: {_one_line(err)}") from None
    fn = getattr(module, fn_name, None)
    if not callable(fn):
        raise UserCodeError(f"Reference {spec}: module {module_name!r} has no function {fn_name!r}")
    try:
        built = fn(**params, dtype=dtype)
        if not isinstance(built, nn.Module):
            raise UserCodeError(
                f"Reference {spec}: {fn_name}() returned a {type(built).__name__}, not a torch.nn.Module"
            )
        return built.eval()
    except UserCodeError:
        raise
    except BaseException as err:  # noqa: BLE001 - the user's code, contained
        raise UserCodeError(f"Reference {spec}: {fn_name}(...) failed: {_one_line(err)}") from None


def load_module_reference_weights(ours: nn.Module, ref: nn.Module, spec: str, info: LayerInfo) -> None:
    """Copy the weights of a ``Reference:`` module into ``ours``: its ``bridge_pairs()`` (the
    ``(weight, bias)`` pairs in the depth-first leaf order of the Lean term) when it has one, else the
    adapter of its class."""
    if hasattr(ref, "bridge_pairs"):
        try:
            pairs = [tuple(p) for p in ref.bridge_pairs()]
        except BaseException as err:  # noqa: BLE001 - the user's code, contained
            raise UserCodeError(f"Reference {spec}: bridge_pairs() failed: {_one_line(err)}") from None
        try:
            runtime.load_leaves(ours, pairs)
        except (ValueError, TypeError, AttributeError, RuntimeError) as err:
            raise ShapeError(
                f"{info.name}: the weights of Reference {spec} do not fit the Lean term: {_one_line(err)}"
            ) from None
        return
    if type(ref).__name__ not in adapters.ADAPTERS:
        raise LeanParseError(
            info.file,
            info.line,
            f"Reference {spec} returns a {type(ref).__name__}, which has no bridge_pairs() and no weight "
            f"adapter (pybridge/torch/adapters.py has: {', '.join(sorted(adapters.ADAPTERS))})",
        )
    load_counterpart_weights(ours, ref, info)


def reference_dtypes(spec: str, module: nn.Module) -> tuple[torch.dtype, ...]:
    """The dtypes in which a ``Reference:`` module is compared: its ``bridge_dtypes`` attribute (a tuple
    of ``torch.dtype``) when it has one, for a module that is faithful in some dtypes only (one that
    computes in float32 whatever its input, such as ``transformers``' ``LlamaRMSNorm``); else all.
    ``pybridge check`` prints which dtypes a reference was compared in when they are not all."""
    try:
        declared = getattr(module, "bridge_dtypes", None)
    except BaseException as err:  # noqa: BLE001 - the user's code, contained
        raise UserCodeError(f"Reference {spec}: reading bridge_dtypes failed: {_one_line(err)}") from None
    if declared is None:
        return tuple(TOLERANCE)
    if not (
        isinstance(declared, tuple | list) and declared and all(isinstance(d, torch.dtype) for d in declared)
    ):
        raise UserCodeError(f"Reference {spec}: bridge_dtypes must be a non-empty tuple of torch dtypes")
    return tuple(declared)


def _contained(spec: str, module: nn.Module) -> Callable[[object], torch.Tensor]:
    """``module(x)`` for a ``Reference:`` module: what the user's forward raises is exit 16 (a
    ``ValueError`` of a wrong shape included: the reference was handed the layer's own input)."""

    def run(x: object) -> torch.Tensor:
        try:
            out = module(x)
        except BaseException as err:  # noqa: BLE001 - the user's code, contained
            raise UserCodeError(f"Reference {spec}: its forward failed: {_one_line(err)}") from None
        if not isinstance(out, torch.Tensor):
            raise UserCodeError(
                f"Reference {spec}: its forward returned a {type(out).__name__}, not a tensor"
            )
        return out

    return run


#: The name of the exact reference in check results.
EXACT_NAME = "exact interpreter of Arch.eval"
#: The ``realisation`` of the rows that compare the optimised and literal realisations with each other.
CROSS = "optimised vs literal"


def exact_reference(term: Term, ours: nn.Module) -> tuple[Reference, str]:
    """The exact interpreter of ``Arch.eval`` on our module's weights, one sample at a time: rational
    arithmetic (:data:`pybridge.laws.exact.EXACT`, the error computed exactly) when the term has no
    ``exp``/``sqrt``, else floats (:data:`pybridge.laws.exact.FLOAT`)."""
    from pybridge.laws import exact as E

    params = E.params_from_module(term, ours)
    chosen: list[E.ScalarOps] = []

    def reference(x: object, got: torch.Tensor) -> float:
        worst = 0.0
        # run-time dimensions (``seq``) take their sizes from this input
        bound = E.bind_dims(term, E.runtime_dims_of(signature(term).dom, x))  # type: ignore[arg-type]
        first = x[0] if isinstance(x, tuple) else x
        for i in range(first.shape[0]):  # type: ignore[union-attr]
            sample = E.sample(x, i)  # type: ignore[arg-type]
            if not chosen:
                try:
                    E.eval_term(bound, params, sample, E.EXACT)
                    chosen.append(E.EXACT)
                except NotExactError:
                    chosen.append(E.FLOAT)
            want = E.eval_term(bound, params, sample, chosen[0])
            worst = max(worst, E.max_abs_error(want, E.sample(got, i)))
        return worst

    return reference, EXACT_NAME


def _pairs(
    info: LayerInfo,
    term: Term,
    cfg: dict[str, int],
    dtype: torch.dtype,
    seed: int,
    run_dtypes: tuple[torch.dtype, ...] = DTYPES,
    import_references: bool = False,
) -> list[tuple[nn.Module, Reference, str]]:
    """For each counterpart: our compiled layer (seeded weights), the reference as a function of the
    input and our output giving the error, and the reference's name. A ``Reference:`` module compared
    in some of ``run_dtypes`` but not in ``dtype`` (its ``bridge_dtypes``) leaves ``dtype`` to the exact
    interpreter of ``Arch.eval``; one compared in none of them is left out, so that a run in which no
    reference is compared fails (:func:`check_layer`)."""
    out: list[tuple[nn.Module, Reference, str]] = []
    skipped_reference = False

    def ours() -> nn.Module:
        torch.manual_seed(seed)
        return compile_term(term, dtype=dtype).eval()

    if info.pytorch:
        layer = ours()
        counterpart = build_counterpart(info.pytorch, cfg, dtype)
        load_counterpart_weights(layer, counterpart, info)
        out.append((layer, _tensor_error(lambda x, c=counterpart: call_counterpart(c, x)), info.pytorch))
    if info.module_reference:
        layer = ours()
        spec = info.module_reference
        torch.manual_seed(seed)
        ref = build_module_reference(spec, cfg, dtype, import_references=import_references)
        compared_in = reference_dtypes(spec, ref)
        if dtype in compared_in:
            load_module_reference_weights(layer, ref, spec, info)
            out.append((layer, _tensor_error(_contained(spec, ref)), spec))
        elif set(compared_in) & set(run_dtypes):
            # faithful in another dtype only (e.g. it computes in float32 inside): this dtype is checked
            # against the exact interpreter of Arch.eval instead (below)
            skipped_reference = True
    if info.reference:
        if info.reference not in REFERENCES:
            raise BridgeError(f"{info.name}: no reference function {info.reference!r}")
        layer = ours()
        fn = REFERENCES[info.reference]
        pairs = leaf_pairs(layer)
        out.append((layer, _tensor_error(lambda x, f=fn, p=pairs: f(x, p, cfg)), info.reference))
    if not info.counterparts or (skipped_reference and not out):
        # no counterpart at all, or the only one is not compared in this dtype (``bridge_dtypes``)
        layer = ours()
        reference, name = exact_reference(term, layer)
        out.append((layer, reference, name))
    return out
