"""An interpreter of ``Formal.Arch.eval`` written from the Lean definitions: the exact reference.

This module transcribes ``Arch.eval`` (``Formal/Network/Arch.lean``) and the combinators and kernels
it calls (``Formal/Network/Tensor.lean``, ``Formal/Network/Scalar.lean``) clause by clause, with the
same recursion structure, so that the PyTorch realisation (:mod:`pybridge.torch`) can be compared
with the Lean semantics itself rather than with another PyTorch program:

* a tensor of shape ``[n₁, …, n_k]`` (Lean: ``Fin n₁ → … → Fin n_k → α``) is a nested Python list;
  a scalar (the empty shape) is a bare scalar; a value of ``Shape.prod`` is a pair (tuple), a value
  of ``Shape.coprod k s`` is a pair ``(tag, value)`` with an ``int`` tag in ``range(k)``;
* one sample at a time: there is no batch axis (the PyTorch modules carry a leading one);
* ``Tensor.map``/``zipWith``/``mapPre``/``zipPre``/``lincomb`` recurse on the shape exactly as in Lean
  (``mapPre`` over the leading axes ``pre``, ``lincomb`` down to the scalars, then ``Scalar.sum``);
* ``Scalar.sum`` is the left fold starting from ``zero``: ``((0 + f 0) + f 1) + … + f (n-1)``;
* ``Scalar.relu x = if 0 < x then x else 0`` (strict order), ``Scalar.sub a b = a + (-b)``,
  ``Scalar.ofInt`` goes through ``ofNat`` and negation, ``Const.denote (rat num den)`` is
  ``ofInt num * inv (ofNat den)`` and ``Const.denote (invSqrt n)`` is ``inv (sqrt (ofNat n))``;
* ``Kernel.argmax`` is ``Kernel.scanMax`` from index ``0``, scanning ``0, 1, …, k-1`` and moving only on
  a strict ``<`` (so ties go to the first index); ``Kernel.splitAxis`` reads entry ``i * b + j``
  (row-major) and ``Kernel.mergeAxis`` entry ``(c / b, c % b)``; ``Kernel.layerNorm`` uses the biased
  variance (``* inv n``) with ``eps`` inside the square root;
* ``Kernel.causalSoftmax`` sums, for row ``i``, ``if j ≤ i then exp (v i j) else 0`` over all ``j < n``
  (``Scalar.sum``) and gives ``0`` at ``j > i``; ``Kernel.rmsNorm`` takes the mean square
  ``Scalar.sum n (v j * v j) * inv (ofNat n)`` and returns ``v i * inv (sqrt (ms + eps)) * γ i``.

Parameters have the nesting of Lean's ``Arch.Params``: ``comp``/``par`` → a pair ``(p_f, p_g)``,
``linear`` → ``(W, b)`` with ``W`` a list of ``n`` rows of length ``m`` (``[out, in]``, as
``nn.Linear.weight``), ``layerNorm`` → ``(γ, β)``, ``rmsNorm`` → ``γ`` alone (Lean's ``Tensor α [n]``),
``copair k f`` → a list of ``k`` parameter sets of ``f``, every other constructor → ``None`` (Lean's
``PUnit``). :func:`params_from_module` reads them
off a compiled module.

**Scalars are pluggable.** Lean's semantics is over an abstract ``[Scalar α] [Transcendental α]``;
here the scalar operations are an object satisfying the :class:`ScalarOps` protocol:

* :data:`EXACT` (:class:`ExactOps`) is core Lean's ``Rat`` instance: :class:`fractions.Fraction`
  arithmetic with ``inv 0 = 0``. It is exact, so a PyTorch float64 output on data whose arithmetic is
  exact in float64 (small dyadic rationals through the piecewise-linear and bilinear layers: ``mlp``,
  ``hyperLinear``, ``moe``) must equal it *exactly*. ``exp`` and ``sqrt`` have no rational values:
  this instance raises :class:`NotExactError` on them (softmax, sigmoid, layer norm, ``invSqrt``).
  Likewise ``log``, ``sin`` and ``cos`` (the rotary embedding ``rope``).
* :data:`FLOAT` (:class:`FloatOps`) realises the scalars as Python floats (IEEE double), with
  ``math.exp``/``math.sqrt`` (and ``math.log``/``math.sin``/``math.cos``) and ``inv 0 = 0``; inputs and
  parameters given as ``Fraction`` are
  converted to float on entry. Its results differ from PyTorch's float64 only by rounding (another
  summation order, PyTorch's max-subtraction in softmax), which is what the transcendental layers are
  checked for.

The interpreter is deliberately naive (``O(n)`` Python calls per scalar, recursion as deep as the
longest axis): it is a reference for small dimensions, not a runtime.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from numbers import Rational
from typing import Any, Protocol

import torch

from pybridge.errors import NotExactError, ShapeError
from pybridge.spec import terms as T
from pybridge.spec.shapes import CoprodShape, Dim, ProdShape, Shape, TensorShape
from pybridge.spec.typing import check
from pybridge.torch import runtime

#: A tensor value: a scalar, or a (nested) list of them.
Value = Any
#: A parameter set, nested as Lean's ``Arch.Params``.
Params = Any


# --- scalars (``Formal.Scalar``, ``Formal.Transcendental``) ---------------------------------------


class ScalarOps(Protocol):
    """The operations of Lean's ``Scalar α`` and ``Transcendental α`` classes, plus ``of``.

    ``of`` injects a Python number (``int``, ``float``, ``Fraction``) into the scalar type; it is how
    inputs and parameters enter, and has no Lean counterpart (Lean values are already in ``α``).
    """

    name: str
    zero: Any
    one: Any

    def of(self, v: int | float | Fraction) -> Any:
        """A Python number as a scalar."""
        ...

    def add(self, a: Any, b: Any) -> Any:
        """``a + b``."""
        ...

    def mul(self, a: Any, b: Any) -> Any:
        """``a * b``."""
        ...

    def neg(self, a: Any) -> Any:
        """``-a``."""
        ...

    def inv(self, a: Any) -> Any:
        """``a⁻¹``, with ``0⁻¹ = 0``."""
        ...

    def of_nat(self, n: int) -> Any:
        """``Scalar.ofNat n``."""
        ...

    def lt(self, a: Any, b: Any) -> bool:
        """The decidable strict order ``a < b``."""
        ...

    def exp(self, a: Any) -> Any:
        """``Transcendental.exp``."""
        ...

    def sqrt(self, a: Any) -> Any:
        """``Transcendental.sqrt``."""
        ...

    def log(self, a: Any) -> Any:
        """``Transcendental.log``."""
        ...

    def sin(self, a: Any) -> Any:
        """``Transcendental.sin``."""
        ...

    def cos(self, a: Any) -> Any:
        """``Transcendental.cos``."""
        ...


class ExactOps:
    """Core Lean's ``Rat`` instance of ``Scalar``: exact :class:`~fractions.Fraction` arithmetic.

    ``exp`` and ``sqrt`` raise :class:`NotExactError`: no transcendental value is rational in general,
    and this instance never rounds.
    """

    name = "exact"
    zero = Fraction(0)
    one = Fraction(1)

    def of(self, v: int | float | Fraction) -> Fraction:
        """``Fraction(v)``: exact for ints, fractions and floats (a float is a dyadic rational)."""
        if isinstance(v, bool) or not isinstance(v, int | float | Rational):
            raise TypeError(f"expected a number, got {type(v).__name__}")
        return Fraction(v)

    def add(self, a: Fraction, b: Fraction) -> Fraction:
        """``a + b``."""
        return a + b

    def mul(self, a: Fraction, b: Fraction) -> Fraction:
        """``a * b``."""
        return a * b

    def neg(self, a: Fraction) -> Fraction:
        """``-a``."""
        return -a

    def inv(self, a: Fraction) -> Fraction:
        """``Rat.inv``: ``1 / a``, and ``0`` for ``a = 0``."""
        return Fraction(0) if a == 0 else 1 / a

    def of_nat(self, n: int) -> Fraction:
        """``(n : Rat)``."""
        return Fraction(n)

    def lt(self, a: Fraction, b: Fraction) -> bool:
        """``a < b``."""
        return a < b

    def exp(self, a: Fraction) -> Fraction:
        """Not exact: raises :class:`NotExactError`."""
        raise NotExactError(
            f"exp({a}) has no exact rational value: evaluate softmax/sigmoid with the float scalars (FLOAT)"
        )

    def sqrt(self, a: Fraction) -> Fraction:
        """Not exact: raises :class:`NotExactError`."""
        raise NotExactError(
            f"sqrt({a}) has no exact rational value: evaluate layer norm and invSqrt with the float "
            "scalars (FLOAT)"
        )

    def log(self, a: Fraction) -> Fraction:
        """Not exact: raises :class:`NotExactError`."""
        raise NotExactError(
            f"log({a}) has no exact rational value: evaluate rotary embeddings with the float scalars (FLOAT)"
        )

    def sin(self, a: Fraction) -> Fraction:
        """Not exact: raises :class:`NotExactError`."""
        raise NotExactError(
            f"sin({a}) has no exact rational value: evaluate rotary embeddings with the float scalars (FLOAT)"
        )

    def cos(self, a: Fraction) -> Fraction:
        """Not exact: raises :class:`NotExactError`."""
        raise NotExactError(
            f"cos({a}) has no exact rational value: evaluate rotary embeddings with the float scalars (FLOAT)"
        )


class FloatOps:
    """Python floats (IEEE double) with ``math.exp``/``math.sqrt`` and the field convention ``0⁻¹ = 0``."""

    name = "float"
    zero = 0.0
    one = 1.0

    def of(self, v: int | float | Fraction) -> float:
        """``float(v)`` (a ``Fraction`` is rounded to the nearest double)."""
        if isinstance(v, bool) or not isinstance(v, int | float | Rational):
            raise TypeError(f"expected a number, got {type(v).__name__}")
        return float(v)

    def add(self, a: float, b: float) -> float:
        """``a + b``."""
        return a + b

    def mul(self, a: float, b: float) -> float:
        """``a * b``."""
        return a * b

    def neg(self, a: float) -> float:
        """``-a``."""
        return -a

    def inv(self, a: float) -> float:
        """``1 / a``, and ``0`` for ``a = 0`` (as Lean's ``Rat.inv``)."""
        return 0.0 if a == 0 else 1.0 / a

    def of_nat(self, n: int) -> float:
        """``float(n)``."""
        return float(n)

    def lt(self, a: float, b: float) -> bool:
        """``a < b``."""
        return a < b

    def exp(self, a: float) -> float:
        """``math.exp``."""
        return math.exp(a)

    def sqrt(self, a: float) -> float:
        """``math.sqrt``."""
        return math.sqrt(a)

    def log(self, a: float) -> float:
        """``math.log`` for ``a > 0``; ``-inf`` at ``0`` and ``nan`` below, as ``torch.log``."""
        if a > 0:
            return math.log(a)
        return -math.inf if a == 0 else math.nan

    def sin(self, a: float) -> float:
        """``math.sin``."""
        return math.sin(a)

    def cos(self, a: float) -> float:
        """``math.cos``."""
        return math.cos(a)


#: The exact rational scalars (Lean's ``Rat``); no ``exp``/``sqrt``.
EXACT: ScalarOps = ExactOps()
#: Double-precision float scalars, with ``exp`` and ``sqrt``.
FLOAT: ScalarOps = FloatOps()


def sub(ops: ScalarOps, a: Any, b: Any) -> Any:
    """``Scalar.sub a b = a + (-b)``."""
    return ops.add(a, ops.neg(b))


def of_int(ops: ScalarOps, z: int) -> Any:
    """``Scalar.ofInt``: ``ofNat n`` for ``n ≥ 0``, ``-(ofNat (n + 1))`` for ``Int.negSucc n``."""
    if z >= 0:
        return ops.of_nat(z)
    n = -z - 1
    return ops.neg(ops.of_nat(n + 1))


def scalar_sum(ops: ScalarOps, n: int, f: Callable[[int], Any]) -> Any:
    """``Scalar.sum n f``: ``sum 0 f = 0``, ``sum (n+1) f = sum n (f ∘ castSucc) + f n``."""
    if n == 0:
        return ops.zero
    return ops.add(scalar_sum(ops, n - 1, f), f(n - 1))


def relu(ops: ScalarOps, x: Any) -> Any:
    """``Scalar.relu x = if 0 < x then x else 0``."""
    return x if ops.lt(ops.zero, x) else ops.zero


def const_denote(ops: ScalarOps, c: T.Const) -> Any:
    """``Const.denote``: ``rat num den ↦ ofInt num * inv (ofNat den)``,
    ``invSqrt n ↦ inv (sqrt (ofNat n))``."""
    if isinstance(c, T.Rat):
        return ops.mul(of_int(ops, c.num), ops.inv(ops.of_nat(c.den)))
    if not isinstance(c.n, int):
        raise ShapeError(f"the constant invSqrt {c.n!r} names a run-time dimension; instantiate it first")
    return ops.inv(ops.sqrt(ops.of_nat(c.n)))


# --- tensors (``Formal.Tensor``) -------------------------------------------------------------------


def tensor_map(f: Callable[[Any], Any], s: Sequence[int], x: Value) -> Value:
    """``Tensor.map f``: ``[] ↦ f x``, ``n :: s ↦ fun i => map f (x i)``."""
    if not s:
        return f(x)
    return [tensor_map(f, s[1:], x[i]) for i in range(s[0])]


def zip_with(f: Callable[[Any, Any], Any], s: Sequence[int], x: Value, y: Value) -> Value:
    """``Tensor.zipWith f``: ``[] ↦ f x y``, ``n :: s ↦ fun i => zipWith f (x i) (y i)``."""
    if not s:
        return f(x, y)
    return [zip_with(f, s[1:], x[i], y[i]) for i in range(s[0])]


def map_pre(f: Callable[[Value], Value], pre: Sequence[int], x: Value) -> Value:
    """``Tensor.mapPre f pre``: ``[] ↦ f x``, ``n :: pre ↦ fun i => mapPre f pre (x i)``."""
    if not pre:
        return f(x)
    return [map_pre(f, pre[1:], x[i]) for i in range(pre[0])]


def zip_pre(f: Callable[[Value, Value], Value], pre: Sequence[int], x: Value, y: Value) -> Value:
    """``Tensor.zipPre f pre``: ``[] ↦ f x y``, ``n :: pre ↦ fun i => zipPre f pre (x i) (y i)``."""
    if not pre:
        return f(x, y)
    return [zip_pre(f, pre[1:], x[i], y[i]) for i in range(pre[0])]


def lincomb(ops: ScalarOps, k: int, a: Sequence[Any], s: Sequence[int], t: Sequence[Value]) -> Value:
    """``Tensor.lincomb k a``: ``[] ↦ Scalar.sum k (fun c => a c * t c)``,
    ``n :: s ↦ fun i => lincomb k a (fun c => t c i)``."""
    if not s:
        return scalar_sum(ops, k, lambda c: ops.mul(a[c], t[c]))
    return [lincomb(ops, k, a, s[1:], [t[c][i] for c in range(k)]) for i in range(s[0])]


# --- kernels (``Formal.Kernel``) -------------------------------------------------------------------


def affine(ops: ScalarOps, m: int, n: int, w: Value, b: Value, x: Value) -> Value:
    """``Kernel.affine W b x = fun i => Scalar.sum m (fun j => W i j * x j) + b i``."""

    def entry(i: int) -> Any:
        return ops.add(scalar_sum(ops, m, lambda j: ops.mul(w[i][j], x[j])), b[i])

    return [entry(i) for i in range(n)]


def sigmoid(ops: ScalarOps, x: Any) -> Any:
    """``Kernel.sigmoid x = inv (1 + exp (-x))``."""
    return ops.inv(ops.add(ops.one, ops.exp(ops.neg(x))))


def softmax(ops: ScalarOps, n: int, v: Value) -> Value:
    """``Kernel.softmax v = fun i => exp (v i) * inv (Scalar.sum n (fun j => exp (v j)))``."""
    return [ops.mul(ops.exp(v[i]), ops.inv(scalar_sum(ops, n, lambda j: ops.exp(v[j])))) for i in range(n)]


def layer_norm(ops: ScalarOps, n: int, eps: Any, gamma: Value, beta: Value, v: Value) -> Value:
    """``Kernel.layerNorm``: mean and biased variance (both ``* inv n``), ``eps`` inside the root,
    then ``(v i - μ) * inv (sqrt (var + eps)) * γ i + β i``."""
    inv_n = ops.inv(ops.of_nat(n))
    mu = ops.mul(scalar_sum(ops, n, lambda j: v[j]), inv_n)
    var = ops.mul(scalar_sum(ops, n, lambda j: ops.mul(sub(ops, v[j], mu), sub(ops, v[j], mu))), inv_n)
    return [
        ops.add(ops.mul(ops.mul(sub(ops, v[i], mu), ops.inv(ops.sqrt(ops.add(var, eps)))), gamma[i]), beta[i])
        for i in range(n)
    ]


def causal_softmax(ops: ScalarOps, n: int, v: Value) -> Value:
    """``Kernel.causalSoftmax v = fun i j => if j ≤ i then exp (v i j) * inv (Scalar.sum n (fun j' =>
    if j' ≤ i then exp (v i j') else 0)) else 0`` on one ``[n, n]`` block."""

    def row(i: int) -> list[Any]:
        total = scalar_sum(ops, n, lambda j: ops.exp(v[i][j]) if j <= i else ops.zero)
        return [ops.mul(ops.exp(v[i][j]), ops.inv(total)) if j <= i else ops.zero for j in range(n)]

    return [row(i) for i in range(n)]


def rms_norm(ops: ScalarOps, n: int, eps: Any, gamma: Value, v: Value) -> Value:
    """``Kernel.rmsNorm eps γ v``: ``ms = Scalar.sum n (fun j => v j * v j) * inv (ofNat n)``, then
    ``fun i => v i * inv (sqrt (ms + eps)) * γ i``."""
    ms = ops.mul(scalar_sum(ops, n, lambda j: ops.mul(v[j], v[j])), ops.inv(ops.of_nat(n)))
    scale = ops.inv(ops.sqrt(ops.add(ms, eps)))
    return [ops.mul(ops.mul(v[i], scale), gamma[i]) for i in range(n)]


def matmul(ops: ScalarOps, m: int, k: int, post: Sequence[int], a: Value, b: Value) -> Value:
    """``Kernel.matmul A B = fun i => Tensor.lincomb k (A i) B``."""
    return [lincomb(ops, k, a[i], post, b) for i in range(m)]


def scan_max(ops: ScalarOps, k: int, v: Value, n: int, best: int) -> int:
    """``Kernel.scanMax v n best``: visit index ``k - n``, move there only if ``v best < v (k - n)``."""
    if n == 0:
        return best
    c = k - n  # ``k - (n' + 1)`` with ``n = n' + 1``; ``c < k`` always holds here
    if c < k:
        if ops.lt(v[best], v[c]):
            return scan_max(ops, k, v, n - 1, c)
        return scan_max(ops, k, v, n - 1, best)
    return scan_max(ops, k, v, n - 1, best)  # pragma: no cover - unreachable, as in Lean


def argmax(ops: ScalarOps, k: int, v: Value) -> int:
    """``Kernel.argmax k hk v = scanMax v k ⟨0, hk⟩``: the first index of a maximal entry."""
    if k <= 0:
        raise ShapeError(f"argmax of an empty vector (hk : 0 < k fails for k = {k})")
    return scan_max(ops, k, v, k, 0)


def split_axis(a: int, b: int, t: Value) -> Value:
    """``Kernel.splitAxis t = fun i j => t (i * b + j)`` (row-major)."""
    return [[t[i * b + j] for j in range(b)] for i in range(a)]


def merge_axis(a: int, b: int, t: Value) -> Value:
    """``Kernel.mergeAxis t = fun c => t (c / b) (c % b)``."""
    return [t[c // b][c % b] for c in range(a * b)]


def rope_angle(ops: ScalarOps, k: int, base: int, p: int, f: int) -> Any:
    """``Kernel.ropeAngle k base p f``:
    ``ofNat p * exp (-(ofNat (2 * f) * inv (ofNat k)) * log (ofNat base))``."""
    expo = ops.mul(ops.neg(ops.mul(ops.of_nat(2 * f), ops.inv(ops.of_nat(k)))), ops.log(ops.of_nat(base)))
    return ops.mul(ops.of_nat(p), ops.exp(expo))


def rope(ops: ScalarOps, seq: int, k: int, base: int, x: Value) -> Value:
    """``Kernel.rope base x``, one ``[seq, k]`` block, ``h = k / 2``: entry ``i < h`` is
    ``x p i * cos θ(p,i) - x p (i+h) * sin θ(p,i)``, entry ``i ≥ h`` is
    ``x p i * cos θ(p,i-h) + x p (i-h) * sin θ(p,i-h)`` (``Scalar.sub a b = a + (-b)``; Lean reads the
    partner entry with ``Kernel.entryOr``, whose out-of-range branch is never taken)."""
    h = k // 2

    def entry(p: int, i: int) -> Any:
        if i < h:
            t = rope_angle(ops, k, base, p, i)
            return sub(ops, ops.mul(x[p][i], ops.cos(t)), ops.mul(x[p][i + h], ops.sin(t)))
        t = rope_angle(ops, k, base, p, i - h)
        return ops.add(ops.mul(x[p][i], ops.cos(t)), ops.mul(x[p][i - h], ops.sin(t)))

    return [[entry(p, i) for i in range(k)] for p in range(seq)]


def repeat_axis(a: int, r: int, t: Value) -> Value:
    """``Kernel.repeatAxis t = fun c => t (c / r)`` (``a * r`` entries)."""
    return [t[c // r] for c in range(a * r)]


def swap(a: int, b: int, y: Value) -> Value:
    """``Kernel.swap y = fun j i => y i j``."""
    return [[y[i][j] for i in range(a)] for j in range(b)]


def sdpa_head(ops: ScalarOps, seq: int, k: int, causal: bool, q: Value, key: Value, v: Value) -> Value:
    """One head of ``Kernel.sdpa`` (the ``Arch.sdpa`` clause of ``eval``): ``Kernel.attnScores``
    (``matmul Q (swap K)``, then each entry multiplied on the left by ``inv (sqrt (ofNat k))``), then
    ``Kernel.causalSoftmax`` on the block when ``causal``, else ``Kernel.softmax`` on each row, then
    ``Kernel.matmul`` with ``V``."""
    scores = matmul(ops, seq, k, [seq], q, swap(seq, k, key))
    c = const_denote(ops, T.InvSqrt(n=k))
    scaled = [[ops.mul(c, a) for a in row] for row in scores]
    weights = causal_softmax(ops, seq, scaled) if causal else [softmax(ops, seq, row) for row in scaled]
    return matmul(ops, seq, seq, [k], weights, v)


# --- ``Arch.eval`` ---------------------------------------------------------------------------------


def _n(d: Dim, term: T.Term) -> int:
    if not isinstance(d, int):
        where = f"{term.loc}: " if term.loc else ""
        raise ShapeError(f"{where}the dimension {d!r} is a run-time dimension; instantiate the term first")
    return d


def _ns(ds: Sequence[Dim], term: T.Term) -> list[int]:
    return [_n(d, term) for d in ds]


def arch_eval(ops: ScalarOps, term: T.Term, p: Params, x: Value) -> Value:
    """``Arch.eval term p x``, clause by clause; ``p`` and ``x`` already hold scalars of ``ops``.

    Use :func:`eval_term`, which type-checks the term and converts and checks the parameters and the
    input first.
    """
    match term:
        case T.Id():
            return x
        case T.Comp(f=f, g=g):
            return arch_eval(ops, g, p[1], arch_eval(ops, f, p[0], x))
        case T.Par(f=f, g=g):
            return (arch_eval(ops, f, p[0], x[0]), arch_eval(ops, g, p[1], x[1]))
        case T.Copy():
            return (x, x)
        case T.Fst():
            return x[0]
        case T.Snd():
            return x[1]
        case T.Add(s=s):
            return zip_with(ops.add, _ns(s, term), x[0], x[1])
        case T.Mul(s=s):
            return zip_with(ops.mul, _ns(s, term), x[0], x[1])
        case T.Scale(c=c, s=s):
            c_val = const_denote(ops, c)
            return tensor_map(lambda a: ops.mul(c_val, a), _ns(s, term), x)
        case T.Linear(pre=pre, m=m, n=n):
            m_, n_ = _n(m, term), _n(n, term)
            return map_pre(lambda v: affine(ops, m_, n_, p[0], p[1], v), _ns(pre, term), x)
        case T.ReLU(s=s):
            return tensor_map(lambda a: relu(ops, a), _ns(s, term), x)
        case T.Sigmoid(s=s):
            return tensor_map(lambda a: sigmoid(ops, a), _ns(s, term), x)
        case T.Softmax(pre=pre, n=n):
            n_ = _n(n, term)
            return map_pre(lambda v: softmax(ops, n_, v), _ns(pre, term), x)
        case T.LayerNorm(pre=pre, n=n, eps=eps):
            n_, eps_val = _n(n, term), const_denote(ops, eps)
            return map_pre(lambda v: layer_norm(ops, n_, eps_val, p[0], p[1], v), _ns(pre, term), x)
        case T.MatMul(pre=pre, m=m, k=k, post=post):
            m_, k_, post_ = _n(m, term), _n(k, term), _ns(post, term)
            return zip_pre(lambda a, b: matmul(ops, m_, k_, post_, a, b), _ns(pre, term), x[0], x[1])
        case T.Transpose(pre=pre, a=a, b=b):
            a_, b_ = _n(a, term), _n(b, term)
            return map_pre(lambda y: swap(a_, b_, y), _ns(pre, term), x)
        case T.SplitLast(pre=pre, a=a, b=b):
            a_, b_ = _n(a, term), _n(b, term)
            return map_pre(lambda t: split_axis(a_, b_, t), _ns(pre, term), x)
        case T.MergeLast(pre=pre, a=a, b=b):
            a_, b_ = _n(a, term), _n(b, term)
            return map_pre(lambda t: merge_axis(a_, b_, t), _ns(pre, term), x)
        case T.Route(k=k):
            return (argmax(ops, _n(k, term), x[0]), x[1])
        case T.Copair(f=f):
            return arch_eval(ops, f, p[x[0]], x[1])
        case T.CausalSoftmax(pre=pre, n=n):
            n_ = _n(n, term)
            return map_pre(lambda v: causal_softmax(ops, n_, v), _ns(pre, term), x)
        case T.RmsNorm(pre=pre, n=n, eps=eps):
            n_, eps_val = _n(n, term), const_denote(ops, eps)
            return map_pre(lambda v: rms_norm(ops, n_, eps_val, p, v), _ns(pre, term), x)
        case T.Rope(pre=pre, seq=seq, k=k, base=base):
            seq_, k_, base_ = _n(seq, term), _n(k, term), _n(base, term)
            return map_pre(lambda v: rope(ops, seq_, k_, base_, v), _ns(pre, term), x)
        case T.RepeatInterleave(pre=pre, a=a, r=r):
            a_, r_ = _n(a, term), _n(r, term)
            return map_pre(lambda t: repeat_axis(a_, r_, t), _ns(pre, term), x)
        case T.Sdpa(heads=heads, seq=seq, k=k, causal=causal):
            h_, s_, k_ = _n(heads, term), _n(seq, term), _n(k, term)
            (q, key), v = x
            return [sdpa_head(ops, s_, k_, causal, q[h], key[h], v[h]) for h in range(h_)]
    raise ShapeError(f"not a layer term: {term!r}")  # pragma: no cover - the union is closed


# --- conversion and checking of values and parameters ---------------------------------------------


def _lift_tensor(ops: ScalarOps, dims: Sequence[int], x: Any, where: str) -> Value:
    if not dims:
        if isinstance(x, list | tuple):
            raise ShapeError(f"{where}: expected a scalar, got a sequence")
        try:
            return ops.of(x)
        except TypeError as err:
            raise ShapeError(f"{where}: {err}") from None
    if not isinstance(x, list | tuple) or len(x) != dims[0]:
        got = f"length {len(x)}" if isinstance(x, list | tuple) else type(x).__name__
        raise ShapeError(f"{where}: expected a list of length {dims[0]}, got {got}")
    return [_lift_tensor(ops, dims[1:], xi, f"{where}[{i}]") for i, xi in enumerate(x)]


def lift_value(ops: ScalarOps, shape: Shape, x: Any, where: str = "input") -> Value:
    """A per-sample value of ``shape`` (nested lists, pairs, ``(tag, value)``) with scalars of ``ops``;
    raises :class:`ShapeError` where ``x`` does not have the shape."""
    if isinstance(shape, TensorShape):
        dims = [d for d in shape.dims if isinstance(d, int)]
        if len(dims) != len(shape.dims):
            raise ShapeError(f"{where}: the shape {list(shape.dims)} has run-time dimensions")
        return _lift_tensor(ops, dims, x, where)
    if not isinstance(x, tuple) or len(x) != 2:
        raise ShapeError(f"{where}: expected a pair")
    if isinstance(shape, ProdShape):
        return (lift_value(ops, shape.a, x[0], f"{where}[0]"), lift_value(ops, shape.b, x[1], f"{where}[1]"))
    assert isinstance(shape, CoprodShape)
    tag = x[0]
    if (
        isinstance(tag, bool)
        or not isinstance(tag, int)
        or not isinstance(shape.k, int)
        or not 0 <= tag < shape.k
    ):
        raise ShapeError(f"{where}: the tag {tag!r} is not a branch index below {shape.k}")
    return (tag, lift_value(ops, shape.a, x[1], f"{where}[1]"))


def lift_params(ops: ScalarOps, term: T.Term, p: Params, where: str = "params") -> Params:
    """A parameter set of ``term`` (nested as ``Arch.Params``) with scalars of ``ops``, checked."""
    match term:
        case T.Comp(f=f, g=g) | T.Par(f=f, g=g):
            if not isinstance(p, tuple) or len(p) != 2:
                raise ShapeError(f"{where}: expected a pair (params of f, params of g)")
            return (lift_params(ops, f, p[0], f"{where}[0]"), lift_params(ops, g, p[1], f"{where}[1]"))
        case T.Linear(m=m, n=n):
            if not isinstance(p, tuple) or len(p) != 2:
                raise ShapeError(f"{where}: expected a pair (W, b) for linear")
            m_, n_ = _n(m, term), _n(n, term)
            return (
                _lift_tensor(ops, [n_, m_], p[0], f"{where}.W"),
                _lift_tensor(ops, [n_], p[1], f"{where}.b"),
            )
        case T.LayerNorm(n=n):
            if not isinstance(p, tuple) or len(p) != 2:
                raise ShapeError(f"{where}: expected a pair (gamma, beta) for layerNorm")
            n_ = _n(n, term)
            return (
                _lift_tensor(ops, [n_], p[0], f"{where}.gamma"),
                _lift_tensor(ops, [n_], p[1], f"{where}.beta"),
            )
        case T.RmsNorm(n=n):
            return _lift_tensor(ops, [_n(n, term)], p, f"{where}.gamma")
        case T.Copair(k=k, f=f):
            k_ = _n(k, term)
            if not isinstance(p, list | tuple) or len(p) != k_:
                raise ShapeError(f"{where}: expected {k_} parameter sets, one per branch")
            return [lift_params(ops, f, pi, f"{where}[{i}]") for i, pi in enumerate(p)]
    if p is not None:
        raise ShapeError(f"{where}: {type(term).__name__} has no parameters (expected None)")
    return None


def eval_term(term: T.Term, params: Params, x: Any, ops: ScalarOps = EXACT) -> Value:
    """``Arch.eval term params x`` over the scalars ``ops``, for one sample.

    ``term`` must be instantiated (integer dimensions); ``params`` is nested as ``Arch.Params`` (see
    the module docstring; :func:`params_from_module` builds it from a compiled module) and ``x`` is a
    value of the term's domain (:func:`sample` takes one from a batch). Numbers in ``params`` and
    ``x`` are converted with ``ops.of``. Raises :class:`ShapeError` for ill-shaped parameters or
    input, :class:`NotExactError` when :data:`EXACT` meets ``exp`` or ``sqrt``.
    """
    sig = check(term)
    return arch_eval(ops, term, lift_params(ops, term, params), lift_value(ops, sig.dom, x))


# --- bridges to PyTorch ----------------------------------------------------------------------------


def runtime_dims_of(
    shape: Shape, value: torch.Tensor | tuple, dims: dict[str, int] | None = None
) -> dict[str, int]:
    """The sizes of the run-time dimensions (names such as ``seq``) of ``shape``, read off a batch-first
    PyTorch value of it; :class:`ShapeError` where one name gets two sizes."""
    dims = {} if dims is None else dims
    if isinstance(shape, TensorShape):
        if not isinstance(value, torch.Tensor) or value.dim() != len(shape.dims) + 1:
            raise ShapeError(f"expected a batch of tensors of shape {list(shape.dims)}")
        for d, size in zip(shape.dims, value.shape[1:]):
            if isinstance(d, str):
                if dims.setdefault(d, int(size)) != int(size):
                    raise ShapeError(f"the run-time dimension {d} has two sizes, {dims[d]} and {int(size)}")
        return dims
    if not isinstance(value, tuple) or len(value) != 2:
        raise ShapeError("expected a pair of values")
    if isinstance(shape, ProdShape):
        runtime_dims_of(shape.a, value[0], dims)
        return runtime_dims_of(shape.b, value[1], dims)
    assert isinstance(shape, CoprodShape)
    return runtime_dims_of(shape.a, value[1], dims)


def bind_dims(term: T.Term, dims: dict[str, int]) -> T.Term:
    """``term`` with each run-time dimension named in ``dims`` replaced by its size (for the
    interpreter, which needs integer dimensions)."""

    def sub(v: Any, key: str = "") -> Any:
        if isinstance(v, dict):
            return {k: sub(x, k) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return type(v)(sub(x) for x in v)
        if isinstance(v, str) and key != "kind" and v in dims:
            return dims[v]
        return v

    return type(term).model_validate(sub(term.model_dump()))



def tensor_to_lists(t: torch.Tensor) -> Value:
    """A tensor as nested lists of exact :class:`~fractions.Fraction` values (floats are dyadic)."""
    if t.dim() == 0:
        return Fraction(t.item())
    return [tensor_to_lists(ti) for ti in t]


def params_from_module(term: T.Term, module: torch.nn.Module) -> Params:
    """The weights of ``module`` (compiled from ``term``) nested as Lean's ``Arch.Params term``.

    The ``Linear``/``LayerNorm``/``RmsNorm`` leaves of the module, in depth-first order, are the
    parametrised constructors of the term in depth-first order (a ``copair k f`` contributes ``k``
    copies of ``f``'s leaves); scalars are exact :class:`~fractions.Fraction` values. Raises
    :class:`ShapeError` when the module does not fit the term.
    """
    leaves = runtime._leaves(module)
    pos = 0

    def take(t: T.Term) -> Value:
        nonlocal pos
        if pos >= len(leaves):
            raise ShapeError(f"the module has {len(leaves)} parametrised leaves, fewer than the term needs")
        leaf = leaves[pos]
        expected = {
            T.Linear: (runtime.Linear, runtime.LinearRows),
            T.LayerNorm: runtime.LayerNorm,
            T.RmsNorm: runtime.RmsNorm,
        }[type(t)]
        if not isinstance(leaf, expected):
            raise ShapeError(f"leaf {pos} is a {type(leaf).__name__}, the term has {type(t).__name__} there")
        pos += 1
        if isinstance(t, T.RmsNorm):  # Lean's ``Params (rmsNorm ..) = Tensor α [n]``: γ alone
            return tensor_to_lists(leaf.weight.detach().cpu())
        return (tensor_to_lists(leaf.weight.detach().cpu()), tensor_to_lists(leaf.bias.detach().cpu()))

    def build(t: T.Term) -> Params:
        match t:
            case T.Comp(f=f, g=g) | T.Par(f=f, g=g):
                pf = build(f)
                return (pf, build(g))
            case T.Linear() | T.LayerNorm() | T.RmsNorm():
                return take(t)
            case T.Copair(k=k, f=f):
                return [build(f) for _ in range(_n(k, t))]
        return None

    params = build(term)
    if pos != len(leaves):
        raise ShapeError(f"the module has {len(leaves)} parametrised leaves, the term uses {pos}")
    return params


def sample(value: torch.Tensor | tuple, i: int) -> Any:
    """Sample ``i`` of a batch-first PyTorch value, as nested lists of Fractions (pairs stay pairs; a
    coproduct value ``(tag, value)`` becomes ``(int(tag[i]), sample(value, i))``)."""
    if isinstance(value, tuple):
        a, b = value
        if isinstance(a, torch.Tensor) and not a.is_floating_point() and a.dim() == 1:
            return (int(a[i]), sample(b, i))
        return (sample(a, i), sample(b, i))
    return tensor_to_lists(value[i])


def scalars(value: Any) -> list[Any]:
    """The scalars of a value, flattened in order (tags of coproduct values included as numbers)."""
    if isinstance(value, list | tuple):
        return [s for v in value for s in scalars(v)]
    return [value]


def max_abs_error(a: Any, b: Any) -> float:
    """The largest ``|a - b|`` over the scalars of two values of the same shape, as a float."""
    xs, ys = scalars(a), scalars(b)
    if len(xs) != len(ys):
        raise ShapeError(f"values of different sizes: {len(xs)} and {len(ys)} scalars")
    worst = 0.0
    for x, y in zip(xs, ys):
        fx, fy = float(x), float(y)
        if not (math.isfinite(fx) and math.isfinite(fy)):
            err = 0.0 if fx == fy else math.inf
        else:
            err = float(abs(Fraction(x) - Fraction(y)))  # the exact difference, rounded once
        worst = max(worst, err)
    return worst
