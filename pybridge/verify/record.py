"""``verification.json``: what a Lean toolchain checked, and the reader the emitter uses.

``pybridge verify`` writes the record at the repository root after running ``lake build`` (and the
LeanDojo trace). It holds the SHA-256 of every Lean source as it was built, so a later reader can tell
whether a file is still the one that was verified. :func:`is_verified` is the single question the
rest of the bridge asks (``pybridge emit`` sets ``LEAN_VERIFIED`` from it).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from pybridge.errors import LeanParseError, VerificationFailed
from pybridge.lean.claims import is_checkout

#: The record's file name, at the repository root.
VERIFICATION_FILE = "verification.json"
#: Bumped when the record's layout changes; readers reject other versions.
SCHEMA_VERSION = 1

DeclState = Literal["traced", "missing", "resolved-by-build", "not-checked"]


class Diagnostic(BaseModel):
    """One message of ``lake build`` located in a Lean file."""

    model_config = ConfigDict(frozen=True)

    file: str
    line: int
    col: int
    severity: Literal["error", "warning", "info"]
    message: str


class ToolchainInfo(BaseModel):
    """The toolchain that ran, and the one ``lean-toolchain`` asks for."""

    model_config = ConfigDict(frozen=True)

    expected: str
    lean_version: str
    lake_version: str
    lean: str
    lake: str


class DeclarationStatus(BaseModel):
    """A ledger declaration and how it was checked.

    ``traced``: LeanDojo listed it (``file``/``line`` say where); ``missing``: the trace ran and did not
    list it; ``resolved-by-build``: the trace did not run, but ``lake build`` elaborated
    ``Formal/Claims.lean``, whose name literals fail to elaborate for a missing declaration;
    ``not-checked``: neither happened.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    claims: tuple[str, ...]
    status: DeclState
    file: str | None = None
    line: int | None = None


class VerificationRecord(BaseModel):
    """The content of ``verification.json``."""

    model_config = ConfigDict(frozen=True)

    schema_version: int = SCHEMA_VERSION
    #: ISO 8601 UTC time of the run.
    created: str
    #: True only if the audit passed, ``lake build`` succeeded, and no ledger declaration is missing.
    success: bool
    toolchain: ToolchainInfo
    git_commit: str | None
    #: True when Lean sources differ from ``git_commit`` (None: not a git checkout).
    git_dirty: bool | None
    #: Repository-relative path of every Lean source (``Formal.lean``, ``Formal/**``, ``lakefile.lean``)
    #: -> SHA-256 hex digest of its bytes as built.
    sources: dict[str, str]
    audit_ok: bool
    audit_findings: tuple[str, ...]
    build_ok: bool
    build_returncode: int
    #: Errors (and warnings) of ``lake build``, per file.
    build_diagnostics: dict[str, tuple[Diagnostic, ...]]
    #: Modules Lake reported as failed.
    failed_modules: tuple[str, ...]
    traced: bool
    #: Every theorem and definition LeanDojo listed under ``Formal/``: ``name -> "file:line"``.
    trace_declarations: dict[str, str]
    declarations: tuple[DeclarationStatus, ...]
    #: What this run did not check, in words.
    not_checked: tuple[str, ...]


def sha256_file(path: Path) -> str:
    """The SHA-256 hex digest of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def load_record(path: Path) -> VerificationRecord:
    """Read a ``verification.json``. Raises :class:`VerificationFailed` naming the file when it is
    missing, unreadable, or not a record of this schema version."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise VerificationFailed(f"{path}: no verification record (run `pybridge verify`)") from None
    except (OSError, UnicodeDecodeError) as err:
        raise VerificationFailed(f"{path}: unreadable ({err})") from None
    try:
        record = VerificationRecord.model_validate_json(text)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "top level"
        raise VerificationFailed(f"{path}: not a verification record ({where}: {first['msg']})") from None
    if record.schema_version != SCHEMA_VERSION:
        raise VerificationFailed(
            f"{path}: schema version {record.schema_version}, this bridge reads {SCHEMA_VERSION}"
        )
    return record


def _import_closure(root: Path, rel: str) -> list[str]:
    """``rel`` and the repository-relative paths of the ``Formal`` modules it imports, transitively."""
    from pybridge.lean.decls import module_path, read_lean, scan_text

    seen = [rel]
    stack = [rel]
    while stack:
        current = stack.pop()
        path = root / current
        info = scan_text(read_lean(path, current), current, current)
        for imp in info.imports:
            if imp.module.split(".")[0] != "Formal":
                continue
            dep = module_path(imp.module)
            if dep not in seen:
                seen.append(dep)
                stack.append(dep)
    return seen


def verification_status(lean_file: Path) -> tuple[bool, str]:
    """Whether ``lean_file`` is covered by a successful verification, and why (one line).

    True only when all of these hold: the file lies in a topos-bridge checkout (a directory with
    ``lakefile.lean`` and ``Formal/``); ``verification.json`` at its root is a valid record with
    ``success: true``; the record's toolchain is the one ``lean-toolchain`` names now; and the current
    SHA-256 of the file, and of every ``Formal`` module it imports (transitively), equals the hash
    recorded when it was built. Never raises: every failure is a ``False`` with its reason.
    """
    path = Path(lean_file).resolve()
    if not path.is_file():
        return False, f"{lean_file}: no such file"
    root = next((candidate for candidate in path.parents if is_checkout(candidate)), None)
    if root is None:
        return False, f"{lean_file}: not inside a topos-bridge checkout"
    try:
        record = load_record(root / VERIFICATION_FILE)
    except VerificationFailed as err:
        return False, str(err)
    if not record.success:
        return False, f"{root / VERIFICATION_FILE}: the recorded verification did not succeed"
    try:
        toolchain = (root / "lean-toolchain").read_text(encoding="utf-8").strip()
    except OSError:
        return False, f"{root / 'lean-toolchain'}: unreadable"
    if toolchain != record.toolchain.expected:
        return (
            False,
            f"lean-toolchain is now {toolchain!r}; the record was made for {record.toolchain.expected!r}",
        )
    rel = path.relative_to(root).as_posix()
    try:
        closure = _import_closure(root, rel)
    except LeanParseError as err:
        return False, str(err)
    for dep in closure:
        recorded = record.sources.get(dep)
        if recorded is None:
            return False, f"{dep}: not in the verification record"
        dep_path = root / dep
        if not dep_path.is_file():
            return False, f"{dep}: no such file"
        if sha256_file(dep_path) != recorded:
            return False, f"{dep}: changed since it was verified"
    return True, f"{rel}: verified with Lean {record.toolchain.lean_version} ({record.created})"


def is_verified(lean_file: Path) -> bool:
    """True only when ``lean_file``'s current SHA-256 matches a successful verification record.

    This is the function ``pybridge emit`` calls to set ``LEAN_VERIFIED``. It reads
    ``verification.json`` at the root of the checkout that contains ``lean_file`` and returns True only
    if that record reports success, was made for the toolchain ``lean-toolchain`` names now, and
    records the current hash of ``lean_file`` and of every ``Formal`` module it imports (so an edit to
    a dependency also withdraws the claim). It never raises; a missing or malformed record, or any
    mismatch, is False. :func:`verification_status` gives the reason.
    """
    return verification_status(lean_file)[0]
