"""The claims ledger: parsing Formal/Claims.lean, its declarations, and `pybridge claims`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pybridge.cli import app
from pybridge.errors import LeanParseError, UsageError
from pybridge.lean.audit import scan_modules
from pybridge.lean.claims import (
    CLAIMS_FILE,
    CLAIMS_NAMESPACE,
    find_repo_root,
    load_ledger,
    parse_ledger_text,
)
from pybridge.lean.decls import declared_names, resolve


def test_real_ledger_parses(repo_root: Path) -> None:
    ledger = load_ledger(repo_root)
    assert ledger.claims, "the ledger is empty"
    ids = [c.id for c in ledger.claims]
    assert len(ids) == len(set(ids))
    assert ledger.orphans == ()
    for claim in ledger.claims:
        assert claim.paper in ("VM", "BB", "TB"), claim.id
        assert claim.statement.strip(), claim.id
        assert claim.id.startswith(claim.paper + "."), claim.id


def test_every_ledger_declaration_is_declared_in_formal(repo_root: Path) -> None:
    ledger = load_ledger(repo_root)
    declared = declared_names(scan_modules(repo_root))
    missing = [
        f"{c.id}: {name}"
        for c in ledger.claims
        for name in c.decls
        if resolve(name, CLAIMS_NAMESPACE, declared) is None
    ]
    assert not missing, f"ledger names undeclared declarations: {missing}"


def test_fixture_ledger_content(mini_repo: Path) -> None:
    ledger = load_ledger(mini_repo)
    assert [c.id for c in ledger.claims] == ["TB.id", "BB.hyp", "VM.out"]
    first = ledger.claims[0]
    assert first.statement == 'The identity layer equals itself (a "trivial" claim) | with a bar.'
    assert first.decls == ("Formal.id_eq",)
    assert (first.lean_name, first.line, first.section) == ("cId", 22, "networkClaims")
    assert ledger.claims[2].decls == () and ledger.claims[2].status == "outOfScope"
    assert ledger.counts() == {"proved": 1, "assumed": 1, "refuted": 0, "outOfScope": 1}


_ENTRY = """def a : Claim where
  id := "TB.a"
  paper := "TB"
  statement := "A."
  status := .proved
  decls := [``Formal.a]

def ledger : List Claim := [a]
"""


@pytest.mark.parametrize(
    ("old", "new", "line", "message"),
    [
        (
            '  paper := "TB"\n  statement := "A."',
            '  statement := "A."\n  paper := "TB"',
            3,
            "claim `a`: expected field `paper` here, found `statement`",
        ),
        ("status := .proved", "status := .proven", 5, "claim `a`: status must be"),
        ('statement := "A."', "statement := A", 4, "`statement` must be one string literal"),
        ("decls := [``Formal.a]", "decls := [Formal.a]", 6, "`decls` entries must be double-backtick names"),
        (
            "def ledger : List Claim := [a]",
            "def ledger : List Claim := [a, b]",
            8,
            "`ledger` names `b`, which is neither a claim entry nor a claim list",
        ),
        (
            "def ledger : List Claim := [a]",
            "def ledger : List Claim := [a, a]",
            8,
            "claim entry `a` is listed twice",
        ),
        ("def ledger : List Claim := [a]", "def others : List Claim := [a]", 8, "no `def ledger"),
        ("def a : Claim where", "def a : Claim :=", 1, "a claim entry must read `def <name> : Claim where`"),
        ("  decls := [``Formal.a]\n", "", 7, "claim `a`: expected `  decls := ...`"),
    ],
)
def test_malformed_ledger(old: str, new: str, line: int, message: str) -> None:
    text = _ENTRY.replace(old, new)
    assert text != _ENTRY
    with pytest.raises(LeanParseError) as info:
        parse_ledger_text(text, CLAIMS_FILE)
    assert info.value.line == line
    assert str(info.value).startswith(f"{CLAIMS_FILE}:{line}: ")
    assert message in str(info.value)


def test_duplicate_claim_id() -> None:
    text = _ENTRY.replace(
        "def ledger : List Claim := [a]",
        _ENTRY.split("\n\n")[0].replace("def a", "def b") + "\n\ndef ledger : List Claim := [a, b]",
    )
    with pytest.raises(
        LeanParseError, match=r"^Formal/Claims.lean:9: claim id `TB.a` is used twice \(first at line 2\)"
    ):
        parse_ledger_text(text)


def test_wrapped_decls_and_comments() -> None:
    text = _ENTRY.replace("decls := [``Formal.a]", "decls := [``Formal.a,\n    ``Formal.b]  -- two")
    ledger = parse_ledger_text(text)
    assert ledger.claims[0].decls == ("Formal.a", "Formal.b")


def test_find_repo_root(repo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert find_repo_root(repo_root / "Formal" / "Zoo") == repo_root
    monkeypatch.delenv("TOPOS_BRIDGE_ROOT", raising=False)
    # From an unrelated directory, the package location (editable install) still finds the checkout.
    assert find_repo_root(tmp_path) == repo_root


# --- the CLI -----------------------------------------------------------------------------------------


def test_cli_claims_json_matches_ledger(repo_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo_root)
    result = CliRunner().invoke(app, ["claims", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    ledger = load_ledger(repo_root)
    assert [c["id"] for c in data["claims"]] == [c.id for c in ledger.claims]
    assert data["counts"] == ledger.counts()
    assert data["claims"][0]["decls"] == list(ledger.claims[0].decls)


def test_cli_claims_table(mini_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(mini_repo)
    result = CliRunner().invoke(app, ["claims"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["ID", "PAPER", "STATUS", "DECLARATIONS"]
    assert lines[1].split() == ["TB.id", "TB", "proved", "Formal.id_eq"]
    assert lines[3].split()[:4] == ["VM.out", "VM", "out", "of"]
    assert lines[-1].startswith("3 claims (1 proved, 1 assumed, 0 refuted, 1 out of scope)")


def test_cli_claims_malformed_ledger(mini_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = mini_repo / CLAIMS_FILE
    path.write_text(path.read_text(encoding="utf-8").replace("status := .proved", "status := proved"))
    monkeypatch.chdir(mini_repo)
    result = CliRunner().invoke(app, ["claims", "--json"])
    assert result.exit_code == LeanParseError.exit_code == 3
    assert result.stdout == ""
    err = result.stderr.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("error: Formal/Claims.lean:26: claim `cId`: status must be")


def _console_script() -> list[str]:
    script = Path(sys.executable).with_name("pybridge")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "pybridge.cli"]


def test_subprocess_claims(repo_root: Path) -> None:
    result = subprocess.run(
        [*_console_script(), "claims", "--json"],
        cwd=repo_root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert [c["id"] for c in json.loads(result.stdout)["claims"]] == [
        c.id for c in load_ledger(repo_root).claims
    ]


def test_outside_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The package location would find this checkout, so point TOPOS_BRIDGE_ROOT at an empty directory.
    monkeypatch.setenv("TOPOS_BRIDGE_ROOT", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["claims"])
    assert result.exit_code == UsageError.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: TOPOS_BRIDGE_ROOT={tmp_path}")
