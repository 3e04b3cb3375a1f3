"""The PyTorch realisation against the interpreter of ``Arch.eval`` written from the Lean definitions.

Piecewise-linear and bilinear layers (``mlp``, ``hyperLinear``, ``moe``) run on small dyadic weights
and inputs, where every float64 operation is exact: the compiled module must then equal the exact
rational semantics *exactly* (argmax ties included). The layers with ``exp``/``sqrt`` (``attention``,
``encoderBlock``, ``glu``) are compared with the interpreter over Python floats, within 1e-12.
Negative controls break one Lean convention in the interpreter (the tie rule of ``scanMax``, the
row-major order of ``splitAxis``, the biased variance of ``layerNorm``) and check that the comparison
then fails.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import torch

from pybridge.errors import ShapeError
from pybridge.laws import exact as E
from pybridge.spec import terms as T
from pybridge.torch import compile_term, runtime
from pybridge.zoo import instantiate

BATCH = 4
DEN = 8  # weights and inputs are k / 8 with |k| <= 8: every float64 operation on them is exact


def _dyadic(shape: tuple[int, ...], gen: torch.Generator) -> torch.Tensor:
    return torch.randint(-DEN, DEN + 1, shape, generator=gen).to(torch.float64) / DEN


def _compiled(name: str, params: dict[str, int]):
    term, sig = instantiate(name, params)
    return term, sig, compile_term(term, dtype=torch.float64).eval()


def _set_dyadic(module: torch.nn.Module, gen: torch.Generator) -> None:
    pairs = [
        (_dyadic(tuple(leaf.weight.shape), gen), _dyadic(tuple(leaf.bias.shape), gen))
        for leaf in runtime._leaves(module)
    ]
    runtime.load_leaves(module, pairs)


def _set_random(module: torch.nn.Module, gen: torch.Generator) -> None:
    pairs = [
        (
            0.7 * torch.randn(tuple(leaf.weight.shape), generator=gen, dtype=torch.float64),
            0.7 * torch.randn(tuple(leaf.bias.shape), generator=gen, dtype=torch.float64),
        )
        for leaf in runtime._leaves(module)
    ]
    runtime.load_leaves(module, pairs)


def _exact_outputs(term, module, x) -> list:
    params = E.params_from_module(term, module)
    return [E.eval_term(term, params, E.sample(x, i), E.EXACT) for i in range(x.shape[0])]


def _torch_outputs(module, x) -> list:
    with torch.no_grad():
        y = module(x)
    assert y.dtype == torch.float64
    return [E.sample(y, i) for i in range(x.shape[0])]


def _float_error(term, module, x) -> float:
    params = E.params_from_module(term, module)
    with torch.no_grad():
        y = module(x)
    return max(
        E.max_abs_error(E.eval_term(term, params, E.sample(x, i), E.FLOAT), E.sample(y, i))
        for i in range(x.shape[0])
    )


# --- 1. exact equality on dyadic data ---------------------------------------------------------------

EXACT_CASES = [
    ("mlp", {"d_in": 3, "d_hidden": 5, "d_out": 2}),
    ("mlp", {"d_in": 1, "d_hidden": 1, "d_out": 1}),
    ("hyperLinear", {"d_in": 3, "d_out": 2}),
    ("hyperLinear", {"d_in": 2, "d_out": 4}),
    ("moe", {"d": 3, "experts": 3}),
    ("moe", {"d": 2, "experts": 1}),
]


@pytest.mark.parametrize(("name", "params"), EXACT_CASES, ids=lambda v: v if isinstance(v, str) else None)
def test_dyadic_exact_equality(name: str, params: dict[str, int]) -> None:
    term, sig, module = _compiled(name, params)
    gen = torch.Generator().manual_seed(11)
    _set_dyadic(module, gen)
    x = _dyadic((16, *sig.dom.dims), gen)
    got, want = _torch_outputs(module, x), _exact_outputs(term, module, x)
    assert got == want  # Fractions on both sides: PyTorch float64 equals the rational semantics
    assert any(s != 0 for out in want for s in E.scalars(out))  # not a vacuous comparison


def test_exact_equality_detects_a_small_change() -> None:
    """Control: a weight moved by 2^-30 (still exact in float64) is seen."""
    term, sig, module = _compiled("mlp", {"d_in": 3, "d_hidden": 5, "d_out": 2})
    gen = torch.Generator().manual_seed(12)
    _set_dyadic(module, gen)
    x = torch.ones(2, *sig.dom.dims, dtype=torch.float64)
    want = _exact_outputs(term, module, x)
    with torch.no_grad():
        runtime._leaves(module)[-1].bias[0] += 2.0**-30  # the output layer's bias (last leaf)
    assert _torch_outputs(module, x) != want


# --- 1b. arg-max ties in the router of ``moe`` --------------------------------------------------------

MOE = {"d": 3, "experts": 3}


def _moe_with_router(w: list[list[float]], b: list[float], seed: int = 5):
    """``moe`` with dyadic experts and the given router; experts have pairwise distinct biases."""
    term, sig, module = _compiled("moe", MOE)
    gen = torch.Generator().manual_seed(seed)
    _set_dyadic(module, gen)
    leaves = runtime._leaves(module)
    with torch.no_grad():
        leaves[0].weight.copy_(torch.tensor(w, dtype=torch.float64))
        leaves[0].bias.copy_(torch.tensor(b, dtype=torch.float64))
        for e, leaf in enumerate(leaves[1:]):
            leaf.bias.fill_(e)  # expert e adds e: the branch taken is visible in every output
    return term, sig, module


def _router_logits(term, module, x) -> list[list[Fraction]]:
    """The exact router logits of each sample (``Kernel.affine`` of the first linear leaf)."""
    w, b = E.params_from_module(term, module)[1][0][0]
    return [E.affine(E.EXACT, MOE["d"], MOE["experts"], w, b, E.sample(x, i)) for i in range(x.shape[0])]


def _last_index_argmax(ops, k, v):
    """The reversed tie rule: scan ``0..k-1`` moving on ``v best ≤ v c`` (ties go to the last index)."""
    best = 0
    for c in range(k):
        if not ops.lt(v[c], v[best]):
            best = c
    return best


ROUTERS = {
    # experts 1 and 2 always tie; they share the maximum whenever their logit beats expert 0's
    "pair": ([[1 / 2, -1 / 4, 0.0], [1 / 4, 1 / 8, -1 / 2], [1 / 4, 1 / 8, -1 / 2]], [0.0, 1 / 8, 1 / 8]),
    # all three experts tie on every input
    "all": ([[1 / 4, -1 / 2, 1 / 8]] * 3, [1 / 2] * 3),
}


@pytest.mark.parametrize("router", sorted(ROUTERS))
def test_moe_argmax_ties_follow_first_index(router: str, monkeypatch: pytest.MonkeyPatch) -> None:
    term, sig, module = _moe_with_router(*ROUTERS[router])
    gen = torch.Generator().manual_seed(7)
    x = _dyadic((24, *sig.dom.dims), gen)
    logits = _router_logits(term, module, x)
    tied = [i for i, v in enumerate(logits) if sum(1 for s in v if s == max(v)) > 1]
    untied = [i for i in range(len(logits)) if i not in tied]
    assert len(tied) >= 4  # the data really has ties at the maximum
    got, want = _torch_outputs(module, x), _exact_outputs(term, module, x)
    assert got == want
    for i in tied:  # the branch taken is the first maximal one, as Kernel.scanMax says
        first = next(e for e, s in enumerate(logits[i]) if s == max(logits[i]))
        assert E.argmax(E.EXACT, MOE["experts"], logits[i]) == first
    # the reversed tie rule is detected: it disagrees with PyTorch on every tie, agrees elsewhere
    monkeypatch.setattr(E, "argmax", _last_index_argmax)
    reversed_rule = _exact_outputs(term, module, x)
    assert all(reversed_rule[i] != got[i] for i in tied)
    assert all(reversed_rule[i] == got[i] for i in untied)


def test_torch_argmax_tie_rule_is_first_index() -> None:
    """The primitive the realisation of ``route`` uses, on exact ties."""
    v = torch.tensor(
        [[0.5, 1.0, 1.0, -2.0], [3.0, 3.0, 3.0, 3.0], [0.0, -1.0, 0.0, 0.0]], dtype=torch.float64
    )
    got = torch.argmax(v, dim=-1).tolist()
    assert got == [E.argmax(E.EXACT, 4, [Fraction(s) for s in row]) for row in v.tolist()] == [1, 0, 0]


# --- 2. transcendental layers: the float interpreter within 1e-12 -----------------------------------

FLOAT_CASES = [
    ("attention", {"seq": 1, "d_model": 4, "heads": 1}),
    ("attention", {"seq": 3, "d_model": 4, "heads": 1}),
    ("attention", {"seq": 1, "d_model": 4, "heads": 2}),
    ("attention", {"seq": 3, "d_model": 4, "heads": 2}),
    ("encoderBlock", {"seq": 1, "d_model": 4, "heads": 1, "d_ff": 3}),
    ("encoderBlock", {"seq": 3, "d_model": 4, "heads": 2, "d_ff": 3}),
    ("encoderBlock", {"seq": 3, "d_model": 2, "heads": 1, "d_ff": 5}),
    ("glu", {"d_in": 3, "d_out": 2}),
    ("glu", {"d_in": 1, "d_out": 1}),
]
FLOAT_TOL = 1e-12


@pytest.mark.parametrize(("name", "params"), FLOAT_CASES, ids=lambda v: v if isinstance(v, str) else None)
def test_transcendental_layers_float_interpreter(name: str, params: dict[str, int]) -> None:
    term, sig, module = _compiled(name, params)
    gen = torch.Generator().manual_seed(3)
    _set_random(module, gen)
    x = torch.randn(3, *sig.dom.dims, generator=gen, dtype=torch.float64)
    assert _float_error(term, module, x) <= FLOAT_TOL
    with pytest.raises(E.NotExactError):  # exp / sqrt have no exact rational value
        _exact_outputs(term, module, x)


# --- 3. negative controls -------------------------------------------------------------------------


def _column_major_split(a: int, b: int, t):
    return [[t[j * a + i] for j in range(b)] for i in range(a)]


def _unbiased_layer_norm(ops, n, eps, gamma, beta, v):
    inv_n1 = ops.inv(ops.of_nat(n - 1))
    mu = ops.mul(E.scalar_sum(ops, n, lambda j: v[j]), ops.inv(ops.of_nat(n)))
    d = [E.sub(ops, v[j], mu) for j in range(n)]
    var = ops.mul(E.scalar_sum(ops, n, lambda j: ops.mul(d[j], d[j])), inv_n1)
    r = ops.inv(ops.sqrt(ops.add(var, eps)))
    return [ops.add(ops.mul(ops.mul(d[i], r), gamma[i]), beta[i]) for i in range(n)]


def test_column_major_split_is_detected_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    term, sig, module = _compiled("hyperLinear", {"d_in": 3, "d_out": 2})
    gen = torch.Generator().manual_seed(13)
    _set_dyadic(module, gen)
    x = _dyadic((4, *sig.dom.dims), gen)
    got = _torch_outputs(module, x)
    assert got == _exact_outputs(term, module, x)
    monkeypatch.setattr(E, "split_axis", _column_major_split)
    assert _exact_outputs(term, module, x) != got


def test_column_major_split_is_detected_in_attention(monkeypatch: pytest.MonkeyPatch) -> None:
    term, sig, module = _compiled("attention", {"seq": 3, "d_model": 4, "heads": 2})
    gen = torch.Generator().manual_seed(14)
    _set_random(module, gen)
    x = torch.randn(3, *sig.dom.dims, generator=gen, dtype=torch.float64)
    assert _float_error(term, module, x) <= FLOAT_TOL
    monkeypatch.setattr(E, "split_axis", _column_major_split)
    assert _float_error(term, module, x) > 1e-3


def test_unbiased_variance_is_detected(monkeypatch: pytest.MonkeyPatch) -> None:
    term, sig, module = _compiled("encoderBlock", {"seq": 3, "d_model": 4, "heads": 2, "d_ff": 3})
    gen = torch.Generator().manual_seed(15)
    _set_random(module, gen)
    x = torch.randn(3, *sig.dom.dims, generator=gen, dtype=torch.float64)
    assert _float_error(term, module, x) <= FLOAT_TOL
    monkeypatch.setattr(E, "layer_norm", _unbiased_layer_norm)
    assert _float_error(term, module, x) > 1e-3


# --- the interpreter itself -------------------------------------------------------------------------


def test_kernels_follow_the_lean_definitions() -> None:
    ops = E.EXACT
    # Scalar.sum is the left fold from zero; relu branches on the strict 0 < x
    assert E.scalar_sum(ops, 3, lambda i: Fraction(i + 1)) == 6
    assert E.scalar_sum(ops, 0, lambda i: Fraction(1)) == 0
    assert [E.relu(ops, Fraction(v)) for v in (-1, 0, 2)] == [0, 0, 2]
    # Const.denote: rat num den = ofInt num * inv (ofNat den), inv 0 = 0
    assert E.const_denote(ops, T.Rat(num=-3, den=4)) == Fraction(-3, 4)
    assert E.const_denote(ops, T.Rat(num=5, den=0)) == 0
    assert E.const_denote(E.FLOAT, T.InvSqrt(n=4)) == 0.5
    with pytest.raises(E.NotExactError):
        E.const_denote(ops, T.InvSqrt(n=4))
    # row-major split and its inverse
    assert E.split_axis(2, 3, list(range(6))) == [[0, 1, 2], [3, 4, 5]]
    assert E.merge_axis(2, 3, [[0, 1, 2], [3, 4, 5]]) == list(range(6))
    # layer norm: biased variance, eps inside the root (exact when the root is rational)
    out = E.layer_norm(E.FLOAT, 2, 0.0, [1.0, 1.0], [0.0, 0.0], [1.0, 3.0])
    assert out == [-1.0, 1.0]


def test_params_and_inputs_are_checked() -> None:
    term, sig, module = _compiled("mlp", {"d_in": 2, "d_hidden": 3, "d_out": 2})
    params = E.params_from_module(term, module)
    ((w, b), (none, (w2, b2))) = params
    assert none is None and len(w) == 3 and len(w[0]) == 2 and len(b2) == 2
    with pytest.raises(ShapeError, match="length 2"):
        E.eval_term(term, params, [1, 2, 3])
    with pytest.raises(ShapeError, match="params"):
        E.eval_term(term, ((w[:2], b), (None, (w2, b2))), [1, 2])
    _, _, moe_module = _compiled("moe", {"d": 2, "experts": 2})
    with pytest.raises(ShapeError, match="leaves"):
        E.params_from_module(term, moe_module)
