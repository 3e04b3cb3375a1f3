"""The weights and the line of ``Formal/PL/Softmax.lean`` (VM.C2 for softmax attention), checked numerically.

The Lean theorem ``Formal.PL.attention_line`` says: the Zoo's ``attention`` with ``seq = 2``,
``d_model = 2``, ``heads = 2`` (head width 1, scores scaled by ``1/√1``), at the weights
``attnParams`` (query weights 0 and bias 1, keys read feature 0, values read feature 1, other biases
0, output projection reads the merged feature 0, i.e. head 0), along the line on which token 0 is
``(t, 1)`` and token 1 is ``(0, 0)``, has output coordinate ``(0, 0)`` equal to the logistic
``exp(t) / (exp(t) + 1)``. This file checks that the parameter choice is what the proof says, three
independent ways, against the closed form computed with ``math.exp``:

* the PyTorch module that ``pybridge`` compiles from the Lean Zoo term (float64);
* ``torch.nn.MultiheadAttention(2, 2, batch_first=True)`` loaded with the same weights (float64);
* the interpreter of ``Arch.eval`` written from the Lean definitions (:mod:`pybridge.laws.exact`),
  over Python floats, with the parameters nested as Lean's ``Arch.Params`` (the nesting of the Lean
  tuple ``attnParams``).

A symbolic run of the same interpreter checks the term that the Lean proof ``attn_coord`` writes by
hand in its ``show`` step: every operation in the same place, so that the definitional unfolding the
proof relies on is the one the interpreter (a clause-by-clause transcription of ``Arch.eval``)
computes. A negative control (values reading feature 0 instead of 1) gives ``t·σ(t)``, which the
comparison rejects. Tolerance: 1e-12 absolute in float64 (the outputs are in ``(0, 1)``).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import torch

from pybridge.laws import exact as E
from pybridge.torch import compile_term, runtime
from pybridge.zoo import instantiate

ROOT = Path(__file__).resolve().parents[1]
TOL = 1e-12
TS = [-3.0, -1.25, -0.5, 0.0, 0.3, 1.0, 2.5]

# attnParams of Formal/PL/Softmax.lean, as [out, in] weight matrices and biases
W_Q = [[0.0, 0.0], [0.0, 0.0]]
B_Q = [1.0, 1.0]
READ0 = [[1.0, 0.0], [1.0, 0.0]]
READ1 = [[0.0, 1.0], [0.0, 1.0]]
ZERO_B = [0.0, 0.0]


def _lean_params(w_v: list[list[float]]) -> tuple:
    """``attnParams`` with Lean's ``Arch.Params`` nesting (``None`` for ``PUnit``)."""
    n = None
    return (
        (n, ((n, (((W_Q, B_Q), (n, n)), ((READ0, ZERO_B), (n, n)))), ((w_v, ZERO_B), (n, n)))),
        ((((n, n), (n, (n, n))), n), (n, ((n, n), (READ0, ZERO_B)))),
    )


def _logistic(t: float) -> float:
    return math.exp(t) / (math.exp(t) + 1.0)


def _line(t: float) -> list[list[float]]:
    return [[t, 1.0], [0.0, 0.0]]


def _compiled(w_v: list[list[float]]):
    term, _ = instantiate("attention", {"seq": 2, "d_model": 2, "heads": 2})
    module = compile_term(term, dtype=torch.float64).eval()
    t64 = lambda rows: torch.tensor(rows, dtype=torch.float64)  # noqa: E731
    runtime.load_leaves(
        module,
        [(t64(W_Q), t64(B_Q)), (t64(READ0), t64(ZERO_B)), (t64(w_v), t64(ZERO_B)), (t64(READ0), t64(ZERO_B))],
    )
    return term, module


def test_loaded_weights_have_the_lean_nesting() -> None:
    term, module = _compiled(READ1)
    assert E.params_from_module(term, module) == _lean_params(READ1)


def test_compiled_module_is_the_logistic_along_the_line() -> None:
    _, module = _compiled(READ1)
    x = torch.tensor([_line(t) for t in TS], dtype=torch.float64)
    with torch.no_grad():
        y = module(x)
    for i, t in enumerate(TS):
        assert abs(y[i, 0, 0].item() - _logistic(t)) < TOL, t


def test_torch_multihead_attention_agrees() -> None:
    mha = torch.nn.MultiheadAttention(2, 2, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.tensor(W_Q + READ0 + READ1, dtype=torch.float64))
        mha.in_proj_bias.copy_(torch.tensor(B_Q + ZERO_B + ZERO_B, dtype=torch.float64))
        mha.out_proj.weight.copy_(torch.tensor(READ0, dtype=torch.float64))
        mha.out_proj.bias.copy_(torch.tensor(ZERO_B, dtype=torch.float64))
    x = torch.tensor([_line(t) for t in TS], dtype=torch.float64)
    with torch.no_grad():
        y, _ = mha(x, x, x, need_weights=False)
    for i, t in enumerate(TS):
        assert abs(y[i, 0, 0].item() - _logistic(t)) < TOL, t


def test_interpreter_of_arch_eval_is_the_logistic() -> None:
    term, _ = instantiate("attention", {"seq": 2, "d_model": 2, "heads": 2})
    for t in TS:
        out = E.eval_term(term, _lean_params(READ1), _line(t), E.FLOAT)
        assert abs(out[0][0] - _logistic(t)) < TOL, t


def test_negative_control_values_on_feature_0() -> None:
    # values read the moving feature: the coordinate is t·σ(t), which the comparison rejects
    _, module = _compiled(READ0)
    for t in (2.0, -1.5):
        with torch.no_grad():
            y = module(torch.tensor([_line(t)], dtype=torch.float64))[0, 0, 0].item()
        assert abs(y - t * _logistic(t)) < TOL
        assert abs(y - _logistic(t)) > 0.1


# --- the hand-unfolded term of the Lean proof, against a symbolic run of the interpreter ----------


class _Sym:
    """Scalars as expression trees: ``("+", a, b)``, ``("*", a, b)``, ``("exp", a)``, ..."""

    name = "symbolic"
    zero = "0"
    one = "1"

    def of(self, v):  # pragma: no cover - parameters are given as symbols
        return str(v)

    def add(self, a, b):
        return ("+", a, b)

    def mul(self, a, b):
        return ("*", a, b)

    def neg(self, a):
        return ("neg", a)

    def inv(self, a):
        return ("inv", a)

    def of_nat(self, n):
        return f"ofNat{n}"

    def lt(self, a, b):  # pragma: no cover - attention never branches
        raise AssertionError("no order test in attention")

    def exp(self, a):
        return ("exp", a)

    def sqrt(self, a):
        return ("sqrt", a)


_TEMP = ("inv", ("sqrt", "ofNat1"))


def _parse_lean_term(src: str):
    """Parse the arithmetic of a Lean `show` term into the trees of :class:`_Sym` (`_` is a hole)."""
    src = src.replace("(Scalar.zero : α)", " 0 ").replace("(Scalar.one : α)", " 1 ").replace("(_ : α)", " _ ")
    src = re.sub(r"x r([01]) r([01])", r" x\1\2 ", src)
    toks = re.findall(r"\(|\)|\+|\*|[A-Za-z_][A-Za-z0-9_.]*|\d+", src)
    pos = 0

    def peek():
        return toks[pos] if pos < len(toks) else None

    def take(expected=None):
        nonlocal pos
        tok = toks[pos]
        assert expected is None or tok == expected, (expected, tok, pos)
        pos += 1
        return tok

    def atom():
        if peek() == "(":
            take("(")
            e = expr()
            take(")")
            return e
        tok = take()
        if tok in ("Transcendental.exp", "Scalar.inv"):
            return ("exp" if tok.endswith("exp") else "inv", atom())
        if tok in ("temp", "Softmax.temp"):
            return _TEMP
        return tok

    def product():
        e = atom()
        while peek() == "*":
            take("*")
            e = ("*", e, atom())
        return e

    def expr():
        e = product()
        while peek() == "+":
            take("+")
            e = ("+", e, product())
        return e

    tree = expr()
    assert pos == len(toks), toks[pos:]
    return tree


def _matches(pattern, tree) -> bool:
    if pattern == "_":
        return True
    if isinstance(pattern, str) or isinstance(tree, str):
        return pattern == tree
    return (
        len(pattern) == len(tree)
        and pattern[0] == tree[0]
        and all(_matches(p, t) for p, t in zip(pattern[1:], tree[1:], strict=True))
    )


def _show_term(lean: str, start: str) -> str:
    i = lean.index(start)
    return lean[i + len("  show") : lean.index("= _", i)]


def test_show_term_of_attn_coord_is_the_unfolded_eval() -> None:
    lean = (ROOT / "Formal" / "PL" / "Softmax.lean").read_text(encoding="utf-8")
    pattern = _parse_lean_term(_show_term(lean, "  show (Scalar.zero : α) + (Scalar.one : α) *"))
    term, _ = instantiate("attention", {"seq": 2, "d_model": 2, "heads": 2})
    sym = [["0", "0"], ["0", "0"]]
    read0 = [["1", "0"], ["1", "0"]]
    read1 = [["0", "1"], ["0", "1"]]
    n = None
    zb = ["0", "0"]
    params = (
        (n, ((n, (((sym, ["1", "1"]), (n, n)), ((read0, zb), (n, n)))), ((read1, zb), (n, n)))),
        ((((n, n), (n, (n, n))), n), (n, ((n, n), (read0, zb)))),
    )
    out = E.arch_eval(_Sym(), term, params, [["x00", "x01"], ["x10", "x11"]])[0][0]
    assert _matches(pattern, out)
    # the one hole stands for the head-1 entry that the zero output weight multiplies
    assert pattern[1][2] == ("*", "0", "_")
    # negative control: swapping two input entries in the pattern is caught
    text = _show_term(lean, "  show (Scalar.zero : α) + (Scalar.one : α) *")
    assert not _matches(_parse_lean_term(text.replace("x r0 r1", "x r1 r0", 1)), out)


def test_show_term_of_attention_line_is_attn_coord_on_the_line() -> None:
    lean = (ROOT / "Formal" / "PL" / "Softmax.lean").read_text(encoding="utf-8")
    pattern = _parse_lean_term(_show_term(lean, "  show Transcendental.exp (Softmax.temp * ((Scalar.zero"))
    # the line's entries base + dir * t: token 0 = (0 + 1 t, 1 + 0 t), token 1 = (0 + 0 t, 0 + 0 t)
    x = [
        [("+", "0", ("*", "1", "t")), ("+", "1", ("*", "0", "t"))],
        [("+", "0", ("*", "0", "t")), ("+", "0", ("*", "0", "t"))],
    ]

    def e(a):
        return ("exp", ("*", _TEMP, a))

    den = ("inv", ("+", e(x[0][0]), e(x[1][0])))
    expected = ("+", ("*", ("*", e(x[0][0]), den), x[0][1]), ("*", ("*", e(x[1][0]), den), x[1][1]))
    assert pattern == expected
