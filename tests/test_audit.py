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


# --- the build-error patterns of issue 14, each broken and then written the way that compiles --------


def _add_to_core(root: Path, body: str) -> None:
    """Append ``body`` to the fixture's ``Formal/Core.lean`` (its first line becomes line 32)."""
    _edit(root, "Formal/Core.lean", "end Formal", f"{body}\n\nend Formal")


def test_decide_ascription_absurd(mini_repo: Path) -> None:
    _add_to_core(
        mini_repo,
        "theorem band_left' {a b : Bool} (h : (a && b) = true) : a = true := by\n"
        "  cases a\n"
        "  · exact absurd (h : false = true) (by decide)\n"
        "  · rfl",
    )
    lines = _only_rule(mini_repo, "decide-ascription")
    assert lines == [
        "Formal/Core.lean:34: `absurd (h : T) …`: the ascription does not change the type of `h`, so "
        "`absurd`'s proposition is `h`'s original type; write `absurd h (by decide : ¬T)`"
    ]


def test_decide_ascription_sibling_argument(mini_repo: Path) -> None:
    _add_to_core(mini_repo, "theorem le' (h : 1 + 0 ≤ 1) : 1 ≤ 1 :=\n  Nat.le_trans (h : 1 ≤ 1) (by decide)")
    lines = _only_rule(mini_repo, "decide-ascription")
    assert len(lines) == 1
    assert lines[0].startswith("Formal/Core.lean:33: `(h : T) (by decide)`: the ascription does not change")


def test_decide_ascription_fixed_forms_pass(mini_repo: Path) -> None:
    # The fix of issue 14 (ascribe the `by` block), an unascribed application, and a binder.
    _add_to_core(
        mini_repo,
        "theorem band_left' {a b : Bool} (h : (a && b) = true) : a = true := by\n"
        "  cases a\n"
        "  · exact absurd h (by decide : ¬(false = true))\n"
        "  · rfl\n"
        "theorem ne' {u v : Bool} (hu : u = true) (hv : v = false) (h : u = v) : False :=\n"
        "  absurd (Eq.trans hu.symm (h ▸ hv)) (by decide)\n"
        "theorem two (h : (2 : Nat) ≤ 1) : False := absurd h (by decide)",
    )
    assert run_audit(mini_repo).ok, [str(f) for f in run_audit(mini_repo).findings]


def test_lambda_hom_ascribed_then_composed(mini_repo: Path) -> None:
    _add_to_core(
        mini_repo,
        "theorem w' {X : Type} (x : X) (χ : X ⟶ Prop) :\n"
        "    ((fun _ => x) : PUnit ⟶ X) ≫ χ = fun _ => χ x := rfl",
    )
    lines = _only_rule(mini_repo, "lambda-hom")
    assert lines == [
        "Formal/Core.lean:33: a `fun` composed with `≫` keeps its function type (an ascription does not "
        "retype it), which does not unify with a hom type; write `(show A ⟶ B from fun …)`"
    ]


def test_lambda_hom_bare_right_operand(mini_repo: Path) -> None:
    _add_to_core(mini_repo, "def c' {X : Type} (f : X ⟶ X) : X ⟶ X := f ≫ (fun y => y)")
    assert _only_rule(mini_repo, "lambda-hom")[0].startswith("Formal/Core.lean:32: a `fun` composed")


def test_lambda_hom_fixed_forms_pass(mini_repo: Path) -> None:
    # `show … from` gives the hom type; a lambda that is an argument of the operand is fine.
    _add_to_core(
        mini_repo,
        "theorem w' {X : Type} (x : X) (χ : X ⟶ Prop) :\n"
        "    (show PUnit ⟶ X from fun _ => x) ≫ χ = fun _ => χ x := rfl\n"
        "def d' (h : IsCoproduct ι) (k : X ⟶ Y) := h.desc (fun j => a j ≫ κ j) ≫ k",
    )
    assert run_audit(mini_repo).ok, [str(f) for f in run_audit(mini_repo).findings]


def test_kernel_scalar_missing(mini_repo: Path) -> None:
    _add_to_core(mini_repo, "def aff (W : Fin 1 → Fin 1 → Nat) (b x : Fin 1 → Nat) := Kernel.affine W b x")
    lines = _only_rule(mini_repo, "kernel-scalar")
    assert lines == [
        "Formal/Core.lean:32: `Kernel.affine` without its scalar type: write `Kernel.affine (α := α)` "
        "(against an expected `Tensor α s`, Lean solves an implicit scalar as `Tensor α []`, which has "
        "no `Scalar` instance)"
    ]


def test_kernel_scalar_named_later_or_explicit_passes(mini_repo: Path) -> None:
    _add_to_core(
        mini_repo,
        "def aff (W : Fin 1 → Fin 1 → Nat) (b x : Fin 1 → Nat) := Kernel.affine (α := Nat) W b x\n"
        "def sw (y : Fin 1 → Fin 2 → Nat) := Kernel.swap (a := 1) (b := 2) (β := Nat) y\n"
        "def aff' (W : Fin 1 → Fin 1 → Nat) (b x : Fin 1 → Nat) := @Kernel.affine Nat _ _ 1 1 W b x\n"
        "theorem Kernel.affine_zero : True := trivial\n"
        "theorem uses : True := Kernel.affine_zero",
    )
    assert run_audit(mini_repo).ok, [str(f) for f in run_audit(mini_repo).findings]


def test_no_first(mini_repo: Path) -> None:
    _add_to_core(
        mini_repo,
        "-- a comment that says first | exact is fine\n"
        "theorem t' : True := by\n"
        "  first\n"
        "  | exact trivial\n"
        "  | exact True.intro",
    )
    lines = _only_rule(mini_repo, "no-first")
    assert lines == [
        "Formal/Core.lean:34: `first | … | …`: its fallback branches are unchecked code; keep the one "
        "proof confirmed against Lean's sources"
    ]


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
