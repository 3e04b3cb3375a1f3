"""The review record: who read which Lean file, at which text, and what they found.

No machine here compiles Lean, so a line-by-line reading of each file against Lean's own sources is
part of the product. ``REVIEWS.json`` (at the repository root) lists the reviews; each names the file,
the SHA-256 of the file's bytes at review, the kind of review, the reviewer, the findings and the date.
A file is *reviewed* when some review's SHA-256 equals the SHA-256 of its current text; *stale* when
it has reviews but its text changed since; *never* reviewed otherwise. ``pybridge audit`` reports
every Lean file that is not reviewed (and fails on them only with ``--require-reviews``),
``pybridge review add`` records a review (computing the SHA-256 itself), ``pybridge review status``
lists the state of every file, and ``TRUST.md`` shows it per file.

The file's format::

    {"version": 1,
     "reviews": [{"path": "Formal/PL/Rat.lean", "sha256": "<64 hex digits>",
                  "kind": "independent compile-by-reading", "reviewer": "...",
                  "findings": "...", "date": "2026-12-01"}, ...]}

A missing file is an empty record; a malformed one raises :class:`ReviewRecordError` (one line,
naming the file and the entry at fault).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from pybridge.errors import ReviewRecordError
from pybridge.files import write_atomic
from pybridge.lean.decls import lean_sources

REVIEWS_FILE = "REVIEWS.json"
RECORD_VERSION = 1

#: The kinds of review the record accepts, with what each means. Each is a line-by-line reading of
#: the whole file against Lean's own sources; they differ in who reads and how.
KINDS: dict[str, str] = {
    "line-by-line against Lean v4.35.0 sources": (
        "every line checked against Lean's own sources (core library and elaborator): each name, its "
        "explicit and implicit arguments, and each elaboration step"
    ),
    "independent compile-by-reading": (
        "a reader other than the author read every line against Lean's sources as the compiler would, "
        "and says whether the file compiles"
    ),
}

ReviewState = Literal["reviewed", "stale", "never"]
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_FIELDS = ("path", "sha256", "kind", "reviewer", "findings", "date")


class Review(BaseModel):
    """One review of one file at one text."""

    model_config = ConfigDict(frozen=True)

    path: str
    sha256: str
    kind: str
    reviewer: str
    findings: str
    date: str


class ReviewRecord(BaseModel):
    """The whole record, in file order."""

    model_config = ConfigDict(frozen=True)

    version: int = RECORD_VERSION
    reviews: tuple[Review, ...] = ()

    def for_path(self, path: str) -> tuple[Review, ...]:
        """The reviews of ``path``, in record order."""
        return tuple(r for r in self.reviews if r.path == path)


class FileReview(BaseModel):
    """The review state of one Lean file's current text."""

    model_config = ConfigDict(frozen=True)

    file: str
    sha256: str
    state: ReviewState
    #: The latest review of the current text (state ``reviewed``), else the latest review of any text.
    last: Review | None

    @property
    def reviewed(self) -> bool:
        """True when some review read exactly the current text."""
        return self.state == "reviewed"

    def describe(self) -> str:
        """One line: the state, and the review it rests on."""
        if self.last is None:
            return "never reviewed"
        what = f"{self.last.kind}, {self.last.date}, {self.last.reviewer}"
        if self.state == "reviewed":
            return f"reviewed at its current text ({what})"
        return f"stale: changed since its last review ({what})"


def file_sha256(path: Path) -> str:
    """The SHA-256 of the file's bytes (as ``sha256sum`` prints it)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


#: Lean files outside the library that users read and copy (the README's worked example of "Write your
#: own layer"): the record covers them too, although `lake build` does not compile them.
EXAMPLES_DIR = "tests/fixtures"
#: The paths the record accepts, as the errors name them.
SCOPE = f"Formal.lean or Formal/**/*.lean, nor an example under {EXAMPLES_DIR}/**/*.lean"


def reviewed_sources(root: Path) -> list[Path]:
    """The Lean files the record covers: the library's sources (:func:`lean_sources`), then the example
    files under :data:`EXAMPLES_DIR`, sorted."""
    examples = root / EXAMPLES_DIR
    extra = sorted(f for f in examples.rglob("*.lean") if f.is_file()) if examples.is_dir() else []
    return lean_sources(root) + extra


def _is_lean_path(path: str) -> bool:
    parts = path.split("/")
    in_library = path == "Formal.lean" or (parts[0] == "Formal" and len(parts) > 1)
    in_examples = parts[:2] == EXAMPLES_DIR.split("/") and len(parts) > 2
    return (
        path.endswith(".lean")
        and (in_library or in_examples)
        and all(p not in ("", ".", "..") for p in parts)
    )


def check_date(text: str) -> str:
    """``text`` if it is an ISO date ``YYYY-MM-DD``; else raises :class:`ReviewRecordError`."""
    try:
        ok = bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", text)) and _dt.date.fromisoformat(text) is not None
    except ValueError:
        ok = False
    if not ok:
        raise ReviewRecordError(f"date {text!r}: expected YYYY-MM-DD")
    return text


def _entry(raw: object, index: int) -> Review:
    where = f"{REVIEWS_FILE}: review {index + 1}"
    if not isinstance(raw, dict):
        raise ReviewRecordError(f"{where}: expected an object, got {type(raw).__name__}")
    missing = [f for f in _FIELDS if f not in raw]
    if missing:
        raise ReviewRecordError(f"{where}: missing field(s) {', '.join(missing)}")
    extra = sorted(set(raw) - set(_FIELDS))
    if extra:
        raise ReviewRecordError(f"{where}: unknown field(s) {', '.join(extra)}")
    for field in _FIELDS:
        value = raw[field]
        if not isinstance(value, str) or not value.strip():
            raise ReviewRecordError(f"{where}: `{field}` must be a non-empty string")
    if not _is_lean_path(raw["path"]):
        raise ReviewRecordError(f"{where}: path {raw['path']!r} is not {SCOPE}")
    if not _SHA256.match(raw["sha256"]):
        raise ReviewRecordError(f"{where}: sha256 must be 64 lowercase hex digits")
    if raw["kind"] not in KINDS:
        raise ReviewRecordError(f"{where}: kind {raw['kind']!r} is not one of: {'; '.join(KINDS)}")
    try:
        check_date(raw["date"])
    except ReviewRecordError as err:
        raise ReviewRecordError(f"{where}: {err}") from None
    return Review(**{f: raw[f] for f in _FIELDS})


def parse_record(text: str) -> ReviewRecord:
    """Read the text of ``REVIEWS.json`` (raises :class:`ReviewRecordError` when malformed)."""
    try:
        data = json.loads(text)
    except ValueError as err:
        raise ReviewRecordError(f"{REVIEWS_FILE}: not valid JSON ({err})") from None
    if not isinstance(data, dict):
        raise ReviewRecordError(f"{REVIEWS_FILE}: expected an object with `version` and `reviews`")
    if data.get("version") != RECORD_VERSION:
        raise ReviewRecordError(f"{REVIEWS_FILE}: `version` must be {RECORD_VERSION}")
    reviews = data.get("reviews")
    if not isinstance(reviews, list):
        raise ReviewRecordError(f"{REVIEWS_FILE}: `reviews` must be a list")
    extra = sorted(set(data) - {"version", "reviews"})
    if extra:
        raise ReviewRecordError(f"{REVIEWS_FILE}: unknown field(s) {', '.join(extra)}")
    return ReviewRecord(reviews=tuple(_entry(r, i) for i, r in enumerate(reviews)))


def load_record(root: Path) -> ReviewRecord:
    """The review record of the checkout at ``root`` (empty when ``REVIEWS.json`` does not exist)."""
    path = root / REVIEWS_FILE
    if not path.exists():
        return ReviewRecord()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ReviewRecordError(f"{REVIEWS_FILE}: cannot read ({err})") from None
    return parse_record(text)


def render_record(record: ReviewRecord) -> str:
    """The text of ``REVIEWS.json`` for ``record``: one review per line, in record order."""
    lines = [json.dumps(r.model_dump(), ensure_ascii=False) for r in record.reviews]
    body = ",\n    ".join(lines)
    reviews = f"[\n    {body}\n  ]" if lines else "[]"
    return f'{{\n  "version": {record.version},\n  "reviews": {reviews}\n}}\n'


def review_status(root: Path, record: ReviewRecord | None = None) -> tuple[FileReview, ...]:
    """The review state of every Lean file the record covers in the checkout at ``root``
    (:func:`reviewed_sources`: ``Formal.lean`` first, then ``Formal/**/*.lean``, then the examples)."""
    record = load_record(root) if record is None else record
    out: list[FileReview] = []
    for path in reviewed_sources(root):
        rel = path.relative_to(root).as_posix()
        sha = file_sha256(path)
        reviews = record.for_path(rel)
        current = [r for r in reviews if r.sha256 == sha]
        if current:
            out.append(FileReview(file=rel, sha256=sha, state="reviewed", last=current[-1]))
        elif reviews:
            out.append(FileReview(file=rel, sha256=sha, state="stale", last=reviews[-1]))
        else:
            out.append(FileReview(file=rel, sha256=sha, state="never", last=None))
    return tuple(out)


def resolve_lean_path(root: Path, path: str | Path) -> str:
    """The repository-relative path of the Lean source ``path`` (given relative to the current
    directory, or to ``root``); raises :class:`ReviewRecordError` when it is not one of the library's
    Lean sources."""
    root = root.resolve()
    given = Path(path)
    candidates = [given] if given.is_absolute() else [Path.cwd() / given, root / given]
    for cand in candidates:
        try:
            rel = cand.resolve().relative_to(root).as_posix()
        except ValueError:
            continue
        if cand.is_file() and _is_lean_path(rel):
            return rel
    raise ReviewRecordError(
        f"{path}: not a Lean source of this checkout (Formal.lean, Formal/**/*.lean, {EXAMPLES_DIR}/**)"
    )


def add_review(
    root: Path,
    path: str | Path,
    *,
    kind: str,
    reviewer: str,
    findings: str,
    date: str | None = None,
) -> Review:
    """Record a review of the current text of ``path`` in ``REVIEWS.json`` (written atomically) and
    return it. The SHA-256 is computed from the file; ``date`` defaults to today (UTC)."""
    if kind not in KINDS:
        raise ReviewRecordError(f"kind {kind!r} is not one of: {'; '.join(KINDS)}")
    for name, value in (("reviewer", reviewer), ("findings", findings)):
        if not value.strip():
            raise ReviewRecordError(f"{name} must not be empty")
    day = check_date(date) if date is not None else _dt.datetime.now(_dt.UTC).date().isoformat()
    rel = resolve_lean_path(root, path)
    record = load_record(root)
    review = Review(
        path=rel,
        sha256=file_sha256(root / rel),
        kind=kind,
        reviewer=" ".join(reviewer.split()),
        findings=" ".join(findings.split()),
        date=day,
    )
    if review in record.reviews:
        raise ReviewRecordError(f"{rel}: this review is already recorded in {REVIEWS_FILE}")
    updated = ReviewRecord(version=record.version, reviews=(*record.reviews, review))
    write_atomic(root / REVIEWS_FILE, render_record(updated))
    return review
