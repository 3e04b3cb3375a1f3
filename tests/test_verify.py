"""`pybridge verify` and `verification.json`.

Without a toolchain (CI): the one-line refusal and its exit code, the build-output parser, and the
record's hash logic on a fixture. With a toolchain (marker ``lean``, skipped otherwise): a real
``lake build`` of this repository, and the LeanDojo trace when the ``lean`` extra is installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pybridge.cli import app
from pybridge.errors import ToolchainMissing, VerificationFailed
from pybridge.lean.decls import lean_sources
from pybridge.verify.record import (
    VERIFICATION_FILE,
    DeclarationStatus,
    ToolchainInfo,
    VerificationRecord,
    is_verified,
    load_record,
    verification_status,
)
from pybridge.verify.toolchain import (
    ELAN_INSTALL,
    expected_version,
    find_toolchain,
    parse_build_output,
    source_hashes,
    write_record,
)

ZOO_FILE = "Formal/Zoo/Identity.lean"


def _no_lake_env(home: Path) -> dict[str, str]:
    """The environment with every PATH entry that holds `lake` or `lean` removed, and a HOME without
    ~/.elan."""
    keep = [
        d
        for d in os.environ.get("PATH", "").split(os.pathsep)
        if d and not (Path(d, "lake").exists() or Path(d, "lean").exists())
    ]
    env = dict(os.environ, PATH=os.pathsep.join(keep), HOME=str(home))
    env.pop("TOPOS_BRIDGE_ROOT", None)
    return env


def _pybridge() -> list[str]:
    script = Path(sys.executable).with_name("pybridge")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "pybridge.cli"]


# --- no toolchain --------------------------------------------------------------------------------


def test_verify_without_toolchain_exits_10_with_one_line(mini_repo: Path, tmp_path: Path) -> None:
    result = subprocess.run(
        [*_pybridge(), "verify"],
        cwd=mini_repo,
        env=_no_lake_env(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == ToolchainMissing.exit_code == 10, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: no Lean toolchain")
    assert ELAN_INSTALL in lines[0]
    assert not (mini_repo / VERIFICATION_FILE).exists()


def test_verify_with_missing_lean_home(
    mini_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "no-such-toolchain"
    monkeypatch.chdir(mini_repo)
    for key, value in _no_lake_env(tmp_path / "home").items():
        monkeypatch.setenv(key, value)
    result = CliRunner().invoke(app, ["verify", "--lean-home", str(missing)])
    assert result.exit_code == 10
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: --lean-home {missing}: no `lake` and `lean`")


def test_find_toolchain_search_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with pytest.raises(ToolchainMissing, match="no Lean toolchain"):
        find_toolchain(path="")
    # ~/.elan/bin is searched after PATH; a directory with both executables is accepted.
    elan_bin = tmp_path / "home" / ".elan" / "bin"
    elan_bin.mkdir(parents=True)
    for name in ("lake", "lean"):
        exe = elan_bin / name
        exe.write_text("#!/bin/sh\nexit 0\n")
        exe.chmod(0o755)
    found = find_toolchain(path="")
    assert found.lake == elan_bin / "lake" and found.lean == elan_bin / "lean"
    # --lean-home accepts the toolchain directory or its bin/.
    assert find_toolchain(lean_home=tmp_path / "home" / ".elan").lake == elan_bin / "lake"
    assert find_toolchain(lean_home=elan_bin).lean == elan_bin / "lean"


def test_version_mismatch_is_reported(
    mini_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A stand-in `lean` that reports another version: only the version check runs before it stops.
    home = tmp_path / "toolchain" / "bin"
    home.mkdir(parents=True)
    (home / "lean").write_text('#!/bin/sh\necho "Lean (version 4.9.0, x86_64-unknown-linux-gnu, Release)"\n')
    (home / "lake").write_text('#!/bin/sh\necho "Lake version 5.0.0 (Lean version 4.9.0)"\n')
    for exe in home.iterdir():
        exe.chmod(0o755)
    monkeypatch.chdir(mini_repo)
    for key, value in _no_lake_env(tmp_path / "home").items():
        monkeypatch.setenv(key, value)
    result = CliRunner().invoke(app, ["verify", "--lean-home", str(home.parent)])
    assert result.exit_code == VerificationFailed.exit_code == 11, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: toolchain mismatch: lean reports 4.9.0, lean-toolchain asks for 4.35.0")
    assert not (mini_repo / VERIFICATION_FILE).exists()


def test_expected_version(mini_repo: Path) -> None:
    assert expected_version(mini_repo) == ("leanprover/lean4:v4.35.0", "4.35.0")
    (mini_repo / "lean-toolchain").write_text("leanprover/lean4:v4.36.0-rc1\n")
    assert expected_version(mini_repo)[1] == "4.36.0-rc1"
    (mini_repo / "lean-toolchain").write_text("nonsense\n")
    with pytest.raises(VerificationFailed, match="cannot read a Lean version"):
        expected_version(mini_repo)


def test_parse_build_output(tmp_path: Path) -> None:
    output = "\n".join(
        [
            "✖ [3/9] Building Formal.Zoo.Identity",
            "trace: .> LEAN_PATH=... lean ./././Formal/Zoo/Identity.lean -R ./././. -o ...",
            "error: ./././Formal/Zoo/Identity.lean:13:2: unknown identifier 'Arch.sam'",
            "error: ./././Formal/Zoo/Identity.lean:20:0: type mismatch",
            "  h",
            "has type",
            "  Nat : Type",
            "warning: ./Formal/Core.lean:5:8: declaration uses 'sorry'",
            "Formal/Claims.lean:3:0: error: unknown constant 'Formal.nope'",
            f"{tmp_path}/Formal/Abs.lean:1:1: error(lean.unknownIdentifier): absolute path",
            "error: Lean exited with code 1",
            "Some required builds logged failures:",
            "- Formal.Zoo.Identity",
            "- Formal.Claims",
            "error: build failed",
        ]
    )
    diagnostics, failed = parse_build_output(output, tmp_path)
    assert sorted(diagnostics) == [
        "Formal/Abs.lean",
        "Formal/Claims.lean",
        "Formal/Core.lean",
        "Formal/Zoo/Identity.lean",
    ]
    first, second = diagnostics["Formal/Zoo/Identity.lean"]
    assert (first.line, first.col, first.severity, first.message) == (
        13,
        2,
        "error",
        "unknown identifier 'Arch.sam'",
    )
    assert second.message == "type mismatch\nh\nhas type\nNat : Type"
    assert diagnostics["Formal/Core.lean"][0].severity == "warning"
    assert diagnostics["Formal/Claims.lean"][0].message == "unknown constant 'Formal.nope'"
    assert diagnostics["Formal/Abs.lean"][0].message == "absolute path"
    assert failed == ("Formal.Zoo.Identity", "Formal.Claims")


# --- the record and is_verified ------------------------------------------------------------------


def _record(
    root: Path, *, success: bool = True, expected: str = "leanprover/lean4:v4.35.0"
) -> VerificationRecord:
    return VerificationRecord(
        created="2025-01-01T00:00:00+00:00",
        success=success,
        toolchain=ToolchainInfo(
            expected=expected, lean_version="4.35.0", lake_version="Lake 5.0.0", lean="lean", lake="lake"
        ),
        git_commit=None,
        git_dirty=None,
        sources=source_hashes(root),
        audit_ok=True,
        audit_findings=(),
        build_ok=success,
        build_returncode=0 if success else 1,
        build_diagnostics={},
        failed_modules=(),
        traced=False,
        trace_declarations={},
        declarations=(DeclarationStatus(name="Formal.id_eq", claims=("TB.id",), status="resolved-by-build"),),
        not_checked=("LeanDojo trace (skipped with --skip-trace)",),
    )


def test_write_record_is_atomic_and_round_trips(mini_repo: Path) -> None:
    record = _record(mini_repo)
    path = write_record(mini_repo, record)
    assert path == mini_repo / VERIFICATION_FILE
    assert [p.name for p in mini_repo.iterdir() if p.name.startswith(".verification")] == []
    assert load_record(path) == record
    data = json.loads(path.read_text())
    assert set(data["sources"]) == {p.relative_to(mini_repo).as_posix() for p in lean_sources(mini_repo)} | {
        "lakefile.lean"
    }
    assert all(len(h) == 64 for h in data["sources"].values())


def test_is_verified_follows_the_hashes(mini_repo: Path) -> None:
    zoo = mini_repo / ZOO_FILE
    assert not is_verified(zoo)  # no record yet
    write_record(mini_repo, _record(mini_repo))
    assert is_verified(zoo)
    assert is_verified(mini_repo / "Formal/Core.lean")
    # editing the file withdraws it
    original = zoo.read_text()
    zoo.write_text(original + "\n-- edited\n")
    assert not is_verified(zoo)
    assert verification_status(zoo)[1] == f"{ZOO_FILE}: changed since it was verified"
    zoo.write_text(original)
    assert is_verified(zoo)
    # editing a module it imports (transitively) withdraws it too, but not an unrelated module
    core = mini_repo / "Formal/Core.lean"
    core.write_text(core.read_text() + "\n-- edited\n")
    assert not is_verified(zoo)
    assert verification_status(zoo)[1] == "Formal/Core.lean: changed since it was verified"
    assert not is_verified(mini_repo / "Formal/Claims.lean")


def test_is_verified_requires_success_and_same_toolchain(mini_repo: Path) -> None:
    zoo = mini_repo / ZOO_FILE
    write_record(mini_repo, _record(mini_repo, success=False))
    assert not is_verified(zoo)
    write_record(mini_repo, _record(mini_repo, expected="leanprover/lean4:v4.34.0"))
    assert not is_verified(zoo)
    assert "lean-toolchain is now" in verification_status(zoo)[1]


def test_is_verified_never_raises(mini_repo: Path, tmp_path: Path) -> None:
    zoo = mini_repo / ZOO_FILE
    (mini_repo / VERIFICATION_FILE).write_text("{ not json")
    assert not is_verified(zoo)
    assert verification_status(zoo)[1].startswith(
        f"{mini_repo / VERIFICATION_FILE}: not a verification record"
    )
    (mini_repo / VERIFICATION_FILE).write_text(json.dumps({"schema_version": 1}))
    assert not is_verified(zoo)
    outside = tmp_path / "Loose.lean"
    outside.write_text("/-! x -/\n")
    assert not is_verified(outside)
    assert not is_verified(mini_repo / "Formal/Missing.lean")
    # a file added after the verification is not covered
    write_record(mini_repo, _record(mini_repo))
    new = mini_repo / "Formal/Zoo/New.lean"
    new.write_text("/-! new -/\n")
    assert not is_verified(new)
    assert verification_status(new)[1] == "Formal/Zoo/New.lean: not in the verification record"


def test_load_record_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(VerificationFailed, match=r"verification.json: no verification record"):
        load_record(tmp_path / VERIFICATION_FILE)


# --- with a Lean toolchain (marker `lean`) -------------------------------------------------------


def _require_lake() -> None:
    if shutil.which("lake") is None:
        pytest.skip("no Lean toolchain (lake) on PATH")


@pytest.mark.lean
def test_lake_build_of_this_repository(repo_root: Path, tmp_path: Path) -> None:
    """Build a copy of the Lean library with the real toolchain (no trace) and check the record."""
    _require_lake()
    copy = tmp_path / "checkout"
    copy.mkdir()
    for name in ("lakefile.lean", "lean-toolchain", "Formal.lean"):
        shutil.copy2(repo_root / name, copy / name)
    shutil.copytree(repo_root / "Formal", copy / "Formal")
    result = subprocess.run(
        [*_pybridge(), "verify", "--skip-trace"],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    record = load_record(copy / VERIFICATION_FILE)
    assert record.success and record.build_ok and not record.traced
    assert record.toolchain.lean_version == expected_version(copy)[1]
    assert all(d.status == "resolved-by-build" for d in record.declarations)
    assert is_verified(copy / "Formal/Claims.lean")


@pytest.mark.lean
def test_leandojo_trace_lists_every_ledger_declaration(repo_root: Path) -> None:
    """Trace the committed HEAD of this repository with LeanDojo (the `lean` extra)."""
    _require_lake()
    pytest.importorskip("lean_dojo", reason="LeanDojo (the `lean` extra) is not installed")
    from pybridge.verify.toolchain import git_state, trace_declarations

    commit, dirty = git_state(repo_root)
    if commit is None or dirty:
        pytest.skip("LeanDojo traces the committed HEAD; the Lean sources have uncommitted changes")
    traced = trace_declarations(repo_root)
    from pybridge.lean.claims import load_ledger

    for claim in load_ledger(repo_root).claims:
        for name in claim.decls:
            assert name in traced, f"{claim.id}: {name} not traced"
