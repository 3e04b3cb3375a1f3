"""The claims ledger, read from ``Formal/Claims.lean``.

The ledger is Lean code (``def <name> : Claim where`` blocks, collected into per-section lists and the
``ledger``), kept in a fixed layout so that this module can read it as text:

.. code-block:: lean

    def tbArchAssoc : Claim where
      id := "TB.Arch.assoc"
      paper := "TB"
      statement := "Sequential composition ..."
      status := .proved
      decls := [``Formal.Arch.eval_comp_assoc, ``Formal.Arch.eval_comp]

    def networkClaims : List Claim := [tbArchAssoc, tbArchUnit]
    def ledger : List Claim := networkClaims ++ categoryClaims

Each entry has the five fields in this order, each on its own line (``decls`` may wrap over several
lines). Anything else inside an entry is a :class:`~pybridge.errors.LeanParseError` naming the file and
line.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from pybridge.errors import LeanParseError, UsageError
from pybridge.lean.decls import read_lean, strip_guillemets
from pybridge.lean.display import escape_text

Status = Literal["proved", "assumed", "refuted", "outOfScope"]

#: The statuses in ledger order, with the words used in tables.
STATUSES: tuple[Status, ...] = ("proved", "assumed", "refuted", "outOfScope")
STATUS_LABEL: dict[str, str] = {
    "proved": "proved",
    "assumed": "assumed",
    "refuted": "refuted",
    "outOfScope": "out of scope",
}

#: Where the ledger lives, relative to the repository root.
CLAIMS_FILE = "Formal/Claims.lean"
#: The namespace the ledger's entries and name literals are elaborated in.
CLAIMS_NAMESPACE = "Formal.Claims"

_FIELDS = ("id", "paper", "statement", "status", "decls")
_ENTRY = re.compile(r"^def\s+([A-Za-z_][\w']*)\s*:\s*Claim\s+where\s*$")
_LIST = re.compile(r"^def\s+([A-Za-z_][\w']*)\s*:\s*List\s+Claim\s*:=(.*)$")
_FIELD = re.compile(r"^\s+([A-Za-z_]+)\s*:=\s*(.*?)\s*$")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_STATUS = re.compile(r"^(?:(?:Formal\.)?(?:Claims\.)?Status)?\.(proved|assumed|refuted|outOfScope)$")
_NAME_LITERAL = re.compile(r"^``([^\s,\[\]`]+)$")
_IDENT = re.compile(r"^[A-Za-z_][\w'.]*$")


class Claim(BaseModel):
    """One ledger entry: a paper's claim, its status, and the Lean declarations that settle it."""

    model_config = ConfigDict(frozen=True)

    #: ``VM.C3``, ``BB.Prop1.1``, ``TB.Arch.assoc``.
    id: str
    #: ``VM``, ``BB`` or ``TB``.
    paper: str
    statement: str
    status: Status
    #: Declaration names as written in the ledger (``Formal.Arch.eval_comp``).
    decls: tuple[str, ...]
    #: The Lean name of the entry (``tbArchAssoc``) and the line of its ``def``.
    lean_name: str
    line: int
    #: The section list that holds the entry (``networkClaims``).
    section: str


class Ledger(BaseModel):
    """The whole ledger, in the order of ``def ledger``."""

    model_config = ConfigDict(frozen=True)

    file: str
    claims: tuple[Claim, ...]
    #: Entries (``def x : Claim where``) that no list reaches from ``ledger``: ``(name, line)``.
    orphans: tuple[tuple[str, int], ...] = ()

    def by_status(self, status: Status) -> tuple[Claim, ...]:
        """The claims with the given status, in ledger order."""
        return tuple(c for c in self.claims if c.status == status)

    def counts(self) -> dict[str, int]:
        """The number of claims per status (every status present, possibly 0)."""
        return {s: len(self.by_status(s)) for s in STATUSES}


def is_checkout(directory: Path) -> bool:
    """Whether ``directory`` is the root of a topos-bridge checkout: it holds ``lakefile.lean`` and
    ``Formal/``."""
    return (directory / "lakefile.lean").is_file() and (directory / "Formal").is_dir()


def find_repo_root(start: Path | None = None) -> Path:
    """The repository root: the nearest directory holding ``lakefile.lean`` and ``Formal/``.

    ``$TOPOS_BRIDGE_ROOT``, when set, names it directly (as for the Zoo catalogue). Otherwise searches
    upwards from ``start`` (default: the current directory), then upwards from this package's location
    (for an editable install run from elsewhere). Raises :class:`UsageError` when none is found.
    """
    env = os.environ.get("TOPOS_BRIDGE_ROOT")
    if env:
        root = Path(env)
        if is_checkout(root):
            return root.resolve()
        raise UsageError(f"TOPOS_BRIDGE_ROOT={env}: no lakefile.lean and Formal/ there")
    origins = [Path.cwd() if start is None else Path(start)]
    origins.append(Path(__file__).resolve().parent)
    for origin in origins:
        here = origin.resolve()
        for candidate in (here, *here.parents):
            if is_checkout(candidate):
                return candidate
    raise UsageError(
        f"{origins[0]}: not inside a topos-bridge checkout (no directory with lakefile.lean and Formal/ "
        "above it or above the pybridge package)"
    )


def _unescape(body: str, file: str, line: int) -> str:
    out: list[str] = []
    i = 0
    simple = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'"}
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1] if i + 1 < len(body) else ""
        if nxt in simple:
            out.append(simple[nxt])
            i += 2
        elif nxt == "x" and re.match(r"[0-9a-fA-F]{2}", body[i + 2 : i + 4]):
            out.append(chr(int(body[i + 2 : i + 4], 16)))
            i += 4
        elif nxt == "u" and (m := re.match(r"\{([0-9a-fA-F]+)\}", body[i + 2 :])):
            out.append(chr(int(m.group(1), 16)))
            i += 2 + m.end()
        else:
            raise LeanParseError(file, line, f"unsupported escape `\\{nxt}` in a string literal")
    return "".join(out)


def _strip_comment(text: str) -> str:
    """Drop a trailing ``-- comment`` outside string literals."""
    in_str = False
    i = 0
    while i < len(text):
        ch = text[i]
        if in_str:
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif text.startswith("--", i):
            return text[:i].rstrip()
        i += 1
    return text.rstrip()


def _string_value(value: str, field: str, file: str, line: int) -> str:
    m = _STRING.fullmatch(value)
    if m is None:
        raise LeanParseError(
            file, line, f"`{field}` must be one string literal on its own line, found `{value[:60]}`"
        )
    return _unescape(m.group(1), file, line)


def _decl_names(value: str, file: str, line: int) -> tuple[str, ...]:
    inner = value.strip()
    if not (inner.startswith("[") and inner.endswith("]")):
        raise LeanParseError(file, line, f"`decls` must be a list `[``A, ``B]`, found `{value[:60]}`")
    body = inner[1:-1].strip()
    if not body:
        return ()
    names: list[str] = []
    for item in body.split(","):
        m = _NAME_LITERAL.match(item.strip())
        if m is None:
            raise LeanParseError(
                file,
                line,
                f"`decls` entries must be double-backtick names (``Formal.foo), found `{item.strip()}`",
            )
        names.append(strip_guillemets(m.group(1)))
    return tuple(names)


class _Entry(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    line: int
    fields: dict[str, tuple[int, str]]


def _parse_entry(lines: list[str], start: int, name: str, file: str) -> tuple[_Entry, int]:
    """Parse the five field lines after ``def name : Claim where`` (line index ``start``)."""
    fields: dict[str, tuple[int, str]] = {}
    i = start + 1
    for expected in _FIELDS:
        while i < len(lines) and not lines[i].strip():
            i += 1
        if i >= len(lines):
            raise LeanParseError(
                file, start + 1, f"claim `{name}`: missing field `{expected}` at end of file"
            )
        text = _strip_comment(lines[i])
        m = _FIELD.match(text)
        if m is None:
            raise LeanParseError(
                file, i + 1, f"claim `{name}`: expected `  {expected} := ...`, found `{text.strip()[:60]}`"
            )
        got, value = m.group(1), m.group(2)
        if got != expected:
            raise LeanParseError(
                file,
                i + 1,
                f"claim `{name}`: expected field `{expected}` here, found `{got}` "
                f"(the fields are {', '.join(_FIELDS)}, in this order)",
            )
        if expected == "decls" and value.startswith("[") and "]" not in value:
            # a wrapped list: read until the closing bracket
            j = i + 1
            parts = [value]
            while j < len(lines) and "]" not in parts[-1]:
                parts.append(_strip_comment(lines[j]).strip())
                j += 1
            if "]" not in parts[-1]:
                raise LeanParseError(file, i + 1, f"claim `{name}`: `decls` list is never closed with `]`")
            fields[expected] = (i + 1, " ".join(parts))
            i = j
            continue
        fields[expected] = (i + 1, value)
        i += 1
    return _Entry(name=name, line=start + 1, fields=fields), i


def _list_expr(lines: list[str], idx: int, first: str) -> tuple[str, int]:
    """Collect the text of a list definition starting on line ``idx`` (ends at a blank line, a new
    command, or the bracket closing)."""
    parts = [_strip_comment(first).strip()]
    j = idx + 1
    depth = parts[0].count("[") - parts[0].count("]")
    while j < len(lines):
        raw = lines[j]
        stripped = _strip_comment(raw).strip()
        if depth <= 0 and (not stripped or not raw[:1].isspace()):
            break
        parts.append(stripped)
        depth += stripped.count("[") - stripped.count("]")
        j += 1
    return " ".join(p for p in parts if p), j


def _list_names(expr: str, list_name: str, file: str, line: int) -> list[str]:
    if not expr:
        raise LeanParseError(file, line, f"`{list_name}` has no value")
    names: list[str] = []
    for term in expr.split("++"):
        term = term.strip()
        if term.startswith("[") and term.endswith("]"):
            inner = term[1:-1].strip()
            items = [s.strip() for s in inner.split(",")] if inner else []
        else:
            items = [term]
        for item in items:
            if not _IDENT.match(item):
                raise LeanParseError(
                    file, line, f"`{list_name}`: expected claim or list names, found `{item[:60]}`"
                )
            names.append(item.split(".")[-1])
    return names


def parse_ledger_text(text: str, file: str = CLAIMS_FILE) -> Ledger:
    """Parse the text of ``Formal/Claims.lean``; ``file`` names it in errors."""
    lines = text.splitlines()
    entries: dict[str, _Entry] = {}
    lists: dict[str, tuple[list[str], int]] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("def ") and ": Claim" in line and "List" not in line.split(":=")[0]:
            m = _ENTRY.match(_strip_comment(line))
            if m is None:
                raise LeanParseError(
                    file,
                    i + 1,
                    f"a claim entry must read `def <name> : Claim where`, found `{line.strip()[:60]}`",
                )
            name = m.group(1)
            if name in entries:
                raise LeanParseError(file, i + 1, f"claim entry `{name}` is defined twice")
            entry, i = _parse_entry(lines, i, name, file)
            entries[name] = entry
            continue
        lm = _LIST.match(line)
        if lm is not None:
            name = lm.group(1)
            expr, j = _list_expr(lines, i, lm.group(2))
            lists[name] = (_list_names(expr, name, file, i + 1), i + 1)
            i = j
            continue
        i += 1

    if "ledger" not in lists:
        raise LeanParseError(file, max(len(lines), 1), "no `def ledger : List Claim := ...`")

    claims: list[Claim] = []
    seen_entries: set[str] = set()
    seen_ids: dict[str, int] = {}

    def expand(list_name: str, trail: tuple[str, ...]) -> None:
        names, line = lists[list_name]
        for name in names:
            if name in lists:
                if name in trail:
                    raise LeanParseError(file, line, f"`{list_name}` includes itself through `{name}`")
                expand(name, (*trail, name))
            elif name in entries:
                if name in seen_entries:
                    raise LeanParseError(file, line, f"claim entry `{name}` is listed twice in the ledger")
                seen_entries.add(name)
                claims.append(_build_claim(entries[name], list_name, file, seen_ids))
            else:
                raise LeanParseError(
                    file,
                    line,
                    f"`{list_name}` names `{name}`, which is neither a claim entry nor a claim list",
                )

    expand("ledger", ("ledger",))
    orphans = tuple((e.name, e.line) for n, e in entries.items() if n not in seen_entries)
    return Ledger(file=file, claims=tuple(claims), orphans=orphans)


def _build_claim(entry: _Entry, section: str, file: str, seen_ids: dict[str, int]) -> Claim:
    values = entry.fields
    cid = _string_value(values["id"][1], "id", file, values["id"][0])
    if not cid:
        raise LeanParseError(file, values["id"][0], f"claim `{entry.name}` has an empty id")
    if cid in seen_ids:
        raise LeanParseError(
            file, values["id"][0], f"claim id `{cid}` is used twice (first at line {seen_ids[cid]})"
        )
    seen_ids[cid] = values["id"][0]
    status_line, status_text = values["status"]
    sm = _STATUS.match(status_text)
    if sm is None:
        raise LeanParseError(
            file,
            status_line,
            f"claim `{entry.name}`: status must be .proved, .assumed, .refuted or .outOfScope, "
            f"found `{status_text[:40]}`",
        )
    # The strings are printed (claims, trust, audit): escapes such as `\x1b` or `\u{202e}` in the
    # literal stay visible as escapes, never reach a terminal as control characters.
    return Claim(
        id=escape_text(cid),
        paper=escape_text(_string_value(values["paper"][1], "paper", file, values["paper"][0])),
        statement=escape_text(
            _string_value(values["statement"][1], "statement", file, values["statement"][0])
        ),
        status=sm.group(1),  # type: ignore[arg-type]
        decls=_decl_names(values["decls"][1], file, values["decls"][0]),
        lean_name=entry.name,
        line=entry.line,
        section=section,
    )


def load_ledger(root: Path) -> Ledger:
    """Read and parse ``Formal/Claims.lean`` under the repository ``root``."""
    path = root / CLAIMS_FILE
    if not path.is_file():
        raise LeanParseError(CLAIMS_FILE, 0, "the claims ledger is missing")
    return parse_ledger_text(read_lean(path, CLAIMS_FILE), CLAIMS_FILE)
