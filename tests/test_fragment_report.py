"""``pybridge fragment``: the command, the claims block of the README, the results table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pybridge.cli import app
from pybridge.fragment.report import (
    CLAIMS_BEGIN,
    CLAIMS_END,
    analyse,
    claims_lines,
    claims_markdown,
    readme_claims_block,
    results_markdown,
    sync_readme_claims,
)
from pybridge.lean.claims import find_repo_root, load_ledger, parse_ledger_text

ROOT = Path(__file__).resolve().parent.parent
MODELS_FILE = str(Path(__file__).resolve().parent / "models_fragment.py")

runner = CliRunner()

LEDGER = '''
def vmC1 : Claim where
  id := "VM.C1"
  paper := "VM"
  statement := "ReLU networks are piecewise linear."
  status := .proved
  decls := [``Formal.PL.relu_pl, ``Formal.PL.comp_pl]

def vmC9 : Claim where
  id := "VM.C9"
  paper := "VM"
  statement := "Something out of reach."
  status := .outOfScope
  decls := []

def tbX : Claim where
  id := "TB.X"
  paper := "TB"
  statement := "Not a VM claim."
  status := .assumed
  decls := [``Formal.x]

def transformerClaims : List Claim := [vmC1, vmC9]
def ledger : List Claim := [tbX] ++ transformerClaims
'''


def test_claims_lines_one_per_vm_entry() -> None:
    ledger = parse_ledger_text(LEDGER)
    assert claims_lines(ledger) == [
        "- **VM.C1** (proved): ReLU networks are piecewise linear. "
        "Lean: `Formal.PL.relu_pl`, `Formal.PL.comp_pl`.",
        "- **VM.C9** (out of scope): Something out of reach. Lean: none.",
    ]
    block = claims_markdown(ledger)
    assert block.startswith(CLAIMS_BEGIN) and block.endswith(CLAIMS_END)


def test_readme_block_is_generated_from_the_ledger() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme_claims_block(readme)
    assert block is not None, "README.md lacks the generated VM claims block"
    assert block == claims_markdown(load_ledger(find_repo_root(ROOT))), (
        "README.md is stale: run `pybridge fragment --claims-md --write-readme`"
    )


def test_sync_readme_rewrites_only_the_block(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{CLAIMS_BEGIN}\n- old\n{CLAIMS_END}\n\ntail\n", encoding="utf-8")
    ledger = parse_ledger_text(LEDGER)
    assert sync_readme_claims(readme, ledger) is True
    text = readme.read_text(encoding="utf-8")
    assert "- old" not in text and "VM.C1" in text and text.startswith("# x\n") and text.endswith("tail\n")
    assert sync_readme_claims(readme, ledger) is False


def test_cli_zoo_layer_text() -> None:
    result = runner.invoke(app, ["fragment", "moe"])
    assert result.exit_code == 0, result.output
    assert "1.1.0    route   discontinuous-PL" in result.output
    assert "syntax verdict: discontinuous-PL" in result.output
    assert "probe verdict:  discontinuous-PL" in result.output
    assert "agree: yes" in result.output


def test_cli_factory_json() -> None:
    result = runner.invoke(app, ["fragment", f"{MODELS_FILE}:linear_attention", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["syntax"]["source"] == "export"  # captured by torch.export, read in core ATen
    assert data["syntax"]["verdict"] == {"cls": "bilinear", "degree": 3, "offending": ["bmm", "bmm_1"],
                                         "explanation": None}
    assert data["probe"]["cls"] == "bilinear" and data["probe"]["degree"] == 3
    assert data["probe"]["homogeneity"] == 3 and data["agree"] is True


def test_cli_untraceable_is_one_line() -> None:
    result = runner.invoke(app, ["fragment", f"{MODELS_FILE}:untraceable"])
    assert result.exit_code == 8
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: models_fragment:untraceable: torch.export cannot capture the model")
    assert "torch.fx fallback: torch.fx cannot trace" in lines[0] and "strict=False" in lines[0]
    assert "Traceback" not in result.output


def test_cli_params_and_errors() -> None:
    ok = runner.invoke(app, ["fragment", "hyperLinear", "-p", "d_in=3", "--no-probe", "--json"])
    assert ok.exit_code == 0, ok.output
    data = json.loads(ok.output)
    assert data["probe"] is None and data["syntax"]["verdict"]["degree"] == 2
    bad = runner.invoke(app, ["fragment", f"{MODELS_FILE}:mlp", "-p", "d=3"])
    assert bad.exit_code == 2 and "--param applies to Zoo layers only" in bad.output
    none = runner.invoke(app, ["fragment"])
    assert none.exit_code == 2 and "give a TARGET" in none.output


def test_cli_claims_md() -> None:
    result = runner.invoke(app, ["fragment", "--claims-md"])
    assert result.exit_code == 0
    assert result.output.strip() == claims_markdown(load_ledger(find_repo_root(ROOT)))


@pytest.mark.parametrize("spec", ["mlp", f"{MODELS_FILE}:hard_moe"])
def test_results_table_row(spec: str) -> None:
    table = results_markdown([analyse(spec)])
    row = table.splitlines()[2]
    assert row.endswith("| yes |")
    assert row.count("|") == 10
