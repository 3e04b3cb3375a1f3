"""A lightweight scanner of Lean 4 sources: tokens, imports, module docstrings and declarations.

This is not a Lean parser. It reads the conventional layout of ``Formal/`` well enough to answer the
static audit's questions without a toolchain: which modules a file imports, whether it has a module
docstring (``/-! ... -/``), and which names it declares, with their namespaces resolved.

What it understands:

* comments (``--`` and nested ``/- ... -/``), docstrings (``/-- ... -/``) and module docstrings,
  string, character and name literals (so that a keyword inside any of them is not a keyword);
* names in guillemets (``«…»``: any character up to ``»``, line breaks included, as Lean reads them),
  written as the layer reader writes them: the characters a terminal acts on escaped (``\\x1b``,
  ``\\u202e``, :func:`pybridge.lean.lexer.escape_name`), in docstrings too (their line breaks and tabs
  kept), so that the audit and the reader name a declaration alike and no finding prints a control
  character;
* ``namespace X``/``section``/``mutual`` ... ``end``, with ``_root_`` names;
* ``def``, ``theorem``, ``lemma``, ``abbrev``, ``opaque``, ``axiom``, ``instance`` (named ones),
  ``structure``, ``class``, ``class inductive`` and ``inductive``, after any of the modifiers
  ``private``/``protected``/``noncomputable``/``partial``/``unsafe``/``nonrec``/``scoped``/``local``,
  attributes ``@[...]`` and ``set_option ... in``/``open ... in`` prefixes;
* the constructors of inductive types (``T.c``), and the constructor (``S.mk`` or ``S.c`` for
  ``c ::``), the fields (``S.f``) and the parent projections (``S.toP`` for ``extends P``) of
  structures and classes.

It does not predict other generated names (anonymous instances, ``rec``, ``casesOn``, ``where``
auxiliaries). Malformed input that the scanner cannot follow (an unterminated comment or string, an
``end`` that closes nothing or the wrong scope) raises :class:`~pybridge.errors.LeanParseError`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from pybridge.errors import LeanParseError
from pybridge.lean.display import escape_text
from pybridge.lean.lexer import escape_name, read_lean_bytes

TokenKind = Literal["ident", "sym", "num", "str", "char", "name", "doc", "moddoc"]

DeclKind = Literal[
    "def",
    "theorem",
    "lemma",
    "abbrev",
    "opaque",
    "axiom",
    "instance",
    "structure",
    "class",
    "inductive",
    "constructor",
    "field",
]

#: Keywords that start a named declaration.
DECL_KEYWORDS = frozenset(
    {"def", "theorem", "lemma", "abbrev", "opaque", "axiom", "instance", "structure", "class", "inductive"}
)

#: Declaration modifiers that may stand between a docstring and the declaration keyword.
MODIFIERS = frozenset(
    {"private", "protected", "noncomputable", "partial", "unsafe", "nonrec", "scoped", "local", "public"}
)

#: Identifiers that start a command (used to end a ``section``/``end`` name and a structure body).
COMMAND_KEYWORDS = (
    DECL_KEYWORDS
    | MODIFIERS
    | {
        "namespace",
        "section",
        "end",
        "mutual",
        "open",
        "variable",
        "universe",
        "set_option",
        "attribute",
        "example",
        "import",
        "export",
        "deriving",
        "notation",
        "infix",
        "infixl",
        "infixr",
        "prefix",
        "postfix",
        "macro",
        "syntax",
        "macro_rules",
        "elab",
    }
)

_GREEK_EXCLUDED = frozenset("λΠΣ")
_SUBSCRIPTS = frozenset("₀₁₂₃₄₅₆₇₈₉ₐₑₒₓₔₕₖₗₘₙₚₛₜᵢᵣᵤᵥⱼᵦᵧᵨᵩᵪ")
_CHAR_LITERAL = re.compile(r"'(?:\\(?:[\\\"'ntr0]|x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\})|[^\\'\n])'")
_SYMBOLS = (":=", "::", "@[", "=>", "<|", "|>", "..", "<;>", "≫", "⊗")


class Token(NamedTuple):
    """One lexical token with its 1-based line and 0-based column (a named tuple: the library has
    some 150,000 tokens, and a tuple is built many times faster than a validated model)."""

    kind: TokenKind
    text: str
    line: int
    col: int


class Import(BaseModel):
    """An ``import`` in a module's header."""

    model_config = ConfigDict(frozen=True)

    module: str
    line: int


class Declaration(BaseModel):
    """A declared name, fully qualified (``Formal.Arch.eval_comp``), with where it is declared."""

    model_config = ConfigDict(frozen=True)

    name: str
    kind: DeclKind
    file: str
    line: int
    col: int
    private: bool = False
    doc: str | None = None
    #: For constructors and fields: the structure or inductive type they belong to.
    parent: str | None = None
    #: The namespace the declaration was written in (``Formal.Zoo``).
    namespace: str = ""


class ModuleInfo(BaseModel):
    """What the scanner read from one Lean file."""

    model_config = ConfigDict(frozen=True)

    #: Path relative to the repository root, POSIX separators (``Formal/Network/Arch.lean``).
    file: str
    #: Module name (``Formal.Network.Arch``).
    module: str
    imports: tuple[Import, ...]
    module_doc: str | None
    #: Line of the first module docstring (0 when there is none).
    module_doc_line: int
    declarations: tuple[Declaration, ...]


def _is_ident_start(ch: str) -> bool:
    if ch == "_" or ch == "«":
        return True
    return ch.isalpha() and ch not in _GREEK_EXCLUDED


def _is_ident_rest(ch: str) -> bool:
    return (ch.isalnum() and ch not in _GREEK_EXCLUDED) or ch in "_'!?" or ch in _SUBSCRIPTS


#: A run of characters of :func:`_is_ident_rest` (``\w`` is ``str.isalnum`` and ``_``).
_IDENT_REST_RUN = re.compile(
    "(?:(?![" + "".join(sorted(_GREEK_EXCLUDED)) + "])[\\w'!?" + "".join(sorted(_SUBSCRIPTS)) + "])*"
)
#: What opens or closes a nested block comment.
_COMMENT_MARK = re.compile("/-|-/")
#: A run of white space other than the line break (``str.isspace``, as ``\s`` matches).
_BLANKS = re.compile(r"[^\S\n]+")


def _read_ident_part(text: str, i: int, file: str, line: int) -> int:
    """Return the end index of the identifier component starting at ``i``."""
    if text[i] == "«":  # as Lean's identFn: any character up to the closing », line breaks included
        end = text.find("»", i + 1)
        if end < 0:
            raise LeanParseError(file, line, "unterminated «...» identifier")
        return end + 1
    rest = _IDENT_REST_RUN.match(text, i + 1)
    assert rest is not None
    return rest.end()


_GUILLEMET_PART = re.compile("«([^»]*)»")


def strip_guillemets(name: str) -> str:
    """The name that the text of an identifier (``Formal.«a b».c``) declares or uses: guillemets
    dropped, and in their contents the characters a terminal acts on written as escapes, as the
    layer reader writes them (:func:`pybridge.lean.lexer.escape_name`), so that the audit and the
    reader name the same declaration alike and no finding prints a control character."""
    return _GUILLEMET_PART.sub(lambda m: escape_name(m.group(1)), name)


#: Characters that are always a symbol token of their own: no identifier, number, white space,
#: comment, literal or longer symbol starts with them (read without the checks below).
_PLAIN_SYMBOLS = frozenset(
    ch
    for ch in "()[]{},;+*%^&$#~!?>⟨⟩→↦×⟶∘≤≥≠¬∧∨∀∃λ≫⊗•·∣⁻¹"
    if not (_is_ident_start(ch) or ch.isdigit() or ch.isspace() or ch in "-/\"'`r")
    and not any(len(sym) > 1 and sym.startswith(ch) for sym in _SYMBOLS)
)


def tokenize(text: str, file: str = "<input>") -> list[Token]:
    """Split Lean source into tokens, dropping ordinary comments.

    Docstrings (``/-- -/``) and module docstrings (``/-! -/``) are kept as tokens of kind ``doc`` and
    ``moddoc`` whose text is the docstring's content. Raises :class:`LeanParseError` on an
    unterminated comment, string or guillemet identifier.
    """
    tokens: list[Token] = []
    i = 0
    n = len(text)
    line = 1
    line_start = 0

    def advance_lines(start: int, end: int) -> None:
        nonlocal line, line_start
        segment = text[start:end]
        count = segment.count("\n")
        if count:
            line += count
            line_start = start + segment.rfind("\n") + 1

    while i < n:
        ch = text[i]
        if ch in _PLAIN_SYMBOLS:
            tokens.append(Token("sym", ch, line, i - line_start))
            i += 1
            continue
        if ch == "\n":
            line += 1
            i += 1
            line_start = i
            continue
        if ch.isspace():
            blanks = _BLANKS.match(text, i)
            assert blanks is not None
            i = blanks.end()
            continue
        col = i - line_start
        start_line = line
        # comments and docstrings
        if ch == "-" and text.startswith("--", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if ch == "/" and text.startswith("/-", i):
            kind: TokenKind | None = None
            body_start = i + 2
            if text.startswith("/--", i) and not text.startswith("/--/", i):
                kind, body_start = "doc", i + 3
            elif text.startswith("/-!", i):
                kind, body_start = "moddoc", i + 3
            depth = 1
            j = i + 2 if kind is None else body_start
            while depth:  # the next `/-` or `-/` (at one position, `/-` first)
                mark = _COMMENT_MARK.search(text, j)
                if mark is None:
                    j = n
                    break
                depth, j = depth + (1 if mark.group() == "/-" else -1), mark.end()
            if depth:
                raise LeanParseError(file, start_line, "unterminated comment (`/-` without `-/`)")
            if kind is not None:
                doc = escape_text(text[body_start : j - 2].strip(), keep="\n\t")
                tokens.append(Token(kind=kind, text=doc, line=start_line, col=col))
            advance_lines(i, j)
            i = j
            continue
        # string literals (plain and raw)
        raw = re.match(r"r(#*)\"", text[i : i + 64]) if ch == "r" else None
        if raw is not None:
            hashes = raw.group(1)
            close = '"' + hashes
            end = text.find(close, i + len(raw.group(0)))
            if end < 0:
                raise LeanParseError(file, start_line, "unterminated raw string literal")
            j = end + len(close)
            tokens.append(Token(kind="str", text=text[i:j], line=start_line, col=col))
            advance_lines(i, j)
            i = j
            continue
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                raise LeanParseError(file, start_line, "unterminated string literal")
            j += 1
            tokens.append(Token(kind="str", text=text[i:j], line=start_line, col=col))
            advance_lines(i, j)
            i = j
            continue
        if ch == "'":
            m = _CHAR_LITERAL.match(text, i)
            if m is not None:
                tokens.append(Token(kind="char", text=m.group(0), line=line, col=col))
                i = m.end()
                continue
            tokens.append(Token(kind="sym", text="'", line=line, col=col))
            i += 1
            continue
        # name literals `foo and ``foo
        if ch == "`":
            j = i
            while j < n and text[j] == "`" and j - i < 2:
                j += 1
            if j < n and _is_ident_start(text[j]):
                k = _read_ident_part(text, j, file, line)
                while k + 1 < n and text[k] == "." and _is_ident_start(text[k + 1]):
                    k = _read_ident_part(text, k + 1, file, line)
                tokens.append(Token(kind="name", text=strip_guillemets(text[j:k]), line=line, col=col))
                advance_lines(i, k)
                i = k
                continue
            tokens.append(Token(kind="sym", text=text[i:j], line=line, col=col))
            i = j
            continue
        if _is_ident_start(ch):
            k = _read_ident_part(text, i, file, line)
            while k + 1 < n and text[k] == "." and _is_ident_start(text[k + 1]):
                k = _read_ident_part(text, k + 1, file, line)
            raw_name = text[i:k]
            if "«" in raw_name:  # only a «name» may hold a line break
                tokens.append(Token(kind="ident", text=strip_guillemets(raw_name), line=line, col=col))
                advance_lines(i, k)
            else:
                tokens.append(Token("ident", raw_name, line, col))
            i = k
            continue
        if ch.isdigit():
            k = i + 1
            while k < n and (text[k].isalnum() or text[k] == "_"):
                k += 1
            tokens.append(Token(kind="num", text=text[i:k], line=line, col=col))
            i = k
            continue
        for sym in _SYMBOLS:
            if text.startswith(sym, i):
                tokens.append(Token(kind="sym", text=sym, line=line, col=col))
                i += len(sym)
                break
        else:
            tokens.append(Token(kind="sym", text=ch, line=line, col=col))
            i += 1
    return tokens


def module_name(rel_path: Path | str) -> str:
    """``Formal/Network/Arch.lean`` -> ``Formal.Network.Arch``."""
    parts = Path(rel_path).with_suffix("").parts
    return ".".join(parts)


def module_path(module: str) -> str:
    """``Formal.Network.Arch`` -> ``Formal/Network/Arch.lean`` (relative, POSIX)."""
    return "/".join(module.split(".")) + ".lean"


class _Frame:
    __slots__ = ("kind", "name", "line")

    def __init__(self, kind: str, name: str, line: int) -> None:
        self.kind = kind
        self.name = name
        self.line = line


def _is_kw(tok: Token, *words: str) -> bool:
    return tok.kind == "ident" and tok.text in words


def _matching(tokens: list[Token], i: int, open_: str, close: str) -> int:
    """Index of the token closing the bracket opened at ``i`` (or the last index)."""
    depth = 0
    for j in range(i, len(tokens)):
        t = tokens[j]
        if t.kind == "sym" and t.text in (open_, "@[" if open_ == "[" else open_):
            depth += 1
        elif t.kind == "sym" and t.text == close:
            depth -= 1
            if depth == 0:
                return j
    return len(tokens) - 1


class _Scanner:
    def __init__(self, tokens: list[Token], file: str) -> None:
        self.toks = tokens
        self.file = file
        self.stack: list[_Frame] = []
        self.decls: list[Declaration] = []
        first: dict[int, int] = {}
        for idx, t in enumerate(tokens):
            first.setdefault(t.line, idx)
        self.first_on_line = first

    # -- helpers ---------------------------------------------------------------------------------
    def namespace(self) -> str:
        return ".".join(f.name for f in self.stack if f.kind == "namespace" and f.name)

    def qualify(self, name: str) -> str:
        if name.startswith("_root_."):
            return name[len("_root_.") :]
        ns = self.namespace()
        return f"{ns}.{name}" if ns else name

    def line_starts_here(self, idx: int) -> bool:
        return self.first_on_line.get(self.toks[idx].line) == idx

    def add(
        self,
        name: str,
        kind: DeclKind,
        tok: Token,
        *,
        private: bool = False,
        doc: str | None = None,
        parent: str | None = None,
    ) -> None:
        self.decls.append(
            Declaration(
                name=name,
                kind=kind,
                file=self.file,
                line=tok.line,
                col=tok.col,
                private=private,
                doc=doc,
                parent=parent,
                namespace=self.namespace(),
            )
        )

    def prefix_info(self, i: int) -> tuple[bool, str | None, int]:
        """Walk back from a declaration keyword over modifiers and attributes.

        Returns (private, docstring, column of the line where the declaration starts).
        """
        private = False
        doc: str | None = None
        j = i - 1
        start = i
        while j >= 0:
            t = self.toks[j]
            if t.kind == "ident" and t.text in MODIFIERS:
                private = private or t.text == "private"
                start = j
                j -= 1
            elif t.kind == "sym" and t.text == "]":
                depth = 0
                k = j
                while k >= 0:
                    tk = self.toks[k]
                    if tk.kind == "sym" and tk.text == "]":
                        depth += 1
                    elif tk.kind == "sym" and tk.text in ("[", "@["):
                        depth -= 1
                        if depth == 0:
                            break
                    k -= 1
                if k < 0 or self.toks[k].text != "@[":
                    break
                start = k
                j = k - 1
            elif t.kind == "doc":
                doc = t.text
                start = j
                break
            else:
                break
        first = self.first_on_line[self.toks[start].line]
        return private, doc, self.toks[first].col

    def body_end(self, i: int, decl_col: int, inductive: bool) -> int:
        """Index one past the last token of the declaration whose keyword is at ``i``."""
        k = i + 1
        while k < len(self.toks):
            t = self.toks[k]
            if self.line_starts_here(k) and t.col <= decl_col:
                if inductive and t.kind == "sym" and t.text == "|":
                    k += 1
                    continue
                if (
                    inductive
                    and t.kind == "doc"
                    and k + 1 < len(self.toks)
                    and self.toks[k + 1].kind == "sym"
                    and self.toks[k + 1].text == "|"
                ):
                    k += 1
                    continue
                break
            k += 1
        return k

    # -- the main loop ---------------------------------------------------------------------------
    def run(self) -> None:
        toks = self.toks
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.kind == "sym" and t.text == "@[":
                i = _matching(toks, i, "[", "]") + 1
                continue
            if t.kind != "ident":
                i += 1
                continue
            word = t.text
            if word == "attribute" and i + 1 < len(toks) and toks[i + 1].text == "[":
                i = _matching(toks, i + 1, "[", "]") + 1
                continue
            if word == "deriving":
                # `deriving Repr, DecidableEq` and `deriving instance C for T` declare nothing we track.
                i += 2 if i + 1 < len(toks) and _is_kw(toks[i + 1], "instance") else 1
                continue
            if word == "namespace":
                name_tok = toks[i + 1] if i + 1 < len(toks) else None
                if name_tok is None or name_tok.kind != "ident" or name_tok.line != t.line:
                    raise LeanParseError(self.file, t.line, "`namespace` without a name")
                self.stack.append(_Frame("namespace", name_tok.text, t.line))
                i += 2
                continue
            if word == "section":
                name = self._optional_name(i)
                self.stack.append(_Frame("section", name, t.line))
                i += 2 if name else 1
                continue
            if word == "mutual":
                self.stack.append(_Frame("mutual", "", t.line))
                i += 1
                continue
            if word == "end":
                name = self._optional_name(i)
                self._close(t, name)
                i += 2 if name else 1
                continue
            if word in DECL_KEYWORDS:
                i = self._declaration(i)
                continue
            i += 1
        if self.stack:
            frame = self.stack[-1]
            what = f"{frame.kind} {frame.name}".strip()
            raise LeanParseError(self.file, frame.line, f"`{what}` is never closed with `end`")

    def _optional_name(self, i: int) -> str:
        if i + 1 < len(self.toks):
            nxt = self.toks[i + 1]
            if nxt.kind == "ident" and nxt.line == self.toks[i].line and nxt.text not in COMMAND_KEYWORDS:
                return nxt.text
        return ""

    def _close(self, tok: Token, name: str) -> None:
        if not self.stack:
            label = f"`end {name}`" if name else "`end`"
            raise LeanParseError(self.file, tok.line, f"{label} closes no namespace or section")
        frame = self.stack.pop()
        if frame.name != name:
            opened = f"{frame.kind} {frame.name}".strip()
            label = f"`end {name}`" if name else "`end`"
            raise LeanParseError(
                self.file, tok.line, f"{label} does not close `{opened}` (opened at line {frame.line})"
            )

    def _declaration(self, i: int) -> int:
        toks = self.toks
        kw = toks[i]
        word = kw.text
        nxt = i + 1
        kind: DeclKind = word  # type: ignore[assignment]
        if word == "class" and nxt < len(toks) and _is_kw(toks[nxt], "inductive", "abbrev"):
            kind = "inductive" if toks[nxt].text == "inductive" else "class"
            nxt += 1
        elif word == "instance" and nxt < len(toks) and toks[nxt].text == "(":
            # `instance (priority := low) name : ...`
            if nxt + 1 < len(toks) and toks[nxt + 1].text == "priority":
                nxt = _matching(toks, nxt, "(", ")") + 1
        private, doc, decl_col = self.prefix_info(i)
        if nxt >= len(toks):
            return nxt
        name_tok = toks[nxt]
        if name_tok.kind != "ident" or name_tok.text in COMMAND_KEYWORDS:
            # `instance : C T` (anonymous) or a keyword used oddly: nothing we can name.
            return nxt
        full = self.qualify(name_tok.text)
        self.add(full, kind, name_tok, private=private, doc=doc)
        if kind in ("structure", "class"):
            end = self.body_end(i, decl_col, inductive=False)
            self._structure_body(full, nxt + 1, end)
            return end
        if kind == "inductive":
            end = self.body_end(i, decl_col, inductive=True)
            self._inductive_body(full, nxt + 1, end)
            return end
        return nxt + 1

    def _inductive_body(self, full: str, start: int, end: int) -> None:
        toks = self.toks
        depth = 0
        pending_doc: str | None = None
        k = start
        while k < end:
            t = toks[k]
            if t.kind == "ident" and t.text == "deriving" and depth == 0:
                return
            if t.kind == "doc":
                pending_doc = t.text
            elif t.kind == "sym" and t.text in ("(", "[", "{", "⦃", "@["):
                depth += 1
            elif t.kind == "sym" and t.text in (")", "]", "}", "⦄"):
                depth -= 1
            elif t.kind == "sym" and t.text == "|" and depth == 0:
                j = k + 1
                while j < end and _is_kw(toks[j], *MODIFIERS):
                    j += 1
                if j < end and toks[j].kind == "ident":
                    self.add(
                        f"{full}.{toks[j].text}",
                        "constructor",
                        toks[j],
                        doc=pending_doc,
                        parent=full,
                    )
                pending_doc = None
                k = j
            k += 1

    def _structure_body(self, full: str, start: int, end: int) -> None:
        toks = self.toks
        where = None
        depth = 0
        parents: list[tuple[str, Token]] = []
        k = start
        expect_parent = False
        while k < end:
            t = toks[k]
            if t.kind == "sym" and t.text in ("(", "[", "{", "⦃"):
                depth += 1
            elif t.kind == "sym" and t.text in (")", "]", "}", "⦄"):
                depth -= 1
            elif depth == 0 and t.kind == "ident" and t.text == "extends":
                expect_parent = True
                k += 1
                continue
            elif depth == 0 and expect_parent and t.kind == "ident":
                if k + 1 < end and toks[k + 1].text == ":":
                    parents.append((t.text, t))
                else:
                    parents.append(("to" + t.text.split(".")[-1], t))
                expect_parent = False
                # skip the parent's arguments up to the next comma at depth 0
                k += 1
                while k < end:
                    u = toks[k]
                    if u.kind == "sym" and u.text in ("(", "[", "{", "⦃"):
                        depth += 1
                    elif u.kind == "sym" and u.text in (")", "]", "}", "⦄"):
                        depth -= 1
                    elif depth == 0 and u.kind == "sym" and u.text == ",":
                        expect_parent = True
                        break
                    elif depth == 0 and (u.text in ("where", ":=") or u.text == ":"):
                        break
                    k += 1
                continue
            if depth == 0 and (_is_kw(t, "where") or (t.kind == "sym" and t.text == ":=")):
                where = k
                break
            k += 1
        for pname, ptok in parents:
            self.add(f"{full}.{pname}", "field", ptok, parent=full)
        ctor = "mk"
        ctor_tok = toks[start - 1]
        if where is None:
            self.add(f"{full}.{ctor}", "constructor", ctor_tok, parent=full)
            return
        body = list(range(where + 1, end))
        # constructor override `name ::`
        if len(body) >= 2 and toks[body[0]].kind == "ident" and toks[body[1]].text == "::":
            ctor, ctor_tok = toks[body[0]].text, toks[body[0]]
            body = body[2:]
        self.add(f"{full}.{ctor}", "constructor", ctor_tok, parent=full)
        field_col: int | None = None
        pending_doc: str | None = None
        for pos, k in enumerate(body):
            t = toks[k]
            if t.kind == "doc":
                pending_doc = t.text
                continue
            starts = pos == 0 or self.line_starts_here(k)
            if not starts:
                continue
            if field_col is None:
                field_col = t.col
            if t.col != field_col:
                continue
            if _is_kw(t, "deriving"):
                break
            self._field(full, body[pos:], pending_doc)
            pending_doc = None

    def _field(self, full: str, idxs: list[int], doc: str | None) -> None:
        toks = self.toks
        j = 0
        while j < len(idxs) and _is_kw(toks[idxs[j]], *MODIFIERS):
            j += 1
        if j >= len(idxs):
            return
        first = toks[idxs[j]]
        names: list[Token] = []
        if first.kind == "sym" and first.text in ("(", "{", "[", "⦃"):
            j += 1
            while j < len(idxs) and toks[idxs[j]].kind == "ident":
                names.append(toks[idxs[j]])
                j += 1
            if j < len(idxs) and toks[idxs[j]].text == ":":
                for nt in names:
                    self.add(f"{full}.{nt.text}", "field", nt, doc=doc, parent=full)
            return
        while j < len(idxs) and toks[idxs[j]].kind == "ident":
            names.append(toks[idxs[j]])
            j += 1
        if not names or j >= len(idxs):
            return
        follow = toks[idxs[j]]
        # `x := v` overrides an inherited default: it declares no field.
        if follow.text == ":" or (follow.kind == "sym" and follow.text in ("(", "{", "[", "⦃")):
            for nt in names:
                self.add(f"{full}.{nt.text}", "field", nt, doc=doc, parent=full)


def scan_text(text: str, file: str, module: str) -> ModuleInfo:
    """Scan one Lean source text; ``file`` is its repository-relative path (used in errors)."""
    tokens = tokenize(text, file)
    imports: list[Import] = []
    module_doc: str | None = None
    module_doc_line = 0
    for idx, tok in enumerate(tokens):
        if tok.kind == "moddoc" and module_doc is None:
            module_doc, module_doc_line = tok.text, tok.line
        if _is_kw(tok, "import"):
            j = idx + 1
            while j < len(tokens) and _is_kw(tokens[j], "all"):
                j += 1
            if j >= len(tokens) or tokens[j].kind != "ident":
                raise LeanParseError(file, tok.line, "`import` without a module name")
            imports.append(Import(module=tokens[j].text, line=tok.line))
    scanner = _Scanner(tokens, file)
    scanner.run()
    return ModuleInfo(
        file=file,
        module=module,
        imports=tuple(imports),
        module_doc=module_doc,
        module_doc_line=module_doc_line,
        declarations=tuple(scanner.decls),
    )


def read_lean(path: Path, rel: str) -> str:
    """Read a Lean file as UTF-8 text with universal newlines (at most
    :data:`pybridge.lean.lexer.MAX_LEAN_BYTES`), turning I/O and decoding failures into
    :class:`LeanParseError`."""
    try:
        return read_lean_bytes(path, rel).decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as err:
        raise LeanParseError(rel, 1, f"not valid UTF-8 ({err.reason})") from None


def scan_file(root: Path, path: Path) -> ModuleInfo:
    """Scan ``path`` (a file under ``root``)."""
    rel = path.relative_to(root).as_posix()
    return scan_text(read_lean(path, rel), rel, module_name(rel))


def lean_sources(root: Path) -> list[Path]:
    """The Lean sources of the library: ``Formal.lean`` (if present) and every ``Formal/**/*.lean``,
    sorted."""
    files = sorted((root / "Formal").rglob("*.lean")) if (root / "Formal").is_dir() else []
    top = root / "Formal.lean"
    return ([top] if top.is_file() else []) + [f for f in files if f.is_file()]


def declared_names(modules: list[ModuleInfo]) -> dict[str, Declaration]:
    """Every declared name of ``modules``, mapped to its (first) declaration."""
    out: dict[str, Declaration] = {}
    for mod in modules:
        for decl in mod.declarations:
            out.setdefault(decl.name, decl)
    return out


def resolve(name: str, namespace: str, declared: dict[str, Declaration]) -> Declaration | None:
    """Resolve ``name`` as Lean would from inside ``namespace``: ``A.B.name``, ``A.name``, ``name``."""
    if name.startswith("_root_."):
        return declared.get(name[len("_root_.") :])
    parts = namespace.split(".") if namespace else []
    for k in range(len(parts), -1, -1):
        candidate = ".".join([*parts[:k], name])
        if candidate in declared:
            return declared[candidate]
    return None
