"""The review record (REVIEWS.json): adding reviews, each file's state, the audit report and its
--require-reviews flag, TRUST.md's table, and one-line errors for a malformed record."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pybridge.cli import app
from pybridge.errors import AuditFailed, ReviewRecordError
from pybridge.lean.audit import run_audit
from pybridge.lean.reviews import REVIEWS_FILE, load_record, parse_record, review_status
from pybridge.trust import render_trust

KIND = "line-by-line against Lean v4.35.0 sources"
READING = "independent compile-by-reading"
#: The Lean files of the fixture checkout (tests/conftest.py), in the order the record reports them.
FIXTURE_FILES = [
    "Formal.lean",
    "Formal/Claims.lean",
    "Formal/Core.lean",
    "Formal/Network/Derived.lean",
    "Formal/Zoo/Identity.lean",
]


@pytest.fixture
def runner(mini_repo: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.chdir(mini_repo)
    return CliRunner()


def _add(runner: CliRunner, path: str, *extra: str, kind: str = KIND) -> object:
    return runner.invoke(
        app,
        ["review", "add", path, "--kind", kind, "--reviewer", "tester", "--findings", "fine", *extra],
    )


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- review add / review status ---------------------------------------------------------------------


def test_add_records_the_sha_of_the_current_text(runner: CliRunner, mini_repo: Path) -> None:
    result = _add(runner, "Formal/Core.lean", "--date", "2026-12-01")
    assert result.exit_code == 0, result.output
    data = json.loads((mini_repo / REVIEWS_FILE).read_text(encoding="utf-8"))
    assert data == {
        "version": 1,
        "reviews": [
            {
                "path": "Formal/Core.lean",
                "sha256": _sha(mini_repo / "Formal/Core.lean"),
                "kind": KIND,
                "reviewer": "tester",
                "findings": "fine",
                "date": "2026-12-01",
            }
        ],
    }
    assert result.stdout.startswith(f"recorded in {REVIEWS_FILE}: Formal/Core.lean (sha256 ")


def test_status_reviewed_stale_never(runner: CliRunner, mini_repo: Path) -> None:
    assert _add(runner, "Formal/Core.lean", "--date", "2026-12-01").exit_code == 0
    assert _add(runner, "Formal/Claims.lean", "--date", "2026-12-02", kind=READING).exit_code == 0
    claims = mini_repo / "Formal/Claims.lean"
    claims.write_text(claims.read_text(encoding="utf-8") + "\n-- edited after review\n", encoding="utf-8")

    states = {r.file: r.state for r in review_status(mini_repo)}
    assert list(states) == FIXTURE_FILES
    assert states == {
        "Formal.lean": "never",
        "Formal/Claims.lean": "stale",
        "Formal/Core.lean": "reviewed",
        "Formal/Network/Derived.lean": "never",
        "Formal/Zoo/Identity.lean": "never",
    }

    text = runner.invoke(app, ["review", "status"])
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    assert lines[-1] == (
        "5 Lean file(s): 1 reviewed at their current text, 1 stale (changed since their last review), "
        "3 never reviewed"
    )
    claims_line = next(line for line in lines if line.startswith("Formal/Claims.lean"))
    assert claims_line.endswith(f"stale: changed since its last review ({READING}, 2026-12-02, tester)")

    as_json = runner.invoke(app, ["review", "status", "--json"])
    assert as_json.exit_code == 0
    payload = json.loads(as_json.stdout)
    assert payload["counts"] == {"reviewed": 1, "stale": 1, "never": 3}
    core = next(f for f in payload["files"] if f["file"] == "Formal/Core.lean")
    assert core["state"] == "reviewed" and core["sha256"] == _sha(mini_repo / "Formal/Core.lean")


def test_review_of_the_new_text_makes_it_current_again(runner: CliRunner, mini_repo: Path) -> None:
    assert _add(runner, "Formal/Core.lean", "--date", "2026-12-01").exit_code == 0
    core = mini_repo / "Formal/Core.lean"
    core.write_text(core.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert {r.file: r.state for r in review_status(mini_repo)}["Formal/Core.lean"] == "stale"
    assert _add(runner, "Formal/Core.lean", "--date", "2026-12-03").exit_code == 0
    (state,) = [r for r in review_status(mini_repo) if r.file == "Formal/Core.lean"]
    assert state.state == "reviewed" and state.last is not None and state.last.date == "2026-12-03"
    assert len(load_record(mini_repo).reviews) == 2


def test_add_path_relative_to_the_current_directory(mini_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(mini_repo / "Formal" / "Network")
    result = CliRunner().invoke(
        app, ["review", "add", "Derived.lean", "--kind", KIND, "--reviewer", "r", "--findings", "f"]
    )
    assert result.exit_code == 0, result.output
    (review,) = load_record(mini_repo).reviews
    assert review.path == "Formal/Network/Derived.lean"
    assert len(review.date) == 10 and review.date[4] == "-"  # today, YYYY-MM-DD


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["Formal/Core.lean", "--kind", "skimmed"], "error: kind 'skimmed' is not one of: "),
        (["lakefile.lean", "--kind", KIND], "error: lakefile.lean: not a Lean source of this checkout"),
        (["Formal/Nope.lean", "--kind", KIND], "error: Formal/Nope.lean: not a Lean source of this checkout"),
        (["Formal/Core.lean", "--kind", KIND, "--date", "1 Dec 2026"], "error: date '1 Dec 2026': expected"),
        (["Formal/Core.lean", "--kind", KIND, "--date", "2026-02-30"], "error: date '2026-02-30': expected"),
    ],
)
def test_add_rejects_bad_input_in_one_line(
    runner: CliRunner, mini_repo: Path, args: list[str], message: str
) -> None:
    result = runner.invoke(app, ["review", "add", *args, "--reviewer", "r", "--findings", "f"])
    assert result.exit_code == ReviewRecordError.exit_code == 15
    assert result.stderr.startswith(message), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (mini_repo / REVIEWS_FILE).exists()


def test_add_rejects_a_duplicate_and_keeps_the_record(runner: CliRunner, mini_repo: Path) -> None:
    assert _add(runner, "Formal/Core.lean", "--date", "2026-12-01").exit_code == 0
    before = (mini_repo / REVIEWS_FILE).read_bytes()
    again = _add(runner, "Formal/Core.lean", "--date", "2026-12-01")
    assert again.exit_code == 15
    assert (
        again.stderr.strip() == f"error: Formal/Core.lean: this review is already recorded in {REVIEWS_FILE}"
    )
    assert (mini_repo / REVIEWS_FILE).read_bytes() == before


def test_add_to_a_malformed_record_leaves_it_untouched(runner: CliRunner, mini_repo: Path) -> None:
    (mini_repo / REVIEWS_FILE).write_text("{not json", encoding="utf-8")
    result = _add(runner, "Formal/Core.lean")
    assert result.exit_code == 15
    assert result.stderr.startswith(f"error: {REVIEWS_FILE}: not valid JSON")
    assert (mini_repo / REVIEWS_FILE).read_text(encoding="utf-8") == "{not json"


# --- the audit: reported by default, fails only with --require-reviews -------------------------------


def test_audit_reports_unreviewed_files_without_failing(runner: CliRunner, mini_repo: Path) -> None:
    assert _add(runner, "Formal/Core.lean", "--date", "2026-12-01").exit_code == 0
    report = run_audit(mini_repo)
    assert report.ok
    assert [r.file for r in report.unreviewed] == [f for f in FIXTURE_FILES if f != "Formal/Core.lean"]

    text = runner.invoke(app, ["audit"])
    assert text.exit_code == 0, text.output
    assert (
        "  note  review record (REVIEWS.json): 1 of 5 Lean file(s) reviewed at their current text; 4 not "
        "(reported only; --require-reviews fails on it)"
    ) in text.stdout
    assert "        Formal/Zoo/Identity.lean: never reviewed" in text.stdout

    as_json = runner.invoke(app, ["audit", "--json"])
    assert as_json.exit_code == 0
    data = json.loads(as_json.stdout)
    assert data["ok"] is True
    assert data["unreviewed"][0] == "Formal.lean: never reviewed"
    assert len(data["unreviewed"]) == 4


def test_audit_require_reviews_fails_until_every_file_is_reviewed(runner: CliRunner, mini_repo: Path) -> None:
    assert _add(runner, "Formal/Core.lean").exit_code == 0
    bad = runner.invoke(app, ["audit", "--require-reviews"])
    assert bad.exit_code == AuditFailed.exit_code == 12
    assert bad.stderr.strip() == (
        "error: static audit failed: 4 Lean file(s) without a review of their current text "
        "(--require-reviews)"
    )
    assert "  FAIL  review record (REVIEWS.json): 1 of 5" in bad.stdout
    bad_json = runner.invoke(app, ["audit", "--json", "--require-reviews"])
    assert bad_json.exit_code == 12 and json.loads(bad_json.stdout)["ok"] is False

    for rel in FIXTURE_FILES:
        if rel != "Formal/Core.lean":
            assert _add(runner, rel).exit_code == 0
    good = runner.invoke(app, ["audit", "--require-reviews"])
    assert good.exit_code == 0, good.output
    assert "  ok    review record (REVIEWS.json): 5 of 5 Lean file(s) reviewed" in good.stdout

    # an edit after review fails it again, and names the file
    core = mini_repo / "Formal/Core.lean"
    core.write_text(core.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    again = runner.invoke(app, ["audit", "--require-reviews"])
    assert again.exit_code == 12
    assert "        Formal/Core.lean: stale: changed since its last review" in again.stdout


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[]", f"{REVIEWS_FILE}: expected an object with `version` and `reviews`"),
        ('{"version": 2, "reviews": []}', f"{REVIEWS_FILE}: `version` must be 1"),
        ('{"version": 1, "reviews": {}}', f"{REVIEWS_FILE}: `reviews` must be a list"),
        (
            '{"version": 1, "reviews": [{"path": "Formal/Core.lean"}]}',
            "review 1: missing field(s) sha256, kind",
        ),
    ],
)
def test_malformed_record_is_a_one_line_error(
    runner: CliRunner, mini_repo: Path, text: str, message: str
) -> None:
    (mini_repo / REVIEWS_FILE).write_text(text, encoding="utf-8")
    for command in (["audit"], ["audit", "--json"], ["review", "status"], ["trust"]):
        result = runner.invoke(app, command)
        assert result.exit_code == 15, (command, result.output)
        assert message in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output


def _entry(**change: str) -> str:
    entry = {
        "path": "Formal/Core.lean",
        "sha256": "0" * 64,
        "kind": KIND,
        "reviewer": "r",
        "findings": "f",
        "date": "2026-12-01",
    }
    entry.update(change)
    return json.dumps({"version": 1, "reviews": [entry]})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"sha256": "ABC"}, "review 1: sha256 must be 64 lowercase hex digits"),
        ({"kind": "glance"}, "review 1: kind 'glance' is not one of: "),
        ({"date": "2026-13-01"}, "review 1: date '2026-13-01': expected YYYY-MM-DD"),
        (
            {"path": "Formal/../x.lean"},
            "review 1: path 'Formal/../x.lean' is not Formal.lean or Formal/**/*.lean",
        ),
        ({"path": "README.md"}, "review 1: path 'README.md' is not Formal.lean"),
        ({"reviewer": " "}, "review 1: `reviewer` must be a non-empty string"),
        ({"extra": "x"}, "review 1: unknown field(s) extra"),
    ],
)
def test_parse_record_rejects_bad_entries(change: dict[str, str], message: str) -> None:
    with pytest.raises(ReviewRecordError, match=r"^REVIEWS\.json: ") as err:
        parse_record(_entry(**change))
    assert message in str(err.value)


def test_parse_record_accepts_a_valid_entry() -> None:
    (review,) = parse_record(_entry()).reviews
    assert review.path == "Formal/Core.lean" and review.kind == KIND


def test_missing_record_means_nothing_reviewed(mini_repo: Path) -> None:
    assert not (mini_repo / REVIEWS_FILE).exists()
    assert [r.state for r in review_status(mini_repo)] == ["never"] * len(FIXTURE_FILES)


# --- TRUST.md --------------------------------------------------------------------------------------


def test_trust_table_follows_the_record(runner: CliRunner, mini_repo: Path) -> None:
    assert _add(runner, "Formal/Core.lean", "--date", "2026-12-01").exit_code == 0
    assert _add(runner, "Formal/Claims.lean", "--date", "2026-12-02", kind=READING).exit_code == 0
    claims = mini_repo / "Formal/Claims.lean"
    claims.write_text(claims.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    text = render_trust(mini_repo)
    assert "1 of 5 Lean files have a line-by-line review of their current text." in text
    assert f"| `Formal/Core.lean` | yes | {KIND} | 2026-12-01 | fine |" in text
    assert (
        f"| `Formal/Claims.lean` | no: changed since its last review | {READING} | 2026-12-02 | fine |"
        in text
    )
    assert "| `Formal/Zoo/Identity.lean` | no: never reviewed | — | — | — |" in text


# --- the real record -------------------------------------------------------------------------------


def test_real_record_is_well_formed(repo_root: Path) -> None:
    record = load_record(repo_root)
    assert record.reviews, "REVIEWS.json is missing or empty"
    states = review_status(repo_root, record)
    assert {r.file for r in states} >= {"Formal.lean", "Formal/Claims.lean"}


def test_the_record_covers_the_example_lean_files(runner: CliRunner, mini_repo: Path) -> None:
    """The README's example Lean files (``tests/fixtures/**/*.lean``) are in the record's scope; other
    Lean files outside ``Formal/`` are not."""
    example = mini_repo / "tests/fixtures/Example.lean"
    example.parent.mkdir(parents=True)
    example.write_text("import Formal.Core\n", encoding="utf-8")
    (mini_repo / "tests/Other.lean").write_text("import Formal.Core\n", encoding="utf-8")
    states = {r.file: r.state for r in review_status(mini_repo)}
    assert states["tests/fixtures/Example.lean"] == "never" and "tests/Other.lean" not in states
    result = _add(runner, "tests/fixtures/Example.lean")
    assert result.exit_code == 0, result.output
    assert {r.file: r.state for r in review_status(mini_repo)}["tests/fixtures/Example.lean"] == "reviewed"
    refused = _add(runner, "tests/Other.lean")
    assert refused.exit_code == 15 and "not a Lean source of this checkout" in refused.output
