"""``pybridge fragment``: which nodes take a model out of the piecewise-linear fragment."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from pybridge.commands import JsonOpt, ParamOpt, parse_params
from pybridge.errors import UsageError


def register(app: typer.Typer) -> None:
    """Add ``fragment`` to ``app``."""
    from pybridge.cli import user_errors

    @app.command("fragment")
    @user_errors
    def fragment_cmd(
        target: Annotated[
            str | None,
            typer.Argument(help="A Zoo layer name or path/to/file.py:factory returning (module, input)."),
        ] = None,
        params: ParamOpt = None,
        as_json: JsonOpt = False,
        no_probe: Annotated[
            bool, typer.Option("--no-probe", help="Syntax only, no numerical probe.")
        ] = False,
        seed: Annotated[int, typer.Option("--seed", help="Seed of the weights and probe lines.")] = 0,
        claims_md: Annotated[
            bool, typer.Option("--claims-md", help="Print the README block of the VM.* ledger entries.")
        ] = False,
        write_readme: Annotated[
            bool, typer.Option("--write-readme", help="With --claims-md: rewrite that block in README.md.")
        ] = False,
    ) -> None:
        """Classify a model node by node (PL, discontinuous-PL, bilinear, transcendental) and confirm
        the verdict with a numerical probe along random dyadic lines."""
        if claims_md:
            from pybridge.fragment.report import claims_markdown, sync_readme_claims
            from pybridge.lean.claims import find_repo_root, load_ledger

            root = find_repo_root()
            ledger = load_ledger(root)
            if write_readme:
                changed = sync_readme_claims(Path(root) / "README.md", ledger)
                typer.echo(f"README.md: claims block {'rewritten' if changed else 'already up to date'}")
            else:
                typer.echo(claims_markdown(ledger))
            return
        if target is None:
            raise UsageError(
                "fragment: give a TARGET (a Zoo layer or path/to/file.py:factory) or --claims-md"
            )
        from pybridge.fragment.report import analyse, render_text

        report = analyse(target, parse_params(params), run_probe=not no_probe, seed=seed)
        if as_json:
            typer.echo(json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False))
        else:
            typer.echo(render_text(report))
