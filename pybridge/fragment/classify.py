"""Syntactic classification into the piecewise-linear fragment, node by node.

Two kinds of syntax are classified: layer terms of ``Formal.Arch`` (:func:`classify_term`, nodes named
by their path in the term tree, ``0.1.0``: child ``0`` of a composite is its first factor) and captured
graphs (:func:`classify_captured` on a :class:`pybridge.capture.Captured`; :func:`classify_module` traces
with ``torch.fx`` directly). Core ATen nodes of an exported graph follow the rules of
:mod:`pybridge.fragment.aten`; torch functions, methods and modules of an fx trace follow the tables here.

Each node gets one of four classes, ordered by how far they take a model out of the PL fragment:

* ``PL``: continuous piecewise-linear (affine maps, convolutions, ReLU, max-pooling, sums,
  concatenation, reshapes, multiplication by a constant);
* ``discontinuous-PL``: piecewise linear with jumps (arg-max routing, comparisons, rounding,
  indexing by a computed index);
* ``curved-PL`` (a verdict, never a node's class): degree at most one, but values of higher degree
  (or transcendental ones) reach the output only through piecewise-constant nodes, e.g. an arg-max
  over a bilinear score: affine on each piece, piecewise linear along every line, but the pieces are
  cut by curved surfaces (quadrics for a bilinear score), so the map is not semilinear;
* ``bilinear``: a product of two activations (``mul``, ``matmul``, ``bmm``, ``einsum`` with two
  operands that both depend on the input); the model is then polynomial, not PL;
* ``transcendental``: ``exp``, ``softmax``, ``sigmoid``, ``tanh``, square roots and divisions by
  activations (norms), GELU, ...

plus ``unknown`` for an operation that is not in the tables (it is reported, never guessed).
Alongside the class, each value carries a *degree bound*: the degree of the polynomial pieces of
the map from the input to that value (``1`` for PL, ``0`` for piecewise constant such as an
arg-max, ``None`` for not piecewise polynomial). A product is bilinear exactly when both factors
have degree at least one, so a one-hot mask times an activation stays PL, as it should.
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable, Iterable, Sequence
from enum import IntEnum
from typing import Any, Literal

import torch
import torch.fx as fx
from pydantic import BaseModel, ConfigDict
from torch import nn

from pybridge.errors import TargetError
from pybridge.spec import terms as T

# --- classes and degrees ----------------------------------------------------------------------------


class FragmentClass(IntEnum):
    """The fragment classes, ordered: the verdict of a model is the largest class of its nodes."""

    PL = 0
    DISCONTINUOUS_PL = 1
    CURVED_PL = 2
    BILINEAR = 3
    TRANSCENDENTAL = 4
    UNKNOWN = 5

    @property
    def label(self) -> str:
        """The class as written in tables and JSON (``discontinuous-PL``)."""
        return _LABELS[self]

    @classmethod
    def from_label(cls, label: str) -> FragmentClass:
        """Inverse of :attr:`label`."""
        for member, text in _LABELS.items():
            if text == label:
                return member
        raise ValueError(f"not a fragment class: {label!r}")


_LABELS = {
    FragmentClass.PL: "PL",
    FragmentClass.DISCONTINUOUS_PL: "discontinuous-PL",
    FragmentClass.CURVED_PL: "curved-PL",
    FragmentClass.BILINEAR: "bilinear",
    FragmentClass.TRANSCENDENTAL: "transcendental",
    FragmentClass.UNKNOWN: "unknown",
}

ClassLabel = Literal["PL", "discontinuous-PL", "curved-PL", "bilinear", "transcendental", "unknown"]

#: A degree bound: an int, or ``None`` for "not piecewise polynomial".
Degree = int | None


def deg_add(*ds: Degree) -> Degree:
    """Degree of a product: the sum, ``None`` if any factor is not polynomial."""
    total = 0
    for d in ds:
        if d is None:
            return None
        total += d
    return total


def deg_max(*ds: Degree) -> Degree:
    """Degree of a sum (or of a piecewise selection): the maximum, ``None`` if any is ``None``."""
    out = 0
    for d in ds:
        if d is None:
            return None
        out = max(out, d)
    return out


# --- results ----------------------------------------------------------------------------------------


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class NodeClass(_Frozen):
    """One row of the per-node table."""

    #: The term path (``0.1.0``, ``ε`` for the root) or the fx node name.
    node: str
    #: The constructor (``matmul``) or the fx operation (``call_module:Linear``, ``call_function:relu``).
    op: str
    cls: ClassLabel
    #: Degree bound of the node's output as a function of the model input (``None``: not polynomial).
    degree: int | None
    #: Why the node has its class (``product of two activations``).
    reason: str


class Verdict(_Frozen):
    """The worst class of a model, its degree bound and the nodes that take it out of PL."""

    cls: ClassLabel
    #: Degree bound of the output (``None``: not piecewise polynomial).
    degree: int | None
    #: Names of the nodes whose class is not ``PL``, in graph order.
    offending: tuple[str, ...]
    #: For ``curved-PL``: what the pieces are and what cuts them (``None`` otherwise).
    explanation: str | None = None


class Classification(_Frozen):
    """The per-node table and the verdict of a term or a traced model."""

    target: str
    #: ``arch`` (a ``Formal.Arch`` term) or ``fx`` (a traced ``torch.nn.Module``).
    source: Literal["arch", "fx", "export"]
    nodes: tuple[NodeClass, ...]
    verdict: Verdict


def _cut_text(cut: Degree) -> str:
    if cut is None:
        return ("level sets of transcendental functions: affine on each piece, but the pieces are not "
                "polyhedra, so the map is not semilinear")
    surfaces = "quadrics (degree-2 hypersurfaces)" if cut == 2 else f"degree-{cut} hypersurfaces"
    return (f"{surfaces}: affine on each piece and piecewise linear along every line (a polynomial of "
            f"degree {cut} in t changes sign finitely often), but the pieces are not polyhedra, so the "
            "map is not semilinear")


def _verdict(nodes: Sequence[NodeClass], degree: Degree, cut: Degree = 0) -> Verdict:
    """The worst class of the nodes, except that a map of degree <= 1 whose non-PL values only feed
    piecewise-constant nodes (an arg-max over a bilinear score) is ``curved-PL``: its pieces are cut by
    the level sets of values of degree ``cut`` (``None``: not polynomial)."""
    worst = max((FragmentClass.from_label(n.cls) for n in nodes), default=FragmentClass.PL)
    offending = tuple(n.node for n in nodes if n.cls != "PL")
    explanation = None
    if worst in (FragmentClass.BILINEAR, FragmentClass.TRANSCENDENTAL) and degree is not None and degree <= 1:
        # Degrees only drop below a factor's degree through piecewise-constant nodes, so every
        # non-PL value reaches the output only by choosing pieces.
        worst = FragmentClass.CURVED_PL
        explanation = "the non-PL values only choose pieces; the pieces are cut by " + _cut_text(cut)
    return Verdict(cls=worst.label, degree=degree, offending=offending,  # type: ignore[arg-type]
                   explanation=explanation)


# --- Arch terms --------------------------------------------------------------------------------------

#: Degree tree of a value of a shape: an int/None for a tensor, a pair for a product.
_DegTree = Any

_ARCH_CLASS: dict[type, tuple[FragmentClass, str]] = {
    T.Id: (FragmentClass.PL, "identity"),
    T.Copy: (FragmentClass.PL, "fan-out"),
    T.Fst: (FragmentClass.PL, "projection"),
    T.Snd: (FragmentClass.PL, "projection"),
    T.Add: (FragmentClass.PL, "sum (linear)"),
    T.Scale: (FragmentClass.PL, "multiplication by a constant (linear)"),
    T.Linear: (FragmentClass.PL, "affine map"),
    T.ReLU: (FragmentClass.PL, "rectifier (continuous PL)"),
    T.Transpose: (FragmentClass.PL, "axis permutation (linear)"),
    T.SplitLast: (FragmentClass.PL, "reshape (linear)"),
    T.MergeLast: (FragmentClass.PL, "reshape (linear)"),
    T.Mul: (FragmentClass.BILINEAR, "entrywise product of two computed tensors"),
    T.MatMul: (FragmentClass.BILINEAR, "product of a computed matrix and a computed tensor"),
    T.Sigmoid: (FragmentClass.TRANSCENDENTAL, "logistic sigmoid (exp)"),
    T.Softmax: (FragmentClass.TRANSCENDENTAL, "softmax (exp, division)"),
    T.LayerNorm: (FragmentClass.TRANSCENDENTAL, "layer norm (division by a square root)"),
    T.Route: (FragmentClass.DISCONTINUOUS_PL, "arg-max routing: the tag jumps where the arg-max changes"),
    T.Copair: (FragmentClass.PL, "dispatch on the tag (each branch continuous; the jump is the route's)"),
    T.CausalSoftmax: (FragmentClass.TRANSCENDENTAL, "causal softmax (exp, division; masked entries are 0)"),
    T.RmsNorm: (FragmentClass.TRANSCENDENTAL, "RMS norm (division by a square root)"),
    T.Rope: (FragmentClass.PL, "rotation by angles of the position only (linear in the input)"),
    T.RepeatInterleave: (FragmentClass.PL, "repeats entries (linear)"),
}


def _join(path: str, i: int) -> str:
    return f"{path}.{i}" if path else str(i)


def _leaf_degree(tree: _DegTree) -> Degree:
    if isinstance(tree, tuple):
        return deg_max(_leaf_degree(tree[0]), _leaf_degree(tree[1]))
    return tree


def _input_tree(shape: Any) -> _DegTree:
    from pybridge.spec.shapes import CoprodShape, ProdShape

    if isinstance(shape, ProdShape):
        return (_input_tree(shape.a), _input_tree(shape.b))
    if isinstance(shape, CoprodShape):
        return _input_tree(shape.a)
    return 1


def _arch(term: Any, path: str, x: _DegTree, rows: list[NodeClass]) -> _DegTree:
    """Walk ``term`` on the degree tree ``x`` of its input, append rows, return the output tree."""
    if isinstance(term, T.Comp):
        return _arch(term.g, _join(path, 1), _arch(term.f, _join(path, 0), x, rows), rows)
    if isinstance(term, T.Par):
        a = _arch(term.f, _join(path, 0), x[0], rows)
        b = _arch(term.g, _join(path, 1), x[1], rows)
        return (a, b)
    cls, reason = _ARCH_CLASS[type(term)]
    out: _DegTree
    if isinstance(term, T.Copair):
        rows.append(NodeClass(node=path or "ε", op="copair", cls=cls.label, degree=_leaf_degree(x),  # type: ignore[arg-type]
                              reason=reason))
        return _arch(term.f, _join(path, 0), x, rows)
    match term:
        case T.Copy():
            out = (x, x)
        case T.Fst():
            out = x[0]
        case T.Snd():
            out = x[1]
        case T.Add():
            out = deg_max(x[0], x[1])
        case T.Mul() | T.MatMul():
            out = deg_add(x[0], x[1])
            if x[0] == 0 or x[1] == 0:  # a piecewise-constant factor: linear in the other one
                cls, reason = FragmentClass.PL, "product with a piecewise-constant factor (linear)"
        case T.Sigmoid() | T.Softmax() | T.LayerNorm() | T.CausalSoftmax() | T.RmsNorm():
            out = None
        case T.Route():
            out = x[1]
        case _:
            out = x
    rows.append(NodeClass(node=path or "ε", op=_constructor_name(term), cls=cls.label,  # type: ignore[arg-type]
                          degree=_leaf_degree(out), reason=reason))
    return out


def _constructor_name(term: Any) -> str:
    for name, klass in T.CONSTRUCTORS.items():
        if type(term) is klass:
            return name
    return type(term).__name__  # pragma: no cover - the union is closed


def classify_term(term: Any, name: str = "term") -> Classification:
    """Classify every primitive of an ``Arch`` term, by term path, and give the verdict.

    Composites (``comp``, ``par``) are not rows of the table; their paths index their factors
    (``0`` first, ``1`` second). ``copair`` is a row and its branch is its child ``0``.
    """
    from pybridge.spec.typing import signature

    sig = signature(term)
    rows: list[NodeClass] = []
    out = _arch(term, "", _input_tree(sig.dom), rows)
    verdict = _verdict(rows, _leaf_degree(out))
    return Classification(target=name, source="arch", nodes=tuple(rows), verdict=verdict)


# --- torch.fx ----------------------------------------------------------------------------------------

_K = FragmentClass

# Leaf modules, by type: (class, reason, degree rule). Degree rules: "same" (the input's degree),
# "none" (not polynomial), "sum" (sum of the dependent inputs' degrees), "zero" (piecewise constant).
_MODULES: list[tuple[tuple[type, ...], FragmentClass, str, str]] = [
    ((nn.Linear, nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.ConvTranspose1d, nn.ConvTranspose2d,
      nn.ConvTranspose3d, nn.LazyLinear), _K.PL, "affine map", "same"),
    ((nn.ReLU, nn.ReLU6, nn.LeakyReLU, nn.Hardtanh, nn.PReLU, nn.Hardsigmoid, nn.RReLU),
     _K.PL, "piecewise-linear activation", "same"),
    ((nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d, nn.AdaptiveMaxPool1d, nn.AdaptiveMaxPool2d,
      nn.AdaptiveMaxPool3d), _K.PL, "max-pooling (continuous PL)", "same"),
    ((nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d, nn.AdaptiveAvgPool1d, nn.AdaptiveAvgPool2d,
      nn.AdaptiveAvgPool3d, nn.Identity, nn.Flatten, nn.Unflatten, nn.ZeroPad2d, nn.ConstantPad1d,
      nn.ConstantPad2d, nn.ConstantPad3d, nn.ReflectionPad1d, nn.ReflectionPad2d, nn.ReplicationPad1d,
      nn.ReplicationPad2d, nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.Dropout3d, nn.AlphaDropout,
      nn.Upsample, nn.PixelShuffle, nn.PixelUnshuffle, nn.ChannelShuffle),
     _K.PL, "linear (pooling, padding, reshaping; dropout is the identity in eval mode)", "same"),
    ((nn.Sigmoid, nn.Tanh, nn.Softmax, nn.LogSoftmax, nn.Softmin, nn.Softmax2d, nn.GELU, nn.SiLU,
      nn.ELU, nn.SELU, nn.CELU, nn.Softplus, nn.Softsign, nn.Mish, nn.Tanhshrink, nn.LogSigmoid),
     _K.TRANSCENDENTAL, "transcendental activation", "none"),
    ((nn.LayerNorm, nn.GroupNorm, nn.InstanceNorm1d, nn.InstanceNorm2d, nn.InstanceNorm3d,
      nn.LocalResponseNorm, nn.RMSNorm),
     _K.TRANSCENDENTAL, "normalisation (division by a square root)", "none"),
    ((nn.GLU,), _K.TRANSCENDENTAL, "gated linear unit (sigmoid gate times value)", "none"),
    ((nn.MultiheadAttention,), _K.TRANSCENDENTAL,
     "softmax attention (also bilinear: Q Kᵀ and weights times values)", "none"),
    ((nn.TransformerEncoderLayer, nn.TransformerDecoderLayer, nn.TransformerEncoder,
      nn.TransformerDecoder, nn.Transformer), _K.TRANSCENDENTAL,
     "transformer block (softmax attention, also bilinear; layer norms)", "none"),
    ((nn.LSTM, nn.GRU, nn.LSTMCell, nn.GRUCell), _K.TRANSCENDENTAL,
     "gated recurrence (sigmoid/tanh gates, also bilinear: gate times state)", "none"),
    ((nn.Bilinear,), _K.BILINEAR, "bilinear form x₁ᵀ A x₂", "sum"),
    ((nn.Hardswish,), _K.BILINEAR, "hard swish x·relu6(x+3)/6 (piecewise quadratic)", "double"),
    ((nn.Threshold, nn.Hardshrink, nn.Softshrink), _K.DISCONTINUOUS_PL, "thresholding", "same"),
    ((nn.Embedding, nn.EmbeddingBag), _K.DISCONTINUOUS_PL, "lookup by a data-dependent index", "zero"),
]

# Functions and methods, by name: (class, reason, degree rule). Rules as above, plus "mul" (a product:
# bilinear iff two factors have degree >= 1) and "div" (division: linear by a constant, else not
# polynomial), "pow" (integer power: polynomial), "index" (PL unless an index is computed).
_STRUCT = (
    "reshape view flatten unflatten permute transpose t contiguous squeeze unsqueeze expand expand_as "
    "repeat cat concat concatenate stack hstack vstack split chunk narrow select clone to type_as float "
    "double half pad roll flip fliplr flipud movedim moveaxis swapaxes swapdims unbind tensor_split "
    "view_as reshape_as broadcast_to tile detach dropout alpha_dropout feature_alpha_dropout dropout1d "
    "dropout2d dropout3d identity squeeze_ unsqueeze_ diag_embed block_diag pixel_shuffle pixel_unshuffle "
    "channel_shuffle zero_pad2d unfold fold repeat_interleave"
)
_LINEAR = (
    "add sub neg pos sum mean nansum cumsum diff linear conv1d conv2d conv3d conv_transpose1d "
    "conv_transpose2d conv_transpose3d avg_pool1d avg_pool2d avg_pool3d adaptive_avg_pool1d "
    "adaptive_avg_pool2d adaptive_avg_pool3d trace diagonal tril triu interpolate upsample add_ sub_ "
    "iadd isub rsub addcmul_const lerp_const"
)
_PLNL = (
    "relu relu_ relu6 leaky_relu leaky_relu_ hardtanh hardtanh_ clamp clip clamp_min clamp_max abs absolute "
    "maximum minimum fmax fmin amax amin max_pool1d max_pool2d max_pool3d adaptive_max_pool1d "
    "adaptive_max_pool2d adaptive_max_pool3d max_pool1d_with_indices max_pool2d_with_indices prelu "
    "hardsigmoid sort msort median nanmedian quantile kthvalue cummax cummin topk max min mode rrelu"
)
_DISC = (
    "argmax argmin argsort sign sgn signbit heaviside floor ceil round trunc fix frac gt lt ge le eq ne "
    "greater less greater_equal less_equal not_equal logical_and logical_or logical_not logical_xor "
    "one_hot nonzero bucketize searchsorted remainder fmod floor_divide bool long int short byte "
    "threshold hardshrink softshrink isclose unique"
)
_GATHER = (
    "gather index_select take take_along_dim scatter scatter_add masked_select index_put where masked_fill"
)
_BILIN = (
    "mul mul_ multiply matmul mm bmm einsum baddbmm addmm addbmm outer ger dot vdot inner bilinear kron "
    "tensordot"
)
_TRANS = (
    "exp exp2 expm1 log log1p log2 log10 sigmoid sigmoid_ tanh tanh_ softmax log_softmax softmin gelu silu "
    "mish elu selu celu softplus softsign sqrt rsqrt reciprocal norm layer_norm group_norm instance_norm "
    "rms_norm normalize local_response_norm sin cos tan asin acos atan atan2 sinh cosh asinh acosh atanh "
    "erf erfc erfinv logit logsigmoid scaled_dot_product_attention logsumexp var std var_mean std_mean "
    "cosine_similarity pairwise_distance cdist dist glu tanhshrink lgamma digamma vector_norm "
    "matrix_norm frobenius_norm nuclear_norm"
)
_STATIC = "size dim numel shape ndim dtype device type is_contiguous stride element_size"


def _names(text: str) -> set[str]:
    return set(text.split())


_STRUCT_N, _LINEAR_N, _PLNL_N, _DISC_N = _names(_STRUCT), _names(_LINEAR), _names(_PLNL), _names(_DISC)
_GATHER_N, _BILIN_N, _TRANS_N, _STATIC_N = _names(_GATHER), _names(_BILIN), _names(_TRANS), _names(_STATIC)
#: Multi-output reductions whose second output (``[1]``, ``.indices``) is an index.
_INDEXED = {"max_pool3d_with_indices",
            "topk", "sort", "max", "min", "kthvalue", "mode", "median", "nanmedian", "cummax", "cummin",
            "max_pool1d_with_indices", "max_pool2d_with_indices"}

_OPERATORS: dict[Callable[..., Any], str] = {
    operator.add: "add", operator.iadd: "add", operator.sub: "sub", operator.isub: "sub",
    operator.neg: "neg", operator.pos: "pos", operator.mul: "mul", operator.imul: "mul",
    operator.matmul: "matmul", operator.truediv: "truediv", operator.itruediv: "truediv",
    operator.floordiv: "floor_divide", operator.mod: "remainder", operator.pow: "pow",
    operator.getitem: "getitem", operator.gt: "gt", operator.lt: "lt", operator.ge: "ge",
    operator.le: "le", operator.eq: "eq", operator.ne: "ne", operator.abs: "abs", getattr: "getattr",
    len: "len", operator.and_: "logical_and", operator.or_: "logical_or", operator.invert: "logical_not",
}


def _target_name(node: fx.Node) -> str:
    if node.op == "call_method":
        return str(node.target)
    target = node.target
    if target in _OPERATORS:
        return _OPERATORS[target]  # type: ignore[index]
    name = getattr(target, "__name__", str(target))
    return name


def _flat_nodes(args: Iterable[Any]) -> list[fx.Node]:
    out: list[fx.Node] = []

    def visit(a: Any) -> None:
        if isinstance(a, fx.Node):
            out.append(a)
        elif isinstance(a, list | tuple):
            for b in a:
                visit(b)
        elif isinstance(a, dict):
            for b in a.values():
                visit(b)
        elif isinstance(a, slice):
            visit((a.start, a.stop, a.step))

    visit(args)
    return out


class _Tracer(fx.Tracer):
    """fx tracer that keeps the modules of the type table (and all of ``torch.nn``) as leaves."""

    def is_leaf_module(self, m: nn.Module, module_qualified_name: str) -> bool:
        if any(isinstance(m, types) for types, *_ in _MODULES):
            return True
        return super().is_leaf_module(m, module_qualified_name)


class _Wrapped(nn.Module):
    """A root that calls a built-in ``torch.nn`` module, so that the module becomes one leaf node."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model


def _wrap(model: nn.Module, n_inputs: int) -> nn.Module:
    """``_Wrapped(model)`` with a ``forward`` of exactly ``n_inputs`` arguments (fx needs the arity)."""
    names = ", ".join(f"x{i}" for i in range(n_inputs))
    namespace: dict[str, Any] = {}
    exec(f"def forward(self, {names}):\n    return self.model({names})\n", namespace)  # noqa: S102
    cls = type("_Wrapped", (_Wrapped,), {"forward": namespace["forward"]})
    return cls(model)


def _is_builtin_leaf(m: nn.Module) -> bool:
    containers = (nn.Sequential, nn.ModuleList, nn.ModuleDict)
    return type(m).__module__.startswith("torch.nn") and not isinstance(m, containers)


def trace(module: nn.Module, n_inputs: int, name: str = "model") -> fx.GraphModule:
    """Trace ``module`` with ``torch.fx``, its first ``n_inputs`` positional arguments symbolic.

    Further arguments that have defaults are fixed to them (masks default to ``None``). A built-in
    ``torch.nn`` module (``nn.LSTM``, ``nn.TransformerEncoderLayer``) becomes one leaf node. Raises
    :class:`TargetError` with a one-line message when fx cannot trace the model.
    """
    root = _wrap(module, n_inputs) if _is_builtin_leaf(module) else module
    concrete: dict[str, Any] = {}
    if root is module:
        try:
            params = list(inspect.signature(module.forward).parameters.values())
        except (TypeError, ValueError):
            params = []
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        for p in positional[n_inputs:]:
            if p.default is not inspect.Parameter.empty:
                concrete[p.name] = p.default
    tracer = _Tracer()
    try:
        graph = tracer.trace(root, concrete_args=concrete or None)
    except Exception as err:  # fx raises many kinds; each becomes one line naming the model
        first = str(err).strip().splitlines()[0].split(". ")[0] if str(err).strip() else ""
        raise TargetError(
            f"{name}: torch.fx cannot trace this model ({type(err).__name__}: {first}); "
            "data-dependent Python control flow is the usual cause"
        ) from None
    return fx.GraphModule(tracer.root, graph)


def _module_rule(m: nn.Module) -> tuple[FragmentClass, str, str]:
    if isinstance(m, nn.RNN):
        if m.nonlinearity == "relu":
            return _K.PL, "Elman recurrence with ReLU (PL)", "same"
        return _K.TRANSCENDENTAL, "Elman recurrence with tanh", "none"
    if isinstance(m, nn.RNNCell):
        if m.nonlinearity == "relu":
            return _K.PL, "Elman cell with ReLU (PL)", "same"
        return _K.TRANSCENDENTAL, "Elman cell with tanh", "none"
    if isinstance(m, nn.modules.batchnorm._BatchNorm):
        if m.training or not m.track_running_stats:
            return _K.TRANSCENDENTAL, "batch norm with batch statistics (division by a square root)", "none"
        return _K.PL, "batch norm in eval mode (a fixed affine map)", "same"
    for types, cls, reason, rule in _MODULES:
        if isinstance(m, types):
            return cls, reason, rule
    return _K.UNKNOWN, f"module type {type(m).__name__} is not in the table", "none"


def _is_int_literal(a: Any) -> bool:
    return isinstance(a, int) and not isinstance(a, bool)


def _div_row(node: fx.Node, args: list[Any], ds: list[Degree], deg: dict[fx.Node, Degree],
             dep: dict[fx.Node, bool], label: str) -> tuple[FragmentClass, str, Degree, str]:
    """A division (the same rule for the fx tables and the core ATen ``div``)."""
    denom = args[1] if len(args) > 1 else node.kwargs.get("other")
    if isinstance(denom, fx.Node) and dep[denom]:
        if deg[denom] == 0:
            return _K.PL, "division by a piecewise-constant value", deg_max(*ds), label
        return _K.TRANSCENDENTAL, "division by an activation (rational, not polynomial)", None, label
    return _K.PL, "division by a constant (linear)", deg_max(*ds), label


def _pow_row(base: Any, expo: Any, deg: dict[fx.Node, Degree], dep: dict[fx.Node, bool],
             label: str) -> tuple[FragmentClass, str, Degree, str]:
    """``base ** expo`` (the same rule for the fx tables and the core ATen ``pow``)."""
    if isinstance(expo, fx.Node) and dep[expo]:
        return _K.TRANSCENDENTAL, "power with a computed exponent", None, label
    if isinstance(base, fx.Node) and dep[base]:
        if isinstance(expo, float) and expo.is_integer():
            expo = int(expo)
        if _is_int_literal(expo) and expo >= 0:
            if expo <= 1:
                return _K.PL, f"power {expo}", deg[base] if expo else 0, label
            power = deg_add(*([deg[base]] * expo))
            return _K.BILINEAR, f"integer power {expo} (polynomial)", power, label
        return _K.TRANSCENDENTAL, f"non-integer power {expo}", None, label
    return _K.PL, "power of a constant", 0, label


def _fx_row(node: fx.Node, gm: fx.GraphModule, deg: dict[fx.Node, Degree], dep: dict[fx.Node, bool],
            producer_name: dict[fx.Node, str]) -> tuple[FragmentClass, str, Degree, str]:
    """Class, reason, degree and op label of one dependent call node."""
    dargs = [a for a in _flat_nodes((node.args, node.kwargs)) if dep[a]]
    ds = [deg[a] for a in dargs]
    if node.op == "call_module":
        sub = gm.get_submodule(str(node.target))
        cls, reason, rule = _module_rule(sub)
        label = f"call_module:{type(sub).__name__}"
        if rule == "same":
            d: Degree = deg_max(*ds)
        elif rule == "sum":
            d = deg_add(*ds)
            if sum(1 for x in ds if x != 0) < 2:
                cls, reason = _K.PL, "bilinear form with one constant argument (linear)"
        elif rule == "double":
            d = deg_add(*ds, *ds)
        elif rule == "zero":
            d = 0
        else:
            d = None
        return cls, reason, d, label

    name = _target_name(node)
    label = f"{node.op}:{name}"
    args = list(node.args)
    if name == "getitem":
        src = args[0] if args else None
        index_nodes = [a for a in _flat_nodes(args[1:]) if dep[a]]
        if index_nodes:
            return _K.DISCONTINUOUS_PL, "indexing by a computed index", deg_max(*(deg[a] for a in dargs
                                                                                   if a is src)), label
        if isinstance(src, fx.Node) and producer_name.get(src) in _INDEXED and args[1] == 1:
            reason = f"the indices of {producer_name[src]} (piecewise constant, jumps)"
            return _K.DISCONTINUOUS_PL, reason, 0, label
        return _K.PL, "selection (structural)", deg_max(*ds), label
    if name == "getattr":
        attr = args[1] if len(args) > 1 else None
        src = args[0]
        if attr == "indices":
            return _K.DISCONTINUOUS_PL, "indices (piecewise constant, jumps)", 0, label
        return _K.PL, f"attribute {attr}", deg[src] if isinstance(src, fx.Node) else 0, label
    if name in _STRUCT_N:
        return _K.PL, "structural (reshape, concatenation, ...)", deg_max(*ds), label
    if name in _LINEAR_N:
        if name == "linear" and len(dargs) >= 2 and sum(1 for x in ds if x != 0) >= 2:
            return _K.BILINEAR, "linear map with a computed weight", deg_add(*ds), label
        return _K.PL, "linear or affine", deg_max(*ds), label
    if name in _PLNL_N:
        if name in ("clamp", "clip") and len(dargs) > 1:
            return _K.PL, "clamp between computed bounds (max/min, PL)", deg_max(*ds), label
        return _K.PL, "piecewise-linear nonlinearity", deg_max(*ds), label
    if name in _DISC_N:
        return _K.DISCONTINUOUS_PL, "piecewise constant in the input (jumps)", 0, label
    if name in _GATHER_N:
        if name in ("where", "masked_fill"):
            cond = args[0] if name == "where" else (args[1] if len(args) > 1 else node.kwargs.get("mask"))
            vals = [a for a in dargs if a is not cond]
            if isinstance(cond, fx.Node) and dep[cond]:
                return _K.DISCONTINUOUS_PL, "selection by a computed condition", deg_max(
                    *(deg[a] for a in vals)), label
            return _K.PL, "selection by a constant mask", deg_max(*(deg[a] for a in vals)), label
        return _K.DISCONTINUOUS_PL, "gather/scatter by a computed index", deg_max(*ds), label
    if name in _BILIN_N:
        active = [x for x in ds if x != 0]
        if len(active) >= 2:
            return _K.BILINEAR, "product of two activations", deg_add(*ds), label
        if len(dargs) >= 2:
            return _K.PL, "product with a piecewise-constant factor (linear)", deg_add(*ds), label
        return _K.PL, "product with a constant (linear)", deg_add(*ds), label
    if name in ("truediv", "div", "divide", "true_divide", "div_"):
        return _div_row(node, args, ds, deg, dep, label)
    if name in ("pow", "square", "float_power"):
        base, expo = (args + [None, None])[:2]
        return _pow_row(base, 2 if name == "square" else expo, deg, dep, label)
    if name in _TRANS_N:
        return _K.TRANSCENDENTAL, "transcendental or rational function", None, label
    return _K.UNKNOWN, f"{name} is not in the table", None, label


_CREATE = (
    "zeros zeros_like ones ones_like full full_like empty empty_like new_zeros new_ones new_full new_empty "
    "new_tensor arange linspace eye rand rand_like randn randn_like randint randint_like tensor as_tensor"
)
_CREATE_N = _names(_CREATE)


def _aten_packet(node: fx.Node) -> str | None:
    """The overload packet name (``addmm``) of an ATen op node, ``None`` for any other node."""
    target = node.target
    if node.op == "call_function" and isinstance(target, torch._ops.OpOverload):
        if target.namespace == "aten":
            return target._opname
    return None


def _custom_op(node: fx.Node) -> str | None:
    """``namespace::name`` of a non-ATen operator (a custom op, a higher-order op)."""
    target = node.target
    if node.op != "call_function":
        return None
    if isinstance(target, torch._ops.OpOverload) and target.namespace != "aten":
        return f"{target.namespace}::{target._opname}"
    if isinstance(target, torch._ops.HigherOrderOperator):
        return f"higher_order::{target.name()}"
    return None


def _aten_kind(node: fx.Node) -> str | None:
    packet = _aten_packet(node)
    if packet is None:
        return None
    from pybridge.fragment.aten import rule

    r = rule(packet)
    return None if r is None else r[0]


def _aten_row(node: fx.Node, packet: str, deg: dict[fx.Node, Degree], dep: dict[fx.Node, bool]
              ) -> tuple[FragmentClass, str, Degree, str]:
    """Class, reason, degree and op label of one dependent core ATen node (see :mod:`.aten`)."""
    from pybridge.fragment.aten import INDEX_ARGUMENT, rule

    label = f"aten.{packet}"
    found = rule(packet)
    args = list(node.args)
    dargs = [a for a in _flat_nodes((node.args, node.kwargs)) if dep[a]]
    ds = [deg[a] for a in dargs]
    if found is None:
        return _K.UNKNOWN, f"aten.{packet} is not a core ATen op and has no rule", None, label
    kind, reason = found
    if kind == "linear":
        if packet == "fill" and args:  # fill(self, value): the value's degree
            vals = [a for a in _flat_nodes(args[1:]) if dep[a]]
            return _K.PL, reason, deg_max(*(deg[a] for a in vals)), label
        return _K.PL, reason, deg_max(*ds), label
    if kind == "pl":
        return _K.PL, reason, deg_max(*ds), label
    if kind == "step":
        return _K.DISCONTINUOUS_PL, reason, 0, label
    if kind == "jump":
        return _K.DISCONTINUOUS_PL, reason, deg_max(*ds), label
    if kind == "index":
        pos = INDEX_ARGUMENT.get(packet, 1)
        index = _flat_nodes(args[pos : pos + 1]) if len(args) > pos else []
        index_dep = [a for a in index if dep[a]]
        values = [a for a in dargs if a not in index]
        d = deg_max(*(deg[a] for a in values))
        if packet == "scatter_reduce" and len(args) > 4 and args[4] == "prod" and len(values) >= 1:
            reason = "product reduction by scatter (a polynomial of data-dependent degree)"
            return _K.BILINEAR, reason, None, label
        if index_dep:
            return _K.DISCONTINUOUS_PL, "indexing by a computed index", d, label
        return _K.PL, reason + " by a constant index (structural)", d, label
    if kind == "where":
        cond = args[0] if args else None
        vals = [a for a in dargs if a is not cond]
        d = deg_max(*(deg[a] for a in vals))
        if isinstance(cond, fx.Node) and dep[cond]:
            return _K.DISCONTINUOUS_PL, "selection by a computed condition", d, label
        return _K.PL, "selection by a constant mask", d, label
    if kind == "product":
        if packet == "addmm":  # bias + a @ b
            factors = [a for a in _flat_nodes(args[1:3]) if dep[a]]
            rest = [a for a in _flat_nodes(args[:1]) if dep[a]]
        elif packet in ("convolution",):  # input * weight + bias
            factors = [a for a in _flat_nodes(args[:2]) if dep[a]]
            rest = [a for a in _flat_nodes(args[2:3]) if dep[a]]
        else:
            factors, rest = dargs, []
        fd = [deg[a] for a in factors]
        d = deg_max(deg_add(*fd), *(deg[a] for a in rest))
        active = [x for x in fd if x != 0]
        if len(active) >= 2:
            return _K.BILINEAR, "product of two activations", d, label
        if len(factors) >= 2:
            return _K.PL, "product with a piecewise-constant factor (linear)", d, label
        return _K.PL, "product with a constant (linear)", d, label
    if kind == "div":
        return _div_row(node, args, ds, deg, dep, label)
    if kind == "pow":
        base, expo = (args + [None, None])[:2]
        return _pow_row(base, expo, deg, dep, label)
    if kind == "square":
        return _K.BILINEAR, reason, deg_add(*ds, *ds), label
    if kind == "prod":
        src = args[0] if args else None
        val = src.meta.get("val") if isinstance(src, fx.Node) else None
        n: int | None = None
        if isinstance(val, torch.Tensor):
            dims = args[1] if len(args) > 1 and isinstance(args[1], int) else None
            n = int(val.numel()) if dims is None else int(val.shape[dims])
        if n is None or n <= 1:
            return (_K.PL, "product of one entry", deg_max(*ds), label) if n == 1 else (
                _K.BILINEAR, reason + " of an unknown number of factors", None, label)
        return _K.BILINEAR, f"{reason}: {n} factors", deg_add(*([deg_max(*ds)] * n)), label
    if kind == "transcendental":
        return _K.TRANSCENDENTAL, reason, None, label
    return _K.PL, reason, 0, label  # create / static never reach here (they do not depend on the input)


def _is_floating_placeholder(node: fx.Node, example: torch.Tensor | None) -> bool:
    val = node.meta.get("val", example)
    if isinstance(val, torch.Tensor):
        return bool(val.is_floating_point() or val.is_complex())
    return val is None  # fx placeholders without an example: treated as floating inputs


def classify_graph(gm: fx.GraphModule, name: str = "model", inputs: Sequence[Any] | None = None,
                   source: Literal["fx", "export"] = "fx") -> Classification:
    """Classify every node of a captured model that depends on a floating input, and give the verdict.

    ``call_function`` nodes that are ATen ops follow :mod:`pybridge.fragment.aten`; other nodes (torch
    functions, methods and modules of an fx trace) the fx tables. Integer inputs (token ids, masks; known
    from ``inputs`` or the placeholders' recorded values) are held fixed: they are constants here.
    """
    dep: dict[fx.Node, bool] = {}
    deg: dict[fx.Node, Degree] = {}
    producer: dict[fx.Node, str] = {}
    rows: list[NodeClass] = []
    out_degree: Degree = 0
    cut: Degree = 0
    examples = list(inputs) if inputs is not None else []
    n_placeholder = 0
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            example = examples[n_placeholder] if n_placeholder < len(examples) else None
            n_placeholder += 1
            floating = _is_floating_placeholder(node, example)
            dep[node], deg[node] = floating, 1 if floating else 0
            continue
        if node.op == "get_attr":
            dep[node], deg[node] = False, 0
            continue
        if node.op == "output":
            outs = [a for a in _flat_nodes(node.args) if dep[a]]
            out_degree = deg_max(*(deg[a] for a in outs))
            continue
        inputs_ = _flat_nodes((node.args, node.kwargs))
        packet = _aten_packet(node)
        if packet is not None:
            static = _aten_kind(node) in ("create", "static")
        else:
            tname = _target_name(node) if node.op in ("call_method", "call_function") else ""
            static = node.op in ("call_method", "call_function") and (
                tname in _STATIC_N or tname in _CREATE_N
                or (tname == "getattr" and len(node.args) > 1 and node.args[1] in _STATIC_N)
            )
        dep[node] = (not static) and any(dep[a] for a in inputs_)
        if node.op in ("call_function", "call_method"):
            producer[node] = packet if packet is not None else _target_name(node)
        if not dep[node]:
            deg[node] = 0
            continue
        custom = _custom_op(node)
        if packet is not None:
            cls, reason, d, label = _aten_row(node, packet, deg, dep)
        elif custom is not None:
            cls, reason, d, label = (_K.UNKNOWN, f"custom op {custom}: not core ATen, no rule", None,
                                     f"custom:{custom}")
        else:
            cls, reason, d, label = _fx_row(node, gm, deg, dep, producer)
        if cls == _K.DISCONTINUOUS_PL and d == 0:  # a piecewise-constant node: its arguments cut pieces
            cut = deg_max(cut, *(deg[a] for a in inputs_ if dep[a]))
        deg[node] = d
        rows.append(NodeClass(node=node.name, op=label, cls=cls.label, degree=d, reason=reason))  # type: ignore[arg-type]
    return Classification(target=name, source=source, nodes=tuple(rows),
                          verdict=_verdict(rows, out_degree, cut))


def classify_captured(cap: Any, inputs: Sequence[Any] | None = None, name: str = "model") -> Classification:
    """Classify a :class:`pybridge.capture.Captured` graph (core ATen for export, fx tables for fx)."""
    source: Literal["fx", "export"] = "export" if cap.method == "torch.export" else "fx"
    return classify_graph(cap.gm, name, inputs, source)


def classify_module(module: nn.Module, inputs: Sequence[torch.Tensor] | int = 1,
                    name: str = "model") -> Classification:
    """Trace ``module`` with ``torch.fx`` and classify it node by node (see :func:`trace`).

    ``inputs`` is the example input tuple (only its length is used) or the number of inputs.
    """
    n = inputs if isinstance(inputs, int) else len(inputs)
    return classify_graph(trace(module, n, name), name)


def format_degree(d: Degree) -> str:
    """``3``, or ``∞`` for not piecewise polynomial."""
    return "∞" if d is None else str(d)


__all__ = [
    "Classification",
    "FragmentClass",
    "NodeClass",
    "Verdict",
    "classify_captured",
    "classify_graph",
    "classify_module",
    "classify_term",
    "deg_add",
    "deg_max",
    "format_degree",
    "trace",
]
