"""Emit a Zoo layer with the CLI and import the emitted file (shared by the tests of emitted files)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from typer.testing import CliRunner

from pybridge.cli import app


def emit_and_import(tmp_path: Path, name: str, params: list[str]) -> ModuleType:
    """``pybridge emit NAME PARAMS -o tmp_path/NAME.py`` (asserting exit 0), then the file as a module."""
    out = tmp_path / f"{name}.py"
    res = CliRunner().invoke(app, ["emit", name, *params, "-o", str(out)])
    assert res.exit_code == 0, res.output
    spec = importlib.util.spec_from_file_location(name, out)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
