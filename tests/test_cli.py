"""The spine's CLI: output, exit codes, one-line errors, nothing written on failure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import lean_zoo_names
from typer.testing import CliRunner

from pybridge.cli import app

runner = CliRunner()


def run(*args: str):  # noqa: ANN201
    return runner.invoke(app, list(args))


def pybridge_script() -> list[str]:
    script = Path(sys.executable).parent / "pybridge"
    return [str(script)] if script.exists() else [sys.executable, "-m", "pybridge.cli"]


def test_list_and_json() -> None:
    result = run("list")
    assert result.exit_code == 0
    zoo = lean_zoo_names()  # from the Lean files, by a regular expression
    for name in zoo:
        assert name in result.stdout
    data = json.loads(run("list", "--json").stdout)
    assert {d["name"] for d in data} == zoo
    assert next(d for d in data if d["name"] == "glu")["pytorch"].startswith("torch.nn.Sequential")


def test_show() -> None:
    result = run("show", "attention", "--param", "d_model=6", "--param", "heads=3")
    assert result.exit_code == 0
    assert "h_dvd : heads ∣ d_model" in result.stdout
    assert "[seq, 6] -> [seq, 6]" in result.stdout
    data = json.loads(run("show", "mlp", "--json").stdout)
    assert data["term"]["kind"] == "comp" and data["signature"] == "[4] -> [3]"


def test_emit_writes_a_file(tmp_path: Path) -> None:
    out = tmp_path / "mlp.py"
    result = run("emit", "mlp", "--param", "d_in=3", "-p", "d_hidden=5", "-p", "d_out=2", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "LEAN_DECL = 'Formal.Zoo.mlp'" in out.read_text()


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["emit", "convnet", "--out", "{out}"], 4, "unknown layer 'convnet'"),
        (["emit", "mlp", "-p", "d_in", "--out", "{out}"], 2, "expected NAME=VALUE"),
        (["emit", "mlp", "-p", "d_in=x", "--out", "{out}"], 2, "must be a natural number"),
        (["emit", "mlp", "-p", "d_in=-3", "--out", "{out}"], 2, "must be a natural number"),
        (["emit", "mlp", "-p", "d_in=3", "--out", "{out}"], 2, "needs --param d_hidden=N --param d_out=N"),
        (["emit", "mlp", "-p", "d_in=3", "-p", "d_in=4", "--out", "{out}"], 2, "given twice"),
        (
            ["emit", "attention", "-p", "d_model=8", "-p", "heads=3", "--out", "{out}"],
            5,
            "h_dvd : heads ∣ d_model fails",
        ),
        (["emit", "moe", "-p", "d=2", "-p", "experts=0", "--out", "{out}"], 5, "h_pos : 0 < experts fails"),
        (
            ["emit", "mlp", "-p", "d_in=1", "-p", "d_hidden=1", "-p", "d_out=1", "--out", "{missing}"],
            7,
            "does not exist",
        ),
        (
            ["emit", "mlp", "-p", "d_in=1", "-p", "d_hidden=1", "-p", "d_out=1", "--out", "{txt}"],
            2,
            "must be a .py file",
        ),
        (["check", "nope"], 4, "unknown layer"),
        (["show", "glu", "-p", "width=3"], 2, "has no parameter width"),
    ],
)
def test_bad_input_one_line_nonzero_nothing_written(
    tmp_path: Path, args: list[str], code: int, message: str
) -> None:
    paths = {"out": tmp_path / "out.py", "missing": tmp_path / "no" / "out.py", "txt": tmp_path / "out.txt"}
    result = run(*[a.format(**{k: str(v) for k, v in paths.items()}) for a in args])
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.stderr
    assert "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []


def test_existing_output_needs_force(tmp_path: Path) -> None:
    out = tmp_path / "glu.py"
    out.write_text("keep me\n")
    args = ["emit", "glu", "-p", "d_in=2", "-p", "d_out=2", "--out", str(out)]
    result = run(*args)
    assert result.exit_code == 6 and "already exists (use --force" in result.stderr
    assert out.read_text() == "keep me\n"
    assert run(*args, "--force").exit_code == 0
    assert "class Layer" in out.read_text()


def test_check_prints_a_table() -> None:
    result = run("check", "glu", "-p", "d_in=3", "-p", "d_out=5")
    assert result.exit_code == 0, result.output
    assert "torch.nn.Sequential" in result.stdout and "12 passed, 0 failed" in result.stdout
    data = json.loads(run("check", "mlp", "--json").stdout)
    assert all(r["passed"] for r in data) and {r["dtype"] for r in data} == {"float32", "float64"}


def test_console_script_runs_in_a_subprocess(tmp_path: Path) -> None:
    ok = subprocess.run([*pybridge_script(), "list"], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and "hyperLinear" in ok.stdout
    bad = subprocess.run(
        [*pybridge_script(), "emit", "attention", "-p", "d_model=8", "--out", str(tmp_path / "a.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2
    assert bad.stderr.strip() == "error: attention needs --param heads=N"
    assert not (tmp_path / "a.py").exists()


def test_demo_runs(tmp_path: Path) -> None:
    result = run("demo", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "attention.py").exists()
    assert "max abs error" in result.stdout and "FAIL" not in result.stdout


def test_demo_refuses_a_bad_out_before_doing_anything(tmp_path: Path) -> None:
    plain = tmp_path / "file.py"
    plain.write_text("precious\n")
    result = run("demo", "--out", str(plain))
    assert result.exit_code == 2 and "not a directory" in result.output
    assert "The Zoo" not in result.output
    (tmp_path / "attention.py").write_text("precious\n")
    result = run("demo", "--out", str(tmp_path))
    assert result.exit_code == 6 and "demo does not replace files" in result.output
    assert (tmp_path / "attention.py").read_text() == "precious\n"


def test_schema_validates_show_json() -> None:
    """The JSON schema printed by `schema` describes the terms printed by `show --json`."""
    import pydantic

    from pybridge.spec.terms import Term

    schema = json.loads(run("schema").stdout)
    assert set(schema["$defs"]) >= {"Comp", "Par", "Linear", "Route", "Copair", "TensorShape"}
    term = json.loads(run("show", "moe", "--json").stdout)["term"]
    again = pydantic.TypeAdapter(Term).validate_python(term)
    assert again.model_dump(mode="json") == term


def test_out_of_memory_is_one_line() -> None:
    """A layer too large to allocate is reported in one line with its own exit status, not a traceback."""
    result = run("check", "mlp", "-p", "d_in=200000", "-p", "d_hidden=200000", "-p", "d_out=2")
    assert result.exit_code == 14, result.output
    lines = result.stderr.strip().splitlines()
    # stopped before allocating: the estimate of pybridge.budget exceeds the available memory
    assert len(lines) == 1 and lines[0].startswith("error: checking mlp would need")


def test_error_lines_carry_no_control_characters() -> None:
    """A name with a line break, an ANSI escape sequence and a bidi override (from a user's file or
    argument) is written escaped: the error is one line and the terminal gets no control sequence."""
    from pybridge.cli import printable

    name = "evil\nname\x1b[31mRED\u202e"
    assert printable(name) == "evil\\nname\\x1b[31mRED\\u202e"
    assert printable("ordinary ≫ ⊗ «name»") == "ordinary ≫ ⊗ «name»"
    proc = subprocess.run(
        [sys.executable, "-m", "pybridge.cli", "show", name], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 4 and proc.stderr.count("\n") == 1, proc.stderr
    assert "\x1b" not in proc.stderr and "\u202e" not in proc.stderr and "evil\\nname\\x1b[31m" in proc.stderr
