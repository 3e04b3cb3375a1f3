"""Checking the Lean library with a real toolchain: ``pybridge verify``.

The steps, in order, each failing with a one-line error:

1. find ``lake`` and ``lean`` (``--lean-home``, then ``PATH``, then ``~/.elan/bin``), or raise
   :class:`~pybridge.errors.ToolchainMissing` (exit code 10) with the command that installs elan;
2. check that ``lean --version`` is the version that ``lean-toolchain`` names;
3. run the static audit (``lake build`` accepts ``sorry`` with a warning; the audit does not);
4. run ``lake build`` and collect its diagnostics per file;
5. unless skipped, trace the repository with LeanDojo (the optional ``lean`` extra) and list every
   theorem and definition under ``Formal/`` with its position, then look up each ledger declaration;
6. write ``verification.json`` atomically, and raise
   :class:`~pybridge.errors.VerificationFailed` (exit code 11) if anything above failed.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pybridge.errors import ToolchainMissing, VerificationFailed
from pybridge.files import write_atomic
from pybridge.lean.audit import run_audit
from pybridge.lean.claims import CLAIMS_NAMESPACE, load_ledger
from pybridge.lean.decls import lean_sources
from pybridge.verify.record import (
    VERIFICATION_FILE,
    DeclarationStatus,
    Diagnostic,
    ToolchainInfo,
    VerificationRecord,
    sha256_file,
)

#: The command that installs elan, the Lean toolchain manager (it then installs the toolchain that
#: ``lean-toolchain`` names on the first ``lake build``).
ELAN_INSTALL = "curl https://raw.githubusercontent.com/leanprover/elan/master/elan-init.sh -sSf | sh"
#: Seconds ``lake build`` may run.
BUILD_TIMEOUT_S = 3600
#: Seconds a ``--version`` query may run (elan may first download the toolchain).
VERSION_TIMEOUT_S = 900

_DIAG_LEAN = re.compile(
    r"^(?P<file>[^\s:][^:\n]*\.lean):(?P<line>\d+):(?P<col>\d+):\s*(?P<sev>error|warning|info)(?:\([^)]*\))?:\s?(?P<msg>.*)$"
)
_DIAG_LAKE = re.compile(
    r"^(?P<sev>error|warning|info):\s+(?P<file>[^\s:][^:\n]*\.lean):(?P<line>\d+):(?P<col>\d+):\s?(?P<msg>.*)$"
)
_VERSION = re.compile(r"version (\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)")
_LAKE_STATUS = re.compile(
    r"^(?:[✖✔⚠ℹ]|\[\d+/\d+\]|Build completed|Some required builds|error:|warning:|info:|trace:|- )"
)


@dataclass(frozen=True)
class Toolchain:
    """Paths to the ``lake`` and ``lean`` executables that will be used."""

    lake: Path
    lean: Path

    def env(self) -> dict[str, str]:
        """The environment for running them: their directory first on ``PATH``."""
        env = dict(os.environ)
        env["PATH"] = os.pathsep.join([str(self.lake.parent), env.get("PATH", "")])
        return env


@dataclass(frozen=True)
class BuildResult:
    """The outcome of ``lake build``."""

    ok: bool
    returncode: int
    diagnostics: dict[str, tuple[Diagnostic, ...]]
    failed_modules: tuple[str, ...]
    output_tail: str

    @property
    def errors(self) -> list[Diagnostic]:
        """The error diagnostics, file by file."""
        return [d for ds in self.diagnostics.values() for d in ds if d.severity == "error"]


def _executable(directory: Path, name: str) -> Path | None:
    for candidate in (directory / name, directory / f"{name}.exe"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def find_toolchain(lean_home: Path | None = None, path: str | None = None) -> Toolchain:
    """Locate ``lake`` and ``lean``.

    With ``lean_home`` (a toolchain directory, or its ``bin/``) only that place is searched. Otherwise
    ``PATH`` (``path`` overrides ``$PATH``, for tests) and then ``~/.elan/bin``. Raises
    :class:`ToolchainMissing` with one line naming where it looked and how to install elan.
    """
    if lean_home is not None:
        home = Path(lean_home).expanduser()
        for directory in (home / "bin", home):
            lake, lean = _executable(directory, "lake"), _executable(directory, "lean")
            if lake is not None and lean is not None:
                return Toolchain(lake=lake, lean=lean)
        raise ToolchainMissing(
            f"--lean-home {lean_home}: no `lake` and `lean` in {home / 'bin'} or {home}; "
            f"install elan with: {ELAN_INSTALL}"
        )
    search = os.environ.get("PATH", "") if path is None else path
    lake_found = shutil.which("lake", path=search)
    if lake_found is not None:
        lake = Path(lake_found)
        lean = _executable(lake.parent, "lean")
        if lean is None:
            lean_found = shutil.which("lean", path=search)
            lean = Path(lean_found) if lean_found else None
        if lean is not None:
            return Toolchain(lake=lake, lean=lean)
    elan_bin = Path.home() / ".elan" / "bin"
    lake_e, lean_e = _executable(elan_bin, "lake"), _executable(elan_bin, "lean")
    if lake_e is not None and lean_e is not None:
        return Toolchain(lake=lake_e, lean=lean_e)
    raise ToolchainMissing(
        f"no Lean toolchain: `lake`/`lean` not on PATH or in {elan_bin} (or pass --lean-home); "
        f"install elan with: {ELAN_INSTALL}"
    )


def expected_version(root: Path) -> tuple[str, str]:
    """The content of ``lean-toolchain`` and the version it names (``leanprover/lean4:v4.35.0`` ->
    ``4.35.0``)."""
    path = root / "lean-toolchain"
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError as err:
        raise VerificationFailed(f"{path}: unreadable ({err.strerror})") from None
    version = text.rpartition(":")[2].strip()
    version = version[1:] if version.startswith("v") else version
    if not re.fullmatch(r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?", version):
        raise VerificationFailed(f"{path}: cannot read a Lean version from {text!r}")
    return text, version


def _run(
    cmd: list[str], root: Path, toolchain: Toolchain, timeout: float
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            cmd,
            cwd=root,
            env=toolchain.env(),
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise VerificationFailed(f"`{' '.join(cmd)}` did not finish within {timeout:.0f} s") from None
    except OSError as err:
        raise VerificationFailed(f"cannot run {cmd[0]}: {err.strerror}") from None


def tool_versions(root: Path, toolchain: Toolchain) -> tuple[str, str]:
    """``(lean version, lake version line)``, as reported by the tools run in ``root``."""
    lean = _run([str(toolchain.lean), "--version"], root, toolchain, VERSION_TIMEOUT_S)
    match = _VERSION.search(lean.stdout + lean.stderr)
    if lean.returncode != 0 or match is None:
        detail = (lean.stderr or lean.stdout).strip().splitlines()
        raise VerificationFailed(
            f"`{toolchain.lean} --version` failed: {detail[-1] if detail else f'exit {lean.returncode}'}"
        )
    lake = _run([str(toolchain.lake), "--version"], root, toolchain, VERSION_TIMEOUT_S)
    lake_line = (lake.stdout or lake.stderr).strip().splitlines()
    return match.group(1), lake_line[0] if lake_line else "unknown"


def check_version(root: Path, lean_version: str) -> str:
    """Raise :class:`VerificationFailed` unless ``lean_version`` is the one ``lean-toolchain`` names;
    return the ``lean-toolchain`` text."""
    text, wanted = expected_version(root)
    if lean_version != wanted:
        raise VerificationFailed(
            f"toolchain mismatch: lean reports {lean_version}, lean-toolchain asks for {wanted} ({text}); "
            "run `elan toolchain install` in the repository, or pass --lean-home"
        )
    return text


def _normalise(file: str, root: Path) -> str:
    p = Path(file)
    if p.is_absolute():
        try:
            return p.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            return p.as_posix()
    parts = [part for part in p.parts if part not in (".",)]
    return Path(*parts).as_posix() if parts else file


def parse_build_output(output: str, root: Path) -> tuple[dict[str, tuple[Diagnostic, ...]], tuple[str, ...]]:
    """Diagnostics per file, and failed modules, from the output of ``lake build``.

    Reads both Lean's own ``file:line:col: error: message`` and Lake's ``error: file:line:col: message``;
    continuation lines of a multi-line message are appended to it.
    """
    per_file: dict[str, list[dict[str, object]]] = {}
    failed: list[str] = []
    current: dict[str, object] | None = None
    in_failed_list = False
    for raw in output.splitlines():
        line = raw.rstrip()
        m = _DIAG_LEAN.match(line.strip()) or _DIAG_LAKE.match(line.strip())
        if m is not None:
            file = _normalise(m.group("file"), root)
            current = {
                "file": file,
                "line": int(m.group("line")),
                "col": int(m.group("col")),
                "severity": m.group("sev"),
                "message": m.group("msg").strip(),
            }
            per_file.setdefault(file, []).append(current)
            in_failed_list = False
            continue
        stripped = line.strip()
        if stripped.startswith("Some required builds logged failures"):
            in_failed_list, current = True, None
            continue
        if in_failed_list and stripped.startswith("- "):
            failed.append(stripped[2:].strip())
            continue
        if current is not None and stripped and not _LAKE_STATUS.match(stripped):
            current["message"] = f"{current['message']}\n{stripped}"
            continue
        if _LAKE_STATUS.match(stripped):
            current = None
    diagnostics = {f: tuple(Diagnostic.model_validate(d) for d in ds) for f, ds in sorted(per_file.items())}
    return diagnostics, tuple(failed)


def lake_build(root: Path, toolchain: Toolchain, timeout: float = BUILD_TIMEOUT_S) -> BuildResult:
    """Run ``lake build`` in ``root`` and collect its diagnostics."""
    proc = _run([str(toolchain.lake), "build"], root, toolchain, timeout)
    output = proc.stdout + ("\n" if proc.stdout and proc.stderr else "") + proc.stderr
    diagnostics, failed = parse_build_output(output, root)
    return BuildResult(
        ok=proc.returncode == 0,
        returncode=proc.returncode,
        diagnostics=diagnostics,
        failed_modules=failed,
        output_tail=output[-4000:],
    )


def trace_declarations(root: Path) -> dict[str, str]:
    """Every theorem and definition under ``Formal/`` as LeanDojo traces it: ``name -> "file:line"``.

    Uses ``lean_dojo.LeanGitRepo.from_path`` and ``lean_dojo.trace`` (the optional ``lean`` extra:
    ``pip install 'topos-bridge[lean]'``). LeanDojo traces the repository's committed ``HEAD``.
    Raises :class:`VerificationFailed` when LeanDojo is not installed or the trace fails.
    """
    try:
        from lean_dojo import LeanGitRepo, trace  # type: ignore[import-not-found]
    except ImportError as err:
        raise VerificationFailed(
            f"LeanDojo is not installed ({err.name or 'lean_dojo'}): pip install 'topos-bridge[lean]', "
            "or pass --skip-trace"
        ) from None
    try:
        repo = LeanGitRepo.from_path(root)
        traced = trace(repo, build_deps=False)
        found: dict[str, str] = {}
        for traced_file in traced.traced_files:
            rel = Path(traced_file.path).as_posix()
            if not (rel == "Formal.lean" or rel.startswith("Formal/")):
                continue
            for premise in traced_file.get_premise_definitions():
                start = premise.get("start") or [0, 0]
                found.setdefault(str(premise["full_name"]), f"{rel}:{int(start[0])}")
    except Exception as err:  # LeanDojo raises many kinds; report any as one line.
        first = str(err).strip().splitlines()
        raise VerificationFailed(
            f"LeanDojo trace of {root} failed: {type(err).__name__}: {first[0] if first else ''}"
        ) from None
    return found


def _git(root: Path, *args: str) -> str | None:
    git = shutil.which("git")
    if git is None:
        return None
    try:
        proc = subprocess.run([git, *args], cwd=root, capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def git_state(root: Path) -> tuple[str | None, bool | None]:
    """``(HEAD commit, whether the Lean sources differ from it)``; ``(None, None)`` outside git."""
    commit = _git(root, "rev-parse", "HEAD")
    if commit is None:
        return None, None
    status = _git(
        root, "status", "--porcelain", "--", "Formal", "Formal.lean", "lakefile.lean", "lean-toolchain"
    )
    return commit, bool(status) if status is not None else None


def source_hashes(root: Path) -> dict[str, str]:
    """SHA-256 of every Lean source of the library (and ``lakefile.lean``), by relative path."""
    files = lean_sources(root)
    lakefile = root / "lakefile.lean"
    if lakefile.is_file():
        files.append(lakefile)
    return {f.relative_to(root).as_posix(): sha256_file(f) for f in files}


def write_record(root: Path, record: VerificationRecord) -> Path:
    """Write ``verification.json`` atomically (a temporary file in the same directory, then a rename)."""
    target = root / VERIFICATION_FILE
    write_atomic(target, json.dumps(record.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n")
    return target


def run_verification(
    root: Path,
    lean_home: Path | None = None,
    skip_trace: bool = False,
    progress: Callable[[str], None] | None = None,
) -> VerificationRecord:
    """Run the whole verification of the repository at ``root`` and write ``verification.json``.

    Returns the record when it succeeded; raises :class:`ToolchainMissing` before anything else when
    there is no toolchain, and :class:`VerificationFailed` (after writing the record) when any check
    failed. ``progress`` receives one line per step.
    """
    say = progress or (lambda _msg: None)
    root = root.resolve()
    toolchain = find_toolchain(lean_home)
    say(f"toolchain: {toolchain.lake}")
    lean_version, lake_version = tool_versions(root, toolchain)
    expected = check_version(root, lean_version)
    say(f"Lean {lean_version} matches lean-toolchain")
    audit = run_audit(root)
    say(f"static audit: {len(audit.findings)} finding(s)")
    ledger = load_ledger(root)
    hashes = source_hashes(root)
    commit, dirty = git_state(root)
    say("lake build ...")
    build = lake_build(root, toolchain)
    say(f"lake build: {'ok' if build.ok else 'failed'} ({len(build.errors)} error(s))")

    not_checked: list[str] = [
        "numerical agreement of emitted PyTorch modules with their Lean semantics (see TRUST.md)",
        "that the ledger's statements in words match the Lean statements (human review)",
    ]
    traced: dict[str, str] = {}
    trace_ran = False
    if skip_trace:
        not_checked.append("LeanDojo trace (skipped with --skip-trace)")
    elif not build.ok:
        not_checked.append("LeanDojo trace (not run: lake build failed)")
    elif dirty:
        not_checked.append(
            "LeanDojo trace (not run: LeanDojo traces the committed HEAD, and the Lean sources "
            "have uncommitted changes)"
        )
    else:
        say("LeanDojo trace ...")
        traced = trace_declarations(root)
        trace_ran = True
        say(f"LeanDojo: {len(traced)} declarations under Formal/")

    owners: dict[str, list[str]] = {}
    for claim in ledger.claims:
        for name in claim.decls:
            owners.setdefault(name, []).append(claim.id)
    statuses: list[DeclarationStatus] = []
    for name, claim_ids in owners.items():
        candidates = [name, f"{CLAIMS_NAMESPACE}.{name}", f"Formal.{name}"]
        if trace_ran:
            hit = next((c for c in candidates if c in traced), None)
            if hit is None:
                statuses.append(DeclarationStatus(name=name, claims=tuple(claim_ids), status="missing"))
            else:
                file, _, line = traced[hit].rpartition(":")
                statuses.append(
                    DeclarationStatus(
                        name=name, claims=tuple(claim_ids), status="traced", file=file, line=int(line)
                    )
                )
        else:
            state = "resolved-by-build" if build.ok else "not-checked"
            statuses.append(DeclarationStatus(name=name, claims=tuple(claim_ids), status=state))
    missing = [s.name for s in statuses if s.status == "missing"]
    success = audit.ok and build.ok and not missing

    record = VerificationRecord(
        created=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        success=success,
        toolchain=ToolchainInfo(
            expected=expected,
            lean_version=lean_version,
            lake_version=lake_version,
            lean=str(toolchain.lean),
            lake=str(toolchain.lake),
        ),
        git_commit=commit,
        git_dirty=dirty,
        sources=hashes,
        audit_ok=audit.ok,
        audit_findings=tuple(str(f) for f in audit.findings),
        build_ok=build.ok,
        build_returncode=build.returncode,
        build_diagnostics=build.diagnostics,
        failed_modules=build.failed_modules,
        traced=trace_ran,
        trace_declarations=traced,
        declarations=tuple(statuses),
        not_checked=tuple(not_checked),
    )
    if source_hashes(root) != hashes:
        raise VerificationFailed("Lean sources changed while `lake build` ran; run `pybridge verify` again")
    path = write_record(root, record)
    if not success:
        raise VerificationFailed(_failure_summary(audit.findings, build, missing, path))
    return record


def _failure_summary(findings: tuple[object, ...], build: BuildResult, missing: list[str], path: Path) -> str:
    reasons: list[str] = []
    if not build.ok:
        errors = build.errors
        files = sorted({d.file for d in errors})
        first = (
            f"; first: {errors[0].file}:{errors[0].line}:{errors[0].col}: {errors[0].message.splitlines()[0]}"
            if errors
            else ""
        )
        counts = f"{len(errors)} error(s) in {len(files)} file(s)"
        reasons.append(f"lake build failed (exit {build.returncode}, {counts}{first})")
    if findings:
        reasons.append(f"static audit: {len(findings)} finding(s), first: {findings[0]}")
    if missing:
        reasons.append(f"not found by the trace: {', '.join(missing)}")
    return "; ".join(reasons) + f"; details in {path}"
