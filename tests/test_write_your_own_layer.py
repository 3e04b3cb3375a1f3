"""The README section "Write your own layer", run as written: the Lean file it shows is the fixture
file byte for byte, and every command it shows is run (in a directory outside the checkout, with
``TOPOS_BRIDGE_ROOT`` naming the checkout, as the section says) and prints what the section shows."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests/fixtures/ResidualMLP.lean"


def _section() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index("### Write your own layer")
    end = text.index("\n### ", start + 1)
    return text[start:end]


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", _section(), flags=re.DOTALL)


def _transcript() -> list[tuple[str, list[str]]]:
    """``(command, shown output lines)`` for every ``$ `` line of the console blocks."""
    out: list[tuple[str, list[str]]] = []
    for block in _blocks("console"):
        for line in block.splitlines():
            if line.startswith("$ "):
                out.append((line[2:], []))
            else:
                assert out, f"output before any command: {line!r}"
                out[-1][1].append(line)
    return out


def _matches(shown: list[str], actual: list[str]) -> bool:
    """``shown`` equals ``actual``, where a ``...`` line of ``shown`` stands for any lines."""
    pattern = "".join(".*?" if s == "..." else re.escape(s.rstrip()) + "\n" for s in shown)
    return re.fullmatch(pattern, "".join(a.rstrip() + "\n" for a in actual), flags=re.DOTALL) is not None


def test_the_lean_file_shown_is_the_fixture() -> None:
    (lean,) = _blocks("lean")
    assert lean == FIXTURE.read_text(encoding="utf-8")


def test_every_command_shown_runs_and_prints_what_is_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pybridge import cli

    project = tmp_path / "my_project"  # outside the checkout
    (project / "tests/fixtures").mkdir(parents=True)
    (project / "tests/fixtures/ResidualMLP.lean").write_bytes(FIXTURE.read_bytes())
    monkeypatch.chdir(project)
    monkeypatch.setenv("TOPOS_BRIDGE_ROOT", str(REPO))
    transcript = _transcript()
    commands = [shlex.split(c)[:2] for c, _ in transcript]
    assert [c[1] for c in commands] == ["list", "show", "emit", "check", "check"]
    for command, shown in transcript:
        argv = shlex.split(command)
        assert argv[0] == "pybridge"
        capsys.readouterr()
        with pytest.raises(SystemExit) as info:
            cli.main(argv[1:])
        got = capsys.readouterr()
        assert info.value.code == 0, (command, got.err)
        assert _matches(shown, got.out.splitlines()), (command, got.out)
    (snippet,) = _blocks("python")
    expected = re.findall(r"#\s*(.+)$", snippet, flags=re.MULTILINE)
    assert expected == ["torch.Size([3, 8])"]
    proc = subprocess.run(
        [sys.executable, "-c", snippet], cwd=project, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.splitlines() == expected


def test_the_transcript_matcher_is_not_vacuous() -> None:
    assert _matches(["a", "...", "c"], ["a", "b", "b", "c"])
    assert not _matches(["a", "c"], ["a", "b", "c"])
    assert not _matches(["a", "...", "c"], ["a", "b"])
    assert not _matches(["x"], ["x", "y"])
