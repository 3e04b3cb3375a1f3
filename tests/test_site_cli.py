"""The ``site``, ``presheaf`` and ``equivariance`` commands: output, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from pybridge.cli import app

MODELS = str(Path(__file__).with_name("models_site.py"))
runner = CliRunner()


def test_site_text_and_json() -> None:
    res = runner.invoke(app, ["site", f"{MODELS}:residual"])
    assert res.exit_code == 0, res.output
    assert "raw site thin:   no (2 paths from addmm_1 to A*[add])" in res.output  # captured by torch.export
    res = runner.invoke(app, ["site", f"{MODELS}:residual", "--raw", "--json"])
    data = json.loads(res.output)
    assert data["thin"] is False and data["witness"] == "2 paths from addmm_1 to A*[add]"
    assert data["omega"]["A[add]"] == 16 and data["global_omega"] == 16


def test_site_png_atomic_and_force(tmp_path: Path) -> None:
    out = tmp_path / "x.png"
    assert runner.invoke(app, ["site", f"{MODELS}:unet", "--png", str(out)]).exit_code == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    res = runner.invoke(app, ["site", f"{MODELS}:unet", "--png", str(out)])
    assert res.exit_code == 6 and "--force" in res.output
    assert runner.invoke(app, ["site", f"{MODELS}:mlp", "--png", str(out), "--force"]).exit_code == 0
    assert [p.name for p in tmp_path.iterdir()] == ["x.png"]  # no temporary files left behind
    res = runner.invoke(app, ["site", f"{MODELS}:mlp", "--png", str(tmp_path / "no" / "x.png")])
    assert res.exit_code == 7 and "Traceback" not in res.output


def test_errors_are_one_line() -> None:
    for args, code in (
        (["site", f"{MODELS}:untraceable"], 8),
        (["site", f"{MODELS}:nothing"], 8),
        (["presheaf", "missing.py:f"], 8),
        (["equivariance", f"{MODELS}:circular", "--group", "flip"], 2),
        (["site", f"{MODELS}:mlp", "--param", "oops"], 2),
    ):
        res = runner.invoke(app, args)
        assert res.exit_code == code, (args, res.output)
        lines = [ln for ln in res.output.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: ")


def test_presheaf_table() -> None:
    res = runner.invoke(app, ["presheaf", f"{MODELS}:residual"])
    assert res.exit_code == 0, res.output
    assert "raw site: unique? (control; 1 free factor(s))  fails" in res.output
    assert "path sum x -> relu_1 (2 paths)" in res.output


def test_equivariance_table() -> None:
    res = runner.invoke(app, ["equivariance", f"{MODELS}:circular", "--group", "shift"])
    assert res.exit_code == 0, res.output
    # core ATen splits the circular padding into slices and slice_scatters; the pointwise layers and
    # the whole model stay equivariant
    model_row = [ln for ln in res.output.splitlines() if ln.strip().startswith("(model)")]
    assert len(model_row) == 1 and model_row[0].rstrip().endswith("holds")
    tanh_row = [ln for ln in res.output.splitlines() if ln.strip().startswith("tanh ")]
    assert len(tanh_row) == 1 and tanh_row[0].rstrip().endswith(" equivariant")
    res = runner.invoke(app, ["equivariance", f"{MODELS}:mlp", "--group", "rot90"])
    assert res.exit_code == 0 and "nothing to measure" in res.output
