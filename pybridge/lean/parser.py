"""A parser for the Lean files that define layers (``Formal/Zoo/*.lean``, ``Formal/Network/Derived.lean``).

It understands the commands those files use (``import``, ``namespace``/``section``/``end``, ``open``
(also ``open … in``), ``set_option … in``, ``universe``, doc comments, ``def`` and ``abbrev`` with the
modifiers ``private``/``protected``/``noncomputable`` and attributes ``@[…]``, and ``where`` helpers
after a definition's body) and the term language of layers: application, the infix operators
``≫ ⊗ ++ :: * / % + -`` with Lean's precedences, parentheses, named arguments ``(x := e)``, list
literals, leading-dot constructors (``.tensor [n]``) and ``let x := e; body`` / ``let x : T := e``
(as in Lean, ``Lean.Parser.Term.let`` is ``withPosition ("let " >> letDecl) >> optSemicolon term``:
no application argument is taken from a line that starts at or left of the ``let``, so the value
ends there, or at ``;``; ``where`` helpers likewise, at the column of the helpers).
Anything else is reported as ``file:line: unsupported …`` rather than guessed at.

A definition the reader cannot read does not stop the file: it is recorded in
:attr:`LeanFile.broken` with its ``file:line`` error and the reader goes on at the next command. With
``tolerant=True`` (files that a layer file imports, such as ``Formal/Network/Arch.lean``) commands
other than definitions (``inductive``, ``structure``, ``instance``, ...) are skipped silently. The
result is a small AST; meaning is given by :mod:`pybridge.lean.expand`.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from pybridge.errors import LeanParseError
from pybridge.lean.lexer import Token, tokenize

# --- AST ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Node:
    """Base of AST nodes; ``line`` is where the node starts."""

    line: int


@dataclass(frozen=True)
class Ident(Node):
    """A (possibly dotted) name: ``Arch.comp``, ``d_model``."""

    name: str


@dataclass(frozen=True)
class DotCtor(Node):
    """``.tensor``: a constructor resolved against the expected type."""

    name: str


@dataclass(frozen=True)
class Num(Node):
    """A natural-number literal."""

    value: int


@dataclass(frozen=True)
class ListLit(Node):
    """``[a, b, c]``."""

    items: tuple[Node, ...]


@dataclass(frozen=True)
class NamedArg(Node):
    """``(x := e)`` in argument position."""

    name: str
    value: Node


@dataclass(frozen=True)
class App(Node):
    """Application ``f a b`` (or ``@f a b``)."""

    fn: Node
    args: tuple[Node, ...]
    explicit: bool = False  # ``@f``: every argument positional


@dataclass(frozen=True)
class BinOp(Node):
    """An infix operator application ``left op right`` (``≫``, ``⊗``, ``++``, ``*``, ...)."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Neg(Node):
    """Prefix minus ``-e``."""

    operand: Node


@dataclass(frozen=True)
class Let(Node):
    """``let name : type := value; body`` (``type`` is None when not written)."""

    name: str
    type: Node | None
    value: Node
    body: Node


@dataclass(frozen=True)
class Binder:
    """One binder name with its type: ``(x : T)`` (explicit) or ``{x : T}`` (implicit)."""

    name: str
    type: Node
    implicit: bool
    line: int


@dataclass(frozen=True)
class Def:
    """A ``def`` command."""

    name: str  # fully qualified
    short: str
    binders: tuple[Binder, ...]
    type: Node
    body: Node
    doc: str | None
    file: str
    line: int
    namespace: str
    opens: tuple[str, ...]
    #: ``private def``: usable only in its own file.
    private: bool = False
    #: For a ``where`` helper, the qualified name of the definition it belongs to.
    parent: str | None = None


@dataclass(frozen=True)
class BrokenDef:
    """A definition (or another named command of a layer file) that the reader cannot read."""

    name: str | None  # fully qualified; None when the name itself could not be read
    short: str | None
    doc: str | None
    file: str
    line: int
    namespace: str
    error: LeanParseError


@dataclass
class LeanFile:
    """The parsed commands of one file."""

    path: str
    imports: list[str] = field(default_factory=list)
    defs: list[Def] = field(default_factory=list)
    module_doc: str | None = None
    #: Definitions that could not be read, each with its ``file:line`` error (the others are unaffected).
    broken: list[BrokenDef] = field(default_factory=list)
    #: The line of each ``import`` of :attr:`imports`.
    import_lines: list[int] = field(default_factory=list)


# Lean precedences and associativity of the infix operators the layer files use.
INFIX: dict[str, tuple[int, str]] = {
    "→": (25, "right"),
    "<": (50, "left"),
    "≤": (50, "left"),
    "∣": (50, "left"),
    "=": (50, "left"),
    "++": (65, "left"),
    "+": (65, "left"),
    "-": (65, "left"),
    "::": (67, "right"),
    "⊗": (70, "right"),
    "*": (70, "left"),
    "/": (70, "left"),
    "%": (70, "left"),
    "≫": (80, "right"),
}

COMMAND_KEYWORDS = {
    "def",
    "theorem",
    "lemma",
    "abbrev",
    "instance",
    "structure",
    "class",
    "inductive",
    "namespace",
    "section",
    "end",
    "open",
    "set_option",
    "universe",
    "variable",
    "import",
    "example",
    "private",
    "protected",
    "noncomputable",
    "attribute",
    "mutual",
    "axiom",
    "opaque",
    "macro",
    "syntax",
    "notation",
    "infix",
    "infixl",
    "infixr",
    "scoped",
    "local",
}


#: Words that end an expression: the commands and ``in``, ``where``, ``with``, ``then``, ``else``.
_ENDS_EXPR = frozenset(COMMAND_KEYWORDS | {"in", "where", "with", "then", "else"})

#: Term syntax the bridge does not read, with the reason given to the user.
UNSUPPORTED_TERMS = {
    "_": "placeholder '_' (write the argument explicitly: the bridge does not run Lean's unifier)",
    "fun": "'fun' (layer terms are built from Arch constructors and definitions)",
    "match": "'match' (layer terms are built from Arch constructors and definitions)",
    "if": "'if' (layer terms are built from Arch constructors and definitions)",
    "by": "a tactic block 'by' (pass a hypothesis of the definition instead)",
}


#: How deeply brackets, prefix operators and infix operators may nest in one expression. Lean's own
#: elaborator stops at ``maxRecDepth`` (512 by default); the bridge stops earlier, with a message.
MAX_NESTING = 200

#: A ``≫`` chain longer than this is grouped as a balanced tree of compositions rather than nested to
#: the right, so that no consumer of the term (the expander, the typing rules, the torch modules)
#: recurses once per step. Evaluation is unchanged: ``Formal.Arch.eval_comp_assoc``
#: (Formal/Network/Laws.lean) proves ``eval ((f ≫ g) ≫ h) = eval (f ≫ (g ≫ h))`` up to the reparametrisation
#: ``((p, q), r) ↦ (p, (q, r))``, which keeps the depth-first order of the parameters.
BALANCE_CHAINS_LONGER_THAN = 32

#: The commands that define no layer and that the reader skips (to the next command).
SKIPPED_COMMANDS = {"theorem", "lemma", "example"}

#: Modifiers the reader accepts before ``def``/``abbrev`` (``private`` limits the name to its file).
DEF_MODIFIERS = {"private", "protected", "noncomputable"}


@contextmanager
def deep_stack(limit: int = 20_000) -> Iterator[None]:
    """Raise Python's recursion limit to at least ``limit`` for the block. The reader bounds the depth
    of what it builds (:data:`MAX_NESTING`), so this is headroom for that bounded depth, not a way to
    let input recurse freely."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


#: The allocation count between two young-generation collections of Python's cycle collector while
#: the reader runs (700 by default). The reader builds large acyclic structures (a 1 MB file is some
#: 500,000 tokens and as many nodes), and every collection also walks the older objects that survive
#: it: with the default, the collector takes half the time of reading such a file.
READER_GC_THRESHOLD = 50_000


@contextmanager
def reader_gc() -> Iterator[None]:
    """Collect reference cycles less often in the block (:data:`READER_GC_THRESHOLD`); cycles are still
    collected, and the collector's thresholds are restored after it."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], READER_GC_THRESHOLD), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def _fold(op: str, line: int, operands: list[Node], lines: list[int]) -> Node:
    """Right-nested ``a op (b op (c …))``; a long ``≫`` chain as a balanced tree (see
    :data:`BALANCE_CHAINS_LONGER_THAN`). ``lines[i]`` is the line of the operator after operand ``i``."""
    if op == "≫" and len(operands) > BALANCE_CHAINS_LONGER_THAN:
        mid = len(operands) // 2
        return BinOp(
            lines[mid - 1],
            op,
            _fold(op, line, operands[:mid], lines[: mid - 1]),
            _fold(op, line, operands[mid:], lines[mid:]),
        )
    node = operands[-1]
    for i in range(len(operands) - 2, -1, -1):
        node = BinOp(lines[i], op, operands[i], node)
    return node


def _children(node: Node) -> tuple[Node, ...]:
    """The sub-expressions of ``node``, in field order."""
    kind = type(node)
    if kind is App:
        return (node.fn, *node.args)  # type: ignore[attr-defined]
    if kind is BinOp:
        return (node.left, node.right)  # type: ignore[attr-defined]
    if kind in (Ident, Num, DotCtor):
        return ()
    out: list[Node] = []
    for child in node.__dict__.values():
        for item in child if isinstance(child, tuple) else (child,):
            if isinstance(item, Node):
                out.append(item)
    return tuple(out)


def node_depth(root: Node, limit: int | None = None) -> int:
    """The nesting depth of an expression (iteratively: the input may be deep); with ``limit``, stops
    at the first node deeper than ``limit`` and returns its depth."""
    deepest = 0
    stack: list[tuple[Node, int]] = [(root, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        if depth > deepest:
            deepest = depth
            if limit is not None and depth > limit:
                return depth
        for child in _children(node):
            push((child, depth + 1))
    return deepest


class _Parser:
    def __init__(self, tokens: list[Token], file: str, tolerant: bool = False) -> None:
        self.toks = tokens
        #: The index of the last token (``eof``), where :meth:`peek` stops.
        self.last = len(tokens) - 1
        self.pos = 0
        self.file = file
        self.depth = 0
        self.tolerant = tolerant
        #: Lean's column rule: a token that starts a line at or left of the innermost entry ends the
        #: expression (the column of a ``let`` or of ``where`` helpers); -1 inside brackets (no rule).
        self.stop_cols: list[int] = []

    def enter(self, tok: Token) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.error(f"expression nested deeper than {MAX_NESTING} levels", tok)

    # -- token helpers
    def peek(self, offset: int = 0) -> Token:
        i = self.pos + offset
        return self.toks[i] if i < self.last else self.toks[self.last]

    def next(self) -> Token:
        tok = self.peek()
        if tok.kind == "bad":
            raise self.error(tok.text, tok)
        self.pos += 1
        return tok

    def error(self, message: str, tok: Token | None = None) -> LeanParseError:
        return LeanParseError(self.file, (tok or self.peek()).line, message)

    def is_sym(self, text: str, offset: int = 0) -> bool:
        tok = self.peek(offset)
        return tok.kind == "sym" and tok.text == text

    def expect_sym(self, text: str) -> Token:
        tok = self.next()
        if tok.kind != "sym" or tok.text != text:
            raise self.error(f"expected '{text}', found {_show(tok)}", tok)
        return tok

    def expect_ident(self) -> Token:
        tok = self.next()
        if tok.kind != "ident" or tok.text in COMMAND_KEYWORDS:
            raise self.error(f"expected a name, found {_show(tok)}", tok)
        return tok

    # -- expressions
    def at_layout_end(self) -> bool:
        """Whether the next token starts a line at or left of the innermost stop column."""
        if not self.stop_cols or self.stop_cols[-1] < 0 or self.pos == 0:
            return False
        tok = self.peek()
        return tok.line > self.toks[self.pos - 1].line and tok.col <= self.stop_cols[-1]

    def at_expr_end(self) -> bool:
        tok = self.peek()
        if tok.kind in ("eof", "doc", "moddoc"):
            return True
        if tok.kind == "ident" and tok.text in _ENDS_EXPR:
            return True
        if self.at_layout_end():
            return True
        return tok.kind == "sym" and tok.text in (")", "]", "}", ",", ":=", ":", "⟩", ";")

    def expr(self, min_prec: int = 0) -> Node:
        """Precedence climbing; a run of one right-associative operator (``a ≫ b ≫ c``) is read in a
        loop, not by recursion, and folded by :func:`_fold`."""
        self.enter(self.peek())
        left = self.application()
        while True:
            tok = self.peek()
            # Lean's column rule (``checkColGt``) bounds application arguments, not infix operators
            if tok.kind != "sym" or tok.text not in INFIX:
                break
            prec, assoc = INFIX[tok.text]
            if prec < min_prec:
                break
            self.next()
            if assoc == "left":
                left = BinOp(tok.line, tok.text, left, self.expr(prec + 1))
                continue
            operands, lines = [left, self.expr(prec + 1)], [tok.line]
            while self.is_sym(tok.text):
                lines.append(self.next().line)
                operands.append(self.expr(prec + 1))
            left = _fold(tok.text, tok.line, operands, lines)
        self.depth -= 1
        return left

    def application(self) -> Node:
        start = self.peek()
        if start.kind == "sym" and start.text == "-":
            self.next()
            self.enter(start)
            operand = self.application()
            self.depth -= 1
            return Neg(start.line, operand)
        explicit = False
        if start.kind == "sym" and start.text == "@":
            self.next()
            explicit = True
        fn = self.atom()
        args: list[Node] = []
        while not self.at_expr_end() and self.starts_atom():
            args.append(self.argument())
        if not args and not explicit:
            return fn
        return App(start.line, fn, tuple(args), explicit)

    def starts_atom(self) -> bool:
        tok = self.peek()
        if tok.kind in ("ident", "num"):
            return tok.text not in COMMAND_KEYWORDS and tok.text != "let"
        return tok.kind == "bad" or (tok.kind == "sym" and tok.text in ("(", "[", ".", "⟨"))

    def argument(self) -> Node:
        if self.is_sym("(") and self.peek(1).kind == "ident" and self.is_sym(":=", 2):
            open_tok = self.next()
            name = self.next().text
            self.next()
            self.stop_cols.append(-1)
            value = self.expr()
            self.stop_cols.pop()
            self.expect_sym(")")
            return NamedArg(open_tok.line, name, value)
        return self.atom()

    def let_expr(self, let_tok: Token) -> Node:
        """``let x := v; body``, ``let x : T := v`` and the newline form (Lean's column rule)."""
        name_tok = self.next()
        if name_tok.kind == "ident" and name_tok.text == "rec":
            raise self.error("unsupported syntax: 'let rec' (layers are not recursive)", name_tok)
        if name_tok.kind != "ident" or name_tok.text in COMMAND_KEYWORDS or "." in name_tok.text:
            raise self.error(
                f"unsupported syntax: 'let' must bind one name, found {_show(name_tok)}", name_tok
            )
        if self.is_sym("(") or self.is_sym("{") or self.is_sym("["):
            raise self.error(
                f"unsupported syntax: a 'let' with arguments ('let {name_tok.text} (...)'); "
                "make it a 'where' helper or a definition",
                name_tok,
            )
        ty: Node | None = None
        if self.is_sym(":"):
            self.next()
            ty = self.expr()
        self.expect_sym(":=")
        self.stop_cols.append(let_tok.col)
        value = self.expr()
        self.stop_cols.pop()
        if self.is_sym(";"):
            self.next()
        elif self.peek().kind == "eof" or self.peek().line == self.toks[self.pos - 1].line:
            raise self.error(
                f"expected ';' or a new line after the value of 'let {name_tok.text}', "
                f"found {_show(self.peek())}"
            )
        if self.at_expr_end() or self.at_command_start():
            raise self.error(
                f"'let {name_tok.text} := …' has no body (its value ends at line "
                f"{self.toks[self.pos - 1].line}; the body follows on a new line or after ';')"
            )
        body = self.expr()
        return Let(let_tok.line, name_tok.text, ty, value, body)

    def atom(self) -> Node:
        tok = self.next()
        if tok.kind == "ident" and tok.text == "let":
            return self.let_expr(tok)
        if tok.kind == "ident" and tok.text in UNSUPPORTED_TERMS:
            raise self.error(f"unsupported syntax: {UNSUPPORTED_TERMS[tok.text]}", tok)
        if tok.kind == "ident" and tok.text not in COMMAND_KEYWORDS:
            return Ident(tok.line, tok.text)
        if tok.kind == "num":
            return Num(tok.line, int(tok.text))  # at most MAX_LITERAL_DIGITS digits (lexer)
        if tok.kind == "sym" and tok.text == "(":
            if self.is_sym(")"):
                raise self.error("unsupported syntax: '()'", tok)
            self.stop_cols.append(-1)
            inner = self.expr()
            self.stop_cols.pop()
            if self.is_sym(":"):
                raise self.error("unsupported syntax: type ascription '(e : T)'")
            self.expect_sym(")")
            return inner
        if tok.kind == "sym" and tok.text == "[":
            items: list[Node] = []
            self.stop_cols.append(-1)
            if not self.is_sym("]"):
                items.append(self.expr())
                while self.is_sym(","):
                    self.next()
                    items.append(self.expr())
            self.stop_cols.pop()
            self.expect_sym("]")
            return ListLit(tok.line, tuple(items))
        if tok.kind == "sym" and tok.text == ".":
            name = self.next()
            if name.kind != "ident":
                raise self.error("expected a constructor name after '.'", name)
            return DotCtor(tok.line, name.text)
        raise self.error(f"unsupported syntax: unexpected {_show(tok)}", tok)

    # -- commands
    def binders(self) -> list[Binder]:
        out: list[Binder] = []
        while self.is_sym("(") or self.is_sym("{") or self.is_sym("["):
            open_tok = self.next()
            if open_tok.text == "[":
                raise self.error(
                    "unsupported syntax: instance binder '[...]' in a layer definition", open_tok
                )
            close = ")" if open_tok.text == "(" else "}"
            names = [self.expect_ident().text]
            while self.peek().kind == "ident" and not self.is_sym(":"):
                names.append(self.expect_ident().text)
            self.expect_sym(":")
            self.stop_cols.append(-1)
            ty = self.expr()
            self.stop_cols.pop()
            self.expect_sym(close)
            out.extend(Binder(nm, ty, open_tok.text == "{", open_tok.line) for nm in names)
        return out

    def one_def(
        self,
        name_tok: Token,
        start: Token,
        doc: str | None,
        ns: str,
        opens: tuple[str, ...],
        private: bool,
        parent: str | None,
    ) -> Def:
        """The binders, type and body of a definition whose name has been read."""
        binders = self.binders()
        self.expect_sym(":")
        ty = self.expr()
        self.expect_sym(":=")
        body = self.expr()
        for part in (ty, body, *(b.type for b in binders)):
            if node_depth(part, MAX_NESTING) > MAX_NESTING:
                raise self.error(
                    f"the definition of '{name_tok.text}' nests deeper than {MAX_NESTING} levels", start
                )
        if parent is not None:
            full = f"{parent}.{name_tok.text}"
        else:
            full = f"{ns}.{name_tok.text}" if ns else name_tok.text
        return Def(
            full,
            name_tok.text,
            tuple(binders),
            ty,
            body,
            doc,
            self.file,
            start.line,
            ns,
            opens,
            private,
            parent,
        )

    def definition(
        self, tok: Token, doc: str | None, ns: str, opens: tuple[str, ...], private: bool
    ) -> list[Def]:
        """``def name binders : type := body`` and its ``where`` helpers (``name.helper``)."""
        name_tok = self.expect_ident()
        main = self.one_def(name_tok, tok, doc, ns, opens, private, None)
        out = [main]
        if self.peek().kind == "ident" and self.peek().text == "where":
            self.next()
            while True:
                helper_doc = None
                if (
                    self.peek().kind == "doc"
                    and self.peek(1).kind == "ident"
                    and (self.peek(1).text not in COMMAND_KEYWORDS)
                ):
                    helper_doc = self.next().text
                nxt = self.peek()
                if nxt.kind != "ident" or nxt.text in COMMAND_KEYWORDS:
                    break
                helper_name = self.expect_ident()
                if "." in helper_name.text:
                    raise self.error(f"unsupported syntax: a dotted 'where' helper name '{helper_name.text}'")
                self.stop_cols.append(helper_name.col)
                try:
                    out.append(
                        self.one_def(helper_name, helper_name, helper_doc, ns, opens, private, main.name)
                    )
                finally:
                    self.stop_cols.pop()
                if self.is_sym(";"):
                    self.next()
            if len(out) == 1:
                raise self.error(f"'where' after '{main.short}' defines nothing")
        if not self.at_command_start():
            raise self.error(f"unsupported syntax in the body of '{name_tok.text}': {_show(self.peek())}")
        return out

    def parse_file(self) -> LeanFile:
        result = LeanFile(self.file)
        namespaces: list[tuple[str, str]] = []  # (kind, name)
        opens: list[str] = []
        opens_in: list[str] = []  # `open X in`: for the next command only
        doc: str | None = None
        seen_command = False
        while self.peek().kind != "eof":
            tok = self.peek()
            if tok.kind == "bad":
                self.broken(result, None, doc, namespaces, self.error(tok.text, tok), tok)
                self.pos += 1
                self.skip_command()
                doc = None
                continue
            if tok.kind == "moddoc":
                self.next()
                if result.module_doc is None:
                    result.module_doc = tok.text
                continue
            if tok.kind == "doc":
                self.next()
                doc = tok.text
                continue
            if tok.kind == "other" and tok.text == "#" and self.peek(1).kind == "ident":
                self.next()  # `#check`, `#eval`, `#print`, ...: no definition; skipped
                self.next()
                self.skip_command()
                doc = None
                continue
            if tok.kind == "sym" and tok.text == "@" and self.is_sym("[", 1):
                self.skip_attribute()
                continue
            if tok.kind != "ident":
                if self.tolerant:
                    self.pos += 1
                    doc = None
                    continue
                err = self.error(f"unsupported syntax at top level: {_show(tok)}", tok)
                self.broken(result, None, doc, namespaces, err, tok)
                self.pos += 1
                self.skip_command()
                doc = None
                continue
            word = tok.text
            if word in SKIPPED_COMMANDS:
                self.next()
                self.skip_command()
                doc = None
                seen_command = True
                opens_in = []
                continue
            if word == "import":
                self.next()
                if seen_command:
                    raise self.error("'import' must come before every other command", tok)
                result.imports.append(self.expect_ident().text)
                result.import_lines.append(tok.line)
                continue
            seen_command = True
            if word == "mutual":  # a block of definitions, closed by a plain `end`
                self.next()
                namespaces.append(("mutual", ""))
            elif word in ("namespace", "section"):
                self.next()
                name = (
                    self.expect_ident().text
                    if word == "namespace"
                    else (
                        self.next().text
                        if self.peek().kind == "ident" and self.peek().line == tok.line
                        else ""
                    )
                )
                namespaces.append((word, name))
            elif word == "end":
                self.next()
                name = (
                    self.next().text if self.peek().kind == "ident" and self.peek().line == tok.line else ""
                )
                if not namespaces or namespaces[-1][1] != name:
                    raise self.error(f"'end {name}' does not close the innermost namespace or section", tok)
                namespaces.pop()
            elif word == "open":
                self.next()
                names: list[str] = []
                while (
                    self.peek().kind == "ident" and self.peek().line == tok.line and self.peek().text != "in"
                ):
                    name = self.next().text
                    if name != "scoped":
                        names.append(name)
                if self.peek().kind == "ident" and self.peek().text == "in":
                    self.next()
                    opens_in = names
                    continue
                opens.extend(names)
            elif word == "set_option":
                self.next()
                self.expect_ident()
                self.next()  # the value
                if self.peek().kind == "ident" and self.peek().text == "in":
                    self.next()
                    continue
            elif word == "universe":
                self.next()
                while self.peek().kind == "ident" and self.peek().line == tok.line:
                    self.next()
            elif word in ("def", "abbrev") or word in DEF_MODIFIERS:
                private = False
                while self.peek().kind == "ident" and self.peek().text in DEF_MODIFIERS:
                    private = private or self.peek().text == "private"
                    self.next()
                    if self.peek().kind == "sym" and self.peek().text == "@" and self.is_sym("[", 1):
                        self.skip_attribute()
                kw = self.peek()
                if not (kw.kind == "ident" and kw.text in ("def", "abbrev")):
                    self.unsupported(result, doc, namespaces, kw)
                else:
                    self.next()
                    ns = ".".join(n for kind, n in namespaces if kind == "namespace" and n)
                    start = self.pos
                    try:
                        result.defs.extend(self.definition(tok, doc, ns, tuple(opens + opens_in), private))
                    except LeanParseError as err:
                        self.pos = start
                        name_tok = self.peek()
                        self.pos += 1
                        named = name_tok.kind == "ident" and name_tok.text not in COMMAND_KEYWORDS
                        self.broken(result, name_tok.text if named else None, doc, namespaces, err, tok)
                        self.skip_command()
                        self.stop_cols = []
                        self.depth = 0
            else:
                self.unsupported(result, doc, namespaces, tok)
            doc = None
            opens_in = []
        if namespaces:
            raise self.error(f"namespace or section '{namespaces[-1][1]}' is never closed")
        return result

    def unsupported(
        self, result: LeanFile, doc: str | None, namespaces: list[tuple[str, str]], tok: Token
    ) -> None:
        """A command the reader does not read: skipped in a tolerant file, else recorded (under its
        name, when it has one) as a definition the reader cannot read."""
        self.pos += 1
        if not self.tolerant:
            err = self.error(f"unsupported command '{tok.text}' in a layer file", tok)
            name_tok = self.peek()
            named = (
                name_tok.kind == "ident"
                and name_tok.text not in COMMAND_KEYWORDS
                and name_tok.line == tok.line
            )
            self.broken(result, name_tok.text if named else None, doc, namespaces, err, tok)
        self.skip_command()

    def broken(
        self,
        result: LeanFile,
        short: str | None,
        doc: str | None,
        namespaces: list[tuple[str, str]],
        err: LeanParseError,
        tok: Token,
    ) -> None:
        ns = ".".join(n for kind, n in namespaces if kind == "namespace" and n)
        full = None if short is None else (f"{ns}.{short}" if ns else short)
        result.broken.append(BrokenDef(full, short, doc, self.file, tok.line, ns, err))

    def skip_attribute(self) -> None:
        """Skip ``@[...]`` (brackets balanced, at most to the end of the file)."""
        self.pos += 2
        depth = 1
        while depth and self.peek().kind != "eof":
            tok = self.toks[self.pos]
            self.pos += 1
            if tok.kind == "sym" and tok.text == "[":
                depth += 1
            elif tok.kind == "sym" and tok.text == "]":
                depth -= 1

    def skip_command(self) -> None:
        """Skip the tokens of a command the reader does not use, up to the next command."""
        while not self.at_command_start():
            self.pos += 1

    def at_command_start(self) -> bool:
        tok = self.peek()
        if tok.kind == "other" and tok.text == "#":  # `#check`, `#eval`, ...
            return self.peek(1).kind == "ident"
        if tok.kind == "sym" and tok.text == "@" and self.is_sym("[", 1):
            return True
        return tok.kind in ("eof", "doc", "moddoc") or (tok.kind == "ident" and tok.text in COMMAND_KEYWORDS)


def _show(tok: Token) -> str:
    if tok.kind == "eof":
        return "end of file"
    if tok.kind == "other":
        return f"character {tok.text!r}"
    return f"'{tok.text}'" if tok.kind in ("sym", "ident", "num") else tok.kind


def parse_source(source: str, file: str, *, tolerant: bool = False) -> LeanFile:
    """Parse one Lean file's text. A definition it cannot read is recorded in ``broken`` with its
    ``file:line`` error; text that stops the whole file (an unterminated comment or string, an
    ``end`` that closes nothing, ``import`` after a command) raises :class:`LeanParseError`. Never
    recurses deeper than :data:`MAX_NESTING` levels of the input. ``tolerant``: skip the commands
    that define no layer (for files that a layer file imports)."""
    with deep_stack(), reader_gc():
        return _Parser(tokenize(source, file), file, tolerant).parse_file()
