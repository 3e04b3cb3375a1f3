"""Text of a user's Lean file reaches the terminal escaped: ``show`` and ``list`` (plain and ``--json``)
print docstrings, names, hypotheses, counterpart lines and paths with no control character, no
bidirectional override and no line separator (written ``\\x1b``, ``\\u202e``, ...).

``typer.echo`` strips well-formed CSI sequences (``\\x1b[31m``) when its stream is not a terminal,
as in these tests; the hostile texts therefore also hold what it does not strip (an OSC sequence, a
bell, a carriage return, a C1 control, a bidi override), which a terminal would act on.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pybridge.lean.catalogue import load_external
from pybridge.lean.display import dumps_json, escape_lines, escape_text
from tests.test_reader import REPO, TYPE, cli, layer, lean_file

#: What a terminal acts on: C0 but the line break, DEL, C1, line/paragraph separators, bidi controls.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

EVIL_DOC = "Title \x1b]0;pwned\x07 \x1b[31mred\x1b[0m \u202eevil\u202c bell\x07 cr\rnext \x9b2J c1 \u2028sep"


def no_raw_controls(text: str) -> None:
    found = RAW.findall(text)
    assert not found, f"raw control characters {found!r} in {text!r}"


def evil_file(tmp_path: Path) -> Path:
    return lean_file(
        tmp_path,
        layer("a", "Arch.relu [d]", doc=EVIL_DOC),
        layer("h", "Arch.relu [d]", binders="(d : Nat) («pos\x07\u202e» : 0 < d)"),
        # a counterpart line holding a control character: that layer cannot be read, the others can
        layer("p", "Arch.relu [d]", doc="P.\n\nPyTorch: `torch.nn.ReLU()  # \u202eevil \x1b]0;x\x07`"),
    )


def test_show_escapes_the_docstring_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = evil_file(tmp_path)
    code, out, err = cli(capsys, "show", f"{path}:a")
    assert code == 0, err
    no_raw_controls(out + err)
    summary = out.splitlines()[1]
    assert summary == (
        "  Title \\x1b]0;pwned\\x07 \\x1b[31mred\\x1b[0m \\u202eevil\\u202c bell\\x07 cr\\rnext \\x9b2J c1 "
        "\\u2028sep"
    )
    assert len(out.splitlines()) == 8


def test_show_escapes_hypothesis_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "show", f"{evil_file(tmp_path)}:h")
    assert code == 0, err
    no_raw_controls(out + err)
    assert "  hypothesis:   pos\\x07\\u202e : 0 < d" in out.splitlines()


@pytest.mark.parametrize("command", ["list", "show"])
def test_json_output_escapes_what_json_leaves_raw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    path = evil_file(tmp_path)
    code, out, err = cli(capsys, command, str(path) if command == "list" else f"{path}:a", "--json")
    assert code == 0, err
    no_raw_controls(out.replace("\n", ""))
    data = json.loads(out)
    if command == "list":
        entries = {entry["name"]: entry for entry in data}
        summary = entries["a"]["summary"]
        assert "holds a control or bidirectional character" in entries["p"]["error"]
    else:
        summary = data["layer"]["summary"]
    assert "\u202eevil\u202c" in summary and "\x1b]0;pwned\x07" in summary  # the same value, as JSON


def test_a_control_character_in_a_pytorch_line_is_that_layers_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = evil_file(tmp_path)
    cat = load_external(path, REPO)
    assert sorted(cat.layers) == ["a", "h"] and sorted(cat.broken) == ["p"]
    message = str(cat.broken["p"].error)
    assert "holds a control or bidirectional character" in message and "\\u202eevil" in message
    no_raw_controls(message)
    code, out, err = cli(capsys, "list", str(path))
    assert code == 0, err
    no_raw_controls(out + err)
    assert len(out.splitlines()) == 2 + 3
    code, out, err = cli(capsys, "show", f"{path}:p")
    assert code == 3 and out == ""
    no_raw_controls(err)


def test_list_escapes_a_path_with_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = lean_file(tmp_path / "dir\x07\u202e", layer("a", "Arch.relu [d]"))
    code, out, err = cli(capsys, "list", str(path))
    assert code == 0, err
    no_raw_controls(out + err)
    assert "dir\\x07\\u202e" in out
    code, out, err = cli(capsys, "show", f"{path}:a")
    assert code == 0, err
    no_raw_controls(out + err)


def test_crlf_docstrings_read_as_lean_reads_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Lean reads CRLF as LF: the summary is the first paragraph, with no carriage return."""
    path = lean_file(tmp_path, layer("a", "Arch.relu [d]", doc="First line\nof the summary.\n\nMore."))
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    info = load_external(path, REPO).layers["a"]
    assert info.summary == "First line of the summary."
    assert info.example == {"d": 3}
    code, out, err = cli(capsys, "show", f"{path}:a")
    assert code == 0, err
    assert out.splitlines()[1] == "  First line of the summary."


def test_display_helpers() -> None:
    assert escape_text("a\tb\nc\x1b\u202e\\") == "a\\tb\\nc\\x1b\\u202e\\"
    assert escape_lines("a\nb\x85") == "a\nb\\x85"
    assert escape_text("plain ≫ ∣ «»") == "plain ≫ ∣ «»"
    text = dumps_json({"k": "\x1b\x85\u202e\u2028≫"})
    assert json.loads(text) == {"k": "\x1b\x85\u202e\u2028≫"}
    no_raw_controls(text.replace("\n", ""))
    assert "≫" in text


def test_ordinary_layers_show_as_before(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "show", f"{REPO / 'tests/fixtures/ResidualMLP.lean'}:residualMLP")
    assert code == 0
    assert out.splitlines()[1] == "  The residual MLP `x ↦ x + preNormMLP x`, `expansion` times wider inside."
    assert TYPE in out


def test_tabs_in_a_pytorch_line_are_white_space(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = "T.\n\nPyTorch: `torch.nn.Sequential(torch.nn.Linear(d,\td),\ttorch.nn.ReLU())`"
    path = lean_file(tmp_path, layer("t", "Arch.linear [] d d ≫ Arch.relu [d]", doc=doc))
    info = load_external(path, REPO).layers["t"]
    assert info.pytorch == "torch.nn.Sequential(torch.nn.Linear(d, d), torch.nn.ReLU())"
    code, out, err = cli(capsys, "list", str(path))
    assert code == 0, err
    no_raw_controls(out + err)
