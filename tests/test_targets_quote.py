"""``pybridge.targets.quote``: the public one-line quotation of a user's exception, which the site
modules import (they imported the private ``_quote`` before)."""

from __future__ import annotations

import ast
from pathlib import Path

from pybridge.targets import quote

ROOT = Path(__file__).resolve().parent.parent


class _BadStr(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text")


def test_quote_is_one_short_line() -> None:
    assert quote(ValueError("first\nsecond")) == "ValueError: first"
    assert quote(SystemExit(3)) == "SystemExit: 3"
    assert quote(_BadStr()) == "_BadStr"
    long = quote(RuntimeError("x" * 500))
    assert len(long) == 200 and long.startswith("RuntimeError: xxx") and long.endswith("...")


def test_site_and_fragment_import_no_private_name_of_targets() -> None:
    for path in sorted((ROOT / "pybridge" / "site").glob("*.py")) + sorted(
        (ROOT / "pybridge" / "fragment").glob("*.py")
    ):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "pybridge.targets":
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert not private, f"{path.name} imports {private} from pybridge.targets"
