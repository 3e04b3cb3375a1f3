"""The commands that say what has been checked, and by what: ``claims``, ``audit``, ``verify``, ``trust``.

Exit codes (from :mod:`pybridge.errors`): 0 success; 2 not inside a checkout (``UsageError``);
3 a Lean file or the ledger cannot be read (``LeanParseError``); 7 a file cannot be written
(``WriteError``); 10 no Lean toolchain (``ToolchainMissing``); 11 the toolchain ran and a check
failed (``VerificationFailed``); 12 the static audit found violations (``AuditFailed``); 15 the review
record ``REVIEWS.json`` is malformed (``ReviewRecordError``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from pybridge.cli import user_errors
from pybridge.errors import AuditFailed
from pybridge.lean.audit import run_audit
from pybridge.lean.claims import STATUS_LABEL, STATUSES, find_repo_root, load_ledger


def _claims(as_json: bool) -> None:
    root = find_repo_root()
    ledger = load_ledger(root)
    if as_json:
        payload = {
            "file": ledger.file,
            "counts": ledger.counts(),
            "claims": [c.model_dump(mode="json") for c in ledger.claims],
        }
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    header = ("ID", "PAPER", "STATUS", "DECLARATIONS")
    rows = [(c.id, c.paper, STATUS_LABEL[c.status], ", ".join(c.decls) or "-") for c in ledger.claims]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(3)]
    for row in [header, *rows]:
        typer.echo("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:3])) + "  " + row[3])
    counts = ledger.counts()
    summary = ", ".join(f"{counts[s]} {STATUS_LABEL[s]}" for s in STATUSES)
    typer.echo(f"{len(ledger.claims)} claims ({summary}) in {ledger.file}; statements in TRUST.md")


def _audit(as_json: bool, require_reviews: bool) -> None:
    root = find_repo_root()
    report = run_audit(root, require_reviews=require_reviews)
    typer.echo(report.to_json() if as_json else report.render_text())
    if not report.ok:
        failed = [r.rule for r in report.rules if not r.ok]
        reasons = []
        if failed:
            reasons.append(f"{len(report.findings)} finding(s) in rule(s) {', '.join(failed)}")
        if require_reviews and report.unreviewed:
            reasons.append(
                f"{len(report.unreviewed)} Lean file(s) without a review of their current text "
                "(--require-reviews)"
            )
        raise AuditFailed("static audit failed: " + "; ".join(reasons))


def _verify(lean_home: Path | None, skip_trace: bool) -> None:
    from pybridge.verify.record import VERIFICATION_FILE
    from pybridge.verify.toolchain import run_verification

    root = find_repo_root()
    record = run_verification(
        root, lean_home=lean_home, skip_trace=skip_trace, progress=lambda m: typer.echo(m, err=True)
    )
    traced = sum(1 for d in record.declarations if d.status == "traced")
    typer.echo(
        f"verified: Lean {record.toolchain.lean_version}, {len(record.sources)} Lean sources built, "
        f"{traced}/{len(record.declarations)} ledger declarations traced; wrote {root / VERIFICATION_FILE}"
    )


def _trust(write: bool) -> None:
    from pybridge.trust import render_trust, write_trust

    root = find_repo_root()
    if write:
        path = write_trust(root)
        typer.echo(f"wrote {path}")
        return
    typer.echo(render_trust(root), nl=False)


def register(app: typer.Typer) -> None:
    """Add ``claims``, ``audit``, ``verify`` and ``trust`` to ``app``."""

    @app.command("claims")
    @user_errors
    def claims(
        as_json: Annotated[bool, typer.Option("--json", help="Print the ledger as JSON.")] = False,
    ) -> None:
        """Print the claims ledger (Formal/Claims.lean): id, paper, status, declarations."""
        _claims(as_json)

    @app.command("audit")
    @user_errors
    def audit(
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
        require_reviews: Annotated[
            bool,
            typer.Option(
                "--require-reviews",
                help="Also fail when a Lean file has no review of its current text in REVIEWS.json.",
            ),
        ] = False,
    ) -> None:
        """Static audit of Formal/ (no toolchain needed); exit 12 when a rule fails.

        Also reports every Lean file whose current text has no review in REVIEWS.json; that fails the
        audit only with --require-reviews. Exit 15 when REVIEWS.json is malformed.
        """
        _audit(as_json, require_reviews)

    @app.command("verify")
    @user_errors
    def verify(
        lean_home: Annotated[
            Path | None,
            typer.Option("--lean-home", help="Toolchain directory holding bin/lake and bin/lean."),
        ] = None,
        skip_trace: Annotated[
            bool, typer.Option("--skip-trace", help="Skip the LeanDojo trace (lake build only).")
        ] = False,
    ) -> None:
        """Build Formal/ with lake, trace it with LeanDojo, write verification.json.

        Exit 10 when no Lean toolchain is found, 11 when a check fails.
        """
        _verify(lean_home, skip_trace)

    @app.command("trust")
    @user_errors
    def trust(
        write: Annotated[bool, typer.Option("--write", help="Regenerate TRUST.md in place.")] = False,
    ) -> None:
        """Print TRUST.md as generated from the ledger; --write regenerates the file."""
        _trust(write)
