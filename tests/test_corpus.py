"""The model corpus (``pybridge/corpus.py``): five public architectures through the four commands, and the
README table generated from them.

Needs the ``models`` extra (``transformers``); CI installs it (``.ci/run``), so these tests run there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

transformers = pytest.importorskip("transformers")

from pybridge.corpus import CORPUS, parse_block, readme_block, row_cells, run_model  # noqa: E402

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.fixture(scope="module")
def readme_rows() -> dict[str, list[str]]:
    block = readme_block(README.read_text(encoding="utf-8"))
    assert block is not None, "README.md has no generated corpus block"
    rows = parse_block(block)
    return {r[0].strip("`"): r for r in rows}


def test_readme_lists_the_corpus_in_order(readme_rows: dict[str, list[str]]) -> None:
    assert list(readme_rows) == list(CORPUS) == ["bert", "gpt2", "llama", "mixtral", "vit"]


@pytest.mark.parametrize("name", list(CORPUS))
def test_model_runs_through_the_four_commands_and_matches_the_readme(
    name: str, readme_rows: dict[str, list[str]]
) -> None:
    row = run_model(name)
    assert row.capture == "torch.export"  # no fallback on any corpus model
    assert row.verdict != "unknown" and "unknown" not in row.offending_ops
    assert row.agree, (row.verdict, row.probe)
    assert row.presheaf_failed == ()
    assert row.thin_normal and row.largest_omega >= 1
    cells = row_cells(row)
    # every column but the last (seconds: a measurement of the machine) is what the README says
    assert cells[:-1] == readme_rows[name][:-1]
    float(readme_rows[name][-1])
