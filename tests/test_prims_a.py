"""``Arch.causalSoftmax`` and ``Arch.rmsNorm``: the PyTorch realisation against hand-written references
and against the interpreter of the Lean kernels (``pybridge/laws/exact.py``, float scalars).

References: ``causal_softmax_loops`` (row by row, ``exp`` and division, no ``torch.softmax`` and no
mask) and ``tests_support_a.rms_norm_float64`` (an explicit sum of squares), both float64, and PyTorch's own
``torch.nn.functional.rms_norm``. Tolerances: float64 1e-12 (reassociation of sums of at most 16
terms of size ~1), float32 1e-5. Negative controls: plain softmax is not causal softmax, and an
interpreter with another normaliser (``1/(n-1)``) or ``eps`` outside the root is detected.
"""

from __future__ import annotations

import pytest
import torch
from tests_support_a import rms_norm_float64

from pybridge import budget
from pybridge.errors import NotExactError, ShapeError
from pybridge.fragment.classify import classify_term
from pybridge.laws import exact as E
from pybridge.spec import terms as T
from pybridge.spec.typing import signature
from pybridge.torch import compile_term, runtime

EPS = T.Rat(num=1, den=1000000)


def causal_softmax_loops(x: torch.Tensor) -> torch.Tensor:
    """Row ``i`` of each ``[n, n]`` block: ``exp(x[i, j]) / Σ_{j' ≤ i} exp(x[i, j'])`` for ``j ≤ i``,
    ``0`` above the diagonal; float64, loops over rows."""
    x = x.to(torch.float64)
    out = torch.zeros_like(x)
    n = x.shape[-1]
    for i in range(n):
        e = torch.exp(x[..., i, : i + 1])
        out[..., i, : i + 1] = e / e.sum(dim=-1, keepdim=True)
    return out


# --- causalSoftmax ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 5, 9])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_causal_softmax_matches_the_row_by_row_reference(n: int, dtype: torch.dtype) -> None:
    term = T.CausalSoftmax(pre=(3,), n=n)
    module = compile_term(term, dtype=dtype)
    x = 3 * torch.randn(2, 3, n, n, generator=torch.Generator().manual_seed(n), dtype=dtype)
    got = module(x)
    want = causal_softmax_loops(x)
    tol = 1e-12 if dtype == torch.float64 else 1e-5
    assert (got.to(torch.float64) - want).abs().max().item() <= tol
    above = torch.ones(n, n, dtype=torch.bool).triu(1)
    assert bool((got[..., above] == 0).all())  # masked entries are exactly 0, not merely small
    assert bool((got[..., 0, 0] == 1).all())  # row 0 sums only j = 0


def test_plain_softmax_is_not_causal_softmax() -> None:
    # negative control: without the mask the reference comparison fails
    x = torch.randn(2, 4, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    plain = compile_term(T.Softmax(pre=(4,), n=4), dtype=torch.float64)(x)
    assert (plain - causal_softmax_loops(x)).abs().max().item() > 0.1


def test_causal_softmax_rows_depend_only_on_earlier_entries() -> None:
    module = compile_term(T.CausalSoftmax(pre=(), n=5), dtype=torch.float64)
    x = torch.randn(1, 5, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    y = x.clone()
    y[:, 2, 3:] += 10.0  # entries above the diagonal of row 2
    assert torch.equal(module(x)[:, 2], module(y)[:, 2])


@pytest.mark.parametrize(("pre", "n"), [((), 1), ((), 4), ((2,), 3), ((2, 1), 5)])
def test_causal_softmax_against_the_lean_kernel(pre: tuple[int, ...], n: int) -> None:
    term = T.CausalSoftmax(pre=pre, n=n)
    module = compile_term(term, dtype=torch.float64)
    x = 2 * torch.randn(3, *pre, n, n, dtype=torch.float64, generator=torch.Generator().manual_seed(n))
    y = module(x)
    for i in range(3):
        want = E.eval_term(term, None, E.sample(x, i), E.FLOAT)
        assert E.max_abs_error(E.sample(y, i), want) <= 1e-12


def test_causal_softmax_kernel_by_hand() -> None:
    # n = 2, v = [[a, b], [c, d]]: row 0 = [1, 0], row 1 = softmax([c, d]); masked entries exact zeros
    import math

    out = E.causal_softmax(E.FLOAT, 2, [[0.3, 7.0], [1.0, 2.0]])
    assert out[0] == [1.0, 0.0]
    assert out[1][0] == pytest.approx(math.exp(1.0) / (math.exp(1.0) + math.exp(2.0)), abs=1e-15)
    with pytest.raises(NotExactError):
        E.eval_term(T.CausalSoftmax(pre=(), n=1), None, [[0]], E.EXACT)


def test_causal_softmax_has_no_parameters() -> None:
    with pytest.raises(ShapeError, match="no parameters"):
        E.eval_term(T.CausalSoftmax(pre=(), n=1), ([1],), [[0.0]], E.FLOAT)


# --- rmsNorm -----------------------------------------------------------------------------------------


def _rms(n: int, dtype: torch.dtype, seed: int = 0) -> tuple[T.RmsNorm, torch.nn.Module]:
    term = T.RmsNorm(pre=(3,), n=n, eps=EPS)
    module = compile_term(term, dtype=dtype, literal=True)  # the runtime module itself (its weight, eps)
    gen = torch.Generator().manual_seed(seed)
    runtime.load_leaves(module, [(torch.randn(n, generator=gen, dtype=dtype), None)])
    return term, module


@pytest.mark.parametrize("n", [1, 2, 8, 13])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_rms_norm_matches_the_hand_written_reference(n: int, dtype: torch.dtype) -> None:
    _, module = _rms(n, dtype, seed=n)
    x = torch.randn(4, 3, n, dtype=dtype, generator=torch.Generator().manual_seed(10 + n))
    got = module(x)
    tol = 1e-12 if dtype == torch.float64 else 1e-5
    by_hand = rms_norm_float64(x, module.weight.detach(), 1e-6)
    assert (got.to(torch.float64) - by_hand).abs().max().item() <= tol
    # PyTorch's own RMS norm, an independent implementation of the same formula
    want = torch.nn.functional.rms_norm(x, (n,), module.weight.detach(), eps=1e-6)
    assert (got - want).abs().max().item() <= tol


def test_rms_norm_eps_is_the_lean_constant() -> None:
    term, module = _rms(4, torch.float64)
    assert module.eps == 1e-6 == EPS.value()
    assert module.bias is None and tuple(module.weight.shape) == (4,)
    # with x = 0 the output is 0 (no division by zero: eps > 0)
    zeros = torch.zeros(1, 3, 4, dtype=torch.float64)
    assert torch.equal(module(zeros), zeros)
    assert signature(term).dom == signature(term).cod


@pytest.mark.parametrize("n", [1, 3, 6])
def test_rms_norm_against_the_lean_kernel(n: int) -> None:
    term, module = _rms(n, torch.float64, seed=n)
    params = E.params_from_module(term, module)
    assert isinstance(params, list) and len(params) == n  # Lean's Params (rmsNorm ..) = Tensor α [n]: γ alone
    x = torch.randn(3, 3, n, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    y = module(x)
    for i in range(3):
        assert E.max_abs_error(E.sample(y, i), E.eval_term(term, params, E.sample(x, i), E.FLOAT)) <= 1e-12


def test_rms_norm_kernel_by_hand() -> None:
    # v = [3, 4], γ = [1, 2], eps = 0: ms = (9 + 16) / 2 = 12.5, out = v / sqrt(12.5) * γ
    out = E.rms_norm(E.FLOAT, 2, 0.0, [1.0, 2.0], [3.0, 4.0])
    assert out == pytest.approx([3 / 12.5**0.5, 8 / 12.5**0.5], abs=1e-15)
    with pytest.raises(NotExactError):
        E.eval_term(T.RmsNorm(pre=(), n=1, eps=EPS), [1], [1], E.EXACT)


@pytest.mark.parametrize("variant", ["unbiased", "eps_outside"])
def test_a_different_rms_norm_is_detected(variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # negative controls: another normaliser, or eps added outside the root, in the interpreter
    def wrong(ops, n, eps, gamma, v):
        ss = E.scalar_sum(ops, n, lambda j: ops.mul(v[j], v[j]))
        if variant == "unbiased":
            scale = ops.inv(ops.sqrt(ops.add(ops.mul(ss, ops.inv(ops.of_nat(n - 1))), eps)))
        else:
            scale = ops.inv(ops.add(ops.sqrt(ops.mul(ss, ops.inv(ops.of_nat(n)))), eps))
        return [ops.mul(ops.mul(v[i], scale), gamma[i]) for i in range(n)]

    term = T.RmsNorm(pre=(), n=3, eps=T.Rat(num=1, den=10))
    module = compile_term(term, dtype=torch.float64)
    x = torch.randn(2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    y = module(x)
    params = E.params_from_module(term, module)
    assert E.max_abs_error(E.sample(y, 0), E.eval_term(term, params, E.sample(x, 0), E.FLOAT)) <= 1e-12
    monkeypatch.setattr(E, "rms_norm", wrong)
    assert E.max_abs_error(E.sample(y, 0), E.eval_term(term, params, E.sample(x, 0), E.FLOAT)) > 1e-3


def test_rms_norm_parameters_are_checked() -> None:
    term = T.RmsNorm(pre=(), n=2, eps=EPS)
    with pytest.raises(ShapeError, match="gamma"):
        E.eval_term(term, ([1, 1], [0, 0]), [1.0, 2.0], E.FLOAT)  # a LayerNorm-style pair is refused
    module = compile_term(term, dtype=torch.float64)
    with pytest.raises(ValueError, match="bias None"):
        one, zero = torch.ones(2, dtype=torch.float64), torch.zeros(2, dtype=torch.float64)
        runtime.load_leaves(module, [(one, zero)])
    with pytest.raises(ValueError, match="weight"):
        runtime.load_leaves(module, [(torch.ones(3, dtype=torch.float64), None)])


def test_rms_norm_weights_in_leaf_order_with_linear() -> None:
    # leaves keep the Lean order: rmsNorm's γ then the linear map's (W, b)
    term = T.Comp(f=T.RmsNorm(pre=(), n=2, eps=EPS), g=T.Linear(pre=(), m=2, n=1))
    module = compile_term(term, dtype=torch.float64)
    g = torch.tensor([2.0, -1.0], dtype=torch.float64)
    w, b = torch.tensor([[1.0, 1.0]], dtype=torch.float64), torch.tensor([0.5], dtype=torch.float64)
    runtime.load_leaves(module, [(g, None), (w, b)])
    params = E.params_from_module(term, module)
    assert params == ([2, -1], ([[1, 1]], [0.5]))
    x = torch.tensor([[3.0, 4.0]], dtype=torch.float64)
    want = E.eval_term(term, params, E.sample(x, 0), E.FLOAT)
    assert E.max_abs_error(E.sample(module(x), 0), want) <= 1e-12


# --- both ------------------------------------------------------------------------------------------


def test_fragment_classes() -> None:
    term = T.Comp(
        f=T.RmsNorm(pre=(3,), n=3, eps=EPS),
        g=T.CausalSoftmax(pre=(), n=3),
    )
    rows = {r.op: r for r in classify_term(term).nodes}
    assert rows["rmsNorm"].cls == "transcendental" and rows["rmsNorm"].degree is None
    assert rows["causalSoftmax"].cls == "transcendental" and rows["causalSoftmax"].degree is None
    assert classify_term(term).verdict.cls == "transcendental"


def test_budget_counts_the_rms_scale() -> None:
    est = budget.estimate(T.RmsNorm(pre=(), n=7, eps=EPS), dtype_bytes=8)
    assert est.weights == 7 * 8


def test_gradcheck() -> None:
    cs = compile_term(T.CausalSoftmax(pre=(), n=3), dtype=torch.float64)
    x = torch.randn(2, 3, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(cs, (x,))
    _, rms = _rms(4, torch.float64)
    z = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(rms, (z,))


def test_run_time_dimensions_are_bound_from_the_input() -> None:
    from pybridge.laws.checks import exact_reference
    from pybridge.spec.shapes import TensorShape

    term = T.Comp(f=T.RmsNorm(pre=("seq",), n=2, eps=EPS), g=T.CausalSoftmax(pre=(), n="seq"))
    with pytest.raises(ShapeError):  # "seq" must be 2 for the composite to type-check
        signature(term)
    term = T.Comp(f=T.RmsNorm(pre=("seq",), n="seq", eps=EPS), g=T.CausalSoftmax(pre=(), n="seq"))
    x = torch.randn(2, 3, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    assert E.runtime_dims_of(TensorShape(dims=("seq", "seq")), x) == {"seq": 3}
    with pytest.raises(ShapeError, match="two sizes"):
        E.runtime_dims_of(TensorShape(dims=("seq", "seq")), torch.zeros(1, 3, 4))
    bound = E.bind_dims(term, {"seq": 3})
    assert bound == T.Comp(f=T.RmsNorm(pre=(3,), n=3, eps=EPS), g=T.CausalSoftmax(pre=(), n=3))
    # RmsNorm of width "seq" has a run-time-sized weight; build the module at seq = 3
    module = compile_term(bound, dtype=torch.float64)
    reference, name = exact_reference(term, module)
    assert name == "exact interpreter of Arch.eval"
    with torch.no_grad():
        assert reference(x, module(x)) <= 1e-12
        assert reference(x, module(x) + 1e-3) >= 1e-3  # the comparison can fail


def test_torch_compile_full_graph() -> None:
    # both realisations compile without graph breaks (aot_eager), and give the same values
    term = T.Comp(f=T.RmsNorm(pre=(4,), n=4, eps=EPS), g=T.CausalSoftmax(pre=(), n=4))
    _, rms = _rms(4, torch.float32)
    module = compile_term(term, dtype=torch.float32).eval()
    runtime.load_leaves(module, [(rms.weight.detach(), None)])
    compiled = torch.compile(module, backend="aot_eager", fullgraph=True)
    x = torch.randn(2, 4, 4, generator=torch.Generator().manual_seed(0))
    assert torch.allclose(compiled(x), module(x), atol=1e-6)
