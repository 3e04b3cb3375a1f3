"""Hostile text in ``Formal/`` and the audit: a name in guillemets is read as Lean reads it (any
character up to ``»``, line breaks included) and written with its control characters escaped, as the
layer reader writes it, so that the audit and the reader name the same declaration alike; findings,
the text report, the JSON report and the claims ledger print no control character.

``typer.echo`` strips well-formed CSI sequences (``\\x1b[31m``) when its stream is not a terminal;
the hostile names hold what it does not strip (a bell, an OSC sequence, a bidi override).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pybridge.cli import app
from pybridge.lean.audit import Finding, run_audit
from pybridge.lean.catalogue import load_catalogue
from pybridge.lean.claims import load_ledger
from pybridge.lean.decls import scan_text
from tests.test_audit import _edit

RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

#: A name with a bell, an OSC sequence, a bidi override and a backslash.
EVIL = "iden\x07tity\x1b]0;x\x07\u202e\\"
ESCAPED = "iden\\x07tity\\x1b]0;x\\x07\\u202e\\\\"


def no_raw_controls(text: str) -> None:
    found = RAW.findall(text)
    assert not found, f"raw control characters {found!r} in {text!r}"


def test_scanner_escapes_guillemet_names_as_the_reader_does() -> None:
    text = f"namespace A\n\n/-- Doc \x1b]0;t\x07 \u202e. -/\ndef «{EVIL}» : Nat := 0\n\nend A\n"
    (decl,) = scan_text(text, "Formal/X.lean", "Formal.X").declarations
    assert decl.name == f"A.{ESCAPED}"
    assert decl.doc == "Doc \\x1b]0;t\\x07 \\u202e."


def test_a_guillemet_name_may_span_lines_as_in_lean() -> None:
    text = "namespace A\n\ndef «two\nlines» : Nat := 0\n\ndef after : Nat := 1\n\nend A\n"
    decls = scan_text(text, "Formal/X.lean", "Formal.X").declarations
    assert [(d.name, d.line) for d in decls] == [("A.two\\nlines", 3), ("A.after", 6)]


def test_audit_and_reader_agree_on_a_zoo_layer_with_control_characters(
    mini_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _edit(mini_repo, "Formal/Zoo/Identity.lean", "def identity", f"def «{EVIL}»")
    assert ESCAPED in load_catalogue(mini_repo).layers
    report = run_audit(mini_repo)
    assert report.ok, [str(f) for f in report.findings]
    monkeypatch.chdir(mini_repo)
    result = CliRunner().invoke(app, ["list"])
    assert result.exit_code == 0, result.output
    no_raw_controls(result.stdout)


def test_findings_quoting_hostile_names_are_one_printable_line(
    mini_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _edit(
        mini_repo, "Formal/Zoo/Identity.lean", "Arch.same (.tensor [d])", f"Arch.«sa\nme{EVIL}» (.tensor [d])"
    )
    report = run_audit(mini_repo)
    lines = [str(f) for f in report.rule("zoo").findings]
    assert lines == [
        f"Formal/Zoo/Identity.lean:13: uses `Arch.sa\\nme{ESCAPED}`, which no file in Formal/ declares"
    ]
    monkeypatch.chdir(mini_repo)
    runner = CliRunner()
    text = runner.invoke(app, ["audit"])
    assert text.exit_code == 12
    no_raw_controls(text.stdout)
    assert f"uses `Arch.sa\\nme{ESCAPED}`" in text.stdout
    as_json = runner.invoke(app, ["audit", "--json"])
    assert as_json.exit_code == 12
    no_raw_controls(as_json.stdout.replace("\n", ""))
    zoo = next(r for r in json.loads(as_json.stdout)["rules"] if r["rule"] == "zoo")
    assert zoo["lines"] == lines


def test_a_finding_is_always_one_printable_line() -> None:
    finding = Finding(rule="syntax", file="Formal/a\u202e.lean", line=1, message="bad\nname \x1b]0;x\x07")
    assert str(finding) == "Formal/a\\u202e.lean:1: bad\\nname \\x1b]0;x\\x07"


def test_the_ledger_escapes_its_strings_and_names_as_the_scanner(
    mini_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = "id\x07\u202e\\"  # the ledger's layout reads no `]`, `,` or space in a name
    _edit(mini_repo, "Formal/Core.lean", "theorem id_eq", f"theorem «{name}»")
    _edit(mini_repo, "Formal/Claims.lean", "``Formal.id_eq", f"``Formal.«{name}»")
    _edit(
        mini_repo,
        "Formal/Claims.lean",
        'statement := "The identity',
        'statement := "\\x1b]0;pwned\\x07\\u{202e} \\r The identity',
    )
    _edit(mini_repo, "Formal/Claims.lean", 'id := "TB.id"', 'id := "TB.id\\u{2028}"')
    claim = load_ledger(mini_repo).claims[0]
    assert claim.decls == ("Formal.id\\x07\\u202e\\\\",)
    assert claim.id == "TB.id\\u2028"
    assert claim.statement.startswith("\\x1b]0;pwned\\x07\\u202e \\r The identity")
    report = run_audit(mini_repo)
    assert report.ok, [str(f) for f in report.findings]
    monkeypatch.chdir(mini_repo)
    result = CliRunner().invoke(app, ["claims"])
    assert result.exit_code == 0, result.output
    no_raw_controls(result.stdout)


def test_a_module_file_named_with_control_characters_is_reported_escaped(
    mini_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (mini_repo / "Formal/Bad\nName\u202e.lean").write_text(
        "import Formal.Core\n\n/-! A module with a hostile file name. -/\n", encoding="utf-8"
    )
    monkeypatch.chdir(mini_repo)
    result = CliRunner().invoke(app, ["audit"])
    assert result.exit_code == 12
    no_raw_controls(result.stdout)
    lines = result.stdout.splitlines()
    assert any(line.startswith("  Formal.Bad\\nName\\u202e ") for line in lines), result.stdout
    assert (
        "        Formal.lean:1: does not import `Formal.Bad\\nName\\u202e` (Formal/Bad\\nName\\u202e.lean), "
        "so `lake build` does not check it"
    ) in lines
