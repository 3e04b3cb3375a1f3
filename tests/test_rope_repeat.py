"""``rope`` and ``repeatInterleave``: typing, runtime realisation, exact interpreter, fragment classes.

References are independent of the code under test: RoPE as a complex rotation of the pairs
``(x_i, x_{i+h})`` with ``inv_freq`` by ``**`` (``tests/llama_reference.py``), ``torch.repeat_interleave``,
and the exact interpreter's transcription of the spec's kernels (for odd widths, where neither
``transformers`` nor the complex form applies).
"""

from __future__ import annotations

import math

import pytest
import torch
from llama_reference import apply_rope

from pybridge.errors import NotExactError, ShapeError
from pybridge.fragment.classify import classify_module, classify_term
from pybridge.laws import exact as E
from pybridge.spec import terms as T
from pybridge.spec.shapes import TensorShape
from pybridge.spec.typing import signature
from pybridge.torch.compiler import compile_term


def t(*dims: int | str) -> TensorShape:
    return TensorShape(dims=tuple(dims))


# --- typing -------------------------------------------------------------------------------------------


def test_signatures() -> None:
    sig = signature(T.Rope(pre=(4,), seq="seq", k=6, base=10000))
    assert (sig.dom, sig.cod) == (t(4, "seq", 6), t(4, "seq", 6))
    sig = signature(T.RepeatInterleave(pre=(2,), a=3, r=4, post=("seq", 5)))
    assert (sig.dom, sig.cod) == (t(2, 3, "seq", 5), t(2, 12, "seq", 5))
    sig = signature(T.RepeatInterleave(pre=(), a="a", r=2, post=()))
    assert (sig.dom, sig.cod) == (t("a"), t("a*2"))


def test_terms_roundtrip_json() -> None:
    from pydantic import TypeAdapter

    adapter = TypeAdapter(T.Term)
    for term in (T.Rope(pre=(2,), seq="seq", k=4, base=10000),
                 T.RepeatInterleave(pre=(), a=2, r=3, post=("seq", 4))):
        assert adapter.validate_json(term.model_dump_json()) == term


# --- rope: runtime against references -----------------------------------------------------------------


@pytest.mark.parametrize("k", [2, 4, 8, 16])
def test_rope_matches_complex_rotation_float64(k: int) -> None:
    # one module, several sequence lengths: nothing in it depends on seq
    module = compile_term(T.Rope(pre=(3,), seq="seq", k=k, base=10000), dtype=torch.float64)
    gen = torch.Generator().manual_seed(k)
    for seq in (1, 2, 7, 33):
        x = torch.randn(2, 3, seq, k, dtype=torch.float64, generator=gen)
        assert (module(x) - apply_rope(x)).abs().max().item() <= 1e-12


def test_rope_float32_matches_float64_reference() -> None:
    module = compile_term(T.Rope(pre=(2,), seq="seq", k=8, base=10000), dtype=torch.float32)
    x = torch.randn(3, 2, 16, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    got = module(x.float()).double()
    assert (got - apply_rope(x)).abs().max().item() <= 1e-5


def test_rope_other_base() -> None:
    module = compile_term(T.Rope(pre=(), seq="seq", k=4, base=7), dtype=torch.float64)
    x = torch.randn(2, 5, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    assert (module(x) - apply_rope(x, base=7.0)).abs().max().item() <= 1e-12


def test_rope_is_a_rotation_and_position_zero_is_fixed() -> None:
    module = compile_term(T.Rope(pre=(), seq="seq", k=6, base=10000), dtype=torch.float64)
    x = torch.randn(4, 9, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    y = module(x)
    assert torch.equal(y[:, 0], x[:, 0])  # θ(0, f) = 0: cos 1, sin 0
    # each pair (i, i + h) keeps its length
    pair_norm = lambda z: z[..., :3] ** 2 + z[..., 3:] ** 2  # noqa: E731
    assert (pair_norm(y) - pair_norm(x)).abs().max().item() <= 1e-12


@pytest.mark.parametrize("k", [1, 3, 4, 5])
def test_rope_matches_exact_interpreter_with_float_scalars(k: int) -> None:
    # odd widths too: the Lean kernel's rule for i ≥ h uses frequency i - h (which reaches h for odd k)
    term = T.Rope(pre=(2,), seq=4, k=k, base=10000)
    module = compile_term(term, dtype=torch.float64)
    x = torch.randn(2, 2, 4, k, dtype=torch.float64, generator=torch.Generator().manual_seed(k))
    y = module(x)
    for i in range(2):
        want = E.eval_term(term, None, E.sample(x, i), E.FLOAT)
        assert E.max_abs_error(E.sample(y, i), want) <= 1e-12


def test_rope_exact_interpreter_closed_form_k3() -> None:
    # k = 3, h = 1, base = 10000, position 1: θ(1, 0) = 1, θ(1, 1) = 10000^(-2/3)
    term = T.Rope(pre=(), seq=2, k=3, base=10000)
    x = [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]
    out = E.eval_term(term, None, x, E.FLOAT)
    th1 = 10000 ** (-2 / 3)
    want = [1 * math.cos(1) - 2 * math.sin(1), 2 * math.cos(1) + 1 * math.sin(1),
            3 * math.cos(th1) + 2 * math.sin(th1)]
    assert out[0] == [0.0, 0.0, 0.0]
    assert max(abs(a - b) for a, b in zip(out[1], want)) <= 1e-12


def test_rope_exact_scalars_refuse_transcendentals() -> None:
    with pytest.raises(NotExactError, match="log"):
        E.eval_term(T.Rope(pre=(), seq=2, k=2, base=10000), None, [[1, 2], [3, 4]], E.EXACT)
    for fn in (E.EXACT.log, E.EXACT.sin, E.EXACT.cos):
        with pytest.raises(NotExactError):
            fn(E.EXACT.of(1))


def test_float_scalars_log_sin_cos() -> None:
    assert E.FLOAT.log(math.e) == 1.0
    assert E.FLOAT.log(0.0) == -math.inf and math.isnan(E.FLOAT.log(-1.0))
    assert E.FLOAT.sin(0.0) == 0.0 and E.FLOAT.cos(0.0) == 1.0


def test_rope_needs_a_positive_base() -> None:
    with pytest.raises(ShapeError, match="base must be positive"):
        compile_term(T.Rope(pre=(), seq="seq", k=2, base=0))


# --- repeatInterleave -------------------------------------------------------------------------------


@pytest.mark.parametrize(("pre", "a", "r", "post"), [((), 3, 2, ()), ((2,), 3, 1, (4,)), ((), 2, 3, (5, 4)),
                                                      ((2, 1), 2, 4, (3,))])
def test_repeat_interleave_matches_torch(pre: tuple, a: int, r: int, post: tuple) -> None:
    term = T.RepeatInterleave(pre=pre, a=a, r=r, post=post)
    module = compile_term(term, dtype=torch.float64)
    x = torch.randn(2, *pre, a, *post, dtype=torch.float64, generator=torch.Generator().manual_seed(a * r))
    y = module(x)
    assert torch.equal(y, torch.repeat_interleave(x, r, dim=1 + len(pre)))
    # and the exact interpreter (rationals, exactly)
    for i in range(2):
        assert E.sample(y, i) == E.eval_term(term, None, E.sample(x, i), E.EXACT)


def test_repeat_interleave_order_is_c_div_r() -> None:
    out = E.eval_term(T.RepeatInterleave(pre=(), a=2, r=3, post=()), None, [1, 2], E.EXACT)
    assert out == [1, 1, 1, 2, 2, 2]


# --- fragment classes ---------------------------------------------------------------------------------


def test_fragment_classes_are_linear() -> None:
    term = T.Comp(f=T.Rope(pre=(2,), seq=3, k=4, base=10000),
                  g=T.RepeatInterleave(pre=(), a=2, r=2, post=(3, 4)))
    c = classify_term(term)
    assert (c.verdict.cls, c.verdict.degree) == ("PL", 1)
    assert [n.op for n in c.nodes] == ["rope", "repeatInterleave"]
    # the compiled module, read by fx, agrees (sin/cos act on positions only, not on the input)
    module = compile_term(term, dtype=torch.float64)
    assert classify_module(module, 1).verdict.cls == "PL"
