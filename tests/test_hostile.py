"""Hostile input (issue 10): nothing in a Lean file, a parameter or a model crashes, hangs, or runs code.

Each test builds a temporary copy of the repository's Lean sources with one hostile change and runs
the library (or the CLI in a fresh interpreter) on it.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pybridge.lean.catalogue import load_catalogue
from pybridge.torch.emit import render_source

REPO = Path(__file__).resolve().parents[1]


def repo_copy(tmp_path: Path) -> Path:
    """A copy of the checkout's Lean side (what the catalogue reads), under ``tmp_path/repo``."""
    root = tmp_path / "repo"
    root.mkdir(parents=True)
    for name in ("lakefile.lean", "lean-toolchain", "Formal.lean"):
        shutil.copy(REPO / name, root / name)
    shutil.copytree(REPO / "Formal", root / "Formal")
    return root


def layer_file(name: str, doc: str, body: str = "Arch.relu [d]", extra: str = "") -> str:
    """A Zoo file with one layer ``name`` on ``ℝ^d`` whose docstring starts with ``doc``."""
    return (
        "import Formal.Network.Arch\n\n/-! A test layer. -/\n\nnamespace Formal.Zoo\n\nopen scoped Formal.Arch\n\n"
        f"/-- {doc}\n\nPyTorch: none (reference: `pybridge.laws.references.moe`)\n\nExample: `d=4` -/\n"
        f"def {name} (d : Nat) : Arch (.tensor [d]) (.tensor [d]) :=\n  {body}\n\n{extra}end Formal.Zoo\n"
    )


# --- 1. emitted files never run text from Lean ----------------------------------------------------

HOSTILE_DOCS = [
    'Evil """; import pathlib; pathlib.Path(MARKER).write_text("pwned"); """ done.',
    "Evil ''' triple single ''' and \"\"\" triple double \"\"\" quotes.",
    "Back\\slashes \\n \\x00 \\N{BULLET} \\u2028 and a trailing backslash \\",
    "A NUL \x00 byte, a bell \x07, a DEL \x7f.",
    "Line\u2028separator, paragraph\u2029separator, form\x0cfeed, CR\rreturn.",
    "Unicode: ℝ^d → ℝ^d, ∀ ε > 0, 𝔽₂, emoji 🦀, RTL \u202e evil \u202c, combining e\u0301.",
    '"""',
    "\\",
]

# Run in a fresh interpreter: import each emitted file by path, report its top-level names and
# docstrings, run it, and say whether the marker file exists afterwards.
_IMPORT = r"""
import importlib.util, json, os, sys
import torch
marker, paths = sys.argv[1], sys.argv[2:]
out = []
for i, path in enumerate(paths):
    spec = importlib.util.spec_from_file_location(f"emitted{i}", path)
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    x = torch.randn(2, 4, dtype=torch.float64)
    y = m.Layer(dtype=torch.float64)(x)
    names = sorted(k for k in vars(m) if not k.startswith("__"))
    out.append({"doc": m.__doc__, "layer_doc": m.Layer.__doc__, "names": names,
                "marker": os.path.exists(marker), "relu_ok": bool(torch.equal(y, x.clamp(min=0)))})
print(json.dumps(out))
"""


def _import_emitted(paths: list[Path], marker: Path) -> list[dict]:
    proc = subprocess.run(
        [sys.executable, "-c", _IMPORT, str(marker), *map(str, paths)], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_hostile_docstrings_emit_files_that_run_nothing_else(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    paths, summaries = [], []
    for i, raw in enumerate(HOSTILE_DOCS):
        doc = raw.replace("MARKER", repr(str(marker)))
        root = repo_copy(tmp_path / f"r{i}")
        (root / "Formal/Zoo/Evil.lean").write_text(layer_file("evil", doc), encoding="utf-8")
        cat = load_catalogue(root)
        summary = cat.layers["evil"].summary
        assert summary == " ".join(doc.split("\n\n")[0].split("\n")).strip()
        text = render_source(cat, "evil", {"d": 4})
        layer = next(n for n in ast.parse(text).body if isinstance(n, ast.ClassDef) and n.name == "Layer")
        assert (ast.get_docstring(layer, clean=False) or "").startswith(summary)
        paths.append(tmp_path / f"evil{i}.py")
        paths[-1].write_text(text, encoding="utf-8")
        summaries.append(summary)
    # (``moe`` has no PyTorch counterpart, as ``evil``: the same library functions, no adapter.)
    reference = ast.parse(render_source(load_catalogue(REPO), "moe", {"d": 4, "experts": 2}))
    ref_names = {n.name for n in reference.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    ref_names |= {t.id for n in reference.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    results = _import_emitted(paths, marker)
    assert not marker.exists()
    for got, summary in zip(results, summaries, strict=True):
        assert got["marker"] is False
        assert got["relu_ok"]  # the layer computes relu, the Lean body
        assert got["layer_doc"].startswith(summary)
        assert set(got["names"]) == ref_names | {"math", "torch", "nn"}


def test_hostile_layer_name_in_guillemets_is_emitted_as_a_string(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    name = f'«x"""; open({str(marker)!r}, "w"); """»'
    root = repo_copy(tmp_path)
    (root / "Formal/Zoo/Evil.lean").write_text(layer_file(name, "Evil name."), encoding="utf-8")
    cat = load_catalogue(root)
    short = name.strip("«»")
    text = render_source(cat, short, {"d": 4})
    out = tmp_path / "evil.py"
    out.write_text(text, encoding="utf-8")
    got = _import_emitted([out], marker)
    assert not marker.exists() and got[0]["relu_ok"]
    assert got[0]["doc"].startswith(short + ": emitted by topos-bridge")


def test_verify_module_rejects_an_extra_top_level_statement() -> None:
    from pybridge.errors import EmitError
    from pybridge.torch import emit

    cat = load_catalogue(REPO)
    text = render_source(cat, "mlp", {"d_in": 2, "d_hidden": 3, "d_out": 2})
    info = cat.layer("mlp")
    module_doc = ast.get_docstring(ast.parse(text), clean=False)
    layer = next(n for n in ast.parse(text).body if isinstance(n, ast.ClassDef) and n.name == "Layer")
    class_doc = ast.get_docstring(layer, clean=False)
    ft = next(n for n in layer.body if isinstance(n, ast.FunctionDef) and n.name == "from_torch")
    ft_doc = ast.get_docstring(ft, clean=False)
    assert info.pytorch and ft_doc
    emit.verify_module(text, module_doc or "", class_doc or "", ft_doc, True)  # the real file passes
    bad = text.replace("import math\n", "import math\nimport os\n", 1)
    with pytest.raises(EmitError, match="top-level statements"):
        emit.verify_module(bad, module_doc or "", class_doc or "", ft_doc, True)
    head, sep, tail = text.rpartition("    def forward(self, x):")  # the last one is Layer's
    sneaky = head + "    import os\n\n" + sep + tail
    with pytest.raises(EmitError, match="members"):
        emit.verify_module(sneaky, module_doc or "", class_doc or "", ft_doc, True)
