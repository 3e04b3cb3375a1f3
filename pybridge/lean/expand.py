"""Give the parsed layer definitions their meaning as :mod:`pybridge.spec` terms.

A Zoo layer is a Lean ``def`` whose body is built from ``Arch`` constructors, other definitions
(``Arch.residual``, ``attention``, ``where`` helpers, definitions of imported files, …), ``let``
bindings, dimension arithmetic (``+ - * / %`` on ``Nat``, ``-`` truncated at 0 as in Lean), named
arguments and hypotheses. A ``let`` is read as Lean's ``let`` of a value: every use of ``x`` in
``let x := e; body`` stands for ``e`` (for an ``Arch`` value, each use is its own layer with its own
weights, as ``Arch.Params`` of the term with ``e`` substituted). :func:`instantiate`
substitutes the user's parameters for the explicit ``Nat`` binders, keeps implicit ``Nat`` binders
(such as ``seq``) as named run-time dimensions, checks the ``Prop`` binders (``0 < heads``,
``heads ∣ d_model``) on the values, expands definitions, and type-checks the resulting term against the
declared type. It reads the Lean source only; nothing is evaluated by Lean.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pybridge.errors import BridgeError, LeanParseError, ShapeError, UsageError
from pybridge.lean.parser import (
    App,
    Binder,
    BinOp,
    BrokenDef,
    Def,
    DotCtor,
    Ident,
    Let,
    ListLit,
    NamedArg,
    Neg,
    Node,
    Num,
)
from pybridge.spec import terms as T
from pybridge.spec.shapes import CoprodShape, Dim, ProdShape, Shape, TensorShape
from pybridge.spec.typing import Signature, signature


@dataclass(frozen=True)
class Proof:
    """A proof argument: the name of a hypothesis of an enclosing definition, and what it states, in
    the variables of the layer being instantiated (``None`` where that is not known symbolically)."""

    hypothesis: str
    statement: tuple | None = None


#: The largest dimension the reader computes (a ``Nat`` beyond it fits no tensor; Lean has no bound).
MAX_DIM = 2**62
#: How deeply definitions may call definitions (a recursive definition is refused before this).
MAX_CALL_DEPTH = 64
#: How many constructors one expansion may build (definitions can double a term at each level).
MAX_TERM_NODES = 100_000
#: How deeply the expanded term may nest (every consumer of a term recurses on it).
MAX_TERM_DEPTH = 150
#: The longest list of dimensions (the rank of a tensor shape) the reader builds: the Zoo's tensors have
#: rank 5 at most; definitions can double a list with ``++`` at each level.
MAX_LIST_LEN = 1024
#: The longest symbolic dimension (an expression in run-time dimensions, such as ``((seq * seq) + 1)``)
#: the reader builds, in characters; definitions can double such an expression at each level.
MAX_SYMBOLIC_LEN = 1000
#: The most parts (tensors, products, coproducts and dimensions) of one shape the reader builds; a
#: definition can build ``.prod s s`` from ``s`` at each level.
MAX_SHAPE_SIZE = 4096
#: How many evaluation steps (calls of :meth:`Expander.eval` and :meth:`Expander.sym`) one
#: instantiation may take, so that no file makes the reader run for minutes. Measured (2 cores): the
#: Zoo's layers take at most 383 steps (``llamaDecoderLayer``), the fixtures 61, a 20,000-constructor
#: chain 200,005; reaching :data:`MAX_TERM_NODES` by doubling definitions takes 499,977 steps (7 s).
#: Work that is not remembered (layers whose arguments are long lists, 1,000 dimensions each) reaches
#: this bound in 7 s (3.3 µs a step).
MAX_EVAL_STEPS = 2_000_000
#: The key under which an environment keeps the symbolic values of its ``Nat`` binders.
_SYM = "\x00sym"
#: The key of ``visible`` (see :class:`Expander`) naming the file that declares ``Arch``, if known.
ARCH_KEY = "\x00arch"
#: A symbolic value that is not known (an implicit argument inferred from shapes).
_UNKNOWN = ("?",)


@dataclass(frozen=True)
class Lazy:
    """The value of ``let name := node`` in the environment ``env`` where the ``let`` stands; it is
    evaluated where it is used, with the kind that the use needs (``kind``: the kind of the written
    type of the ``let``, if any)."""

    name: str
    node: Node
    env: dict
    kind: str | None
    line: int

    def __hash__(self) -> int:  # the environment is a dict; identity is enough
        return id(self)


#: The end of the message for a ``Nat`` beyond :data:`MAX_DIM`.
_TOO_LARGE = "exceeds 2^62, larger than any tensor dimension"


def _too_long(text: str) -> str:
    """The message for an expression whose symbolic value exceeds :data:`MAX_SYMBOLIC_LEN`."""
    shown = text if len(text) <= 60 else text[:60] + "…"
    return f"'{shown}' builds a symbolic dimension of more than {MAX_SYMBOLIC_LEN} characters"


#: Parts of the messages of :class:`Expander` that say a value is of another kind than expected.
_KIND_MISMATCH = (
    "expected a ",
    "' is not a ",
    "does not build a",
    "is not a constructor of the expected",
    "is expected here",
    "negation is only supported",
    "is a local value",
    "(let at line",
)


def resolve_name(
    defs: Mapping[str, Def], name: str, where: Def, extra: Mapping[str, object] | None = None
) -> str | None:
    """The qualified name that ``name``, written in the body of ``where``, refers to, as Lean resolves
    it: ``where`` helpers of the enclosing definition first, then the enclosing namespaces from the
    innermost out, then the opened namespaces. ``extra``: further names that count as defined
    (definitions the reader cannot read)."""
    candidates = []
    local = where.parent or where.name
    candidates.append(f"{local}.{name}")
    parts = where.namespace.split(".") if where.namespace else []
    for i in range(len(parts), -1, -1):
        prefix = ".".join(parts[:i])
        candidates.append(f"{prefix}.{name}" if prefix else name)
    for opened in where.opens:
        candidates.append(f"{opened}.{name}")
    for cand in candidates:
        if cand in defs or (extra is not None and cand in extra):
            return cand
    return None


def _sym_text(x: object) -> str:
    if isinstance(x, tuple) and len(x) == 3:
        op, a, b = x
        return (
            f"{_sym_text(a)} {op} {_sym_text(b)}"
            if op in ("<", "≤", "∣", "=")
            else f"({_sym_text(a)} {op} {_sym_text(b)})"
        )
    return str(x)


def term_depth(term: T.Term) -> int:
    """The nesting depth of a term, computed iteratively."""
    deepest, stack = 0, [(term, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((c, depth + 1) for c in T.children(node))  # type: ignore[arg-type]
    return deepest


Value = object  # int | str | tuple[Dim, ...] | Shape | Const | Term | Proof | bool

#: Argument kinds of each ``Arch`` constructor (its explicit arguments, in order).
CTOR_ARGS: dict[str, tuple[tuple[str, str], ...]] = {
    "id": (("s", "shape"),),
    "comp": (("f", "arch"), ("g", "arch")),
    "par": (("f", "arch"), ("g", "arch")),
    "copy": (("s", "shape"),),
    "fst": (("a", "shape"), ("b", "shape")),
    "snd": (("a", "shape"), ("b", "shape")),
    "add": (("s", "list"),),
    "mul": (("s", "list"),),
    "scale": (("c", "const"), ("s", "list")),
    "linear": (("pre", "list"), ("m", "nat"), ("n", "nat")),
    "relu": (("s", "list"),),
    "sigmoid": (("s", "list"),),
    "softmax": (("pre", "list"), ("n", "nat")),
    "layerNorm": (("pre", "list"), ("n", "nat"), ("eps", "const")),
    "matmul": (("pre", "list"), ("m", "nat"), ("k", "nat"), ("post", "list")),
    "transpose": (("pre", "list"), ("a", "nat"), ("b", "nat"), ("post", "list")),
    "splitLast": (("pre", "list"), ("a", "nat"), ("b", "nat")),
    "mergeLast": (("pre", "list"), ("a", "nat"), ("b", "nat")),
    "route": (("k", "nat"), ("hk", "proof"), ("s", "shape")),
    "copair": (("k", "nat"), ("f", "arch")),
    "causalSoftmax": (("pre", "list"), ("n", "nat")),
    "rmsNorm": (("pre", "list"), ("n", "nat"), ("eps", "const")),
    "rope": (("pre", "list"), ("seq", "nat"), ("k", "nat"), ("base", "nat")),
    "repeatInterleave": (("pre", "list"), ("a", "nat"), ("r", "nat"), ("post", "list")),
    "sdpa": (("heads", "nat"), ("seq", "nat"), ("k", "nat"), ("causal", "bool")),
}

_SHAPE_CTORS = {
    "tensor": (("dims", "list"),),
    "prod": (("a", "shape"), ("b", "shape")),
    "coprod": (("k", "nat"), ("a", "shape")),
}
#: The literals of ``Bool`` (argument kind ``bool``, e.g. ``Arch.sdpa``'s ``causal``).
_BOOL_LITERALS = {"true": True, "false": False, "Bool.true": True, "Bool.false": False}
_CONST_CTORS = {"rat": (("num", "int"), ("den", "nat")), "invSqrt": (("n", "nat"),)}


def _arg_nodes(spec: tuple[tuple[str, str], ...], args: tuple[Node, ...]) -> dict[str, Node]:
    """The argument expressions of a constructor call by argument name (named ones by their name,
    the others in order); the call has been checked by ``Expander._positional``."""
    named = {a.name: a.value for a in args if isinstance(a, NamedArg)}
    slots = [n for n, _ in spec if n not in named]
    return dict(zip(slots, (a for a in args if not isinstance(a, NamedArg)))) | named


def _strip(name: str, prefixes: tuple[str, ...]) -> str | None:
    for p in prefixes:
        if name.startswith(p) and "." not in name[len(p) :]:
            return name[len(p) :]
    return None


def binder_kind(ty: Node) -> str:
    """The kind of value a binder of type ``ty`` holds: nat, list, shape, const, arch or prop."""
    if isinstance(ty, Ident):
        return {
            "Nat": "nat",
            "Shape": "shape",
            "Formal.Shape": "shape",
            "Const": "const",
            "Formal.Const": "const",
            "Bool": "bool",
        }.get(ty.name, "unknown")
    if isinstance(ty, App) and isinstance(ty.fn, Ident):
        if (
            ty.fn.name == "List"
            and len(ty.args) == 1
            and isinstance(ty.args[0], Ident)
            and ty.args[0].name == "Nat"
        ):
            return "list"
        if ty.fn.name in ("Arch", "Formal.Arch") and len(ty.args) == 2:
            return "arch"
    if isinstance(ty, BinOp) and ty.op in ("<", "≤", "∣", "="):
        return "prop"
    return "unknown"


def render(node: Node) -> str:
    """Lean-like text of an expression (for messages)."""
    match node:
        case Ident(name=name):
            return name
        case Num(value=v):
            return str(v)
        case DotCtor(name=name):
            return f".{name}"
        case ListLit(items=items):
            return "[" + ", ".join(render(i) for i in items) + "]"
        case BinOp(op=op, left=left, right=right):
            return f"{render(left)} {op} {render(right)}"
        case Neg(operand=o):
            return f"-{render(o)}"
        case NamedArg(name=name, value=value):
            return f"({name} := {render(value)})"
        case Let(name=name, value=value, body=body):
            return f"let {name} := {render(value)}; {render(body)}"
        case App(fn=fn, args=args):
            return " ".join(
                [render(fn)] + [f"({render(a)})" if isinstance(a, App | BinOp) else render(a) for a in args]
            )
    return "?"


def _nat_op(op: str, a: Dim, b: Dim) -> Dim:
    if isinstance(a, int) and isinstance(b, int):
        if op == "+":
            return a + b
        if op == "-":
            return max(a - b, 0)
        if op == "*":
            return a * b
        if op == "/":
            return a // b if b else 0
        if op == "%":
            return a % b if b else a
    return f"({a} {op} {b})"


def _prop_value(op: str, a: Dim, b: Dim) -> bool | None:
    if not (isinstance(a, int) and isinstance(b, int)):
        return None
    if op == "<":
        return a < b
    if op == "≤":
        return a <= b
    if op == "=":
        return a == b
    return (b % a == 0) if a else b == 0  # a ∣ b


#: Whether a value is of each kind (built once: :meth:`Expander._coerce` runs at every evaluation).
_IS_KIND: dict[str, Callable[[object], bool]] = {
    "nat": lambda v: isinstance(v, int | str) and not isinstance(v, bool),
    "int": lambda v: isinstance(v, int),
    "list": lambda v: isinstance(v, tuple),
    "shape": lambda v: isinstance(v, TensorShape | ProdShape | CoprodShape),
    "const": lambda v: isinstance(v, T.Rat | T.InvSqrt),
    "arch": lambda v: (
        hasattr(v, "kind") and not isinstance(v, TensorShape | ProdShape | CoprodShape | T.Rat | T.InvSqrt)
    ),
    "proof": lambda v: isinstance(v, Proof),
    "bool": lambda v: isinstance(v, bool),
}


class Expander:
    """Expands definitions of a catalogue of parsed files into terms."""

    def __init__(
        self,
        defs: Mapping[str, Def],
        visible: Mapping[str, frozenset[str]] | None = None,
        broken: Mapping[str, BrokenDef] | None = None,
        layer: str | None = None,
    ) -> None:
        self.defs = dict(defs)
        #: Definitions the reader could not read, by qualified name: using one is an error.
        self.broken = dict(broken or {})
        #: ``file → the files it imports, directly or transitively, itself included``; None: unchecked.
        self.visible = visible
        #: The definitions whose bodies are being evaluated, outermost first (a repeat is recursion).
        self.active: list[Def] = []
        self.nodes = 0
        #: The layer being instantiated (named when :data:`MAX_EVAL_STEPS` is exceeded).
        self.layer = layer
        #: Calls of :meth:`eval` and :meth:`sym` so far (bounded by :data:`MAX_EVAL_STEPS`).
        self.steps = 0
        #: Values of calls of non-``Arch`` definitions by :meth:`_call_key`, with the argument values
        #: (kept so that the ids of the shapes among them are not reused while the entry exists).
        self.calls: dict[tuple, tuple[Value, tuple]] = {}
        #: Values of ``let``s by ``(id(lazy), kind)`` for non-``Arch`` kinds, with the :class:`Lazy`
        #: itself (kept so that its id is not reused while the entry exists).
        self.lets: dict[tuple[int, str], tuple[Lazy, Value]] = {}
        #: Symbolic values of ``let``s by ``id(lazy)``, with the :class:`Lazy` itself.
        self.let_syms: dict[int, tuple[Lazy, object]] = {}
        #: :meth:`_sym_len` of symbolic values by ``id``, with the value itself.
        self.sym_lens: dict[int, tuple[object, int]] = {}
        #: :meth:`_shape_size` of shapes by ``id``, with the shape itself.
        self.shape_sizes: dict[int, tuple[Shape, int]] = {}
        #: Untyped ``let`` values already found to be of a kind the reader knows, by
        #: ``(id(value), id(env))``, with the value and environment themselves.
        self.let_checked: dict[tuple[int, int], tuple[Node, dict]] = {}

    def count(self, where: Def, node: Node) -> None:
        self.nodes += 1
        if self.nodes > MAX_TERM_NODES:
            raise self.err(where, node, f"the layer expands to more than {MAX_TERM_NODES} constructors")

    def step(self, where: Def, node: Node) -> None:
        """Count one evaluation step; past :data:`MAX_EVAL_STEPS` the expansion stops with an error
        naming the layer."""
        self.steps += 1
        if self.steps > MAX_EVAL_STEPS:
            layer = f"'{self.layer}'" if self.layer else "the layer"
            raise self.err(
                where,
                node,
                f"expanding {layer} takes more than {MAX_EVAL_STEPS} evaluation steps (definitions or "
                "lets that repeat work at every level)",
            )

    def check_visible(self, target_file: str, target_line: int, name: str, where: Def, node: Node) -> None:
        """Lean's scoping: a name is usable only from a module the file imports (directly or
        transitively) or from earlier in the same file."""
        if self.visible is None:
            return
        if target_file == where.file:
            if target_line >= where.line and not self._same_where_block(name, where):
                raise self.err(where, node, f"'{name}' is used before its definition (line {target_line})")
            return
        if target_file not in self.visible.get(where.file, frozenset()):
            module = target_file.removesuffix(".lean").replace("/", ".")
            raise self.err(
                where,
                node,
                f"'{name}' is defined in {module}, which {where.file} does not import "
                "(directly or transitively)",
            )

    def _same_where_block(self, name: str, where: Def) -> bool:
        """Whether ``name`` (from ``where``) is a ``where`` helper of the definition that ``where``
        belongs to (Lean elaborates the helpers with it, so they may be used above their text)."""
        target = self.resolve_def(name, where)
        local = where.parent or where.name
        return target is not None and (target.parent == local or target.name == local)

    def check_private(self, target: Def, name: str, where: Def, node: Node) -> None:
        """A ``private`` definition is usable only in its own file."""
        if target.private and target.file != where.file:
            raise self.err(where, node, f"'{name}' is private to {target.file}")

    def check_arch_visible(self, name: str, where: Def, node: Node) -> None:
        """An ``Arch`` constructor needs the module declaring ``Arch`` imported (when the catalogue
        knows that file: :data:`ARCH_KEY` of ``visible``)."""
        if self.visible is not None:
            for arch_file in self.visible.get(ARCH_KEY, frozenset()):
                self.check_visible(arch_file, 0, name, where, node)

    # -- symbolic values (what Lean's type checker compares)
    def sym(self, node: Node, env: dict[str, Value], where: Def) -> object:
        """The value of a ``Nat`` expression in the variables of the layer being instantiated: an
        int when closed, else a nested ``(op, a, b)``; :data:`_UNKNOWN` when not known, or when its
        text would be longer than :data:`MAX_SYMBOLIC_LEN` (the value of a ``let`` is computed once)."""
        table = env.get(_SYM, {})
        assert isinstance(table, dict)
        self.step(where, node)
        match node:
            case Num(value=v):
                return v
            case Ident(name=name) if isinstance(env.get(name), Lazy):
                lazy = env[name]
                assert isinstance(lazy, Lazy)
                known = self.let_syms.get(id(lazy))
                if known is None:
                    known = (lazy, self.sym(lazy.node, lazy.env, where))
                    self.let_syms[id(lazy)] = known
                return known[1]
            case Ident(name=name):
                return table.get(name, _UNKNOWN)
            case Let(name=name, value=value, body=body):
                inner = dict(env)
                inner[name] = Lazy(name, value, env, None, node.line)
                return self.sym(body, inner, where)
            case BinOp(op=op, left=left, right=right) if op in ("+", "-", "*", "/", "%"):
                a, b = self.sym(left, env, where), self.sym(right, env, where)
                if a == _UNKNOWN or b == _UNKNOWN:
                    return _UNKNOWN
                if isinstance(a, int) and isinstance(b, int):
                    value = _nat_op(op, a, b)
                    if isinstance(value, int) and value > MAX_DIM:
                        raise self.err(where, node, f"'{render(node)}' {_TOO_LARGE}")
                    return value
                if self._sym_len(a) + self._sym_len(b) > MAX_SYMBOLIC_LEN:
                    return _UNKNOWN  # too long to compare: not checked symbolically (as an inferred value)
                return (op, a, b)
        return _UNKNOWN

    def _sym_len(self, value: object) -> int:
        """The length of the text of a symbolic value (as :func:`_sym_text` writes it, up to the
        spaces and parentheses), remembered per tuple (shared subterms are counted once per use)."""
        if not isinstance(value, tuple) or len(value) != 3:
            return len(str(value))
        known = self.sym_lens.get(id(value))
        if known is None:
            known = (value, self._sym_len(value[1]) + self._sym_len(value[2]) + 3)
            self.sym_lens[id(value)] = known
        return known[1]

    def statement(self, ty: Node, env: dict[str, Value], where: Def) -> tuple | None:
        """A hypothesis type ``a op b`` as ``(op, sym a, sym b)``; None when not known symbolically."""
        if not isinstance(ty, BinOp):
            return None
        a, b = self.sym(ty.left, env, where), self.sym(ty.right, env, where)
        return None if _UNKNOWN in (a, b) else (ty.op, a, b)

    def check_proof(
        self,
        proof: Value,
        required: tuple | None,
        need: str,
        where: Def,
        node: Node,
        concrete: tuple | None = None,
    ) -> None:
        """A proof argument must prove the statement it is passed for (Lean compares the types)."""
        if not isinstance(proof, Proof):
            raise self.err(where, node, f"'{render(node)}' is not a hypothesis")
        if proof.statement is None or required is None:
            return
        if proof.statement != required:
            raise self.err(
                where,
                node,
                f"the hypothesis '{proof.hypothesis}' states {_sym_text(proof.statement)}, "
                f"but {need} needs {_sym_text(required)}",
            )

    # -- name resolution
    def resolve_def(self, name: str, where: Def) -> Def | None:
        found = resolve_name(self.defs, name, where)
        return None if found is None else self.defs[found]

    def check_not_broken(self, name: str, where: Def, node: Node) -> None:
        """Using a definition that the reader could not read is an error at the use, naming both."""
        found = resolve_name(self.defs, name, where, self.broken)
        if found is not None and found not in self.defs:
            bad = self.broken[found]
            raise self.err(where, node, f"'{name}' cannot be used: {bad.error.message}")

    def err(self, where: Def, node: Node, message: str) -> LeanParseError:
        return LeanParseError(where.file, node.line, message)

    # -- evaluation
    def eval(self, node: Node, env: dict[str, Value], where: Def, kind: str) -> Value:
        """Evaluate ``node`` in ``env`` as a value of ``kind`` (nat, int, list, shape, const, arch, proof).
        Counts one step (:data:`MAX_EVAL_STEPS`); the value of a ``let`` of a kind other than ``arch``
        is computed once per kind."""
        self.step(where, node)
        match node:
            case Num(value=v):
                if kind not in ("nat", "int"):
                    raise self.err(where, node, f"expected a {kind}, found the number {v}")
                if v > MAX_DIM:
                    raise self.err(
                        where, node, f"the number {v} exceeds 2^62, the largest number the bridge reads"
                    )
                return v
            case Neg(operand=o):
                v = self.eval(o, env, where, "int")
                if kind != "int" or not isinstance(v, int):
                    raise self.err(where, node, "negation is only supported in integer constants")
                return -v
            case ListLit(items=items):
                if kind != "list":
                    raise self.err(where, node, f"expected a {kind}, found a list")
                return self._list(tuple(self.eval(i, env, where, "nat") for i in items), where, node)
            case Ident(name=name) if isinstance(env.get(name), Lazy):
                lazy = env[name]
                assert isinstance(lazy, Lazy)
                if lazy.kind is not None and lazy.kind != kind and {lazy.kind, kind} != {"nat", "int"}:
                    raise self.err(
                        where, node, f"'{name}' is a {lazy.kind} (let at line {lazy.line}), not a {kind}"
                    )
                if kind == "arch":  # each use of a layer is its own layer, with its own weights
                    return self.eval(lazy.node, lazy.env, where, kind)
                known = self.lets.get((id(lazy), kind))
                if known is None:
                    known = (lazy, self.eval(lazy.node, lazy.env, where, kind))
                    self.lets[(id(lazy), kind)] = known
                return known[1]
            case Ident(name=name) if name in env:
                return self._coerce(env[name], kind, where, node)
            case Ident(name=name) if kind == "bool" and name in _BOOL_LITERALS:
                return _BOOL_LITERALS[name]
            case Let(name=name, type=ty, value=value, body=body):
                declared = None
                if ty is not None:
                    declared = binder_kind(ty)
                    if declared in ("unknown", "prop"):
                        raise self.err(
                            where,
                            ty,
                            f"unsupported type '{render(ty)}' in 'let {name}' (Nat, List Nat, "
                            "Shape, Const or Arch s t)",
                        )
                inner = dict(env)
                inner[name] = Lazy(name, value, env, declared, node.line)
                if declared is None:  # Lean elaborates the value even where the body does not use it
                    self._check_let_value(name, value, env, where)
                else:  # Lean checks the value against the written type
                    checked = self.eval(value, env, where, declared)
                    if declared == "arch":
                        assert isinstance(ty, App)
                        want = Signature(
                            self.eval(ty.args[0], env, where, "shape"),  # type: ignore[arg-type]
                            self.eval(ty.args[1], env, where, "shape"),  # type: ignore[arg-type]
                        )
                        got = signature(checked)  # type: ignore[arg-type]
                        if got != want:
                            raise ShapeError(
                                f"{where.file}:{node.line}: 'let {name}' is declared {want} but its value "
                                f"has type {got}"
                            )
                return self.eval(body, inner, where, kind)
            case Ident() | DotCtor():
                return self.apply(node, (), env, where, kind, explicit=False)
            case App(fn=fn, args=args, explicit=explicit):
                return self.apply(fn, args, env, where, kind, explicit)
            case BinOp(op=op, left=left, right=right):
                return self.binop(node, op, left, right, env, where, kind)
        raise self.err(where, node, f"unsupported expression '{render(node)}'")

    def _check_let_value(self, name: str, value: Node, env: dict[str, Value], where: Def) -> None:
        """The value of an untyped ``let`` must be a value of some kind the reader knows (a ``Nat``, a
        list, a shape, a constant, a layer or a proof); otherwise the error it gives as the most
        likely kind (not a mere mismatch of kinds) is raised, as Lean rejects such a ``let``."""
        if (id(value), id(env)) in self.let_checked:
            return
        head = value.fn if isinstance(value, App) else value
        if isinstance(head, DotCtor):
            raise self.err(
                where,
                value,
                f"'let {name} := .{head.name} …' needs a written type (Lean resolves '.{head.name}' "
                "against the expected type, and an untyped let has none)",
            )
        errors: list[BridgeError] = []
        for k in ("nat", "list", "shape", "const", "arch", "proof"):
            try:
                result = self.eval(value, env, where, k)
                if k == "arch":
                    signature(result)  # type: ignore[arg-type]  # a layer is checked as Lean does
                self.let_checked[(id(value), id(env))] = (value, env)
                return
            except (LeanParseError, ShapeError) as err:
                errors.append(err)
        for err in errors:
            if not any(marker in str(err) for marker in _KIND_MISMATCH):
                raise err
        raise errors[4]  # as a layer

    def _coerce(self, value: Value, kind: str, where: Def, node: Node) -> Value:
        if not _IS_KIND[kind](value):
            raise self.err(where, node, f"'{render(node)}' is not a {kind}")
        return value

    def binop(
        self, node: Node, op: str, left: Node, right: Node, env: dict[str, Value], where: Def, kind: str
    ) -> Value:
        loc = f"{where.file}:{node.line}"
        if op in ("≫", "⊗") and kind == "arch":
            self.count(where, node)
        if op == "≫" and kind == "arch":
            return T.Comp(
                f=self.eval(left, env, where, "arch"), g=self.eval(right, env, where, "arch"), loc=loc
            )
        if op == "⊗" and kind == "arch":
            return T.Par(
                f=self.eval(left, env, where, "arch"), g=self.eval(right, env, where, "arch"), loc=loc
            )
        if op == "++" and kind == "list":
            dims = tuple(self.eval(left, env, where, "list")) + tuple(self.eval(right, env, where, "list"))
            return self._list(dims, where, node)
        if op == "::" and kind == "list":
            return self._list(
                (self.eval(left, env, where, "nat"), *self.eval(right, env, where, "list")), where, node
            )
        if op in ("+", "-", "*", "/", "%") and kind in ("nat", "int"):
            value = _nat_op(op, self.eval(left, env, where, "nat"), self.eval(right, env, where, "nat"))
            if isinstance(value, int) and value > MAX_DIM:
                raise self.err(where, node, f"'{render(node)}' {_TOO_LARGE}")
            if isinstance(value, str) and len(value) > MAX_SYMBOLIC_LEN:
                raise self.err(where, node, _too_long(render(node)))
            return value
        raise self.err(where, node, f"operator '{op}' does not build a {kind}")

    def _list(self, dims: tuple, where: Def, node: Node) -> tuple:
        """``dims``, unless it is longer than :data:`MAX_LIST_LEN`."""
        if len(dims) > MAX_LIST_LEN:
            raise self.err(
                where,
                node,
                f"a list of {len(dims)} dimensions (the bridge takes tensors of rank at most {MAX_LIST_LEN})",
            )
        return dims

    def apply(
        self, fn: Node, args: tuple[Node, ...], env: dict[str, Value], where: Def, kind: str, explicit: bool
    ) -> Value:
        loc = f"{where.file}:{fn.line}"
        if isinstance(fn, DotCtor):
            name = fn.name
            table = _SHAPE_CTORS if kind == "shape" else _CONST_CTORS if kind == "const" else None
            if table is None or name not in table:
                raise self.err(where, fn, f"'.{name}' is not a constructor of the expected {kind}")
            return self._build_simple(kind, name, table[name], args, env, where, fn)
        if not isinstance(fn, Ident):
            raise self.err(where, fn, f"cannot apply '{render(fn)}'")
        name = fn.name
        if name in env and args:
            raise self.err(
                where, fn, f"'{name}' is a local value, not a function: it cannot be applied to arguments"
            )
        ctor = _strip(name, ("Arch.", "Formal.Arch."))
        if (
            ctor is None
            and where.namespace.endswith("Arch")
            and name in CTOR_ARGS
            and self.resolve_def(name, where) is None
        ):
            ctor = name
        if ctor is not None and ctor in CTOR_ARGS:
            if kind != "arch":
                raise self.err(where, fn, f"'{name}' is a layer, but a {kind} is expected here")
            self.check_arch_visible(name, where, fn)
            self.count(where, fn)
            vals = self._positional(name, CTOR_ARGS[ctor], args, env, where, fn)
            if ctor == "route":
                nodes = _arg_nodes(CTOR_ARGS[ctor], args)
                required = None
                k_sym = self.sym(nodes["k"], env, where)
                if k_sym != _UNKNOWN:
                    required = ("<", 0, k_sym)
                self.check_proof(vals["hk"], required, f"'{name}' (hk : 0 < k)", where, nodes["hk"])
                vals = {k: v for k, v in vals.items() if k != "hk"}
            return T.CONSTRUCTORS[ctor](**vals, loc=loc)
        for table, k in ((_SHAPE_CTORS, "shape"), (_CONST_CTORS, "const")):
            short = _strip(
                name,
                (
                    f"{'Shape' if k == 'shape' else 'Const'}.",
                    f"Formal.{'Shape' if k == 'shape' else 'Const'}.",
                ),
            )
            if short is not None and short in table:
                return self._build_simple(k, short, table[short], args, env, where, fn)
        target = self.resolve_def(name, where)
        if target is None:
            self.check_not_broken(name, where, fn)
            raise self.err(
                where, fn, f"unknown name '{name}' (not an Arch constructor or a definition the bridge reads)"
            )
        if any(d.name == target.name for d in self.active):
            cycle = " → ".join(
                [
                    *(d.short for d in self.active[[d.name for d in self.active].index(target.name) :]),
                    target.short,
                ]
            )
            raise self.err(
                where, fn, f"'{target.short}' is defined in terms of itself ({cycle}); Lean rejects this"
            )
        self.check_visible(target.file, target.line, name, where, fn)
        self.check_private(target, name, where, fn)
        if len(self.active) >= MAX_CALL_DEPTH:
            raise self.err(where, fn, f"definitions nested deeper than {MAX_CALL_DEPTH} levels")
        return self.call(target, args, env, where, fn, kind, explicit)

    def _positional(
        self,
        name: str,
        spec: tuple[tuple[str, str], ...],
        args: tuple[Node, ...],
        env: dict[str, Value],
        where: Def,
        fn: Node,
    ) -> dict[str, Value]:
        named: dict[str, Node] = {}
        for a in args:
            if isinstance(a, NamedArg):
                if a.name not in {n for n, _ in spec}:
                    raise self.err(
                        where,
                        a,
                        f"'{name}' has no explicit argument named '{a.name}' (its explicit arguments: "
                        f"{', '.join(n for n, _ in spec)}; the bridge passes no implicit argument by name)",
                    )
                if a.name in named:
                    raise self.err(where, a, f"argument '{a.name}' of '{name}' is given twice")
                named[a.name] = a.value
        positional = [a for a in args if not isinstance(a, NamedArg)]
        slots = [(n, k) for n, k in spec if n not in named]
        if len(positional) != len(slots):
            raise self.err(where, fn, f"'{name}' takes {len(spec)} explicit arguments, given {len(args)}")
        given = dict(zip((n for n, _ in slots), positional)) | named
        return {arg_name: self.eval(given[arg_name], env, where, arg_kind) for arg_name, arg_kind in spec}

    def _build_simple(
        self,
        kind: str,
        name: str,
        spec: tuple[tuple[str, str], ...],
        args: tuple[Node, ...],
        env: dict[str, Value],
        where: Def,
        fn: Node,
    ) -> Value:
        vals = self._positional(name, spec, args, env, where, fn)
        if kind == "shape":
            shape: Shape
            if name == "tensor":
                shape = TensorShape(dims=tuple(vals["dims"]))
            elif name == "prod":
                shape = ProdShape(a=vals["a"], b=vals["b"])
            else:
                shape = CoprodShape(k=vals["k"], a=vals["a"])
            if self._shape_size(shape) > MAX_SHAPE_SIZE:
                raise self.err(
                    where,
                    fn,
                    f"a shape of more than {MAX_SHAPE_SIZE} parts (tensors, products and dimensions)",
                )
            return shape
        if name == "rat":
            for part, label in (("num", "numerator"), ("den", "denominator")):
                if not isinstance(vals[part], int):  # a run-time dimension: no constant to compute
                    raise self.err(
                        where,
                        fn,
                        f"the {label} of a constant must be a known number, not "
                        + (
                            f"the run-time dimension '{vals[part]}'"
                            if str(vals[part]).isidentifier()
                            else f"'{vals[part]}', which depends on a run-time dimension"
                        ),
                    )
            return T.Rat(num=vals["num"], den=vals["den"])
        return T.InvSqrt(n=vals["n"])

    def _shape_size(self, shape: Shape) -> int:
        """The number of parts of a shape (its tensors, products and coproducts, and their dimensions),
        remembered per shape object (a shape built from one shape twice counts it twice)."""
        known = self.shape_sizes.get(id(shape))
        if known is None:
            if isinstance(shape, TensorShape):
                size = 1 + len(shape.dims)
            elif isinstance(shape, ProdShape):
                size = 1 + self._shape_size(shape.a) + self._shape_size(shape.b)
            else:
                assert isinstance(shape, CoprodShape)
                size = 1 + self._shape_size(shape.a)
            known = (shape, size)
            self.shape_sizes[id(shape)] = known
        return known[1]

    def call(
        self,
        target: Def,
        args: tuple[Node, ...],
        env: dict[str, Value],
        where: Def,
        fn: Node,
        kind: str,
        explicit: bool,
    ) -> Value:
        binders = target.binders
        named = {a.name: a.value for a in args if isinstance(a, NamedArg)}
        positional = [a for a in args if not isinstance(a, NamedArg)]
        slots = [b for b in binders if explicit or not b.implicit]
        if len(positional) > len(slots):
            raise self.err(
                where, fn, f"'{target.short}' takes {len(slots)} explicit arguments, given {len(positional)}"
            )
        if len(positional) < len(slots):
            missing = ", ".join(b.name for b in slots[len(positional) :])
            raise self.err(
                where, fn, f"partial application of '{target.short}' is not supported (missing {missing})"
            )
        given: dict[str, Node] = {b.name: a for b, a in zip(slots, positional)}
        for key in named:
            if key not in {b.name for b in binders}:
                raise self.err(where, fn, f"'{target.short}' has no argument named '{key}'")
        given.update(named)
        local: dict[str, Value] = {}
        table: dict[str, object] = {}
        local[_SYM] = table
        pending: list[Binder] = []
        for b in binders:
            k = binder_kind(b.type)
            if k == "unknown":
                raise self.err(target, b.type, f"unsupported binder type '{render(b.type)}' for '{b.name}'")
            if b.name in given:
                local[b.name] = self.eval(given[b.name], env, where, "proof" if k == "prop" else k)
                if k == "nat":
                    table[b.name] = self.sym(given[b.name], env, where)
                elif k == "prop":
                    self.check_proof(
                        local[b.name],
                        self.statement(b.type, local, target),
                        f"'{target.short}' ({b.name} : {render(b.type)})",
                        where,
                        given[b.name],
                    )
            else:
                pending.append(b)
        for b in list(pending):
            if binder_kind(b.type) == "arch":
                raise self.err(where, fn, f"argument '{b.name}' of '{target.short}' is missing")
        if pending:
            self._infer(target, pending, local, where, fn)
        for b in binders:
            if binder_kind(b.type) == "prop":
                self._check_prop(target, b, local)
        key = self._call_key(target, kind, local)
        if key is not None and key in self.calls:
            return self.calls[key][0]
        self.active.append(target)  # only its body is evaluated in terms of it (arguments are not)
        try:
            value = self.eval(target.body, local, target, kind)
        finally:
            self.active.pop()
        if key is not None:
            self.calls[key] = (value, tuple(local.values()))
        return value

    @staticmethod
    def _call_key(target: Def, kind: str, local: dict[str, Value]) -> tuple | None:
        """The key under which the value of a call is remembered: the definition, the kind, the
        argument values (a shape by its identity: hashing a shape takes time in its size) and the
        symbolic values of its ``Nat`` arguments (which the hypotheses it passes on are compared in);
        the body's value depends on nothing else. None (not remembered) for a layer or a proof (each
        use of a layer is its own layer, with its own weights), for a definition with ``Arch``
        binders, and for values that are not hashable."""
        if kind in ("arch", "proof") or any(binder_kind(b.type) == "arch" for b in target.binders):
            return None
        values = tuple(
            (b.name, type(v).__name__, id(v) if isinstance(v, TensorShape | ProdShape | CoprodShape) else v)
            for b in target.binders
            for v in (local[b.name],)
        )
        table = local[_SYM]
        assert isinstance(table, dict)
        key = (target.name, kind, values, tuple(sorted(table.items())))
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def _infer(
        self, target: Def, pending: list[Binder], local: dict[str, Value], where: Def, fn: Node
    ) -> None:
        """Infer implicit binders by matching the types of arch-valued arguments (first-order)."""
        unknown = {b.name for b in pending}
        for b in target.binders:
            if binder_kind(b.type) != "arch" or b.name not in local:
                continue
            sig = signature(local[b.name])  # type: ignore[arg-type]
            assert isinstance(b.type, App)
            for pattern, actual in zip(b.type.args, (sig.dom, sig.cod)):
                self._match(pattern, actual, unknown, local)
        still = [b.name for b in pending if b.name not in local]
        if still:
            raise self.err(
                where,
                fn,
                f"cannot infer the implicit argument(s) {', '.join(still)} of "
                f"'{target.short}'; pass them by name, e.g. ({still[0]} := ...)",
            )

    def _match(self, pattern: Node, actual: Shape, unknown: set[str], local: dict[str, Value]) -> None:
        if isinstance(pattern, Ident) and pattern.name in unknown and pattern.name not in local:
            local[pattern.name] = actual
        elif isinstance(pattern, App) and isinstance(pattern.fn, DotCtor | Ident):
            name = pattern.fn.name.split(".")[-1]
            if name == "tensor" and isinstance(actual, TensorShape) and len(pattern.args) == 1:
                arg = pattern.args[0]
                if isinstance(arg, Ident) and arg.name in unknown and arg.name not in local:
                    local[arg.name] = actual.dims
            elif name == "prod" and isinstance(actual, ProdShape) and len(pattern.args) == 2:
                self._match(pattern.args[0], actual.a, unknown, local)
                self._match(pattern.args[1], actual.b, unknown, local)

    def _check_prop(self, target: Def, b: Binder, local: dict[str, Value]) -> None:
        assert isinstance(b.type, BinOp)
        left = self.eval(b.type.left, local, target, "nat")
        right = self.eval(b.type.right, local, target, "nat")
        holds = _prop_value(b.type.op, left, right)  # type: ignore[arg-type]
        if holds is False:
            values = ", ".join(
                f"{render(side)} = {value}"
                for side, value in ((b.type.left, left), (b.type.right, right))
                if not isinstance(side, Num)
            )
            raise ShapeError(
                f"{target.short}: the Lean hypothesis {b.name} : {render(b.type)} fails ({values})"
            )


def instantiate(
    defn: Def,
    defs: Mapping[str, Def],
    params: Mapping[str, int],
    visible: Mapping[str, frozenset[str]] | None = None,
    broken: Mapping[str, BrokenDef] | None = None,
) -> tuple[T.Term, Signature]:
    """Instantiate a Zoo definition (see :func:`_instantiate`), with the stack headroom that the
    bounded depths of the reader (:data:`MAX_CALL_DEPTH`, :data:`MAX_TERM_DEPTH`) need."""
    from pybridge.lean.parser import deep_stack, reader_gc

    with deep_stack(), reader_gc():
        return _instantiate(defn, defs, params, visible, broken)


def _instantiate(
    defn: Def,
    defs: Mapping[str, Def],
    params: Mapping[str, int],
    visible: Mapping[str, frozenset[str]] | None = None,
    broken: Mapping[str, BrokenDef] | None = None,
) -> tuple[T.Term, Signature]:
    """Instantiate a Zoo definition with parameter values; returns the checked term and its signature.

    Explicit ``Nat`` binders must all be given; implicit ones default to a run-time dimension of the
    same name. Unknown or missing parameters raise :class:`UsageError`; a failed hypothesis or an
    ill-shaped body raises :class:`ShapeError`.
    """
    nat_binders = [b for b in defn.binders if binder_kind(b.type) == "nat"]
    known = {b.name for b in nat_binders}
    extra = sorted(set(params) - known)
    if extra:
        raise UsageError(
            f"{defn.short} has no parameter {', '.join(extra)} (its parameters: "
            f"{', '.join(b.name for b in nat_binders)})"
        )
    missing = [b.name for b in nat_binders if not b.implicit and b.name not in params]
    if missing:
        raise UsageError(f"{defn.short} needs --param {' --param '.join(m + '=N' for m in missing)}")
    for name, value in params.items():
        if value > MAX_DIM:
            raise UsageError(
                f"--param {name}={value}: larger than 2^62, the largest dimension the bridge takes"
            )
    table: dict[str, object] = {b.name: b.name for b in nat_binders}
    env: dict[str, Value] = {_SYM: table}
    exp = Expander(defs, visible, broken, layer=defn.short)
    for b in defn.binders:
        k = binder_kind(b.type)
        if k == "nat":
            env[b.name] = params.get(b.name, b.name)
        elif k == "prop":
            env[b.name] = Proof(b.name, exp.statement(b.type, env, defn))
        else:
            raise LeanParseError(
                defn.file,
                b.line,
                f"a Zoo layer's binders must be Nat or Prop, '{b.name}' has type '{render(b.type)}'",
            )
    for b in defn.binders:
        if binder_kind(b.type) == "prop":
            exp._check_prop(defn, b, env)
    exp.active.append(defn)  # a reference to the layer itself is a recursive definition
    term = exp.eval(defn.body, env, defn, "arch")
    if term_depth(term) > MAX_TERM_DEPTH:  # type: ignore[arg-type]
        raise LeanParseError(
            defn.file, defn.line, f"{defn.short} expands to a term nested deeper than {MAX_TERM_DEPTH} levels"
        )
    sig = signature(term)  # type: ignore[arg-type]
    if not (isinstance(defn.type, App) and binder_kind(defn.type) == "arch"):
        raise LeanParseError(defn.file, defn.type.line, f"the type of {defn.short} must be 'Arch s t'")
    declared = Signature(
        exp.eval(defn.type.args[0], env, defn, "shape"),  # type: ignore[arg-type]
        exp.eval(defn.type.args[1], env, defn, "shape"),
    )  # type: ignore[arg-type]
    if declared != sig:
        raise ShapeError(
            f"{defn.file}:{defn.line}: {defn.short} is declared {declared} but its body has type {sig}"
        )
    return term, sig  # type: ignore[return-value]
