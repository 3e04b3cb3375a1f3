"""The static audit: each rule broken on a fixture tree, the scanner it relies on, and the real tree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pybridge.cli import app
from pybridge.errors import AuditFailed, LeanParseError
from pybridge.lean.audit import FORBIDDEN_WORDS, RULES, run_audit
from pybridge.lean.decls import scan_text, tokenize


def _edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fixture text {old!r} not in {rel}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _only_rule(root: Path, rule: str) -> list[str]:
    """Run the audit; assert that exactly ``rule`` fails; return its finding lines."""
    report = run_audit(root)
    failing = [r.rule for r in report.rules if not r.ok]
    assert failing == [rule], (
        f"expected only {rule} to fail, got {failing}: {[str(f) for f in report.findings]}"
    )
    assert not report.ok
    return [str(f) for f in report.rule(rule).findings]


def test_fixture_tree_passes_every_rule(mini_repo: Path) -> None:
    report = run_audit(mini_repo)
    assert report.ok, [str(f) for f in report.findings]
    assert [r.rule for r in report.rules] == list(RULES)
    assert report.claims_by_status == {"proved": 1, "assumed": 1, "refuted": 0, "outOfScope": 1}
    per_module = {m.module: m.declarations for m in report.modules}
    assert per_module["Formal.Zoo.Identity"] == 1
    assert per_module["Formal.Core"] == 9


# --- one test per rule, each breaking it -------------------------------------------------------


def _syntax_only(root: Path) -> list[str]:
    """A syntax finding also marks the name-based rules as not checked, and fails nothing else."""
    report = run_audit(root)
    assert [r.rule for r in report.rules if not r.ok] == ["syntax", "ledger", "zoo"]
    for rule in ("ledger", "zoo"):
        (finding,) = report.rule(rule).findings
        assert "not checked: the declarations of Formal/Network/Derived.lean are unknown" in finding.message
    return [str(f) for f in report.rule("syntax").findings]


def test_syntax_unterminated_comment(mini_repo: Path) -> None:
    _edit(mini_repo, "Formal/Network/Derived.lean", "end Formal.Arch", "/- never closed\nend Formal.Arch")
    lines = _syntax_only(mini_repo)
    assert lines == ["Formal/Network/Derived.lean:10: unterminated comment (`/-` without `-/`)"]


def test_syntax_unbalanced_namespace(mini_repo: Path) -> None:
    _edit(mini_repo, "Formal/Network/Derived.lean", "end Formal.Arch", "end Formal.Other")
    lines = _syntax_only(mini_repo)
    assert len(lines) == 1
    assert lines[0].startswith("Formal/Network/Derived.lean:10: `end Formal.Other` does not close")


@pytest.mark.parametrize("word", FORBIDDEN_WORDS)
def test_forbidden_word(mini_repo: Path, word: str) -> None:
    body = {
        "sorry": "theorem bad : False := sorry",
        "sorryAx": "theorem bad : False := sorryAx False",
        "admit": "theorem bad : False := by admit",
        "axiom": "axiom bad : False",
        "unsafe": "unsafe def bad : Nat := 0",
        "implemented_by": "@[implemented_by id] def bad (n : Nat) : Nat := n",
        "extern": '@[extern "c_bad"] def bad (n : Nat) : Nat := n',
    }[word]
    _edit(mini_repo, "Formal/Core.lean", "end Formal", f"{body}\n\nend Formal")
    lines = _only_rule(mini_repo, "forbidden")
    assert lines == [f"Formal/Core.lean:32: `{word}` is not allowed in Formal/"]


def test_forbidden_words_in_comments_and_strings_are_ignored(mini_repo: Path) -> None:
    # The fixture already mentions sorry/admit/axiom in a comment and a docstring; add nested comments
    # and a string literal.
    _edit(
        mini_repo,
        "Formal/Core.lean",
        "end Formal",
        '/- outer /- inner sorry -/ still comment: axiom -/\ndef s : String := "unsafe extern"\n\nend Formal',
    )
    assert run_audit(mini_repo).ok


def test_core_only_mathlib_import(mini_repo: Path) -> None:
    _edit(mini_repo, "Formal/Core.lean", "/-!", "import Mathlib.CategoryTheory.Category.Basic\n\n/-!")
    lines = _only_rule(mini_repo, "core-only")
    assert lines == [
        "Formal/Core.lean:1: imports `Mathlib.CategoryTheory.Category.Basic`: Mathlib is not allowed "
        "(core Lean only)"
    ]


def test_core_only_lakefile_require(mini_repo: Path) -> None:
    _edit(
        mini_repo,
        "lakefile.lean",
        "@[default_target]",
        'require batteries from git "https://github.com/leanprover-community/batteries"\n\n@[default_target]',
    )
    lines = _only_rule(mini_repo, "core-only")
    assert lines == ["lakefile.lean:8: requires Batteries: the library is core Lean only"]


def test_core_only_unknown_root(mini_repo: Path) -> None:
    _edit(mini_repo, "Formal/Core.lean", "/-!", "import Aesop\nimport Qq\n\n/-!")
    lines = _only_rule(mini_repo, "core-only")
    assert len(lines) == 2
    assert "Aesop is not allowed" in lines[0]
    assert lines[1].startswith("Formal/Core.lean:2: imports `Qq`, which is neither core Lean")


def test_import_exists(mini_repo: Path) -> None:
    _edit(
        mini_repo, "Formal/Zoo/Identity.lean", "import Formal.Network.Derived", "import Formal.Network.Derivd"
    )
    report = run_audit(mini_repo)
    lines = [str(f) for f in report.rule("import-exists").findings]
    assert lines == [
        "Formal/Zoo/Identity.lean:1: imports `Formal.Network.Derivd`, but Formal/Network/Derivd.lean "
        "does not exist"
    ]


def test_import_cycle(mini_repo: Path) -> None:
    _edit(mini_repo, "Formal/Core.lean", "/-!", "import Formal.Network.Derived\n\n/-!")
    lines = _only_rule(mini_repo, "import-acyclic")
    assert len(lines) == 1
    assert "import cycle: " in lines[0]
    assert "Formal.Core" in lines[0] and "Formal.Network.Derived" in lines[0]


def test_root_imports_every_module(mini_repo: Path) -> None:
    (mini_repo / "Formal/Extra.lean").write_text("/-! An extra module. -/\n", encoding="utf-8")
    lines = _only_rule(mini_repo, "root-imports")
    assert lines == [
        "Formal.lean:1: does not import `Formal.Extra` (Formal/Extra.lean), so `lake build` does not check it"
    ]


def test_root_module_missing(mini_repo: Path) -> None:
    (mini_repo / "Formal.lean").unlink()
    lines = _only_rule(mini_repo, "root-imports")
    assert lines == ["Formal.lean:0: Formal.lean is missing"]


def test_module_docstring(mini_repo: Path) -> None:
    _edit(
        mini_repo, "Formal/Network/Derived.lean", "/-! Derived layers of the fixture. -/", "-- no docstring"
    )
    lines = _only_rule(mini_repo, "module-doc")
    assert lines == ["Formal/Network/Derived.lean:1: no module docstring (`/-! ... -/`)"]


def test_ledger_names_an_undeclared_declaration(mini_repo: Path) -> None:
    _edit(mini_repo, "Formal/Claims.lean", "``Formal.id_eq", "``Formal.id_eq, ``Formal.no_such_thing")
    lines = _only_rule(mini_repo, "ledger")
    assert lines == [
        "Formal/Claims.lean:22: claim `TB.id` names `Formal.no_such_thing`, which no file in Formal/ declares"
    ]


def test_ledger_names_a_private_declaration(mini_repo: Path) -> None:
    _edit(mini_repo, "Formal/Claims.lean", "``Formal.id_eq", "``Formal.hidden")
    lines = _only_rule(mini_repo, "ledger")
    assert lines == [
        "Formal/Claims.lean:22: claim `TB.id` names `Formal.hidden`, which is private (Formal/Core.lean:30)"
    ]


def test_ledger_declaration_not_imported_by_claims(mini_repo: Path) -> None:
    _edit(mini_repo, "Formal/Claims.lean", "``Formal.id_eq", "``Formal.Arch.same")
    lines = _only_rule(mini_repo, "ledger")
    assert lines == [
        "Formal/Claims.lean:22: claim `TB.id` names `Formal.Arch.same` from Formal/Network/Derived.lean, "
        "which Formal/Claims.lean does not import"
    ]


def test_ledger_assumed_hypothesis_without_docstring(mini_repo: Path) -> None:
    _edit(mini_repo, "Formal/Core.lean", "  /-- The statement assumed from Smith (2020), Theorem 1. -/\n", "")
    lines = _only_rule(mini_repo, "ledger")
    assert lines == [
        "Formal/Core.lean:22: hypothesis `Formal.Hyp.holds` of assumed claim `BB.hyp` has no docstring "
        "naming the literature it stands for"
    ]


def test_ledger_proved_claim_without_declarations(mini_repo: Path) -> None:
    _edit(mini_repo, "Formal/Claims.lean", "decls := [``Formal.id_eq]", "decls := []")
    lines = _only_rule(mini_repo, "ledger")
    assert lines == ["Formal/Claims.lean:22: claim `TB.id` is proved but names no declaration"]


def test_ledger_orphan_entry(mini_repo: Path) -> None:
    _edit(mini_repo, "Formal/Claims.lean", "[cId, cHyp]", "[cId]")
    lines = _only_rule(mini_repo, "ledger")
    assert lines == [
        "Formal/Claims.lean:29: claim entry `cHyp` is not reachable from `ledger` "
        "(add it to its section's list)"
    ]


def test_ledger_malformed_is_a_finding(mini_repo: Path) -> None:
    _edit(mini_repo, "Formal/Claims.lean", "status := .proved", "status := .proven")
    lines = _only_rule(mini_repo, "ledger")
    assert len(lines) == 1
    assert lines[0].startswith("Formal/Claims.lean:26: claim `cId`: status must be")


def test_zoo_uses_an_undeclared_name(mini_repo: Path) -> None:
    _edit(mini_repo, "Formal/Zoo/Identity.lean", "Arch.same (.tensor [d])", "Arch.sam (.tensor [d])")
    lines = _only_rule(mini_repo, "zoo")
    assert lines == ["Formal/Zoo/Identity.lean:13: uses `Arch.sam`, which no file in Formal/ declares"]


def test_zoo_file_without_a_layer(mini_repo: Path) -> None:
    (mini_repo / "Formal/Zoo/Empty.lean").write_text(
        "import Formal.Core\n\n/-! A Zoo file with no layer. -/\n\nnamespace Formal\n\n"
        "/-- Not in Formal.Zoo. -/\ndef notALayer : Nat := 0\n\nend Formal\n",
        encoding="utf-8",
    )
    _edit(mini_repo, "Formal.lean", "import Formal.Claims", "import Formal.Claims\nimport Formal.Zoo.Empty")
    lines = _only_rule(mini_repo, "zoo")
    assert lines == ["Formal/Zoo/Empty.lean:1: declares no layer in namespace Formal.Zoo"]


# --- the report and the CLI ----------------------------------------------------------------------


def test_cli_audit_fixture(mini_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(mini_repo)
    runner = CliRunner()
    ok = runner.invoke(app, ["audit", "--json"])
    assert ok.exit_code == 0, ok.output
    data = json.loads(ok.stdout)
    assert data["ok"] is True and [r["rule"] for r in data["rules"]] == list(RULES)

    _edit(mini_repo, "Formal/Core.lean", "end Formal", "axiom bad : False\n\nend Formal")
    bad = runner.invoke(app, ["audit"])
    assert bad.exit_code == AuditFailed.exit_code == 12
    assert "Formal/Core.lean:32: `axiom` is not allowed in Formal/" in bad.stdout
    assert bad.stderr.strip() == "error: static audit failed: 1 finding(s) in rule(s) forbidden"

    bad_json = runner.invoke(app, ["audit", "--json"])
    assert bad_json.exit_code == 12
    data = json.loads(bad_json.stdout)
    forbidden = next(r for r in data["rules"] if r["rule"] == "forbidden")
    assert forbidden["lines"] == ["Formal/Core.lean:32: `axiom` is not allowed in Formal/"]


# --- the scanner ---------------------------------------------------------------------------------

_SCANNER_SAMPLE = """/-! Module doc /- with a nested comment -/ inside. -/
import Formal.A

namespace Formal.Outer

section Helpers
variable {n : Nat}

/-- A docstring. -/
@[simp, reducible] protected def Foo.bar : Nat := 1

private theorem secret : True := trivial

set_option maxHeartbeats 400 in
noncomputable def heavy : Nat := 2

instance named : Inhabited Nat := ⟨0⟩
instance : Inhabited Bool := ⟨true⟩
instance (priority := low) withPrio : Inhabited Unit := ⟨()⟩
attribute [instance] named

def _root_.topLevel : Nat := 3

end Helpers

/-- A structure. -/
structure Point (α : Type) extends Inhabited α where
  make ::
  /-- x -/
  x : α
  y z : α
  (w : Nat)
  deriving Repr

class Pointed (α : Type) where
  point : α

inductive Tree where
| leaf
| node (l r : Tree) : Tree
  deriving Repr

class inductive Good : Nat → Prop where
  | zero : Good 0

def s : String := "namespace Fake -- end"
def c : Char := '"'
def afterChar : Nat := 4

end Formal.Outer
"""


def test_scanner_declarations_and_namespaces() -> None:
    info = scan_text(_SCANNER_SAMPLE, "Formal/S.lean", "Formal.S")
    names = {d.name: d for d in info.declarations}
    expected = {
        "Formal.Outer.Foo.bar",
        "Formal.Outer.secret",
        "Formal.Outer.heavy",
        "Formal.Outer.named",
        "Formal.Outer.withPrio",
        "topLevel",
        "Formal.Outer.Point",
        "Formal.Outer.Point.make",
        "Formal.Outer.Point.toInhabited",
        "Formal.Outer.Point.x",
        "Formal.Outer.Point.y",
        "Formal.Outer.Point.z",
        "Formal.Outer.Point.w",
        "Formal.Outer.Pointed",
        "Formal.Outer.Pointed.mk",
        "Formal.Outer.Pointed.point",
        "Formal.Outer.Tree",
        "Formal.Outer.Tree.leaf",
        "Formal.Outer.Tree.node",
        "Formal.Outer.Good",
        "Formal.Outer.Good.zero",
        "Formal.Outer.s",
        "Formal.Outer.c",
        "Formal.Outer.afterChar",
    }
    assert set(names) == expected
    assert names["Formal.Outer.secret"].private
    assert not names["Formal.Outer.Foo.bar"].private
    assert names["Formal.Outer.Foo.bar"].doc == "A docstring."
    assert names["Formal.Outer.Point.x"].doc == "x"
    assert names["Formal.Outer.Tree.node"].kind == "constructor"
    assert names["Formal.Outer.Point.y"].kind == "field"
    assert names["Formal.Outer.Foo.bar"].line == 10
    assert [i.module for i in info.imports] == ["Formal.A"]
    assert info.module_doc is not None and "nested comment" in info.module_doc


def test_scanner_errors_name_file_and_line() -> None:
    with pytest.raises(LeanParseError, match=r"^Formal/X.lean:3: `namespace A` is never closed"):
        scan_text("/-! doc -/\n\nnamespace A\ndef x : Nat := 1\n", "Formal/X.lean", "Formal.X")
    with pytest.raises(LeanParseError, match=r"^Formal/X.lean:2: `end` closes no namespace"):
        scan_text("/-! doc -/\nend\n", "Formal/X.lean", "Formal.X")
    with pytest.raises(LeanParseError, match=r"^Formal/X.lean:2: unterminated string literal"):
        tokenize('/-! doc -/\ndef s := "open\n', "Formal/X.lean")


# --- the real tree ---------------------------------------------------------------------------------


def test_real_tree_passes_the_audit(repo_root: Path) -> None:
    report = run_audit(repo_root)
    assert report.ok, "static audit of Formal/ failed:\n" + "\n".join(str(f) for f in report.findings)
    assert report.claims_by_status["proved"] >= 1
