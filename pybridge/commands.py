"""The spine's commands: list, show, emit, check, demo (filled in by the spine)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the spine's commands to ``app``."""
