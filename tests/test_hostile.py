"""Hostile input (issue 10): nothing in a Lean file, a parameter or a model crashes, hangs, or runs code.

Each test builds a temporary copy of the repository's Lean sources with one hostile change and runs
the library (or the CLI in a fresh interpreter) on it.
"""

from __future__ import annotations

import ast
import json
import os
import re
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
        "import Formal.Network.Arch\n\n/-! A test layer. -/\n\n"
        "namespace Formal.Zoo\n\nopen scoped Formal.Arch\n\n"
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
        [sys.executable, "-c", _IMPORT, str(marker), *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=600,
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
    ref_names |= {
        t.id
        for n in reference.body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name)
    }
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


# --- 3./4. the reader never crashes; Lean that Lean rejects is rejected ------------------------------

RELU = "Arch.relu [d]"
CHAIN_1000 = " ≫ ".join([RELU] * 1000)


def _ping_pong() -> str:
    return layer_file("ping", "Ping.", "pong d").replace(
        "def ping",
        "def pong (d : Nat) : Arch (.tensor [d]) (.tensor [d]) :=\n  ping d\n\n"
        "/-- Ping.\n\nPyTorch: none (reference: `x.y`) -/\ndef ping",
    )


def _exponential(levels: int) -> str:
    defs = "".join(
        f"/-- E{i}.\n\nPyTorch: none (reference: `x.y`)\n\nExample: `d=1` -/\n"
        f"def e{i} (d : Nat) : Arch (.tensor [d]) (.tensor [d]) :=\n  "
        + (RELU if i == 0 else f"e{i - 1} d ≫ e{i - 1} d")
        + "\n\n"
        for i in range(levels + 1)
    )
    return "import Formal.Network.Arch\n\n/-! Exp. -/\n\nnamespace Formal.Zoo\n\n" + defs + "end Formal.Zoo\n"


# (file text, the layer to instantiate, the message expected); each must be a LeanParseError.
READER_CASES = {
    "unicode superscript digit": (layer_file("u", "U.", "Arch.relu [d²]"), "u", "character '²'"),
    "unicode subscript digit": (layer_file("u", "U.", "Arch.relu [₁]"), "u", "character '₁'"),
    "arabic-indic digit": (layer_file("u", "U.", "Arch.relu [١]"), "u", "character '١'"),
    "NUL byte": (layer_file("u", "U.", "Arch.relu\x00 [d]"), "u", r"character '\\x00'"),
    "deep parentheses": (layer_file("u", "U.", "(" * 600 + RELU + ")" * 600), "u", "nested deeper than 200"),
    "deep brackets": (
        layer_file("u", "U.", "Arch.relu " + "[" * 600 + "d" + "]" * 600),
        "u",
        "nested deeper",
    ),
    "deep negation": (layer_file("u", "U.", "Arch.relu [" + "- " * 600 + "d]"), "u", "nested deeper"),
    "long ⊗ chain": (layer_file("u", "U.", " ⊗ ".join([RELU] * 600)), "u", "nests deeper than 200"),
    "long + chain": (
        layer_file("u", "U.", "Arch.relu [" + " + ".join(["d"] * 600) + "]"),
        "u",
        "nests deeper",
    ),
    "self-recursive": (
        layer_file("u", "U.", "Arch.relu [d] ≫ u d"),
        "u",
        "before its definition|in terms of itself",
    ),
    "mutually recursive": (_ping_pong(), "ping", "before its definition|in terms of itself"),
    "exponential expansion": (_exponential(30), "e30", "more than 100000 constructors"),
    "4300-digit literal": (layer_file("u", "U.", "Arch.relu [" + "7" * 4300 + "]"), "u", "4300 digits"),
    "4300-digit Example": (
        layer_file("u", "U.").replace("`d=4`", "`d=" + "7" * 4300 + "`"),
        "u",
        "4300 digits",
    ),
    "huge dimension arithmetic": (
        layer_file("u", "U.", "Arch.relu [" + " * ".join(["1000000000"] * 3) + "]"),
        "u",
        "exceeds 2\\^62",
    ),
    "unterminated comment": (layer_file("u", "U.") + "/- open", "u", "unterminated comment"),
}


@pytest.mark.parametrize("case", sorted(READER_CASES))
def test_hostile_lean_is_a_file_line_error(tmp_path: Path, case: str) -> None:
    from pybridge.errors import LeanParseError

    text, layer, message = READER_CASES[case]
    root = repo_copy(tmp_path)
    (root / "Formal/Zoo/Hostile.lean").write_text(text, encoding="utf-8")
    with pytest.raises(LeanParseError, match=rf"^Formal/Zoo/Hostile\.lean:\d+: .*({message})"):
        cat = load_catalogue(root)
        cat.instantiate(layer, {"d": 4})


@pytest.mark.parametrize(
    "extra",
    [
        "theorem t (n : Nat) : n + 0 = n := by\n  rfl\n\n",
        "example : ∀ n : Nat, n = n := fun _ => rfl\n\n",
        "#check @Nat.add_comm\n#eval 2 + 2\n\n",
        "lemma l : True := trivial\n\n",
    ],
)
def test_non_layer_commands_beside_layers_are_skipped(tmp_path: Path, extra: str) -> None:
    root = repo_copy(tmp_path)
    (root / "Formal/Zoo/Beside.lean").write_text(layer_file("beside", "B.", extra=extra), encoding="utf-8")
    cat = load_catalogue(root)
    term, sig = cat.instantiate("beside", {"d": 3})
    assert str(sig) == "[3] -> [3]" and term.kind == "relu"


def test_hypothesis_of_another_statement_is_rejected(tmp_path: Path) -> None:
    """`h : 0 < d` does not prove `0 < experts` (Lean compares the types), whatever the values."""
    from pybridge.errors import LeanParseError

    root = repo_copy(tmp_path)
    moe = root / "Formal/Zoo/MoE.lean"
    moe.write_text(moe.read_text().replace("(h_pos : 0 < experts)", "(h_pos : 0 < d)"), encoding="utf-8")
    cat = load_catalogue(root)
    with pytest.raises(
        LeanParseError, match=r"MoE\.lean:\d+: the hypothesis 'h_pos' states 0 < d, but .*0 < experts"
    ):
        cat.instantiate("moe", {"d": 4, "experts": 3})
    # the unmodified file passes for every value that satisfies the hypothesis
    assert load_catalogue(REPO).instantiate("moe", {"d": 4, "experts": 3})[1] is not None


def test_hypothesis_passed_to_a_definition_must_match_its_binder(tmp_path: Path) -> None:
    from pybridge.errors import LeanParseError

    helper = (
        "/-- H.\n\nPyTorch: none (reference: `x.y`) -/\n"
        "def helper (k d : Nat) (hk : 0 < k) : Arch (.prod (.tensor [k]) (.tensor [d])) (.tensor [d]) :=\n"
        "  Arch.route k hk (.tensor [d]) ≫ Arch.copair k (Arch.linear [] d d)\n\n"
    )
    good = layer_file(
        "uses", "U.", "Arch.copy (.tensor [d]) ≫ (Arch.linear [] d e ⊗ Arch.id (.tensor [d])) ≫ helper e d h"
    )
    good = good.replace(
        "def uses (d : Nat)",
        helper + "/-- U.\n\nPyTorch: none (reference: `x.y`) -/\ndef uses (d e : Nat) (h : 0 < e)",
    )
    root = repo_copy(tmp_path)
    (root / "Formal/Zoo/Uses.lean").write_text(good, encoding="utf-8")
    assert load_catalogue(root).instantiate("uses", {"d": 2, "e": 3})[1] is not None
    bad = good.replace("(h : 0 < e)", "(h : 0 < d)")
    (root / "Formal/Zoo/Uses.lean").write_text(bad, encoding="utf-8")
    with pytest.raises(LeanParseError, match="states 0 < d, but 'helper' .* needs 0 < e"):
        load_catalogue(root).instantiate("uses", {"d": 2, "e": 2})


def test_name_from_a_module_not_imported_is_rejected(tmp_path: Path) -> None:
    from pybridge.errors import LeanParseError

    root = repo_copy(tmp_path)
    att = root / "Formal/Zoo/Attention.lean"
    text = att.read_text()
    assert "import Formal.Network.Derived" in text
    att.write_text(
        text.replace("import Formal.Network.Derived", "import Formal.Network.Arch"), encoding="utf-8"
    )
    with pytest.raises(
        LeanParseError, match=r"Attention\.lean:\d+: .*Formal\.Network\.Derived, which .* does not import"
    ):
        load_catalogue(root).instantiate("attention", {"d_model": 4, "heads": 2})


def test_a_1000_primitive_chain_emits_and_runs(tmp_path: Path) -> None:
    root = repo_copy(tmp_path)
    (root / "Formal/Zoo/Chain.lean").write_text(layer_file("chain", "Chain.", CHAIN_1000), encoding="utf-8")
    cat = load_catalogue(root)
    term, sig = cat.instantiate("chain", {"d": 4})
    assert str(sig) == "[4] -> [4]"
    out = tmp_path / "chain.py"
    out.write_text(render_source(cat, "chain", {"d": 4}), encoding="utf-8")
    got = _import_emitted([out], tmp_path / "PWNED")
    assert got[0]["relu_ok"]  # relu ∘ … ∘ relu = relu, in a fresh interpreter at the default recursion limit


# --- 5. user model code cannot escape ------------------------------------------------------------------

USER_CODE = {
    "factory SystemExit": ("import torch\ndef f():\n    raise SystemExit(0)\n", "f() failed: SystemExit"),
    "factory KeyboardInterrupt": ("def f():\n    raise KeyboardInterrupt\n", "f() failed: KeyboardInterrupt"),
    "import SystemExit": ("import sys\nsys.exit(0)\n", "failed: SystemExit"),
    "import KeyboardInterrupt": ("raise KeyboardInterrupt\n", "failed: KeyboardInterrupt"),
    "import GeneratorExit": ("raise GeneratorExit('x')\n", "failed: GeneratorExit: x"),
    "eval() raises": (
        "import torch\nclass M(torch.nn.Module):\n"
        "    def train(self, mode=True):\n        raise SystemExit(3)\n"
        "def f():\n    return M(), torch.ones(2, 3)\n",
        "f() failed: SystemExit: 3",
    ),
    "__str__ raises": (
        "class E(Exception):\n    def __str__(self):\n        raise RuntimeError\ndef f():\n    raise E()\n",
        "f() failed: E",
    ),
}

BAD_INPUTS = {
    "integer": ("torch.ones(2, 3, dtype=torch.long)", "no example input is real floating point"),
    "boolean": ("torch.ones(2, 3, dtype=torch.bool)", "no example input is real floating point"),
    "integer pair": (
        "(torch.ones(2, 3, dtype=torch.long), torch.zeros(2, 3, dtype=torch.bool))",
        "no example input is real floating point",
    ),
    "complex": ("torch.ones(2, 3, dtype=torch.complex64)", "dtype torch.complex64"),
    "empty tuple": ("()", "the example input is empty"),
    "zero batch": ("torch.ones(0, 3)", "shape [0, 3]"),
    "scalar": ("torch.tensor(1.0)", "shape []"),
    "no features": ("torch.ones(2, 0)", "shape [2, 0]"),
    "list": ("[1.0, 2.0]", "a tuple of tensors or a dict (the example input is a list)"),
}


@pytest.mark.parametrize("case", sorted(USER_CODE))
def test_user_code_raising_anything_is_the_users_error(tmp_path: Path, case: str) -> None:
    from pybridge.errors import UserCodeError
    from pybridge.targets import load_target

    source, message = USER_CODE[case]
    path = tmp_path / "model.py"
    path.write_text(source)
    with pytest.raises(UserCodeError, match=re.escape(message)) as info:
        load_target(f"{path}:f")
    assert info.value.exit_code == 16 and "\n" not in str(info.value)


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_inputs_without_meaning_are_refused(tmp_path: Path, case: str) -> None:
    from pybridge.errors import TargetError
    from pybridge.targets import load_target

    expr, message = BAD_INPUTS[case]
    path = tmp_path / "model.py"
    path.write_text(f"import torch\ndef f():\n    return torch.nn.Identity(), {expr}\n")
    with pytest.raises(TargetError, match=re.escape(message)):
        load_target(f"{path}:f")


def test_keyboard_interrupt_at_import_is_exit_16_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "model.py"
    path.write_text("raise KeyboardInterrupt\n")
    proc = subprocess.run(
        [sys.executable, "-m", "pybridge.cli", "site", f"{path}:f"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == 16, proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ")
    assert "KeyboardInterrupt" in proc.stderr


# --- 6. exit codes mean something ---------------------------------------------------------------------


def _readme_exit_table() -> dict[int, str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index("| exit | cause |")
    rows = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        code, cause = line.strip("|").split("|", 1)
        rows[int(code)] = cause.strip()
    return rows


def test_every_exit_code_in_use_is_in_the_readme_table() -> None:
    import pybridge.errors as E
    from pybridge import cli

    in_use = {0, 2, cli.OUT_OF_MEMORY, cli.INTERNAL_ERROR, cli.INTERRUPTED}
    classes = [c for c in vars(E).values() if isinstance(c, type) and issubclass(c, E.BridgeError)]
    assert len(classes) >= 17
    in_use |= {c.exit_code for c in classes}
    table = _readme_exit_table()
    assert in_use <= set(table), sorted(in_use - set(table))
    assert set(table) <= in_use, sorted(set(table) - in_use)  # and nothing listed that is not used


CLI_CASES = [
    (["list", "--bogus"], 2, "No such option: --bogus"),
    (["emit"], 2, "Missing argument"),
    (["frobnicate"], 2, "No such command"),
    (["--max-memory", "lots", "list"], 2, "--max-memory 'lots'"),
    (["show", "mlp", "-p", "d_in=²"], 2, "natural number"),
    (["show", "mlp", "-p", "d_in=" + "9" * 5000], 2, "at most 18 digits"),
    (
        ["emit", "moe", "-p", "d=4", "-p", "experts=1000000000000", "-o", "{out}"],
        14,
        "emitting moe would need",
    ),
    (["check", "moe", "-p", "d=4", "-p", "experts=1000000000000"], 14, "checking moe would need"),
    (
        ["check", "attention", "-p", "seq=100000000", "-p", "d_model=8", "-p", "heads=2"],
        14,
        "checking attention",
    ),
    (
        [
            "--max-memory",
            "1K",
            "emit",
            "mlp",
            "-p",
            "d_in=2",
            "-p",
            "d_hidden=2",
            "-p",
            "d_out=2",
            "-o",
            "{out}",
        ],
        14,
        "more than --max-memory (1.0 KiB)",
    ),
    (
        [
            "emit",
            "mlp",
            "-p",
            "d_in=2",
            "-p",
            "d_hidden=2",
            "-p",
            "d_out=2",
            "-o",
            "{out}",
            "--max-memory",
            "1K",
        ],
        14,
        "more than --max-memory",
    ),
    (["fragment", "mlp", "--seed", "9" * 30], 2, "--seed"),
]


@pytest.mark.parametrize(("args", "code", "message"), CLI_CASES, ids=[" ".join(c[0])[:40] for c in CLI_CASES])
def test_cli_errors_are_one_line_with_their_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], code: int, message: str
) -> None:
    """Through the console entry point ``pybridge.cli.main``, as a user runs it."""
    from pybridge import budget, cli

    out = tmp_path / "out.py"
    try:
        with pytest.raises(SystemExit) as info:
            cli.main([a.replace("{out}", str(out)) for a in args])
    finally:
        budget.set_limit(None)
    err = capsys.readouterr().err
    assert info.value.code == code, (args, err[-500:])
    assert err.startswith("error: ") and err.count("\n") == 1, err[-500:]
    assert message in err
    assert not out.exists()


def test_audit_reports_a_name_from_a_module_not_imported(tmp_path: Path) -> None:
    from pybridge.lean.audit import run_audit

    root = repo_copy(tmp_path)
    clean = run_audit(root).rule("import-visible")
    assert clean.ok, clean.findings
    att = root / "Formal/Zoo/Attention.lean"
    att.write_text(att.read_text().replace("import Formal.Network.Derived", "import Formal.Network.Arch"))
    broken = run_audit(root).rule("import-visible")
    assert not broken.ok
    # EncoderBlock imported Derived only through Attention: it loses it too (transitivity).
    assert {f.file for f in broken.findings} == {"Formal/Zoo/Attention.lean", "Formal/Zoo/EncoderBlock.lean"}
    assert all("Formal.Network.Derived, which" in f.message for f in broken.findings)


# --- 7. adding a layer breaks nothing --------------------------------------------------------------------

NEW_LAYER = """import Formal.Network.Arch

/-!
# Zoo: a rectifier followed by an affine map

A user's addition to the Zoo: `x ↦ W relu(x) + b`.
-/

namespace Formal.Zoo

open scoped Formal.Arch

/-- Rectifier, then an affine map `ℝ^d_in → ℝ^d_out`.

PyTorch: `torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(d_in, d_out))`

Example: `d_in=3 d_out=2` -/
def reluLinear (d_in d_out : Nat) : Arch (.tensor [d_in]) (.tensor [d_out]) :=
  Arch.relu [d_in] ≫ Arch.linear [] d_in d_out

end Formal.Zoo
"""

#: The tests that are parametrised by the catalogue or compare it with the Lean files.
CATALOGUE_TESTS = [
    "tests/test_lean_parser.py",
    "tests/test_cli.py::test_list_and_json",
    "tests/test_torch.py",
    "tests/test_emit.py::test_emitted_file_imports_only_torch_and_math",
    "tests/test_fragment_classify.py",
    "tests/test_site_zoo.py",
    "tests/test_audit.py::test_real_tree_passes_the_audit",
    "tests/test_trust.py",
]


def test_adding_a_correct_layer_keeps_demo_and_tests_green(tmp_path: Path) -> None:
    """A copy of the checkout plus one new Zoo file (imported from Formal.lean, TRUST.md regenerated with
    `pybridge trust --write` as a contributor does): `demo` passes and checks the new layer, and the
    catalogue-driven tests pass and include it."""
    repo = tmp_path / "checkout"
    shutil.copytree(
        REPO,
        repo,
        ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", ".lake", ".pytest_cache", "*.egg-info"),
    )
    (repo / "Formal/Zoo/ReluLinear.lean").write_text(NEW_LAYER, encoding="utf-8")
    root = (repo / "Formal.lean").read_text()
    (repo / "Formal.lean").write_text(
        root.replace("import Formal.Zoo.MoE\n", "import Formal.Zoo.MoE\nimport Formal.Zoo.ReluLinear\n")
    )
    env = {**os.environ, "PYTHONPATH": str(repo), "TOPOS_BRIDGE_ROOT": str(repo)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, *args], cwd=repo, env=env, capture_output=True, text=True, timeout=900
        )

    assert run("-m", "pybridge.cli", "trust", "--write").returncode == 0
    demo = run("-m", "pybridge.cli", "demo")
    assert demo.returncode == 0, demo.stderr[-2000:]
    assert "reluLinear     36/36 within tolerance" in demo.stdout  # 12 inputs x (optimised, literal, cross)
    # the new layer's parametrised cases, and the tests that compare the whole catalogue with the files
    only = "reluLinear or list_and_json or zoo_is_read or real_tree or committed or zoo_list_is_covered"
    suite = run("-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-k", only, *CATALOGUE_TESTS)
    assert suite.returncode == 0, suite.stdout[-3000:]
    last = suite.stdout.strip().splitlines()[-1]
    passed = re.search(r"(\d+) passed", last)
    assert "failed" not in last and passed and int(passed.group(1)) >= 8, last
    listed = run("-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider", *CATALOGUE_TESTS)
    assert "reluLinear" in listed.stdout  # the new layer is among the parametrised cases


@pytest.mark.parametrize(
    ("chain", "fanout", "code"),
    [(0.0, 1.0, 0), (1.0, 0.0, 9)],
    ids=["only the control fails", "a non-control row fails"],
)
def test_presheaf_exit_code_follows_the_non_control_rows(
    monkeypatch: pytest.MonkeyPatch, chain: float, fanout: float, code: int
) -> None:
    """`presheaf` exits 9 exactly when a row not labelled a control fails. The backprop report is replaced
    by one with the given residuals (tolerance 1e-9), on ``glu``, which has a fan-out (a copy)."""
    from typer.testing import CliRunner

    from pybridge.cli import app
    from pybridge.site import backprop

    real = backprop.gradient_naturality

    def fake(graph):  # type: ignore[no-untyped-def]
        rep = real(graph)
        return backprop.NaturalityReport(
            **{
                **rep.__dict__,
                "worst_chain": chain,
                "worst_fanout": fanout,
                "worst_sum_rule": 0.0,
                "tolerance": 1e-9,
            }
        )

    monkeypatch.setattr(backprop, "gradient_naturality", fake)
    result = CliRunner().invoke(app, ["presheaf", "glu"])
    assert result.exit_code == code, result.output
    fan = next(line for line in result.stdout.splitlines() if "backprop natural at fan-outs" in line)
    assert "control" in fan and ((" fails " in fan) == (fanout > 0))


def test_huge_example_values_stop_check_before_allocating(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`check` without --param runs the Lean `Example:`; a huge one is refused before allocation."""
    from pybridge.commands import require_check_memory
    from pybridge.errors import ResourceLimitError
    from pybridge.lean import catalogue

    root = repo_copy(tmp_path)
    moe = root / "Formal/Zoo/MoE.lean"
    moe.write_text(
        moe.read_text().replace("Example: `d=4 experts=3`", "Example: `d=4 experts=100000000000000000`")
    )
    monkeypatch.setenv("TOPOS_BRIDGE_ROOT", str(root))
    assert catalogue.load_catalogue().layer("moe").example["experts"] == 10**17
    with pytest.raises(ResourceLimitError, match="checking moe would need"):
        require_check_memory("moe", None)


def test_library_warnings_do_not_precede_the_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pybridge import cli

    path = tmp_path / "model.py"
    path.write_text(
        "import warnings\nwarnings.warn('library noise')\ndef f():\n    raise ValueError('bad')\n"
    )
    with pytest.raises(SystemExit) as info:
        cli.main(["site", f"{path}:f"])
    err = capsys.readouterr().err
    assert info.value.code == 16
    assert err.startswith("error: ") and err.count("\n") == 1 and "library noise" not in err, err


def test_huge_step_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    from pybridge import cli

    with pytest.raises(SystemExit) as info:
        cli.main(["equivariance", "mlp", "--group", "shift", "--step", "9" * 30])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    assert "--step" in err


def test_integer_inputs_beside_a_float_input_are_held_fixed_not_refused(tmp_path: Path) -> None:
    """Token ids beside real features are a meaningful input (issue 11): accepted, the ids unchanged."""
    import torch

    from pybridge.targets import load_target

    path = tmp_path / "model.py"
    path.write_text(
        "import torch\n"
        "class M(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.emb = torch.nn.Embedding(5, 3)\n"
        "    def forward(self, x, ids):\n"
        "        return torch.relu(x + self.emb(ids))\n"
        "def f():\n"
        "    return M(), (torch.ones(2, 3), torch.tensor([[1, 2, 3], [0, 4, 1]]).argmax(-1))\n"
    )
    tgt = load_target(f"{path}:f")
    assert tgt.inputs[1].dtype == torch.int64 and tgt.inputs[1].tolist() == [2, 1]


def _counterpart_file(
    tmp_path: Path, doc_line: str, body: str, ty: str = "(.tensor [d]) (.tensor [d])"
) -> str:
    path = tmp_path / "Counterparts.lean"
    path.write_text(
        "import Formal.Network.Arch\n\nnamespace Mine\n\nopen Formal\n\n"
        f"/-- A layer.\n\n{doc_line}\n\nExample: `d=1` -/\n"
        f"def l (d : Nat) : Arch {ty} :=\n  {body}\n\nend Mine\n"
    )
    return f"{path}:l"


COUNTERPART_CASES = {
    # the module of the line is built on the meta device and counted before any weight is allocated
    "huge module": (
        "PyTorch: `torch.nn.Sequential(torch.nn.Linear(d, d*4000), torch.nn.Linear(d*4000, d*4000),"
        " torch.nn.Linear(d*4000, d))`",
        "Arch.linear [] d d",
        ["--max-memory", "64M"],
        14,
        "checking",
    ),
    "wrong number of linears": (
        "PyTorch: `torch.nn.Sequential(torch.nn.Linear(d, d), torch.nn.Linear(d, d))`",
        "Arch.linear [] d d",
        [],
        5,
        "do not fit the Lean term: ValueError: expected 1 weight sets, got 2",
    ),
    "deep arithmetic": (
        "PyTorch: `torch.nn.Linear(d" + "*1" * 3000 + ", d)`",
        "Arch.linear [] d d",
        [],
        1,
        "at most 2000",
    ),
    "integer beyond 2^62": (
        "PyTorch: `torch.nn.Linear(d*99999999999*99999999999, d)`",
        "Arch.linear [] d d",
        [],
        1,
        "exceeds 2^62",
    ),
}


@pytest.mark.parametrize("case", sorted(COUNTERPART_CASES))
def test_hostile_counterpart_lines_are_one_line_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    """A `PyTorch:` line is the user's text: too large, not fitting the term, too deep or overflowing
    is a one-line error with its exit code (never exit 70, never an allocation beyond the limit)."""
    from pybridge import budget, cli

    doc, body, extra, code, message = COUNTERPART_CASES[case]
    target = _counterpart_file(tmp_path, doc, body)
    try:
        with pytest.raises(SystemExit) as info:
            cli.main([*extra, "check", target])
    finally:
        budget.set_limit(None)
    err = capsys.readouterr().err
    assert info.value.code == code and err.startswith("error: ") and err.count("\n") == 1, err[-400:]
    assert message in err


@pytest.mark.parametrize("command", ["emit", "check", "site"])
def test_a_coproduct_input_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """A layer out of a coproduct has no tensor input to emit, check or trace: exit 1, one line."""
    from pybridge import cli

    target = _counterpart_file(
        tmp_path,
        "",
        "Arch.id (.coprod 2 (.tensor [d]))",
        "(.coprod 2 (.tensor [d])) (.coprod 2 (.tensor [d]))",
    )
    args = {
        "emit": ["-p", "d=2", "-o", str(tmp_path / "o.py")],
        "check": ["-p", "d=2"],
        "site": ["--param", "d=2"],
    }
    with pytest.raises(SystemExit) as info:
        cli.main([command, target, *args[command]])
    err = capsys.readouterr().err
    assert info.value.code == 1 and err.count("\n") == 1 and "coproduct" in err, err[-400:]
    assert not (tmp_path / "o.py").exists()
