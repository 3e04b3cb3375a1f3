"""A lexer for the fragment of Lean 4 that the Zoo files use.

It reads Lean source as text (it never runs Lean): identifiers (with dots and Unicode letters),
natural-number literals, string literals, the operators of the layer syntax and of dimension
arithmetic, doc comments (kept, with their line), and plain comments (dropped, nested ``/- -/``
included). Each token records its line for ``file:line`` errors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pybridge.errors import LeanParseError

#: Multi-character symbols first, so that ``:=`` wins over ``:``.
SYMBOLS = (
    ":=",
    "++",
    "::",
    "→",
    "≫",
    "⊗",
    "∣",
    "⟨",
    "⟩",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "*",
    "/",
    "%",
    "+",
    "-",
    "<",
    "≤",
    "@",
    ".",
    "=",
    "·",
    "^",
    ";",
)

_DIGITS = re.compile(r"[0-9]+")
_IDENT_START = re.compile(r"[A-Za-z_\u00C0-\u024F\u0370-\u03FF\u1F00-\u1FFF\u2100-\u214F]")
_IDENT_REST = re.compile(r"[A-Za-z0-9_'!?\u00C0-\u024F\u0370-\u03FF\u1F00-\u1FFF\u2080-\u209C\u2100-\u214F]")


#: The longest natural-number literal the reader accepts (Python refuses ``int()`` on 4,300 digits).
MAX_LITERAL_DIGITS = 100


@dataclass(frozen=True)
class Token:
    """One token: ``kind`` is ``ident``, ``num``, ``str``, ``doc``, ``moddoc``, ``sym``, ``other`` (a
    character the layer syntax does not use, such as ``∀`` or ``#``: the parser reports it where a
    layer needs it, and skips it inside commands it skips), ``bad`` (text the reader refuses, such as
    a number literal of more than :data:`MAX_LITERAL_DIGITS` digits; ``text`` is the message, which the
    parser reports where the token stands) or ``eof``."""

    kind: str
    text: str
    line: int
    #: The 0-based column where the token starts (Lean ends a ``let`` value at a line that starts at
    #: or left of the ``let``).
    col: int = 0


def tokenize(source: str, file: str) -> list[Token]:
    """Split ``source`` into tokens; raises :class:`LeanParseError` on text it cannot read."""
    tokens: list[Token] = []
    i, line, n = 0, 1, len(source)
    line_start = 0
    while i < n:
        c = source[i]
        col = i - line_start
        if c == "\n":
            line += 1
            i += 1
            line_start = i
        elif c.isspace():
            i += 1
        elif source.startswith("--", i):
            j = source.find("\n", i)
            i = n if j < 0 else j
        elif source.startswith("/-", i):
            start_line = line
            is_doc = source.startswith("/--", i) and not source.startswith("/--/", i)
            is_module_doc = source.startswith("/-!", i)
            depth, j = 1, i + 2
            while j < n and depth:
                if source.startswith("/-", j):
                    depth, j = depth + 1, j + 2
                elif source.startswith("-/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            if depth:
                raise LeanParseError(file, start_line, "unterminated comment")
            body = source[i:j]
            line += body.count("\n")
            if "\n" in body:
                line_start = i + body.rfind("\n") + 1
            if is_doc:
                tokens.append(Token("doc", body[3:-2].strip(), start_line, col))
            elif is_module_doc:
                tokens.append(Token("moddoc", body[3:-2].strip(), start_line, col))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and source[j] != '"':
                j += 2 if source[j] == "\\" else 1
            if j >= n:
                raise LeanParseError(file, line, "unterminated string literal")
            tokens.append(Token("str", source[i + 1 : j], line, col))
            line += source.count("\n", i, j)
            if "\n" in source[i:j]:
                line_start = source.rfind("\n", i, j) + 1
            i = j + 1
        elif "0" <= c <= "9":  # ASCII digits only: Lean reads `²`, `₁`, `١` as no number
            m = _DIGITS.match(source, i)
            assert m is not None
            if len(m.group()) > MAX_LITERAL_DIGITS:
                # reported by the parser where it stands, so that only that definition is affected
                message = f"a number literal of {len(m.group())} digits (at most {MAX_LITERAL_DIGITS})"
                tokens.append(Token("bad", message, line, col))
            else:
                tokens.append(Token("num", m.group(), line, col))
            i = m.end()
        elif c == "«" or _IDENT_START.match(c):
            j = i
            parts = []
            while True:
                if j < n and source[j] == "«":
                    k = source.find("»", j)
                    if k < 0:
                        raise LeanParseError(file, line, "unterminated «name»")
                    parts.append(source[j + 1 : k])
                    j = k + 1
                elif j < n and _IDENT_START.match(source[j]):
                    k = j + 1
                    while k < n and _IDENT_REST.match(source[k]):
                        k += 1
                    parts.append(source[j:k])
                    j = k
                else:
                    break
                # a dot followed by an identifier start continues a dotted name
                if (
                    j + 1 < n
                    and source[j] == "."
                    and (_IDENT_START.match(source[j + 1]) or source[j + 1] == "«")
                ):
                    j += 1
                    continue
                break
            tokens.append(Token("ident", ".".join(parts), line, col))
            i = j
        else:
            for sym in SYMBOLS:
                if source.startswith(sym, i):
                    tokens.append(Token("sym", sym, line, col))
                    i += len(sym)
                    break
            else:
                tokens.append(Token("other", c, line, col))
                i += 1
    tokens.append(Token("eof", "", line))
    return tokens
