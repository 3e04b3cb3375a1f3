"""The straight-line realisation: a layer term as one flat ``forward`` of tensor operations.

:func:`straight_source` turns a term (after the optimising pass of :mod:`pybridge.torch.optimize`) into
the source of ``class Net(nn.Module)``: ``__init__`` registers the parametrised leaves (``Linear``,
``LayerNorm`` of :mod:`pybridge.torch.runtime`) in the depth-first order of the Lean term, so
:func:`~pybridge.torch.runtime.load_leaves` and the ``from_torch`` adapters load the same
``(weight, bias)`` pairs as into the literal module tree; ``forward`` has one line per primitive,
each with a comment naming the Lean constructor and its path in the (optimised) term (``f``/``g``:
the sides of ``≫``/``⊗``, ``f[i]``: branch ``i`` of a ``copair``; ``·``: the root). The structural
constructors (``id``, ``comp``, ``par``, ``copy``, ``fst``, ``snd``) emit no line: they only route
variables. Head split and merge are views (``unflatten``, ``transpose``); the merge's ``flatten`` of
a transposed tensor copies once, as in ``nn.MultiheadAttention``. ``sdpa`` is one call of
``scaled_dot_product_attention``. A ``copair`` runs by dispatch (``Formal.Arch.copair_dispatch``): for
each branch ``i``, the rows tagged ``i`` (``nonzero``) are gathered (``index_select``), branch ``i`` runs on
them alone, and its results are written into those rows of the output (``index_put_``). While
``torch.compile`` traces without Dynamo's ``capture_dynamic_output_shape_ops``
(:data:`MASKED_UNDER_COMPILE`), ``nonzero``'s data-dependent size would break ``fullgraph=True``, so it
runs the compile-friendly form instead: every branch on every row, each row's branch selected by a
mask. With that setting on, Dynamo traces the dispatch itself.
Without that lemma declared in ``Formal/`` only the masked form is emitted (it is the literal
semantics of ``runtime.Copair``, not a rewrite).
A constructor without a template here (:data:`TEMPLATES`) is realised by its runtime module, called
as one line (``self.mN(...)``), so constructors added elsewhere keep working.

The emitter writes this class into the emitted file; :func:`build` executes the same source in this
process (:func:`pybridge.torch.compile_term` with ``literal=False``).
"""

from __future__ import annotations

import linecache
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import count

import torch

from pybridge.errors import ShapeError
from pybridge.spec import terms as T
from pybridge.spec.shapes import CoprodShape, ProdShape, Shape, TensorShape
from pybridge.spec.typing import signature
from pybridge.torch import runtime
from pybridge.torch.compiler import _const, _int, realize
from pybridge.torch.optimize import COPAIR_DISPATCH, GLU_STACKED, declared_theorems, optimise


@dataclass(frozen=True)
class Tagged:
    """A value of a coproduct: the variable holding the tags, and the value."""

    tag: str
    value: Val


#: A symbolic value: a variable name, a pair of values, or a tagged value.
Val = str | tuple["Val", "Val"] | Tagged


#: The condition under which an emitted ``copair`` runs its masked form: while ``torch.compile`` traces
#: without ``capture_dynamic_output_shape_ops`` (``nonzero``'s data-dependent size would then break
#: ``fullgraph=True``). With that flag on, Dynamo traces the dispatch (sizes become unbacked symbols).
MASKED_UNDER_COMPILE = (
    "torch.compiler.is_compiling() and not torch._dynamo.config.capture_dynamic_output_shape_ops"
)

_ASSIGNED = re.compile(r"^\s*((?:v\d+, )*v\d+) = ")


def _assigned(lines: list[str]) -> set[str]:
    """The variables that ``lines`` assign (``vN = …`` or ``vN, vM = …``)."""
    return {n for line in lines if (m := _ASSIGNED.match(line)) for n in m.group(1).split(", ")}


def _leaves_of(v: Val) -> list[str]:
    if isinstance(v, str):
        return [v]
    if isinstance(v, Tagged):
        return [v.tag, *_leaves_of(v.value)]
    return [*_leaves_of(v[0]), *_leaves_of(v[1])]


def _rebuild(v: Val, names: list[str]) -> Val:
    """``v``'s structure with its leaves renamed to ``names`` (in the order of :func:`_leaves_of`)."""
    it = iter(names)

    def go(w: Val) -> Val:
        if isinstance(w, str):
            return next(it)
        if isinstance(w, Tagged):
            tag = next(it)
            return Tagged(tag, go(w.value))
        return (go(w[0]), go(w[1]))

    return go(v)


def render_val(v: Val) -> str:
    """The Python expression for a value (tuples for pairs, ``(tag, value)`` for coproducts)."""
    if isinstance(v, str):
        return v
    if isinstance(v, Tagged):
        return f"({v.tag}, {render_val(v.value)})"
    return f"({render_val(v[0])}, {render_val(v[1])})"


@dataclass
class Program:
    """The pieces of ``class Net``: ``__init__`` lines, ``forward`` lines, the returned value, and the
    laws applied (``(lemma, where)``: the optimiser's rewrites, then ``copair_dispatch`` per copair)."""

    init: list[str] = field(default_factory=list)
    body: list[str] = field(default_factory=list)
    result: str = "x"
    rewrites: list[tuple[str, str]] = field(default_factory=list)


Template = Callable[["_Gen", T.Term, str, Val], Val]


class _Gen:
    def __init__(self, lemmas: frozenset[str]) -> None:
        self.prog = Program()
        self.fresh = count()
        self.modules: dict[str, str] = {}
        self.depth = 2
        self.lemmas = lemmas

    # -- helpers
    def var(self) -> str:
        return f"v{next(self.fresh)}"

    def line(self, text: str) -> None:
        self.prog.body.append("    " * self.depth + text)

    def op(self, expr: str, ctor: str, path: str) -> str:
        v = self.var()
        self.line(f"{v} = {expr}  # {ctor} @ {path}")
        return v

    def module(self, term: T.Term, path: str, prefix: str, source: str | None = None, note: str = "") -> str:
        """The attribute holding the runtime module of ``term`` at ``path`` (registered once, in the
        order of first use, which is the depth-first order of the term); ``source`` replaces the
        module's constructor call and ``note`` its comment."""
        from pybridge.torch.emit import render_call

        if path not in self.modules:
            name = f"{prefix}{len(self.modules)}"
            self.modules[path] = name
            source = source or render_call(realize(term), indent=2)
            note = note or f"{_ctor_name(term)} @ {path}"
            self.prog.init.append(f"        self.{name} = {source}  # {note}")
        return f"self.{self.modules[path]}"

    def bind(self, expr: str, shape: Shape, ctor: str, path: str) -> Val:
        """Evaluate ``expr`` once and destructure it by ``shape`` into variables."""
        v = self.op(expr, ctor, path)
        return self.unpack(v, shape)

    def unpack(self, v: str, shape: Shape) -> Val:
        if isinstance(shape, ProdShape):
            a, b = self.var(), self.var()
            self.line(f"{a}, {b} = {v}")
            return (self.unpack(a, shape.a), self.unpack(b, shape.b))
        if isinstance(shape, CoprodShape):
            tag, val = self.var(), self.var()
            self.line(f"{tag}, {val} = {v}")
            return Tagged(tag, self.unpack(val, shape.a))
        return v

    # -- the walk
    def run(self, term: T.Term, path: str, x: Val) -> Val:
        template = TEMPLATES.get(type(term))
        if template is None:
            attr = self.module(term, path, "m")
            return self.bind(f"{attr}({render_val(x)})", signature(term).cod, _ctor_name(term), path)
        return template(self, term, path, x)


def _ctor_name(term: T.Term) -> str:
    return str(getattr(term, "kind", type(term).__name__))


def _join(path: str, step: str) -> str:
    return step if path == "·" else f"{path}.{step}"


def _pair(x: Val, term: T.Term) -> tuple[Val, Val]:
    if not isinstance(x, tuple):
        raise ShapeError(f"{_ctor_name(term)} expects a pair")  # pragma: no cover - typing rules out
    return x


# --- templates: one per constructor --------------------------------------------------------------


def _id(g: _Gen, t: T.Term, p: str, x: Val) -> Val:
    return x


def glu_dims(t: T.Term) -> tuple[int, int] | None:
    """``(m, n)`` when ``t`` is the left side of ``Formal.Arch.glu_stacked``,
    ``copy (tensor [m]) ≫ (linear [] m n ⊗ (linear [] m n ≫ sigmoid [n])) ≫ mul [n]``, with ``m`` and
    ``n`` known integers; else None."""
    match t:
        case T.Comp(
            f=T.Copy(s=TensorShape(dims=(m,))),
            g=T.Comp(
                f=T.Par(
                    f=T.Linear(pre=(), m=m1, n=n1),
                    g=T.Comp(f=T.Linear(pre=(), m=m2, n=n2), g=T.Sigmoid(s=(n3,))),
                ),
                g=T.Mul(s=(n4,)),
            ),
        ):
            if isinstance(m, int) and isinstance(n1, int) and m == m1 == m2 and n1 == n2 == n3 == n4:
                return m, n1
    return None


def _comp(g: _Gen, t: T.Term, p: str, x: Val) -> Val:
    assert isinstance(t, T.Comp)
    dims = glu_dims(t) if GLU_STACKED.lemma in g.lemmas else None
    if dims is not None and isinstance(x, str):
        # Formal.Arch.glu_stacked: both linear leaves in one StackedLinear (rows of the first above
        # the second's), one F.linear, then F.glu (first half times the sigmoid of the second half).
        m, n = dims
        w = g.module(t, p, "p", f"StackedLinear({m}, {n}, **kw)", f"linear, linear @ {_join(p, 'g.f')}")
        g.prog.rewrites.append((GLU_STACKED.lemma, p))
        return g.op(
            f"F.glu(F.linear({x}, {w}.weight, {w}.bias), -1)",
            f"glu ({GLU_STACKED.lemma})",
            p,
        )
    return g.run(t.g, _join(p, "g"), g.run(t.f, _join(p, "f"), x))


def _par(g: _Gen, t: T.Term, p: str, x: Val) -> Val:
    assert isinstance(t, T.Par)
    a, b = _pair(x, t)
    return (g.run(t.f, _join(p, "f"), a), g.run(t.g, _join(p, "g"), b))


def _copy(g: _Gen, t: T.Term, p: str, x: Val) -> Val:
    return (x, x)


def _fst(g: _Gen, t: T.Term, p: str, x: Val) -> Val:
    return _pair(x, t)[0]


def _snd(g: _Gen, t: T.Term, p: str, x: Val) -> Val:
    return _pair(x, t)[1]


def _binary(symbol: str) -> Template:
    def emit(g: _Gen, t: T.Term, p: str, x: Val) -> Val:
        a, b = _pair(x, t)
        return g.op(f"{render_val(a)} {symbol} {render_val(b)}", _ctor_name(t), p)

    return emit


def _unary(fmt: str) -> Template:
    def emit(g: _Gen, t: T.Term, p: str, x: Val) -> Val:
        return g.op(fmt.format(x=render_val(x)), _ctor_name(t), p)

    return emit


def _scale(g: _Gen, t: T.Term, p: str, x: Val) -> Val:
    assert isinstance(t, T.Scale)
    _, src = _const(t.c)
    return g.op(f"{render_val(x)} * ({src})", "scale", p)


def _linear(g: _Gen, t: T.Term, p: str, x: Val) -> Val:
    w = g.module(t, p, "p")
    return g.op(f"F.linear({render_val(x)}, {w}.weight, {w}.bias)", "linear", p)


def _layer_norm(g: _Gen, t: T.Term, p: str, x: Val) -> Val:
    w = g.module(t, p, "p")
    return g.op(
        f"F.layer_norm({render_val(x)}, {w}.normalized_shape, {w}.weight, {w}.bias, {w}.eps)", "layerNorm", p
    )


def _matmul(g: _Gen, t: T.Term, p: str, x: Val) -> Val:
    assert isinstance(t, T.MatMul)
    a, b = (render_val(v) for v in _pair(x, t))
    r = len(t.post)
    if r == 1:
        expr = f"{a} @ {b}"
    elif r == 0:
        expr = f"({a} @ {b}.unsqueeze(-1)).squeeze(-1)"
    else:
        expr = f"({a} @ {b}.flatten(start_dim={b}.dim() - {r})).unflatten(-1, {b}.shape[{b}.dim() - {r}:])"
    return g.op(expr, "matmul", p)


def _transpose(g: _Gen, t: T.Term, p: str, x: Val) -> Val:
    assert isinstance(t, T.Transpose)
    r = len(t.post)
    return g.op(f"{render_val(x)}.transpose({-r - 2}, {-r - 1})", "transpose", p)


def _split_last(g: _Gen, t: T.Term, p: str, x: Val) -> Val:
    assert isinstance(t, T.SplitLast)
    a, b = _int(t.a, "the split size", t), _int(t.b, "the split size", t)
    return g.op(f"{render_val(x)}.unflatten(-1, ({a}, {b}))", "splitLast", p)


def _route(g: _Gen, t: T.Term, p: str, x: Val) -> Val:
    logits, value = _pair(x, t)
    tag = g.op(f"torch.argmax({render_val(logits)}, dim=-1)", "route", p)
    return Tagged(tag, value)


def _sdpa(g: _Gen, t: T.Term, p: str, x: Val) -> Val:
    assert isinstance(t, T.Sdpa)
    qk, v = _pair(x, t)
    q, k = _pair(qk, t)
    width = _int(t.k, "the head width", t)
    scale = f"1 / math.sqrt({width})" if width else "0.0"
    return g.op(
        f"F.scaled_dot_product_attention({render_val(q)}, {render_val(k)}, {render_val(v)}, "
        f"is_causal={bool(t.causal)}, scale={scale})",
        "sdpa",
        p,
    )


def _copair(g: _Gen, t: T.Term, p: str, x: Val) -> Val:
    assert isinstance(t, T.Copair)
    if not isinstance(x, Tagged):
        raise ShapeError("copair expects a tagged value")  # pragma: no cover - typing rules out
    k = _int(t.k, "the number of branches", t)
    dispatch = COPAIR_DISPATCH.lemma in g.lemmas
    tag, inputs = x.tag, _leaves_of(x.value)
    shape_val: Val | None = None

    def branch(i: int, value: Val) -> Val:
        return g.run(t.f, f"{_join(p, 'f')}[{i}]", value)

    # The masked form is the literal semantics (every branch on every row, each row's branch
    # selected, as runtime.Copair); it is the whole realisation when copair_dispatch is not declared.
    if dispatch:
        g.line(f"if {MASKED_UNDER_COMPILE}:  # compile-friendly copair: every branch on every row")
        g.depth += 1
    results = [branch(i, x.value) for i in range(k)]
    shape_val = results[0]
    leaves = [_leaves_of(r) for r in results]
    outputs = [g.var() for _ in leaves[0]]
    for j, out in enumerate(outputs):
        expr = leaves[0][j]
        for i in range(1, k):
            expr = f"rows_where({tag} == {i}, {leaves[i][j]}, {expr})"
        g.line(f"{out} = {expr}  # copair @ {p}: row r from branch tag[r]")
    if not dispatch:
        return _rebuild(shape_val, outputs)
    g.depth -= 1
    g.prog.rewrites.append((COPAIR_DISPATCH.lemma, p))
    g.line(f"else:  # copair by dispatch ({COPAIR_DISPATCH.lemma}): branch i runs on its rows only")
    g.depth += 1
    for i in range(k):
        start = len(g.prog.body)
        rows = g.var()
        g.line(f"{rows} = ({tag} == {i}).nonzero().squeeze(1)  # copair @ {p}: the rows of branch {i}")
        gathered = []
        for name in inputs:
            v = g.var()
            g.line(f"{v} = {name}.index_select(0, {rows})")
            gathered.append(v)
        got = _leaves_of(branch(i, _rebuild(x.value, gathered)))
        for out_name, y in zip(outputs, got, strict=True):
            if i == 0:
                # (tuple + shape, not unpacking, so that torch.fx can trace it)
                g.line(f"{out_name} = {y}.new_empty(({tag}.shape[0],) + {y}.shape[1:])  # the output rows")
            # index_put_ (as out[rows] = y; not index_copy_, whose backward keeps the source alive)
            g.line(f"{out_name}.index_put_(({rows},), {y})  # rows of branch {i} into place")
        # free what this branch assigned at this level (not inside a nested copair's arms, where a
        # variable of the arm not taken would be unbound)
        level = "    " * g.depth
        mine = [line for line in g.prog.body[start:] if line.startswith(level) and line[len(level)] != " "]
        temps = sorted(_assigned(mine) - set(outputs), key=lambda n: int(n[1:]))
        g.line(f"del {', '.join(temps)}")
    g.depth -= 1
    return _rebuild(shape_val, outputs)


#: Straight-line templates, by term class; a class missing here is realised by its runtime module.
TEMPLATES: dict[type, Template] = {
    T.Id: _id,
    T.Comp: _comp,
    T.Par: _par,
    T.Copy: _copy,
    T.Fst: _fst,
    T.Snd: _snd,
    T.Add: _binary("+"),
    T.Mul: _binary("*"),
    T.Scale: _scale,
    T.Linear: _linear,
    T.ReLU: _unary("torch.relu({x})"),
    T.Sigmoid: _unary("torch.sigmoid({x})"),
    T.Softmax: _unary("torch.softmax({x}, dim=-1)"),
    T.LayerNorm: _layer_norm,
    T.MatMul: _matmul,
    T.Transpose: _transpose,
    T.SplitLast: _split_last,
    T.MergeLast: _unary("{x}.flatten(start_dim=-2)"),
    T.Route: _route,
    T.Copair: _copair,
    T.Sdpa: _sdpa,
}


# --- the class ---------------------------------------------------------------------------------------


def program(term: T.Term, lemmas: frozenset[str] | None = None) -> Program:
    """Optimise ``term`` (rewrites whose lemmas are in ``lemmas``; default: those declared in
    ``Formal/``) and lay it out as straight-line code."""
    known = declared_theorems() if lemmas is None else frozenset(lemmas)
    opt = optimise(term, known)
    gen = _Gen(known)
    gen.prog.rewrites.extend(opt.applied)
    dom = signature(opt.term).dom
    x = gen.unpack("x", dom)
    gen.prog.result = render_val(gen.run(opt.term, "·", x))
    gen.prog.body = _free_dead(gen.prog.body, gen.prog.result)
    return gen.prog


_VAR = re.compile(r"\bv\d+\b")


def _free_dead(body: list[str], result: str) -> list[str]:
    """Insert ``del`` after the last use of each intermediate variable assigned at the top level of
    ``forward``, so that a tensor is released as soon as nothing needs it (as in the nested modules,
    whose temporaries die with each call). A ``copair``'s ``if``/``else`` block counts as one statement;
    variables assigned inside it are left alone (each arm has its own)."""
    groups: list[list[str]] = []
    for line in body:
        top = line.startswith("        ") and not line.startswith("         ")
        if top and not line.strip().startswith("else:"):
            groups.append([line])
        else:
            groups[-1].append(line)
    defined: dict[str, int] = {}
    last: dict[str, int] = {}
    for i, group in enumerate(groups):
        for line in group:
            code = line.split("#", 1)[0]
            for name in _VAR.findall(code):
                last[name] = i
        if len(group) == 1 and " = " in group[0]:
            for name in _VAR.findall(group[0].split(" = ", 1)[0]):
                defined.setdefault(name, i)
    keep = set(_VAR.findall(result))
    dies: dict[int, list[str]] = {}  # group index → the variables whose last use it is
    for name in defined:
        if name not in keep:
            dies.setdefault(last[name], []).append(name)
    out: list[str] = []
    for i, group in enumerate(groups):
        out.extend(group)
        dead = sorted(dies.get(i, ()), key=lambda n: int(n[1:]))
        if dead:
            out.append(f"        del {', '.join(dead)}")
    return out


def class_source(prog: Program, doc: str = "The layer's Lean term as straight-line PyTorch.") -> str:
    """The source of ``class Net(nn.Module)`` for a :class:`Program`."""
    lines = [
        "class Net(nn.Module):",
        f"    {doc!r}",
        "",
        "    def __init__(self, *, device=None, dtype=None):",
        "        super().__init__()",
        '        kw = {"device": device, "dtype": dtype}',
        *prog.init,
        "",
        "    def forward(self, x):",
        *prog.body,
        f"        return {prog.result}",
    ]
    return "\n".join(lines) + "\n"


_counter = count()


def build(
    term: T.Term,
    *,
    dtype: torch.dtype,
    device: torch.device | str | None,
    lemmas: frozenset[str] | None = None,
) -> torch.nn.Module:
    """The straight-line ``Net`` of ``term``, instantiated in this process from the same source that
    the emitter writes. Its ``lean_rewrites`` attribute lists the laws applied."""
    prog = program(term, lemmas)
    source = class_source(prog)
    filename = f"<pybridge-straight-{next(_counter)}>"
    # Register the source so that tracebacks and torch.compile can show the lines.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict[str, object] = {
        name: value for name, value in vars(runtime).items() if not name.startswith("__")
    }
    namespace.update({"torch": torch, "nn": torch.nn, "F": torch.nn.functional, "math": math})
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own generated source
    net = namespace["Net"](device=device, dtype=dtype)  # type: ignore[operator]
    net.lean_rewrites = tuple(prog.rewrites)
    return net
