r"""A lexer for the fragment of Lean 4 that the Zoo files use.

It reads Lean source as text (it never runs Lean): identifiers (with dots and Unicode letters),
natural-number literals, string literals, the operators of the layer syntax and of dimension
arithmetic, doc comments (kept, with their line), and plain comments (dropped, nested ``/- -/``
included). Each token records its line for ``file:line`` errors.

A name in guillemets (``«…»``) may hold any character but ``»``, as in Lean (``identFn`` takes the
text up to the closing ``»``); the characters a terminal acts on (controls, bidirectional overrides,
line separators) and the backslash are written as escapes (``\n``, ``\x1b``, ``\u202e``, ``\\``) in
the name the reader uses, so that no message or listing prints them. A byte order mark at the start
of a file is refused: Lean's ``whitespace`` skips only space, tab, carriage return and newline.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import NamedTuple

from pybridge.errors import LeanParseError
from pybridge.lean.display import TERMINAL_CONTROLS

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
_IDENT_START_CLASS = r"A-Za-z_\u00C0-\u024F\u0370-\u03FF\u1F00-\u1FFF\u2100-\u214F"
_IDENT_START = re.compile(f"[{_IDENT_START_CLASS}]")
_IDENT_REST = re.compile(r"[A-Za-z0-9_'!?\u00C0-\u024F\u0370-\u03FF\u1F00-\u1FFF\u2080-\u209C\u2100-\u214F]")
#: One plain (not «…») component of a name: an identifier start and its rest, matched at once.
_IDENT_WORD = re.compile(f"[{_IDENT_START_CLASS}]{_IDENT_REST.pattern}*")
#: What opens or closes a nested block comment.
_COMMENT_MARK = re.compile("/-|-/")
#: A run of white space other than the line break (``str.isspace``, as ``\s`` matches).
_BLANKS = re.compile(r"[^\S\n]+")
#: The symbols of :data:`SYMBOLS` by their first character, longest first.
_SYMBOLS_BY_FIRST: dict[str, tuple[str, ...]] = {
    first: tuple(sym for sym in SYMBOLS if sym[0] == first) for first in {sym[0] for sym in SYMBOLS}
}
#: The symbols of one character that start no longer symbol, comment or other token: read at once.
_ONE_CHAR_SYMBOLS = frozenset(
    sym for sym in SYMBOLS if len(sym) == 1 and _SYMBOLS_BY_FIRST[sym] == (sym,) and sym not in "-/"
)
#: A run of characters that start no token of the layer syntax (``!``, ``∀``, ``$``, ...): one
#: ``other`` token stands for the run (the parser only reports or skips them). ``#`` is not in it,
#: since ``#check`` starts a command.
_OTHER_RUN = re.compile(
    '[^\\s0-9#«"' + _IDENT_START_CLASS + "".join(re.escape(c) for c in sorted(_SYMBOLS_BY_FIRST)) + "]+"
)
#: Characters that a name may hold in Lean (inside ``«»``) but that a terminal acts on: the controls
#: (Unicode category Cc), the bidirectional embeddings, overrides and isolates (U+202A–U+202E,
#: U+2066–U+2069), and the line and paragraph separators; and the backslash (escaped too, so that
#: two different names never read the same).
_UNPRINTABLE = re.compile(f"[{TERMINAL_CONTROLS}\\\\]")

#: The largest Lean file the reader reads, in bytes. The largest file of ``Formal/`` is 42 KB
#: (``Formal/Claims.lean``), of ``tests/fixtures`` 2 KB. Measured (2 cores, CPU time): parsing a file of
#: 1 MB of one-character tokens takes 1.2 s, one of 8,000 definitions 1.3 s, a 50,000-step ``≫`` chain 1.8 s
#: (``show`` of that chain, 100,000 constructors, 6 s in all).
MAX_LEAN_BYTES = 1_000_000


def read_lean_bytes(path: Path, key: str) -> bytes:
    """The bytes of the Lean file at ``path`` (named ``key`` in errors). Raises :class:`LeanParseError`
    when it cannot be read, is not a regular file (a FIFO or a device is never read: it is opened
    without blocking and refused), or is larger than :data:`MAX_LEAN_BYTES` (checked on its size
    before reading, and on what is read, at most one byte more than the limit)."""

    def too_large(size: str) -> LeanParseError:
        return LeanParseError(
            key, 1, f"the file has {size} bytes; the bridge reads Lean files of at most {MAX_LEAN_BYTES:,}"
        )

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise LeanParseError(key, 1, "not a regular file")
            if info.st_size > MAX_LEAN_BYTES:
                raise too_large(f"{info.st_size:,}")
            data = handle.read(MAX_LEAN_BYTES + 1)
    except OSError as err:
        raise LeanParseError(key, 1, f"cannot read ({err.strerror})") from None
    if len(data) > MAX_LEAN_BYTES:
        raise too_large(f"more than {MAX_LEAN_BYTES:,}")
    return data


#: The longest natural-number literal the reader accepts (Python refuses ``int()`` on 4,300 digits).
MAX_LITERAL_DIGITS = 100


def escape_name(text: str) -> str:
    r"""``text`` with each character of :data:`_UNPRINTABLE` written as a Python escape (``\n``,
    ``\x1b``, ``\u202e``, ``\\``); other text unchanged."""
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


class Token(NamedTuple):
    """One token: ``kind`` is ``ident``, ``num``, ``str``, ``doc``, ``moddoc``, ``sym``, ``other`` (a
    character the layer syntax does not use, such as ``∀`` or ``#``, standing for the run of such
    characters it starts, ``#`` excepted: the parser reports it where a layer needs it, and skips it
    inside commands it skips), ``bad`` (text the reader refuses, such as a number literal of more than
    :data:`MAX_LITERAL_DIGITS` digits; ``text`` is the message, which the parser reports where the token
    stands) or ``eof``. A named tuple: files have up to :data:`MAX_LEAN_BYTES` tokens, and a tuple is
    built several times faster than a frozen dataclass."""

    kind: str
    text: str
    line: int
    #: The 0-based column where the token starts (Lean ends a ``let`` value at a line that starts at
    #: or left of the ``let``).
    col: int = 0


def tokenize(source: str, file: str) -> list[Token]:
    """Split ``source`` into tokens; raises :class:`LeanParseError` on text it cannot read (and on a
    byte order mark at the start, which Lean does not skip)."""
    if source.startswith("\ufeff"):
        raise LeanParseError(
            file,
            1,
            "the file starts with a byte order mark (U+FEFF), which Lean does not read; save it "
            "as UTF-8 without a BOM",
        )
    tokens: list[Token] = []
    i, line, n = 0, 1, len(source)
    line_start = 0
    while i < n:
        c = source[i]
        col = i - line_start
        if c in _ONE_CHAR_SYMBOLS:
            tokens.append(Token("sym", c, line, col))
            i += 1
        elif c == "\n":
            line += 1
            i += 1
            line_start = i
        elif c.isspace():
            m = _BLANKS.match(source, i)
            assert m is not None
            i = m.end()
        elif c == "-" and source.startswith("--", i):
            j = source.find("\n", i)
            i = n if j < 0 else j
        elif c == "/" and source.startswith("/-", i):
            start_line = line
            is_doc = source.startswith("/--", i) and not source.startswith("/--/", i)
            is_module_doc = source.startswith("/-!", i)
            depth, j = 1, i + 2
            while depth:  # the next `/-` or `-/` (at one position, `/-` first, as Lean's comment parser)
                mark = _COMMENT_MARK.search(source, j)
                if mark is None:
                    j = n
                    break
                depth, j = depth + (1 if mark.group() == "/-" else -1), mark.end()
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
                    parts.append(escape_name(source[j + 1 : k]))
                    j = k + 1
                elif j < n and (word := _IDENT_WORD.match(source, j)) is not None:
                    parts.append(word.group())
                    j = word.end()
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
            breaks = source.count("\n", i, j)  # a «name» may span lines
            if breaks:
                line += breaks
                line_start = source.rfind("\n", i, j) + 1
            i = j
        else:
            for sym in _SYMBOLS_BY_FIRST.get(c, ()):
                if source.startswith(sym, i):
                    tokens.append(Token("sym", sym, line, col))
                    i += len(sym)
                    break
            else:
                tokens.append(Token("other", c, line, col))
                m = _OTHER_RUN.match(source, i)
                i = m.end() if m is not None else i + 1
    tokens.append(Token("eof", "", line))
    return tokens
