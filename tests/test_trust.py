"""TRUST.md: generated from the ledger, and the committed file equals the generated text."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pybridge.cli import app
from pybridge.lean.claims import load_ledger
from pybridge.trust import TRUST_FILE, render_trust


def _section(text: str, title: str) -> str:
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def test_committed_trust_md_is_up_to_date(repo_root: Path) -> None:
    committed = (repo_root / TRUST_FILE).read_text(encoding="utf-8")
    assert committed == render_trust(repo_root), (
        "TRUST.md is out of date with Formal/Claims.lean; run `pybridge trust --write`"
    )


def test_every_claim_is_in_its_section(repo_root: Path) -> None:
    text = render_trust(repo_root)
    sections = {
        "proved": "Proved in Lean",
        "assumed": "Assumed: named hypotheses",
        "refuted": "Refuted",
        "outOfScope": "Out of scope",
    }
    for claim in load_ledger(repo_root).claims:
        assert f"`{claim.id}`" in _section(text, sections[claim.status]), claim.id
        for other, title in sections.items():
            if other != claim.status:
                assert f"`{claim.id}`" not in _section(text, title), (claim.id, title)


def test_fixed_statements(repo_root: Path) -> None:
    text = render_trust(repo_root)
    assert "**The project's CI runs without a Lean toolchain.**" in text
    assert "`pybridge verify`" in text and "`verification.json`" in text
    numeric = _section(text, "Tested numerically only")
    assert "| float64 | ≤ 1e-10 |" in numeric and "| float32 | ≤ 1e-5 |" in numeric


def test_fixture_sections(mini_repo: Path) -> None:
    text = render_trust(mini_repo)
    assert "3 claims: 1 proved, 1 assumed, 0 refuted, 1 out of scope." in text
    proved = _section(text, "Proved in Lean")
    # the `|` of the statement is escaped so the table keeps its columns
    assert '| `TB.id` | The identity layer equals itself (a "trivial" claim) \\| with a bar. |' in proved
    assert "`Formal.id_eq` (Formal/Core.lean)" in proved
    assumed = _section(text, "Assumed: named hypotheses")
    assert "- `BB.hyp` (BB): A hypothesis taken from the literature." in assumed
    assert (
        "  - `Formal.Hyp.holds` (Formal/Core.lean): The statement assumed from Smith (2020), Theorem 1."
        in assumed
    )
    assert "- `VM.out` (VM): Something this fixture does not formalise." in _section(text, "Out of scope")
    assert "| `identity` | `Formal.Zoo.identity` (Formal/Zoo/Identity.lean) | `torch.nn.Identity()` |" in text


def test_trust_follows_the_ledger(mini_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(mini_repo)
    runner = CliRunner()
    result = runner.invoke(app, ["trust", "--write"])
    assert result.exit_code == 0, result.output
    written = (mini_repo / TRUST_FILE).read_text(encoding="utf-8")
    assert written == render_trust(mini_repo)
    printed = runner.invoke(app, ["trust"])
    assert printed.exit_code == 0 and printed.stdout == written
    claims = mini_repo / "Formal/Claims.lean"
    claims.write_text(claims.read_text().replace("status := .assumed", "status := .refuted"))
    regenerated = render_trust(mini_repo)
    assert regenerated != written
    assert "`BB.hyp`" in _section(regenerated, "Refuted")
