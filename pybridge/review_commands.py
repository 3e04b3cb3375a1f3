"""``pybridge review add`` and ``pybridge review status``: the review record of the Lean sources.

Exit codes (from :mod:`pybridge.errors`): 0 success; 2 not inside a checkout (``UsageError``);
7 ``REVIEWS.json`` cannot be written (``WriteError``); 15 the record is malformed, or the review to add
is not valid (an unknown kind, a path that is not a Lean source, an empty field, a duplicate)
(``ReviewRecordError``).
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from pybridge.lean.claims import find_repo_root
from pybridge.lean.reviews import KINDS, REVIEWS_FILE, add_review, review_status

_KIND_HELP = "Kind of review, one of: " + "; ".join(f"'{k}'" for k in KINDS) + "."


def _add(path: str, kind: str, reviewer: str, findings: str, date: str | None) -> None:
    root = find_repo_root()
    review = add_review(root, path, kind=kind, reviewer=reviewer, findings=findings, date=date)
    typer.echo(
        f"recorded in {REVIEWS_FILE}: {review.path} (sha256 {review.sha256[:12]}…), {review.kind}, "
        f"{review.date}, {review.reviewer}"
    )


def _status(as_json: bool) -> None:
    root = find_repo_root()
    states = review_status(root)
    if as_json:
        payload = {
            "file": REVIEWS_FILE,
            "counts": {s: sum(1 for r in states if r.state == s) for s in ("reviewed", "stale", "never")},
            "files": [r.model_dump(mode="json") for r in states],
        }
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    width = max((len(r.file) for r in states), default=0)
    for r in states:
        typer.echo(f"{r.file:<{width}}  {r.describe()}")
    counts = {s: sum(1 for r in states if r.state == s) for s in ("reviewed", "stale", "never")}
    typer.echo(
        f"{len(states)} Lean file(s): {counts['reviewed']} reviewed at their current text, "
        f"{counts['stale']} stale (changed since their last review), {counts['never']} never reviewed"
    )


def register(app: typer.Typer) -> None:
    """Add the ``review`` command group (``add``, ``status``) to ``app``."""
    from pybridge.cli import user_errors

    review = typer.Typer(
        name="review",
        help="The review record of the Lean sources (REVIEWS.json): add a review, show each file's state.",
        no_args_is_help=True,
    )

    @review.command("add")
    @user_errors
    def add(
        path: Annotated[
            str,
            typer.Argument(help="The Lean file reviewed (Formal.lean, Formal/**/*.lean, tests/fixtures/**)."),
        ],
        kind: Annotated[str, typer.Option("--kind", help=_KIND_HELP)],
        reviewer: Annotated[str, typer.Option("--reviewer", help="Who reviewed.")],
        findings: Annotated[str, typer.Option("--findings", help="What the review found, in one line.")],
        date: Annotated[
            str | None, typer.Option("--date", help="Date of the review, YYYY-MM-DD (default: today, UTC).")
        ] = None,
    ) -> None:
        """Record a review of the file's current text; the SHA-256 is computed from the file."""
        _add(path, kind, reviewer, findings, date)

    @review.command("status")
    @user_errors
    def status(
        as_json: Annotated[bool, typer.Option("--json", help="Print the states as JSON.")] = False,
    ) -> None:
        """Each Lean file: reviewed at its current text, stale (changed since), or never reviewed."""
        _status(as_json)

    app.add_typer(review)
