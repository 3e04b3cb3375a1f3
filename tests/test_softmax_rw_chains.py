"""The rewriting chains of the polynomial identities in ``Formal/PL/Softmax.lean``, replayed.

No Lean toolchain runs here, so the identities that the logistic argument of VM.C2 needs
(``poly_*``, ``expand_*``, ``sum_rearrange_*``, ``mul_swap_outer``, ``mul_cycle``) are checked in two
independent ways, reading the Lean file itself:

* every stated identity is a true polynomial identity (``sympy.expand`` of ``lhs - rhs`` is ``0``);
* every ``rw [...]`` chain and every ``calc`` step is replayed on syntax trees as Lean's ``rw``
  performs it: the instantiated left side of each rule must occur in the goal, *all* its occurrences
  (in both sides of the equation) are replaced, and after the last rule both sides must be
  identical (``rw`` closes the goal by ``rfl``); a term step must state exactly the step; a
  ``show`` must be the statement with ``common`` unfolded; an ``exact`` must be the goal left.

The rule statements are read from the Lean sources too (``Formal/PL/Laws.lean`` and the file
itself), not restated here. Negative controls: a chain with one rule's arguments swapped (so that
its pattern occurs nowhere), and a chain with its last rule left out, are rejected.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import sympy

ROOT = Path(__file__).resolve().parents[1]
SOFTMAX = (ROOT / "Formal" / "PL" / "Softmax.lean").read_text(encoding="utf-8")
LAWS = (ROOT / "Formal" / "PL" / "Laws.lean").read_text(encoding="utf-8")
BLOCK = SOFTMAX[SOFTMAX.index("/-! ### Polynomial identities") : SOFTMAX.index("/-! ### The midpoint value")]
ALGEBRA = SOFTMAX[SOFTMAX.index("section Algebra") : SOFTMAX.index("/-! ### The midpoint value")]

Tree = str | tuple  # an atom, or (op, left, right) with op in "+*"


def _parse(src: str) -> Tree:
    """``+``/``*`` terms: Lean and Python both read them left-associative, ``*`` binding tighter."""

    def conv(n: ast.expr) -> Tree:
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add | ast.Mult):
            return ("+" if isinstance(n.op, ast.Add) else "*", conv(n.left), conv(n.right))
        if isinstance(n, ast.Name):
            return n.id
        raise ValueError(f"not a +/* term: {src!r}")

    return conv(ast.parse(" ".join(src.split()), mode="eval").body)


def _subst(t: Tree, env: dict[str, Tree]) -> Tree:
    if isinstance(t, str):
        return env.get(t, t)
    return (t[0], _subst(t[1], env), _subst(t[2], env))


def _count(t: Tree, p: Tree) -> int:
    if t == p:
        return 1
    return 0 if isinstance(t, str) else _count(t[1], p) + _count(t[2], p)


def _replace(t: Tree, p: Tree, r: Tree) -> Tree:
    if t == p:
        return r
    return t if isinstance(t, str) else (t[0], _replace(t[1], p, r), _replace(t[2], p, r))


def _split_top(s: str, sep: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return [x for x in out if x]


def _unparen(a: str) -> str:
    return a[1:-1] if a.startswith("(") and a.endswith(")") else a


# --- the rules, read from the Lean sources --------------------------------------------------------

Rule = tuple[list[str], Tree, Tree]  # variables, lhs, rhs


def _rules() -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    # class fields of OrderedFieldLaws: `name : ∀ a b c : α, lhs = rhs`
    for m in re.finditer(r"^\s+(\w+) : ∀ ([a-z ]+) : α, ([^\n]*?) = ([^\n]*)$", LAWS, re.M):
        _add(rules, "OrderedFieldLaws." + m.group(1), m.group(2), m.group(3), m.group(4))
    # theorems `name (vars : α) : lhs = rhs :=` of Laws.lean and of the block
    for src in (LAWS, ALGEBRA):
        for m in re.finditer(r"theorem (\w+) \(([\w ]+) : α\) :\s*((?:(?!:=).)*?) :=", src, re.S):
            sides = " ".join(m.group(3).split()).split(" = ")
            if len(sides) == 2 and "common" not in sides[0]:
                _add(rules, m.group(1), m.group(2), *sides)
    return rules


def _add(rules: dict[str, Rule], name: str, vars_: str, lhs: str, rhs: str) -> None:
    """Record a rule whose sides are `+`/`*` terms (rules with `0`, `1`, `-`, `⁻¹` are not used here)."""
    try:
        rules[name] = (vars_.split(), _parse(lhs), _parse(rhs))
    except (SyntaxError, ValueError):
        pass


RULES = _rules()


def _instance(rule: str) -> tuple[Tree, Tree]:
    """The equation of a rule applied to explicit arguments, e.g. ``mul_add B (A * C) (A * D)``."""
    parts = [_unparen(a) for a in _split_top(rule, " ")]
    vars_, lhs, rhs = RULES[parts[0]]
    assert len(parts) - 1 == len(vars_), rule
    env = {v: _parse(a) for v, a in zip(vars_, parts[1:], strict=True)}
    return _subst(lhs, env), _subst(rhs, env)


def _rw(goal: tuple[Tree, Tree], rules: list[str]) -> tuple[Tree, Tree]:
    lhs, rhs = goal
    for rule in rules:
        rev = rule.startswith("←")
        pat, new = _instance(rule.lstrip("← "))
        if rev:
            pat, new = new, pat
        assert _count(lhs, pat) + _count(rhs, pat) > 0, f"rw [{rule}]: pattern not found"
        lhs, rhs = _replace(lhs, pat, new), _replace(rhs, pat, new)
    return lhs, rhs


def _rule_list(src: str) -> list[str]:
    return _split_top(" ".join(src.split()), ",")


def _statement(name: str) -> tuple[str, str]:
    m = re.search(rf"theorem {name} \(([\w ]+) : α\)[^:]*:\s*((?:(?!:=).)*?) :=", BLOCK, re.S)
    assert m, name
    lhs, rhs = " ".join(m.group(2).split()).split(" = ")
    return lhs, rhs


def _proof(name: str) -> str:
    start = BLOCK.index(f"theorem {name} ")
    nxt = [BLOCK.find(k, start + 1) for k in ("\ntheorem ", "\n/--", "\ndef ")]
    return BLOCK[start : min([i for i in nxt if i > 0] + [len(BLOCK)])]


_COMMON_DEF = re.search(r"def common \(A B C D : α\) : α := (.*)\n", BLOCK)
assert _COMMON_DEF is not None
COMMON = _COMMON_DEF.group(1)
RW_ONLY = [
    "poly_affine_sum",
    "poly_star_left",
    "poly_star_right",
    "mul_swap_outer",
    "mul_cycle",
    "expand_b",
    "expand_d_right",
    "expand_a",
    "expand_c",
    "expand_d_left",
]
CALC = ["sum_rearrange_right", "sum_rearrange_left"]
POLY = ["poly_right_of_lt", "poly_left_of_lt", "poly_left_of_gt", "poly_right_of_gt"]


def _poly(tree: Tree) -> sympy.Expr:
    if isinstance(tree, str):
        return sympy.Symbol(tree)
    a, b = _poly(tree[1]), _poly(tree[2])
    return a + b if tree[0] == "+" else a * b


@pytest.mark.parametrize("name", RW_ONLY + CALC + POLY)
def test_identity_is_a_polynomial_identity(name: str) -> None:
    lhs, rhs = (_parse(s.replace("common A B C D", f"({COMMON})")) for s in _statement(name))
    assert sympy.expand(_poly(lhs) - _poly(rhs)) == 0


def _replay_rw_only(name: str, rules: list[str]) -> tuple[Tree, Tree]:
    lhs, rhs = _statement(name)
    return _rw((_parse(lhs), _parse(rhs)), rules)


@pytest.mark.parametrize("name", RW_ONLY)
def test_rw_chain_closes(name: str) -> None:
    lhs, rhs = _replay_rw_only(name, _chain(name))
    assert lhs == rhs


@pytest.mark.parametrize("name", CALC)
def test_calc_steps(name: str) -> None:
    body = " ".join(_proof(name).split(":=\n", 1)[1].split())
    assert body.startswith("calc ")
    first, *rest = body[len("calc ") :].split(" _ = ")
    start, first_step = first.split(" = ", 1)
    prev = _parse(start)
    for step in [first_step, *rest]:
        expr, just = (s.strip() for s in step.split(" := ", 1))
        nxt = _parse(expr)
        if just.startswith("by rw ["):
            lhs, rhs = _rw((prev, nxt), _rule_list(just[len("by rw [") : -1]))
            assert lhs == rhs, step
        else:
            symm = just.endswith(".symm")
            eq = _instance(_unparen(just[: -len(".symm")]) if symm else just)
            assert (eq[::-1] if symm else eq) == (prev, nxt), step
        prev = nxt
    assert (_parse(start), prev) == tuple(_parse(s) for s in _statement(name))


@pytest.mark.parametrize("name", POLY)
def test_poly_identities(name: str) -> None:
    proof = " ".join(_proof(name).split())
    lhs, rhs = _statement(name)
    assert lhs.startswith("common A B C D + ")
    m = re.search(r"by (show (.*?) )?rw \[(.*?)\] exact (.*)$", proof)
    assert m, name
    goal = (_parse(f"({COMMON})" + lhs[len("common A B C D") :]), _parse(rhs))
    if m.group(2):
        shown = tuple(_parse(s) for s in m.group(2).split(" = "))
        assert shown == goal, "the show term is the statement with common unfolded"
    left = _rw(goal, _rule_list(m.group(3)))
    exact = m.group(4).strip()
    if exact.split()[0] in RULES:
        assert _instance(exact) == left
    else:  # `exact poly_x_of_lt A B C D`
        other, args = exact.split()[0], exact.split()[1:]
        assert args == ["A", "B", "C", "D"]
        olhs, orhs = _statement(other)
        assert left == (_parse(f"({COMMON})" + olhs[len("common A B C D") :]), _parse(orhs))


def _closes(name: str, rules: list[str]) -> bool:
    try:
        lhs, rhs = _replay_rw_only(name, rules)
    except AssertionError:
        return False
    return lhs == rhs


def _chain(name: str) -> list[str]:
    m = re.search(r":= by\s*rw \[(.*?)\]\s*$", _proof(name), re.S)
    assert m, name
    return _rule_list(m.group(1))


def test_negative_control_swapped_arguments() -> None:
    rules = _chain("expand_b")
    assert "mul_left_comm B A D" in rules and _closes("expand_b", rules)
    # `mul_left_comm B A D` replaced by `mul_left_comm B D A`: its pattern `B * (D * A)` is nowhere
    bad = ["mul_left_comm B D A" if r == "mul_left_comm B A D" else r for r in rules]
    assert not _closes("expand_b", bad)


def test_negative_control_missing_rule() -> None:
    rules = _chain("expand_c")
    assert _closes("expand_c", rules)
    assert not _closes("expand_c", rules[:-1])
