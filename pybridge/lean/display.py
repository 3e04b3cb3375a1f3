r"""Text read from a Lean file, made safe to print: no character that a terminal acts on.

A Lean file may hold any character in a docstring, a string literal or a ``«name»``: escape
sequences (``\x1b[31m``, ``\x1b]0;title\x07``), carriage returns, bidirectional overrides
(``\u202e``) and line separators. Whatever the bridge prints or records from such a file goes
through :func:`escape_text` (plain text) or :func:`dumps_json` (JSON), so that a listing, an audit
finding or a claim statement stays on its lines and sends no control sequence to a terminal. The
reader writes names with :func:`pybridge.lean.lexer.escape_name`, which escapes the same characters
and the backslash too (so that two different names never read the same).
"""

from __future__ import annotations

import json
import re

#: The characters a terminal acts on: the controls (Unicode category Cc: C0, DEL, C1), the line and
#: paragraph separators, and the bidirectional embeddings, overrides and isolates.
TERMINAL_CONTROLS = "\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_TERMINAL = re.compile(f"[{TERMINAL_CONTROLS}]")
#: What ``json.dumps(..., ensure_ascii=False)`` leaves raw of :data:`TERMINAL_CONTROLS` (it escapes
#: only U+0000–U+001F).
_JSON_RAW = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(ch: str) -> str:
    return ch.encode("unicode_escape").decode("ascii")


def escape_text(text: str, keep: str = "") -> str:
    r"""``text`` with each character of :data:`TERMINAL_CONTROLS` not in ``keep`` written as a Python
    escape (``\x1b``, ``\r``, ``\u202e``); backslashes and all other text unchanged. ``keep="\n"`` keeps
    the line breaks of a multi-line text (a docstring)."""
    if not _TERMINAL.search(text):
        return text
    return _TERMINAL.sub(lambda m: m.group() if m.group() in keep else _escape(m.group()), text)


def escape_lines(text: str) -> str:
    """``text`` with its line breaks kept and every other character of :data:`TERMINAL_CONTROLS`
    escaped (:func:`escape_text`): the lines as printed are the lines of ``text``."""
    return escape_text(text, keep="\n")


def dumps_json(data: object, indent: int | None = 2) -> str:
    r"""``json.dumps(data, indent=indent, ensure_ascii=False)`` with the characters of
    :data:`TERMINAL_CONTROLS` that it leaves raw written as ``\uXXXX`` escapes: the same JSON value,
    safe to print. (Such characters can only stand inside JSON strings, where the escape is valid.)"""
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
