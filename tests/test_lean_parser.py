"""The Zoo parser: the real catalogue, and malformed or unsupported Lean input (``file:line: message``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import lean_zoo_names

from pybridge.errors import LeanParseError, ShapeError, UnknownLayerError, UsageError
from pybridge.lean.catalogue import load_catalogue
from pybridge.lean.claims import find_repo_root
from pybridge.lean.lexer import tokenize
from pybridge.lean.parser import parse_source
from pybridge.spec import Comp, Linear, ReLU, TensorShape

ROOT = find_repo_root(Path(__file__).parent)

ZOO = lean_zoo_names(ROOT)  # from the Lean files, by a regular expression


def test_the_zoo_is_read_from_lean() -> None:
    cat = load_catalogue(ROOT)
    assert set(cat.layers) == ZOO
    assert {"mlp", "attention", "encoderBlock", "glu", "hyperLinear", "moe"} <= ZOO  # the layers used below
    att = cat.layer("attention")
    assert att.lean_decl == "Formal.Zoo.attention"
    assert att.params == ("d_model", "heads") and att.runtime_dims == ("seq",)
    assert [h.statement for h in att.hypotheses] == ["0 < heads", "heads ∣ d_model"]
    assert att.pytorch == "torch.nn.MultiheadAttention(d_model, heads, batch_first=True)"
    assert cat.layer("moe").reference == "pybridge.laws.references.moe"
    assert cat.layer("mlp").params == ("d_in", "d_hidden", "d_out")
    # the Lean source line of the definition
    line = (ROOT / att.file).read_text().splitlines()[att.line - 1]
    assert line.startswith("def attention")


def test_mlp_term_is_the_lean_term() -> None:
    term, sig = load_catalogue(ROOT).instantiate("mlp", {"d_in": 4, "d_hidden": 16, "d_out": 3})
    expected = Comp(f=Linear(pre=(), m=4, n=16), g=Comp(f=ReLU(s=(16,)), g=Linear(pre=(), m=16, n=3)))
    assert term == expected
    assert sig.dom == TensorShape(dims=(4,)) and sig.cod == TensorShape(dims=(3,))


def test_implicit_binders_are_runtime_dimensions() -> None:
    cat = load_catalogue(ROOT)
    _, sig = cat.instantiate("encoderBlock", {"d_model": 6, "heads": 3, "d_ff": 5})
    assert str(sig) == "[seq, 6] -> [seq, 6]"
    _, sig = cat.instantiate("attention", {"d_model": 6, "heads": 3, "seq": 4})
    assert str(sig) == "[4, 6] -> [4, 6]"


def test_hypotheses_are_checked_on_parameters() -> None:
    cat = load_catalogue(ROOT)
    with pytest.raises(ShapeError, match=r"h_dvd : heads ∣ d_model fails"):
        cat.instantiate("attention", {"d_model": 8, "heads": 3})
    with pytest.raises(ShapeError, match=r"h_pos : 0 < experts"):
        cat.instantiate("moe", {"d": 4, "experts": 0})


def test_parameter_errors() -> None:
    cat = load_catalogue(ROOT)
    with pytest.raises(UsageError, match="needs --param heads=N"):
        cat.instantiate("attention", {"d_model": 8})
    with pytest.raises(UsageError, match="has no parameter width"):
        cat.instantiate("mlp", {"d_in": 1, "d_hidden": 1, "d_out": 1, "width": 3})
    with pytest.raises(UnknownLayerError, match="unknown layer 'convnet'"):
        cat.layer("convnet")


# --- malformed and unsupported Lean, on a copy of the real tree -----------------------------------

HEADER = "import Formal.Network.Arch\n\n/-! test -/\n\nnamespace Formal.Zoo\n\nopen scoped Formal.Arch\n\n"
DOC = "/-- A test layer.\n\nPyTorch: none (reference: `pybridge.laws.references.moe`) -/\n"


def zoo_with(tmp_path: Path, body: str, *, doc: str = DOC) -> Path:
    for rel in ("lakefile.lean", "Formal/Network/Derived.lean"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text((ROOT / rel).read_text())
    (tmp_path / "Formal/Zoo").mkdir(parents=True)
    (tmp_path / "Formal/Zoo/Bad.lean").write_text(HEADER + doc + body + "\n\nend Formal.Zoo\n")
    return tmp_path


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "def bad (n : Nat) : Arch (.tensor [n]) (.tensor [n]) :=\n  Arch.frobnicate [n]",
            "unknown name 'Arch.frobnicate'",
        ),
        (
            "def bad (n : Nat) : Arch (.tensor [n]) (.tensor [n]) :=\n  Arch.relu [n] [n]",
            "'Arch.relu' takes 1 explicit",
        ),
        ("def bad (n : Nat) : Arch (.tensor [n]) (.tensor [n]) :=\n  Arch.relu (n", r"expected '\)'"),
        ("instance bad : Inhabited Nat := ⟨0⟩", "unsupported command 'instance'"),
        (
            "def bad (n : Nat) : Arch (.tensor [n]) (.tensor [n]) :=\n  Arch.relu\x00 [n]",
            r"character '\\x00'",
        ),
        ("def bad (n : Nat) : Arch (.tensor [n²]) (.tensor [n]) :=\n  Arch.relu [n]", "character '²'"),
        (
            "def bad (n : Nat) : Arch (.tensor [n]) (.tensor [" + "9" * 4300 + "]) :=\n  Arch.relu [n]",
            "4300 digits",
        ),
        (
            "def bad (n : Nat) : Arch (.tensor [n]) (.tensor [n]) :=\n  Arch.relu (.prod [n])",
            "not a constructor",
        ),
        (
            "def bad (n : Nat) : Arch (.tensor [n]) (.tensor [n]) :=\n  Arch.relu [n] ≫ Arch.fst",
            "takes 2 explicit",
        ),
        (
            "def bad (n : Nat) [inst : Inhabited Nat] : Arch (.tensor [n]) (.tensor [n]) :=\n  Arch.relu [n]",
            "instance binder",
        ),
        (
            "def bad (n : Nat) : Arch (.tensor [n]) (.tensor [n]) :=\n  /- unterminated",
            "unterminated comment",
        ),
        ("def bad (n : Nat) : Arch (.tensor [n]) (.tensor [n]) :=\n  Arch.id _", "placeholder '_'"),
        (
            "def bad (n : Nat) : Arch (.tensor [n]) (.tensor [n]) :=\n  let f (m : Nat) := m\n"
            "  Arch.relu [n]",
            "a 'let' with arguments",
        ),
        (
            "def bad (n : Nat) : Arch (.tensor [n]) (.tensor [n]) :=\n  let m := n Arch.relu [m]",
            "'let m := …' has no body",
        ),
    ],
)
def test_malformed_input_is_reported_with_file_and_line(tmp_path: Path, body: str, message: str) -> None:
    root = zoo_with(tmp_path, body)
    with pytest.raises(LeanParseError, match=message) as info:
        cat = load_catalogue(root)
        cat.instantiate("bad", {"n": 3})
    assert str(info.value).startswith("Formal/Zoo/Bad.lean:")
    line = int(str(info.value).split(":")[1])
    assert 12 <= line <= 15  # at or just after the offending definition, not a traceback


def test_undecodable_zoo_file_is_a_parse_error(tmp_path: Path) -> None:
    """A Zoo file that cannot be read at all is that file's error; the rest of the Zoo still loads."""
    root = zoo_with(tmp_path, "def bad (n : Nat) : Arch (.tensor [n]) (.tensor [n]) :=\n  Arch.relu [n]")
    (root / "Formal/Zoo/Bad.lean").write_bytes(b"-- \xff not UTF-8\ndef bad (n : Nat) : T := x\n")
    cat = load_catalogue(root)
    assert str(cat.file_errors["Formal/Zoo/Bad.lean"]).startswith("Formal/Zoo/Bad.lean:1: not valid UTF-8")
    with pytest.raises(LeanParseError, match=r"^Formal/Zoo/Bad.lean:1: not valid UTF-8"):
        cat.layer("bad")  # the file's text declares it: its error, not "unknown layer"


def test_missing_zoo_is_a_parse_error(tmp_path: Path) -> None:
    (tmp_path / "Formal").mkdir()
    (tmp_path / "lakefile.lean").write_text("")
    with pytest.raises(LeanParseError, match="^Formal/Zoo:0: the Zoo directory is missing$"):
        load_catalogue(tmp_path)


def test_ill_typed_body_is_a_shape_error(tmp_path: Path) -> None:
    root = zoo_with(
        tmp_path,
        "def bad (n : Nat) : Arch (.tensor [n]) (.tensor [n]) :=\n  Arch.linear [] n 4 ≫ Arch.relu [5]",
    )
    with pytest.raises(ShapeError, match=r"outputs \[4\] but the second expects \[5\]") as info:
        load_catalogue(root).instantiate("bad", {"n": 3})
    assert "Formal/Zoo/Bad.lean:13" in str(info.value)


def test_declared_type_is_checked(tmp_path: Path) -> None:
    root = zoo_with(tmp_path, "def bad (n : Nat) : Arch (.tensor [n]) (.tensor [n]) :=\n  Arch.linear [] n 4")
    with pytest.raises(ShapeError, match=r"declared \[3\] -> \[3\] but its body has type \[3\] -> \[4\]"):
        load_catalogue(root).instantiate("bad", {"n": 3})


RELU_BAD = "def bad (n : Nat) : Arch (.tensor [n]) (.tensor [n]) :=\n  Arch.relu [n]"


def test_missing_pytorch_line_means_no_counterpart(tmp_path: Path) -> None:
    """No `PyTorch:` line is no counterpart (checked against the exact interpreter), not an error."""
    root = zoo_with(
        tmp_path,
        "def bad (n : Nat) : Arch (.tensor [n]) (.tensor [n]) :=\n  Arch.relu [n]",
        doc="/-- No metadata. -/\n",
    )
    info = load_catalogue(root).layer("bad")
    assert (info.pytorch, info.reference, info.module_reference, info.counterparts) == (None, None, None, ())


@pytest.mark.parametrize(
    ("line", "field", "value"),
    [
        ("PyTorch: none", "counterparts", ()),
        (
            "PyTorch: none (reference: `pybridge.laws.references.moe`)",
            "reference",
            "pybridge.laws.references.moe",
        ),
        ("Reference: `my_pkg.sub.mod:build_layer`", "module_reference", "my_pkg.sub.mod:build_layer"),
        ("PyTorch: `torch.nn.ReLU()`", "pytorch", "torch.nn.ReLU()"),
    ],
)
def test_counterpart_lines(tmp_path: Path, line: str, field: str, value: object) -> None:
    root = zoo_with(tmp_path, RELU_BAD, doc=f"/-- X.\n\n{line} -/\n")
    assert getattr(load_catalogue(root).layer("bad"), field) == value


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("PyTorch: maybe", "malformed 'PyTorch:' line"),
        ("Reference: `os.system('rm -rf /')`", "malformed 'Reference:' line"),
        ("Reference: `__import__('os'):x`", "malformed 'Reference:' line"),
        ("Reference: my_pkg.mod:f", "malformed 'Reference:' line"),  # no backquotes
        ("Reference: `my_pkg.mod.f`", "malformed 'Reference:' line"),  # no colon
        ("Reference: `a:b:c`", "malformed 'Reference:' line"),
        ("Reference: `mödul:f`", "malformed 'Reference:' line"),  # ASCII identifiers only
        ("Reference: `a:b`\nReference: `c:d`", "2 'Reference:' lines"),
    ],
)
def test_malformed_counterpart_lines_break_that_layer_only(tmp_path: Path, line: str, message: str) -> None:
    root = zoo_with(tmp_path, RELU_BAD, doc=f"/-- X.\n\n{line} -/\n")
    cat = load_catalogue(root)
    with pytest.raises(LeanParseError, match=message):
        cat.layer("bad")
    assert "bad" in cat.broken and "bad" not in cat.layers


def test_lexer_basics() -> None:
    toks = tokenize("/- a /- nested -/ comment -/ def «odd name» : x := 1 -- tail\n/-- doc -/", "f.lean")
    assert [(t.kind, t.text) for t in toks] == [
        ("ident", "def"),
        ("ident", "odd name"),
        ("sym", ":"),
        ("ident", "x"),
        ("sym", ":="),
        ("num", "1"),
        ("doc", "doc"),
        ("eof", ""),
    ]
    # A character the layer syntax does not use is a token of its own; the parser reports it.
    assert [(t.kind, t.text) for t in tokenize("def\n $", "f.lean")][1] == ("other", "$")
    (bad,) = parse_source("def x : T :=\n $", "f.lean").broken  # recorded; the file goes on
    assert bad.name == "x"
    with pytest.raises(LeanParseError, match="f.lean:2: .*unexpected character '\\$'"):
        raise bad.error


def test_precedence_follows_lean() -> None:
    # ≫ (infixr 80) binds tighter than ⊗ (infixr 70); application binds tightest
    parsed = parse_source("def x : T := a b ≫ c ⊗ d ≫ e", "p.lean")
    body = parsed.defs[0].body
    assert body.op == "⊗"  # type: ignore[attr-defined]
    assert body.left.op == "≫" and body.right.op == "≫"  # type: ignore[attr-defined]


def test_theorem_example_and_hash_commands_beside_layers_are_skipped() -> None:
    text = (
        "namespace Formal.Zoo\n"
        "/-- About it. -/\ntheorem t (n : Nat) : ∀ m : Nat, m + n = n + m := by\n"
        "  intro m; exact Nat.add_comm m n\n"
        "example : (2 : Nat) + 2 = 4 := rfl\n"
        "#check @Nat.add_comm\n#eval 1 + 1\n"
        "/-- A layer. -/\ndef r (n : Nat) : Arch (.tensor [n]) (.tensor [n]) :=\n  Arch.relu [n]\n"
        "lemma l : True := trivial\n"
        "end Formal.Zoo\n"
    )
    parsed = parse_source(text, "s.lean")
    assert [(d.name, d.doc, d.line) for d in parsed.defs] == [("Formal.Zoo.r", "A layer.", 9)]
