"""The optimised straight-line realisation: rewrites gated by Lean lemmas, flat forward, copair by
dispatch, the runtime-module fallback, both realisations in ``check``, ``torch.compile(fullgraph=True)``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import torch

from pybridge.laws import exact as E
from pybridge.laws.checks import check_layer, configurations, leaf_pairs
from pybridge.lean.catalogue import load_catalogue
from pybridge.spec import terms as T
from pybridge.spec.shapes import tensor
from pybridge.spec.typing import signature
from pybridge.torch import compile_term, runtime, straight
from pybridge.torch.compiler import leaf_count
from pybridge.torch.emit import render_source
from pybridge.torch.optimize import (
    ASSOC,
    ATTN_CORE,
    ATTN_CORE_CAUSAL,
    CONGRUENCE,
    COPAIR_DISPATCH,
    GLU_STACKED,
    LAX_TOLERANCE,
    REWRITES,
    Rewrite,
    declared_theorems,
    optimise,
)
from pybridge.zoo import info, instantiate, layer_names, random_input

ZOO = layer_names()
#: Every lemma the pass can cite: with these given, every rewrite is enabled.
ALL_LEMMAS = frozenset([r.lemma for r in REWRITES] + list(CONGRUENCE.values()))
REPO = Path(__file__).resolve().parents[1]


def _theorems_in_formal(root: Path) -> set[str]:
    """Independent of the pass: ``theorem NAME`` at the start of a line of a file under ``Formal/``
    that opens ``namespace Formal.Arch``, qualified as ``Formal.Arch.NAME``."""
    names: set[str] = set()
    for path in (root / "Formal").rglob("*.lean"):
        text = path.read_text(encoding="utf-8")
        if not re.search(r"^namespace Formal\.Arch\s*$", text, re.M):
            continue
        names |= {f"Formal.Arch.{m}" for m in re.findall(r"^theorem\s+([A-Za-z_][\w']*)", text, re.M)}
    return names


def _instance(name: str, config: str = "example", seq: int = 5) -> tuple[T.Term, object]:
    return instantiate(name, configurations(name)[config] | {d: seq for d in info(name).runtime_dims})


def _pair(term: T.Term, lemmas: frozenset[str] | None = None, dtype: torch.dtype = torch.float64):
    """The literal tree and the straight-line Net of ``term``, with the same weights."""
    torch.manual_seed(0)
    literal = compile_term(term, dtype=dtype, literal=True).eval()
    fast = straight.build(term, dtype=dtype, device=None, lemmas=lemmas).eval()
    runtime.load_leaves(fast, leaf_pairs(literal))
    return literal, fast


# --- the pass -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "core"),
    [("attention", ATTN_CORE), ("encoderBlock", ATTN_CORE), ("causalAttention", ATTN_CORE_CAUSAL)],
)
def test_attention_core_becomes_sdpa_with_the_lemmas(name: str, core: Rewrite) -> None:
    term, sig = _instance(name)
    opt = optimise(term, ALL_LEMMAS)
    kinds = [t.kind for t in T.walk(opt.term)]
    assert kinds.count("sdpa") == 1 and "softmax" not in kinds and "causalSoftmax" not in kinds
    sdpa = next(t for t in T.walk(opt.term) if isinstance(t, T.Sdpa))
    assert sdpa.causal == (core is ATTN_CORE_CAUSAL)
    assert [lemma for lemma, _ in opt.applied] == [ASSOC.lemma, core.lemma]
    assert opt.applied[1][1] == opt.applied[0][1] + ".f"  # the core, left side of the reassociated ≫
    assert signature(opt.term) == signature(term)
    assert leaf_count(opt.term) == leaf_count(term)
    literal, fast = _pair(term, ALL_LEMMAS)
    assert len(runtime._leaves(fast)) == len(runtime._leaves(literal))
    x = random_input(sig.dom, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        err = (fast(x) - literal(x)).abs().max().item()
    assert err <= LAX_TOLERANCE[torch.float64]  # lax: scaled_dot_product_attention rounds differently
    assert tuple(fast.lean_rewrites) == tuple(opt.applied)


def test_a_rewrite_needs_its_lemma_and_the_congruence_lemmas() -> None:
    term, _ = _instance("attention")
    assert optimise(term, ALL_LEMMAS - {ATTN_CORE.lemma}).applied == []
    causal, _ = _instance("causalAttention")  # the causal core needs its own lemma
    assert optimise(causal, ALL_LEMMAS - {ATTN_CORE_CAUSAL.lemma}).applied == []
    assert optimise(causal, ALL_LEMMAS - {ATTN_CORE.lemma}).applied != []
    assert optimise(term, ALL_LEMMAS - {ASSOC.lemma}).applied == []
    # The core sits on the right of the top-level ≫: without eval_congr_comp_right nothing is rewritten.
    assert optimise(term, ALL_LEMMAS - {CONGRUENCE[("comp", "g")]}).applied == []
    assert optimise(term, frozenset()).term == term


def test_declared_theorems_are_read_from_the_lean_sources(tmp_path: Path) -> None:
    (tmp_path / "Formal").mkdir()
    (tmp_path / "lakefile.lean").write_text("import Lake\n", encoding="utf-8")
    (tmp_path / "Formal/R.lean").write_text(
        "namespace Formal.Arch\n\n"
        "-- theorem attnCoreCausal_eq_sdpa : True := trivial   (a comment declares nothing)\n"
        "/-- doc -/\ntheorem attnCore_eq_sdpa : True := trivial\n\n"
        "def eval_comp_assoc : Nat := 0\n\n"
        "end Formal.Arch\n",
        encoding="utf-8",
    )
    assert declared_theorems(tmp_path) == {"Formal.Arch.attnCore_eq_sdpa"}


def test_every_cited_lemma_is_declared_in_formal() -> None:
    """LEAN_REWRITES of every Zoo layer names only theorems of ``Formal/`` (scanned independently)."""
    declared = _theorems_in_formal(REPO)
    cat = load_catalogue()
    for name in ZOO:
        text = render_source(cat, name, configurations(name)["example"])
        node = next(
            n
            for n in ast.parse(text).body
            if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "LEAN_REWRITES"
        )
        for lemma, where in ast.literal_eval(node.value):
            assert lemma in declared, f"{name}: {lemma} (at {where}) is not a theorem of Formal/"
    # The rewrites the pass applies by default are exactly those whose lemmas exist.
    assert declared_theorems() >= {ASSOC.lemma}
    term, _ = _instance("attention")
    applied = {lemma for lemma, _ in optimise(term).applied}
    assert applied <= declared
    assert (ATTN_CORE.lemma in applied) == ({ATTN_CORE.lemma, *CONGRUENCE.values()} <= declared)


# --- the straight-line realisation ---------------------------------------------------------------


@pytest.mark.parametrize("name", ZOO)
def test_straight_line_equals_literal_with_the_same_pairs(name: str) -> None:
    """Same leaves, same pairs; bit-identical unless a lax law was applied (then ≤ LAX_TOLERANCE)."""
    term, sig = _instance(name)
    literal, fast = _pair(term)
    assert [tuple(w.shape) for w, _ in leaf_pairs(fast)] == [tuple(w.shape) for w, _ in leaf_pairs(literal)]
    x = random_input(sig.dom, 7, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        got, want = fast(x), literal(x)
    laws = {r.lemma: r.law for r in REWRITES}
    if all(laws[lemma] == "strict" for lemma, _ in fast.lean_rewrites):
        assert torch.equal(got, want)
    else:
        assert (got - want).abs().max().item() <= LAX_TOLERANCE[torch.float64]


def test_forward_is_flat_and_commented() -> None:
    term, _ = _instance("attention")
    prog = straight.program(term, ALL_LEMMAS)
    lines = [line.strip() for line in prog.body]
    body = [line for line in lines if not line.startswith("del ")]
    assert all(re.fullmatch(r"v\d+ = .+  # \w+ @ [\w.\[\]·]+", line) for line in body), body
    # each intermediate is released after its last use (the result v12 is returned)
    freed = [v for line in lines if line.startswith("del ") for v in line[4:].split(", ")]
    assert sorted(freed, key=lambda v: int(v[1:])) == [f"v{i}" for i in range(12)]
    assert not any("contiguous" in line or "clone" in line or "self.m" in line for line in body)
    assert sum("F.scaled_dot_product_attention(" in line for line in body) == 1
    assert sum(".transpose(" in line for line in body) == 4  # three splits, one merge; K^T is fused
    assert [line.split("#")[1].strip() for line in body if "F.linear" in line] == [
        "linear @ f.g.f.g.f.f",
        "linear @ f.g.f.g.g.f",
        "linear @ f.g.g.f",
        "linear @ g.g.g",
    ]


def test_free_dead_releases_each_variable_right_after_its_last_use() -> None:
    """``del`` placement on a random flat program of 300 statements (each reads up to three earlier
    variables), against a brute-force scan: after statement i, exactly the variables whose last
    reading or assignment is statement i, the returned one excepted."""
    import random

    rng = random.Random(7)
    body, reads = [], []
    for i in range(300):
        used = sorted(rng.sample(range(i), min(i, rng.randint(0, 3))))
        reads.append(used)
        args = ", ".join(f"v{j}" for j in used) or "x"
        body.append(f"        v{i} = f({args})  # op @ p{i}")
    result = "v299"
    out = straight._free_dead(body, result)
    expected: list[str] = []
    for i, line in enumerate(body):
        expected.append(line)
        dead = [
            f"v{j}"
            for j in range(i + 1)
            if f"v{j}" != result and max([j, *(k for k in range(300) if j in reads[k])]) == i
        ]
        if dead:
            expected.append(f"        del {', '.join(dead)}")
    assert out == expected


def test_a_constructor_without_a_template_falls_back_to_its_runtime_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    term, sig = _instance("encoderBlock")
    monkeypatch.delitem(straight.TEMPLATES, T.LayerNorm)
    monkeypatch.delitem(straight.TEMPLATES, T.Softmax)
    prog = straight.program(term, frozenset())
    fallback = [line.strip() for line in prog.body if "self.m" in line]
    assert len(fallback) == 3  # two layer norms, one softmax
    assert all(re.fullmatch(r"v\d+ = self\.m\d+\(\w+\)  # (layerNorm|softmax) @ [\w.]+", f) for f in fallback)
    literal, fast = _pair(term, frozenset())
    kinds = [type(m).__name__ for m in runtime._leaves(fast)]
    assert kinds == ["LayerNorm", "Linear", "Linear", "Linear", "Linear", "LayerNorm", "Linear", "Linear"]
    x = random_input(sig.dom, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        assert torch.equal(fast(x), literal(x))


def test_copair_dispatch_runs_each_branch_on_its_rows_only(monkeypatch: pytest.MonkeyPatch) -> None:
    term, sig = instantiate("moe", {"d": 3, "experts": 4})
    literal, fast = _pair(term, ALL_LEMMAS)
    assert fast.lean_rewrites == ((COPAIR_DISPATCH.lemma, "g.g.g"),)
    calls: list[int] = []
    x = random_input(sig.dom, 9, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    (rw, rb), *experts = leaf_pairs(fast)
    tags = (x @ rw.T + rb).argmax(-1)
    original = torch.nn.functional.linear

    def counting(inp: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None = None) -> torch.Tensor:
        calls.append(inp.shape[0])
        return original(inp, w, b)

    monkeypatch.setattr(torch.nn.functional, "linear", counting)  # the Net reads F.linear at call time
    with torch.no_grad():
        got = fast(x)
    monkeypatch.undo()
    # the router on all 9 rows, then expert i on exactly the rows tagged i (possibly none)
    assert calls == [9, *(int((tags == i).sum()) for i in range(4))]
    for i in range(9):
        w, b = experts[int(tags[i])]
        assert (got[i] - (w @ x[i] + b)).abs().max() <= 1e-12
    with torch.no_grad():
        assert (got - literal(x)).abs().max().item() <= LAX_TOLERANCE[torch.float64]
    xg = x.clone().requires_grad_(True)
    assert torch.autograd.gradcheck(fast, (xg,), eps=1e-6, atol=1e-6)


def test_glu_runs_as_one_stacked_linear_under_glu_stacked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Formal.Arch.glu_stacked: one F.linear of width 2n over the stacked weights, then F.glu; the two
    Lean leaves stay two weight sets (views of the stacked parameters), in the term's order."""
    term, sig = instantiate("glu", {"d_in": 5, "d_out": 3})
    literal, fast = _pair(term, ALL_LEMMAS)
    assert fast.lean_rewrites == ((GLU_STACKED.lemma, "·"),)
    assert [type(m).__name__ for m in fast.modules()] == ["Net", "StackedLinear"]
    (w, b), (w2, b2) = leaf_pairs(literal)
    # the reparametrisation is Kernel.stack, i.e. torch.cat along the rows: value rows above gate rows
    assert torch.equal(fast.p0.weight.detach(), torch.cat((w, w2)))
    assert torch.equal(fast.p0.bias.detach(), torch.cat((b, b2)))
    assert [(tuple(a.shape), tuple(c.shape)) for a, c in leaf_pairs(fast)] == [((3, 5), (3,)), ((3, 5), (3,))]
    widths: list[int] = []
    original = torch.nn.functional.linear

    def counting(inp: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
        widths.append(weight.shape[0])
        return original(inp, weight, bias)

    x = random_input(sig.dom, 7, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    monkeypatch.setattr(torch.nn.functional, "linear", counting)
    with torch.no_grad():
        got = fast(x)
    monkeypatch.undo()
    assert widths == [6]  # one matrix product of width 2n, not two of width n
    # independent reference: the Lean term's meaning written by hand, value ⊙ σ(gate)
    want = (x @ w.T + b) * torch.sigmoid(x @ w2.T + b2)
    assert (got - want).abs().max().item() <= 1e-12
    with torch.no_grad():
        assert (got - literal(x)).abs().max().item() <= LAX_TOLERANCE[torch.float64]
    # training: gradients reach the stacked parameters, and equal the two leaves' gradients stacked
    xg = x.clone().requires_grad_(True)
    assert torch.autograd.gradcheck(fast, (xg,), eps=1e-6, atol=1e-6)
    fast.zero_grad()
    literal.zero_grad()
    fast(x).sum().backward()
    literal(x).sum().backward()
    lit = [m for m in literal.modules() if isinstance(m, runtime.Linear)]
    assert torch.allclose(fast.p0.weight.grad, torch.cat([m.weight.grad for m in lit]), atol=1e-12)
    assert torch.allclose(fast.p0.bias.grad, torch.cat([m.bias.grad for m in lit]), atol=1e-12)


def test_glu_without_its_lemma_is_two_linears() -> None:
    term, _ = instantiate("glu", {"d_in": 5, "d_out": 3})
    prog = straight.program(term, ALL_LEMMAS - {GLU_STACKED.lemma})
    assert prog.rewrites == []
    assert sum("F.linear(" in line for line in prog.body) == 2
    assert not any("F.glu" in line for line in prog.body)


def test_glu_stacked_matches_only_its_left_side() -> None:
    """Terms that differ from the lemma's left side in any one place are not realised by F.glu."""
    m, n = 4, 3
    lin = T.Linear(pre=(), m=m, n=n)
    glu = T.Comp(
        f=T.Copy(s=tensor(m)),
        g=T.Comp(f=T.Par(f=lin, g=T.Comp(f=lin, g=T.Sigmoid(s=(n,)))), g=T.Mul(s=(n,))),
    )
    assert straight.glu_dims(glu) == (m, n)

    def shaped(left: T.Term, right: T.Term, join: T.Term) -> T.Term:
        return T.Comp(f=T.Copy(s=tensor(m)), g=T.Comp(f=T.Par(f=left, g=right), g=join))

    gate = T.Comp(f=lin, g=T.Sigmoid(s=(n,)))
    variants = [
        shaped(gate, lin, T.Mul(s=(n,))),  # the gate on the left branch instead of the right
        shaped(lin, gate, T.Add(s=(n,))),  # add instead of mul
        shaped(lin, T.Comp(f=lin, g=T.ReLU(s=(n,))), T.Mul(s=(n,))),  # relu instead of sigmoid
        # linears over a leading axis (the lemma is stated for pre = [])
        T.Comp(
            f=T.Copy(s=tensor(2, m)),
            g=T.Comp(
                f=T.Par(
                    f=T.Linear(pre=(2,), m=m, n=n),
                    g=T.Comp(f=T.Linear(pre=(2,), m=m, n=n), g=T.Sigmoid(s=(2, n))),
                ),
                g=T.Mul(s=(2, n)),
            ),
        ),
    ]
    for term in variants:
        signature(term)  # each variant is well typed
        assert straight.glu_dims(term) is None
        assert GLU_STACKED.lemma not in [lemma for lemma, _ in straight.program(term, ALL_LEMMAS).rewrites]


def test_glu_stacked_against_the_exact_interpreter() -> None:
    """The optimised glu's weights, read back as Lean's parameters through the stacked leaves, give the
    same values under the exact interpreter of Arch.eval as the module computes."""
    term, sig = instantiate("glu", {"d_in": 4, "d_out": 3})
    _, fast = _pair(term, ALL_LEMMAS)
    params = E.params_from_module(term, fast)
    x = random_input(sig.dom, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    with torch.no_grad():
        got = fast(x)
    for i in range(3):
        want = E.eval_term(term, params, E.sample(x, i), E.FLOAT)
        assert E.max_abs_error(want, E.tensor_to_lists(got[i])) <= 1e-12


def test_without_the_dispatch_lemma_copair_is_masked_and_strict() -> None:
    term, sig = instantiate("moe", {"d": 3, "experts": 4})
    prog = straight.program(term, ALL_LEMMAS - {COPAIR_DISPATCH.lemma})
    assert prog.rewrites == []
    assert not any("if " in line or "nonzero" in line for line in prog.body)
    literal, fast = _pair(term, ALL_LEMMAS - {COPAIR_DISPATCH.lemma})
    x = random_input(sig.dom, 9, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    with torch.no_grad():
        assert torch.equal(fast(x), literal(x))


def _routed(k: int, d: int, branch: T.Term) -> T.Term:
    """``copy ≫ (linear d k ⊗ id) ≫ route k ≫ copair k branch``: a hard router in front of ``branch``."""
    s = tensor(d)
    return T.Comp(
        f=T.Comp(f=T.Copy(s=s), g=T.Par(f=T.Linear(pre=(), m=d, n=k), g=T.Id(s=s))),
        g=T.Comp(f=T.Route(k=k, s=s), g=T.Copair(k=k, f=branch)),
    )


#: Branches the dispatch must handle beyond one ``Linear``: the identity (the gathered rows are the
#: result), a pair-valued branch (one output buffer per leaf), and a nested routed copair (its own
#: ``if``/``else`` inside a branch: only the variables of the branch's own level are freed).
DISPATCH_BRANCHES = {
    "id": T.Id(s=tensor(3)),
    "pair": T.Comp(f=T.Copy(s=tensor(3)), g=T.Par(f=T.Linear(pre=(), m=3, n=2), g=T.ReLU(s=(3,)))),
    "nested": _routed(2, 3, T.Linear(pre=(), m=3, n=3)),
}


@pytest.mark.parametrize("kind", list(DISPATCH_BRANCHES))
def test_dispatch_of_general_branches_equals_the_literal_tree(kind: str) -> None:
    term = _routed(3, 3, DISPATCH_BRANCHES[kind])
    literal, fast = _pair(term)
    # the inner copair of "nested" is laid out in both arms (masked, dispatch) of each of 3 branches
    assert [lemma for lemma, _ in fast.lean_rewrites].count(COPAIR_DISPATCH.lemma) == (
        1 + 2 * 3 if kind == "nested" else 1
    )
    x = torch.randn(40, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        got, want = fast(x), literal(x)
    got_leaves = got if isinstance(got, tuple) else (got,)
    want_leaves = want if isinstance(want, tuple) else (want,)
    assert len(got_leaves) == len(want_leaves)
    for g_, w_ in zip(got_leaves, want_leaves, strict=True):
        assert g_.shape == w_.shape
        assert (g_ - w_).abs().max().item() <= LAX_TOLERANCE[torch.float64]
    with torch.no_grad():  # one row, so that some branches get no rows at all
        one = fast(x[:1])
    assert (one if isinstance(one, tuple) else (one,))[0].shape[0] == 1


@pytest.mark.parametrize("kind", ["linear", "nested"])
def test_dispatch_is_traced_by_fx_and_export(kind: str) -> None:
    """torch.fx (symbolic tracing, which cannot index-assign or unpack a traced shape) and torch.export
    (strict and non-strict) capture the dispatch (each captured program calls ``nonzero``, which the
    masked form does not), and each captured program equals eager exactly."""
    branch = T.Linear(pre=(), m=3, n=3) if kind == "linear" else DISPATCH_BRANCHES["nested"]
    _, fast = _pair(_routed(3, 3, branch))
    x = torch.randn(11, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        want = fast(x)
        captured = [
            torch.fx.symbolic_trace(fast),
            torch.export.export(fast, (x,)).module(),
            torch.export.export(fast, (x,), strict=True).module(),
        ]
        for module in captured:
            assert "nonzero" in module.code
            assert (module(x) - want).abs().max().item() == 0.0


def test_dispatch_compiles_fullgraph_when_dynamo_may_trace_dynamic_sizes() -> None:
    """With ``capture_dynamic_output_shape_ops`` on, ``torch.compile(fullgraph=True)`` traces the dispatch
    itself (the captured graph calls ``nonzero``); with it off, the masked form (no ``nonzero``). Both
    equal eager at float64 ≤ 1e-10."""
    import torch._dynamo

    term, sig = instantiate("moe", {"d": 4, "experts": 3})
    torch.manual_seed(0)
    module = compile_term(term, dtype=torch.float64).eval()
    x = random_input(sig.dom, 7, dtype=torch.float64, generator=torch.Generator().manual_seed(6))
    with torch.no_grad():
        want = module(x)
    for flag in (True, False):
        torch._dynamo.reset()
        graphs: list[torch.fx.GraphModule] = []

        def backend(gm: torch.fx.GraphModule, _inputs: object, seen: list = graphs) -> object:
            seen.append(gm)
            return gm.forward

        with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=flag):
            compiled = torch.compile(module, fullgraph=True, backend=backend)
            with torch.no_grad():
                got = compiled(x)
        assert (got - want).abs().max().item() <= 1e-10
        (gm,) = graphs
        targets = [str(n.target) for n in gm.graph.nodes if n.op in ("call_function", "call_method")]
        assert ("nonzero" in " ".join(targets)) == flag, targets
    torch._dynamo.reset()


def test_sdpa_runtime_against_the_exact_interpreter() -> None:
    """``Arch.sdpa`` realised by scaled_dot_product_attention against the float interpreter of its
    Lean semantics (matmul, scale, softmax, matmul), both values of ``causal``."""
    for causal in (False, True):
        term = T.Sdpa(heads=2, seq=3, k=4, causal=causal)
        module = compile_term(term, dtype=torch.float64)
        gen = torch.Generator().manual_seed(5)
        q, k, v = (torch.randn(2, 2, 3, 4, dtype=torch.float64, generator=gen) for _ in range(3))
        with torch.no_grad():
            y = module(((q, k), v))
        for i in range(2):
            want = E.eval_term(term, None, E.sample(((q, k), v), i), E.FLOAT)
            assert E.max_abs_error(want, E.tensor_to_lists(y[i])) <= 1e-12
        if causal:  # row 0 attends only to position 0
            assert torch.allclose(y[:, :, 0], v[:, :, 0])


def test_emit_literal_keeps_the_constructor_tree() -> None:
    cat = load_catalogue()
    lit = ast.parse(render_source(cat, "attention", {"d_model": 4, "heads": 2}, literal=True))
    classes = {n.name for n in lit.body if isinstance(n, ast.ClassDef)}
    assert "Net" not in classes and "Layer" in classes
    consts = {n.targets[0].id: n.value for n in lit.body if isinstance(n, ast.Assign)}  # type: ignore[attr-defined]
    assert ast.literal_eval(consts["LEAN_REWRITES"]) == []
    fast = ast.parse(render_source(cat, "attention", {"d_model": 4, "heads": 2}))
    assert "Net" in {n.name for n in fast.body if isinstance(n, ast.ClassDef)}


def test_check_reports_both_realisations() -> None:
    results = check_layer("moe", {"d": 3, "experts": 3}, batches=(4,))
    by = {r.realisation for r in results}
    assert by == {"optimised", "literal", "optimised vs literal"}
    cross = [r for r in results if r.realisation == "optimised vs literal"]
    assert all(r.reference == "literal" and r.passed for r in cross)
    if COPAIR_DISPATCH.lemma in _theorems_in_formal(REPO):  # dispatch is lax
        assert {r.tolerance for r in cross} == {LAX_TOLERANCE[torch.float64], LAX_TOLERANCE[torch.float32]}
    else:  # the masked copair is the literal computation
        assert {r.tolerance for r in cross} == {0.0}
    strict = [r for r in check_layer("mlp", None, batches=(3,)) if r.realisation == "optimised vs literal"]
    assert strict and all(r.tolerance == 0.0 and r.max_abs_error == 0.0 for r in strict)


# --- torch.compile -------------------------------------------------------------------------------------


FULLGRAPH = [
    (name, "aot_eager") for name in ("mlp", "glu", "attention", "encoderBlock", "moe", "hyperLinear")
] + [("mlp", "inductor"), ("moe", "inductor")]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "backend"), FULLGRAPH, ids=[f"{n}-{b}" for n, b in FULLGRAPH])
def test_optimised_layer_compiles_fullgraph(name: str, backend: str) -> None:
    """``torch.compile(fullgraph=True)`` of the optimised realisation equals eager at float64 ≤ 1e-10
    (``moe`` compiles its masked copair, eager runs the dispatch). ``fullgraph`` is decided by Dynamo's
    capture, the same for every backend: all six layers go through ``aot_eager`` (capture plus the
    autograd trace), and two through inductor's code generation as well, which is what costs time with a
    cold cache (about 10 s for ``mlp`` on one core here; the benchmark compiles all six with inductor:
    bench/bench_layers.py)."""
    term, sig = _instance(name)
    torch.manual_seed(0)
    module = compile_term(term, dtype=torch.float64).eval()
    compiled = torch.compile(module, fullgraph=True, backend=backend)
    x = random_input(sig.dom, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(6))
    with torch.no_grad():
        assert (compiled(x) - module(x)).abs().max().item() <= 1e-10


def test_the_reader_accepts_sdpa_with_a_bool(tmp_path: Path) -> None:
    """``Arch.sdpa`` is not written in the Zoo, but the reader reads it (its ``causal`` is a Bool)."""
    from tests.test_hostile import repo_copy

    root = repo_copy(tmp_path)
    x = "(.tensor [h, 3, 4])"
    defs = "".join(
        f"/-- Fused attention.\n\nPyTorch: none\n\nExample: `h=2` -/\n"
        f"def att{flag} (h : Nat) : Arch (.prod (.prod {x} {x}) {x}) {x} :=\n  Arch.sdpa h 3 4 {flag}\n\n"
        for flag in ("true", "false")
    )
    (root / "Formal/Zoo/Fused.lean").write_text(
        "import Formal.Network.Arch\n\n/-! A test layer. -/\n\nnamespace Formal.Zoo\n\n"
        f"open scoped Formal.Arch\n\n{defs}end Formal.Zoo\n",
        encoding="utf-8",
    )
    cat = load_catalogue(root)
    for flag in (True, False):
        term, _ = cat.instantiate(f"att{str(flag).lower()}", {"h": 2})
        assert term == T.Sdpa(heads=2, seq=3, k=4, causal=flag)
