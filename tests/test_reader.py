"""Issue 12 §1-3: ordinary Lean in layer definitions (``let``, ``where``, imported definitions, named
arguments, ``Nat`` arithmetic), layer files outside the repository, a definition the reader cannot
read affecting that definition only, and counterparts (``Reference:`` by importlib, ``PyTorch: none``,
none at all: the exact interpreter of ``Arch.eval``). Hostile variants of each: a one-line error with
its exit code, never a crash, a hang, or code run from a string."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from pybridge.errors import BridgeError, LeanParseError, ShapeError, UnknownLayerError
from pybridge.laws.checks import CROSS
from pybridge.lean.catalogue import load_catalogue, load_external
from pybridge.spec import terms as T
from tests.test_hostile import repo_copy

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests/fixtures"

HEAD = "import Formal.Network.Derived\n\n/-! Test layers. -/\n\nnamespace Mine\n\nopen Formal\nopen scoped Formal.Arch\n\n"  # noqa: E501
TYPE = "Arch (.tensor [d]) (.tensor [d])"



def layer(name: str, body: str, *, doc: str = "A layer.", binders: str = "(d : Nat)", ty: str = TYPE) -> str:
    return f"/-- {doc}\n\nExample: `d=3` -/\ndef {name} {binders} : {ty} :=\n  {body}\n\n"


def lean_file(directory: Path, *layers: str, name: str = "Layers.lean", head: str = HEAD) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(head + "".join(layers) + "end Mine\n", encoding="utf-8")
    return path


def term_of(tmp_path: Path, body: str, d: int = 3, **kw: str) -> T.Term:
    path = lean_file(tmp_path, layer("l", body, **kw))
    term, _ = load_external(path, REPO).instantiate("l", {"d": d})
    return term


PLAIN = "Arch.linear [] d (2 * d) ≫ Arch.relu [2 * d] ≫ Arch.linear [] (2 * d) d"


# --- 1. ordinary Lean ---------------------------------------------------------------------------------

SAME_AS_PLAIN = {
    "let, newline": "let h := 2 * d\n  Arch.linear [] d h ≫ Arch.relu [h] ≫ Arch.linear [] h d",
    "let, semicolon": "let h := 2 * d; Arch.linear [] d h ≫ Arch.relu [h] ≫ Arch.linear [] h d",
    "let, value over two lines": "let h := 2 *\n    d\n  Arch.linear [] d h ≫ Arch.relu [h] ≫ Arch.linear [] h d",  # noqa: E501
    "typed lets": (
        "let h : Nat := 2 * d\n  let f : Arch (.tensor [h]) (.tensor [h]) := Arch.relu [h]\n"
        "  Arch.linear [] d h ≫ f ≫ Arch.linear [] h d"
    ),
    "let of a list": "let s : List Nat := [2 * d]\n  Arch.linear [] d (2 * d) ≫ Arch.relu s ≫ Arch.linear [] (2 * d) d",  # noqa: E501
    "unused lets of every kind": "let a := d + 1\n  let b := [d]\n  let c := Arch.relu [d]\n  let e := b\n  "
    + PLAIN,
    "shadowing": "let h := d\n  let h := h + h\n  Arch.linear [] d h ≫ Arch.relu [h] ≫ Arch.linear [] h d",
    "where helpers": (
        "up d (2 * d) ≫ relu' (2 * d) ≫ down (2 * d) d\nwhere\n"
        "  up (m n : Nat) : Arch (.tensor [m]) (.tensor [n]) := Arch.linear [] m n\n"
        "  /-- A helper with a docstring. -/\n"
        "  relu' (n : Nat) : Arch (.tensor [n]) (.tensor [n]) :=\n    Arch.relu [n]\n"
        "  down (m n : Nat) : Arch (.tensor [m]) (.tensor [n]) := Arch.linear [] m n"
    ),
    "named arguments": "Arch.linear (pre := []) (n := 2 * d) d ≫ Arch.relu (s := [d + d]) ≫ Arch.linear [] (d * 2) d",  # noqa: E501
    "Nat arithmetic": (
        "Arch.linear [] d ((d - 10) + 2 * d) ≫ Arch.relu [(7 * d) / 3 - d % 2 + (d - d)]"
        " ≫ Arch.linear [] (6 * d / 3) (d + d - d)"
    ),
    "qualified and derived names": "Formal.Arch.linear [] d (2 * d) ≫ Arch.relu [2 * d] ≫ Arch.linear [] (2 * d) d",  # noqa: E501
}


@pytest.mark.parametrize("case", sorted(SAME_AS_PLAIN))
def test_ordinary_lean_reads_as_the_plain_term(tmp_path: Path, case: str) -> None:
    plain = term_of(tmp_path / "plain", PLAIN)
    assert term_of(tmp_path / "case", SAME_AS_PLAIN[case]) == plain
    assert term_of(tmp_path / "case5", SAME_AS_PLAIN[case], d=5) == term_of(tmp_path / "plain5", PLAIN, d=5)


def test_nat_subtraction_is_truncated_as_in_lean(tmp_path: Path) -> None:
    body = "Arch.relu [d - 10 + 1] ≫ Arch.linear [] ((1 - d) + 1) d"
    term = term_of(tmp_path, body, ty="Arch (.tensor [1]) (.tensor [d])")
    assert term == T.Comp(f=T.ReLU(s=(1,)), g=T.Linear(pre=(), m=1, n=3))  # 3 - 10 = 0 and 1 - 3 = 0 in Nat


def test_let_of_a_shape(tmp_path: Path) -> None:
    from pybridge.spec.shapes import TensorShape

    assert term_of(tmp_path, "let t : Shape := .tensor [d]\n  Arch.id t") == T.Id(s=TensorShape(dims=(3,)))


def test_each_use_of_a_let_bound_layer_is_its_own_layer(tmp_path: Path) -> None:
    """`let f := Arch.linear ..; f ≫ f` is `Arch.linear .. ≫ Arch.linear ..`: two leaves, two weights."""
    term = term_of(tmp_path, "let f := Arch.linear [] d d\n  f ≫ f")
    assert term == T.Comp(f=T.Linear(pre=(), m=3, n=3), g=T.Linear(pre=(), m=3, n=3))


def test_where_helper_of_a_layer_is_usable_by_its_qualified_name_below(tmp_path: Path) -> None:
    first = layer("a", "h d\nwhere\n  h (n : Nat) : Arch (.tensor [n]) (.tensor [n]) := Arch.relu [n]")
    second = layer("b", "a.h d ≫ Mine.a.h d")
    cat = load_external(lean_file(tmp_path, first, second), REPO)
    assert set(cat.layers) == {"a", "b"}  # helpers are not layers
    assert cat.instantiate("b", {"d": 2})[0] == T.Comp(f=T.ReLU(s=(2,)), g=T.ReLU(s=(2,)))


READ_ERRORS = {
    "typed let of another type": (
        "let f : Arch (.tensor [d]) (.tensor [d]) := Arch.linear [] d (d + 1)\n  f",
        ShapeError,
        "'let f' is declared \\[3\\] -> \\[3\\] but its value has type \\[3\\] -> \\[4\\]",
    ),
    "typed let of a Prop": (
        "let h : 0 < d := h\n  Arch.relu [d]",
        LeanParseError,
        "unsupported type '0 < d'",
    ),
    "let-bound value applied": ("let f := Arch.relu [d]\n  f [d]", LeanParseError, "'f' is a local value"),
    "let of a Nat used as a layer": ("let h : Nat := d\n  h", LeanParseError, "'h' is a nat"),
    "let refers to itself": ("let x := x\n  Arch.relu [x]", LeanParseError, "unknown name 'x'"),
    "unused let naming nothing": (
        "let x := Arch.frobnicate [d]\n  Arch.relu [d]",
        LeanParseError,
        "unknown name 'Arch.frobnicate'",
    ),
    "unused ill-typed let": (
        "let x := Arch.relu [d] ≫ Arch.relu [d + 1]\n  Arch.relu [d]",
        ShapeError,
        "shape mismatch",
    ),
    "untyped let of a leading-dot constructor": (
        "let t := .tensor [d]\n  Arch.id t",
        LeanParseError,
        "needs a written type",
    ),
    "let rec": ("let rec f := Arch.relu [d]\n  f", LeanParseError, "'let rec'"),
    "let with arguments": (
        "let f (n : Nat) := Arch.relu [n]\n  f d",
        LeanParseError,
        "a 'let' with arguments",
    ),
    "let without body": ("let h := d", LeanParseError, "has no body"),
    "let in argument position": ("Arch.relu let h := d; [h]", LeanParseError, "unsupported syntax"),
    "named argument that does not exist": (
        "Arch.linear (pre := []) (k := d) d",
        LeanParseError,
        "no explicit argument named 'k'",
    ),
    "named argument given twice": ("Arch.relu (s := [d]) (s := [d])", LeanParseError, "given twice"),
    "named implicit argument of a constructor": (
        "Arch.comp (a := .tensor [d]) (Arch.relu [d]) (Arch.relu [d])",
        LeanParseError,
        "no implicit argument by name",
    ),
    "recursive where helper": (
        "h d\nwhere\n  h (n : Nat) : Arch (.tensor [n]) (.tensor [n]) := h n",
        LeanParseError,
        "in terms of itself",
    ),
    "where without helpers": ("Arch.relu [d]\nwhere\n", LeanParseError, "defines nothing"),
}


@pytest.mark.parametrize("case", sorted(READ_ERRORS))
def test_what_lean_rejects_is_a_file_line_error(tmp_path: Path, case: str) -> None:
    body, error, message = READ_ERRORS[case]
    with pytest.raises(error, match=message) as info:
        term_of(tmp_path, body)
    assert str(info.value).startswith(f"{tmp_path.as_posix()}/Layers.lean:")
    assert "\n" not in str(info.value)


def test_a_where_helper_of_a_later_definition_is_not_usable_above_it(tmp_path: Path) -> None:
    first = layer("a", "b.h d")
    second = layer("b", "h d\nwhere\n  h (n : Nat) : Arch (.tensor [n]) (.tensor [n]) := Arch.relu [n]")
    cat = load_external(lean_file(tmp_path, first, second), REPO)
    with pytest.raises(LeanParseError, match="'b.h' is used before its definition"):
        cat.instantiate("a", {"d": 2})


def test_private_definitions_are_usable_in_their_file_only(tmp_path: Path) -> None:
    helper = (
        "/-! Helpers. -/\n\nnamespace Mine\n\nopen Formal\n\n"
        "private def hidden (n : Nat) : Arch (.tensor [n]) (.tensor [n]) := Arch.relu [n]\n\n"
        "def shown (n : Nat) : Arch (.tensor [n]) (.tensor [n]) := hidden n\n\nend Mine\n"
    )
    (tmp_path / "Helpers.lean").write_text("import Formal.Network.Derived\n\n" + helper, encoding="utf-8")
    head = HEAD.replace("import Formal.Network.Derived\n", "import Formal.Network.Derived\nimport Helpers\n")
    cat = load_external(lean_file(tmp_path, layer("ok", "shown d"), layer("no", "hidden d"), head=head), REPO)
    assert cat.instantiate("ok", {"d": 2})[0] == T.ReLU(s=(2,))
    with pytest.raises(LeanParseError, match="'hidden' is private to .*Helpers.lean"):
        cat.instantiate("no", {"d": 2})


# --- imports ---------------------------------------------------------------------------------------------


def test_definitions_of_imported_files_beside_the_file(tmp_path: Path) -> None:
    """`import Helpers` is `Helpers.lean` beside the file; `import Proj.Sub.More` is `Proj/Sub/More.lean`
    (Lean's module name → path); what the file does not import is not visible, as in Lean."""

    def helper_file(ns: str, name: str, extra_import: str = "") -> str:
        return (
            f"import Formal.Network.Derived\n{extra_import}\n/-! Helpers. -/\n\nnamespace {ns}\n\nopen Formal\n"  # noqa: E501
            "open scoped Formal.Arch\n\n"
            f"def {name} (n : Nat) : Arch (.tensor [n]) (.tensor [n]) := Arch.relu [n] ≫ Arch.relu [n]\n\n"
            f"end {ns}\n"
        )

    (tmp_path / "Helpers.lean").write_text(
        helper_file("Mine", "twice", "import Proj.Sub.More\n"), encoding="utf-8"
    )
    (tmp_path / "Proj/Sub").mkdir(parents=True)
    (tmp_path / "Proj/Sub/More.lean").write_text(helper_file("Proj", "deep"), encoding="utf-8")
    (tmp_path / "Unimported.lean").write_text(helper_file("Mine", "hiddenAway"), encoding="utf-8")
    head = HEAD.replace("import Formal.Network.Derived\n", "import Formal.Network.Derived\nimport Helpers\n")
    path = lean_file(tmp_path, layer("a", "twice d ≫ Proj.deep d"), layer("b", "hiddenAway d"), head=head)
    cat = load_external(path, REPO)
    relu2 = T.Comp(f=T.ReLU(s=(2,)), g=T.ReLU(s=(2,)))
    assert cat.instantiate("a", {"d": 2})[0] == T.Comp(f=relu2, g=relu2)
    assert str(tmp_path / "Proj/Sub/More.lean") in cat.dependencies("a")
    with pytest.raises(LeanParseError, match="unknown name 'hiddenAway'"):
        cat.instantiate("b", {"d": 2})


def test_a_zoo_file_uses_definitions_of_a_repository_file_it_imports(tmp_path: Path) -> None:
    root = repo_copy(tmp_path)
    (root / "Formal/Network/MyHelpers.lean").write_text(
        "import Formal.Network.Derived\n\n/-! Helpers. -/\n\nnamespace Formal.Arch\n\nopen scoped Formal.Arch\n\n"  # noqa: E501
        "def reluTwice (s : List Nat) : Arch (.tensor s) (.tensor s) := Arch.relu s ≫ Arch.relu s\n\n"
        "/-- Not a layer definition the reader can read, in a file it reads only for definitions. -/\n"
        "theorem t : True := trivial\n\nend Formal.Arch\n",
        encoding="utf-8",
    )
    zoo = (
        "import Formal.Network.MyHelpers\n\n/-! Test. -/\n\nnamespace Formal.Zoo\n\nopen scoped Formal.Arch\n\n"  # noqa: E501
        "/-- Twice. -/\ndef twiceRelu (d : Nat) : Arch (.tensor [d]) (.tensor [d]) := Arch.reluTwice [d]\n\n"
        "end Formal.Zoo\n"
    )
    (root / "Formal/Zoo/Twice.lean").write_text(zoo, encoding="utf-8")
    term, _ = load_catalogue(root).instantiate("twiceRelu", {"d": 2})
    assert term == T.Comp(f=T.ReLU(s=(2,)), g=T.ReLU(s=(2,)))


# --- the CLI: a broken definition affects that definition only; files outside the repository ---------


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    from pybridge import cli as cli_module

    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        cli_module.main(list(args))
    got = capsys.readouterr()
    return int(info.value.code or 0), got.out, got.err


BROKEN_BESIDE = (
    layer("ok", "Arch.linear [] d d ≫ Arch.relu [d]", doc="Fine.\n\nPyTorch: none")
    + layer("bad", "fun x => x", doc="Broken.")
    + layer("alsoOk", "let h := d + 1\n  Arch.linear [] d h ≫ Arch.linear [] h d", doc="Fine too.")
    + "instance weird : Inhabited Nat := ⟨0⟩\n\n"
)


def test_a_broken_definition_does_not_stop_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(lean_file(tmp_path, BROKEN_BESIDE))
    code, out, err = cli(capsys, "list", path)
    assert code == 0, err
    lines = {line.split()[0]: line for line in out.splitlines()[2:]}
    assert set(lines) == {"ok", "bad", "alsoOk", "weird"}
    bad_line = Path(path).read_text().splitlines().index("def bad (d : Nat) : " + TYPE + " :=") + 1
    assert (
        "cannot be read: unsupported syntax: 'fun'" in lines["bad"]
        and f"Layers.lean:{bad_line}" in lines["bad"]
    )
    assert "cannot be read: unsupported command 'instance'" in lines["weird"]
    assert "none (exact interpreter of Arch.eval)" in lines["ok"]
    code, _, err = cli(capsys, "list", path, "--strict")
    assert code == 3 and err.count("\n") == 1 and "2 definition(s) cannot be read; --strict" in err
    for args in (
        ["show", f"{path}:ok"],
        ["show", f"{path}:Mine.alsoOk"],
        ["check", f"{path}:alsoOk", "-p", "d=2"],
    ):
        code, out, err = cli(capsys, *args)
        assert code == 0, (args, err)
    out_py = tmp_path / "ok.py"
    assert cli(capsys, "emit", f"{path}:ok", "-p", "d=2", "-o", str(out_py))[0] == 0 and out_py.exists()
    code, _, err = cli(capsys, "show", f"{path}:bad")
    assert code == 3 and err.startswith(f"error: {path}:{bad_line + 1}: unsupported syntax: 'fun'")
    assert err.count("\n") == 1
    code, _, err = cli(capsys, "emit", f"{path}:bad", "-p", "d=2", "-o", str(tmp_path / "bad.py"))
    assert code == 3 and not (tmp_path / "bad.py").exists()


def test_a_broken_zoo_definition_does_not_stop_the_zoo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo_copy(tmp_path)
    zoo = BROKEN_BESIDE.replace("(d : Nat)", "(d : Nat)")
    text = HEAD.replace("namespace Mine", "namespace Formal.Zoo") + zoo + "end Formal.Zoo\n"
    (root / "Formal/Zoo/Broken.lean").write_text(text, encoding="utf-8")
    (root / "Formal/Zoo/Unreadable.lean").write_text(
        "/- never closed\ndef lost (d : Nat) : T := x\n", encoding="utf-8"
    )
    monkeypatch.setenv("TOPOS_BRIDGE_ROOT", str(root))
    code, out, err = cli(capsys, "list")
    assert code == 0, err
    for name in ("mlp", "attention", "ok", "alsoOk", "bad", "weird", "(file)"):
        assert f"\n{name} " in out
    assert "Formal/Zoo/Unreadable.lean:1" in out and "unterminated comment" in out
    assert cli(capsys, "show", "mlp")[0] == 0
    code, _, err = cli(capsys, "show", "lost")
    assert code == 3 and "Formal/Zoo/Unreadable.lean:1: unterminated comment" in err
    code, _, err = cli(capsys, "list", "--strict")
    assert code == 3 and "3 definition(s) cannot be read" in err


def test_using_a_broken_definition_names_it(tmp_path: Path) -> None:
    path = lean_file(tmp_path, layer("bad", "fun x => x"), layer("user", "bad d"))
    with pytest.raises(
        LeanParseError,
        match=r"Layers.lean:\d+: 'bad' cannot be used: .*Layers.lean:\d+: unsupported syntax: 'fun'",
    ):
        load_external(path, REPO).instantiate("user", {"d": 2})


OUTSIDE_ERRORS = [
    (["list", "{dir}/Missing.lean"], 3, "{dir}/Missing.lean:0: no such Lean file"),
    (["show", "{dir}/Missing.lean:x"], 3, "no such Lean file"),
    (["show", "{file}:nope"], 4, "unknown layer 'nope'; {file} has: ok"),
    (["show", "{file}"], 2, "name the layer as {file}:NAME"),
    (["show", "{file}:"], 2, "name the layer after the colon"),
    (["list", "{dir}/NoFormal.lean"], 3, "imports no module of Formal"),
    (["list", "{dir}/NopeFormal.lean"], 3, "cannot find the imported module Formal.Network.Nope"),
    (["list", "{dir}/NopeOther.lean"], 3, "cannot find the imported module Elsewhere.Thing"),
    (["list", "{dir}/Binary.lean"], 3, "not valid UTF-8"),
    (["list", "{dir}/Traversal.lean"], 3, "cannot find the imported module /etc/passwd"),
]


@pytest.mark.parametrize(
    ("args", "code", "message"), OUTSIDE_ERRORS, ids=[" ".join(a) for a, _, _ in OUTSIDE_ERRORS]
)
def test_files_outside_the_repository_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], code: int, message: str
) -> None:
    path = lean_file(tmp_path, layer("ok", "Arch.relu [d]"))
    no_import = HEAD.replace("import Formal.Network.Derived\n", "")
    lean_file(tmp_path, layer("x", "Arch.relu [d]"), name="NoFormal.lean", head=no_import)
    lean_file(
        tmp_path,
        layer("x", "Arch.relu [d]"),
        name="NopeFormal.lean",
        head="import Formal.Network.Nope\n" + no_import,
    )
    lean_file(
        tmp_path,
        layer("x", "Arch.relu [d]"),
        name="NopeOther.lean",
        head=HEAD.replace("\n\n", "\nimport Elsewhere.Thing\n\n", 1),
    )
    (tmp_path / "Binary.lean").write_bytes(b"import Formal.Network.Derived\n\xff\xfe")
    (tmp_path / "passwd.lean").write_text("import Formal.Network.Derived\n", encoding="utf-8")
    traversal = HEAD.replace("\n\n", "\nimport «/etc/passwd»\nimport «..».passwd\n", 1)
    lean_file(tmp_path, layer("x", "Arch.relu [d]"), name="Traversal.lean", head=traversal)
    subst = {"{dir}": tmp_path.as_posix(), "{file}": path.as_posix()}

    def fill(text: str) -> str:
        for k, v in subst.items():
            text = text.replace(k, v)
        return text

    got, _, err = cli(capsys, *map(fill, args))
    assert got == code, err
    assert err.startswith("error: ") and err.count("\n") == 1 and fill(message) in err


def test_lean_own_modules_are_not_looked_for(tmp_path: Path) -> None:
    head = HEAD.replace("\n\n", "\nimport Init.Data.List\nimport Std.Data.HashMap\n\n", 1)
    path = lean_file(tmp_path, layer("ok", "Arch.relu [d]"), head=head)
    assert set(load_external(path, REPO).layers) == {"ok"}


# --- counterparts -----------------------------------------------------------------------------------------

RL = "Arch.relu [d] ≫ Arch.linear [] d d"


def reference_layer(tmp_path: Path, line: str) -> str:
    return str(lean_file(tmp_path, layer("rl", RL, doc=f"Relu then linear.\n\n{line}")))


@pytest.fixture()
def refpkg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(FIXTURES))


@pytest.mark.parametrize("function", ["relu_linear", "sequential"])
def test_a_reference_function_is_imported_called_and_checked(
    tmp_path: Path, refpkg: None, function: str
) -> None:
    """`bridge_pairs()` when the module has it, else the adapter of its class; float64 ≤ 1e-10,
    float32 ≤ 1e-5."""
    from pybridge.laws.checks import check_layer

    results = check_layer(
        reference_layer(tmp_path, f"Reference: `refpkg.layers:{function}`") + ":rl", import_references=True
    )
    assert results and all(r.passed for r in results)
    assert {r.reference for r in results if r.realisation != CROSS} == {f"refpkg.layers:{function}"}
    assert {r.dtype for r in results} == {"float64", "float32"}


def test_a_reference_that_differs_fails_the_check(
    tmp_path: Path, refpkg: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from pybridge.laws.checks import check_layer

    path = reference_layer(tmp_path, "Reference: `refpkg.layers:relu_linear_off`")
    results = [r for r in check_layer(path + ":rl", import_references=True) if r.realisation != CROSS]
    assert results and not any(r.passed for r in results)
    assert min(r.max_abs_error for r in results) == pytest.approx(1e-3, rel=1e-3)
    code, _, err = cli(capsys, "check", path + ":rl", "--import-references")
    assert code == 9 and "checks exceed their tolerance" in err


def test_pytorch_and_reference_lines_are_both_checked(tmp_path: Path, refpkg: None) -> None:
    from pybridge.laws.checks import check_layer

    line = "PyTorch: `torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(d, d))`\n\nReference: `refpkg.layers:relu_linear`"  # noqa: E501
    checked = check_layer(reference_layer(tmp_path, line) + ":rl", {"d": 3}, import_references=True)
    results = [r for r in checked if r.realisation != CROSS]
    assert {r.reference for r in results} == {
        "torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(d, d))",
        "refpkg.layers:relu_linear",
    }
    # 2 references x 2 dtypes x 2 batches x 2 realisations (optimised, literal)
    assert all(r.passed for r in results) and len(results) == 16


USER_CODE_FAILURES = {
    "raises": "raises(...) failed: RuntimeError: boom",
    "exits": "SystemExit: 3",
    "interrupts": "KeyboardInterrupt",
    "not_a_module": "returned a int, not a torch.nn.Module",
    "bad_forward": "its forward failed: ValueError: forward refuses",
    "bad_pairs": "bridge_pairs() failed: SystemExit: 2",
    "bad_dtypes": "bridge_dtypes must be a non-empty tuple of torch dtypes",
    "NOT_CALLABLE": "has no function 'NOT_CALLABLE'",
    "missing_function": "has no function 'missing_function'",
}


@pytest.mark.parametrize(
    "spec",
    [
        *sorted(f"refpkg.layers:{f}" for f in USER_CODE_FAILURES),
        "refpkg.broken_import:f",
        "refpkg.exits_on_import:f",
        "refpkg.no_such_module:f",
        "no_such_package_xyz.mod:f",
    ],
)
def test_the_users_reference_code_is_contained(
    tmp_path: Path, refpkg: None, capsys: pytest.CaptureFixture[str], spec: str
) -> None:
    """Whatever the reference code does is exit 16 with one line; this process never exits for it."""
    path = reference_layer(tmp_path, f"Reference: `{spec}`")
    code, out, err = cli(capsys, "check", path + ":rl", "-p", "d=2", "--import-references")
    assert code == 16, err
    assert err.startswith(f"error: Reference {spec}") and err.count("\n") == 1 and "Traceback" not in err
    function = spec.rpartition(":")[2]
    if function in USER_CODE_FAILURES:
        assert USER_CODE_FAILURES[function] in err
    elif "broken_import" in spec:
        assert "ImportError: this fixture module cannot be imported" in err
    elif "exits_on_import" in spec:
        assert "SystemExit: 0" in err
    else:
        assert "ModuleNotFoundError" in err


def test_a_reference_may_declare_the_dtypes_it_is_faithful_in(
    tmp_path: Path, refpkg: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """`bridge_dtypes = (torch.float32,)`: compared in float32 only, and `check` says so; float64 is then
    checked against the exact interpreter of Arch.eval; a layer whose only reference excludes every dtype
    run is a failed check, not an empty pass."""
    from pybridge.errors import CheckFailed
    from pybridge.laws.checks import EXACT_NAME, check_layer

    path = reference_layer(tmp_path, "Reference: `refpkg.layers:relu_linear_f32`") + ":rl"
    results = [r for r in check_layer(path, {"d": 3}, import_references=True) if r.realisation != CROSS]
    by_dtype = {d: {r.reference for r in results if r.dtype == d} for d in ("float32", "float64")}
    assert by_dtype == {"float32": {"refpkg.layers:relu_linear_f32"}, "float64": {EXACT_NAME}}
    assert len(results) == 8 and all(r.passed for r in results)
    code, out, _ = cli(capsys, "check", path, "-p", "d=3", "--import-references")
    assert code == 0 and "refpkg.layers:relu_linear_f32 is compared in float32 only" in out
    with pytest.raises(CheckFailed, match="no reference was compared in torch.float64"):
        check_layer(path, {"d": 3}, dtypes=(torch.float64,), import_references=True)


def test_reference_weights_that_do_not_fit_are_a_shape_error(tmp_path: Path, refpkg: None) -> None:
    from pybridge.laws.checks import check_layer

    with pytest.raises(ShapeError, match="the weights of Reference refpkg.layers:wrong_pairs do not fit"):
        check_layer(
            reference_layer(tmp_path, "Reference: `refpkg.layers:wrong_pairs`") + ":rl",
            {"d": 2},
            import_references=True,
        )


def test_a_reference_string_is_never_evaluated(tmp_path: Path, refpkg: None) -> None:
    """Only `package.module:function` is read (a regular expression of identifiers); the lookup goes
    through importlib, so even a well-formed name runs only that module's own import."""
    from pybridge.laws.checks import build_module_reference

    marker = tmp_path / "pwned"
    for spec in (f"os:system('touch {marker}')", "__import__('os').system:x", "refpkg.layers:relu_linear()"):
        with pytest.raises(BridgeError, match="expected package.module:function"):
            build_module_reference(spec, {"d": 2}, torch.float64, import_references=True)
    assert not marker.exists()


def test_a_reference_outside_pybridge_is_imported_only_when_asked(
    tmp_path: Path, refpkg: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Lean file chooses the module its `Reference:` line names, and importing a module runs its
    code: without --import-references, check stops with exit 2 before importing it (the module's
    import side effect, a marker file, does not happen); pybridge's own references need no flag."""
    import sys

    pkg = tmp_path / "sidecar_pkg"
    pkg.mkdir()
    marker = tmp_path / "SIDECAR_RAN"
    (pkg / "__init__.py").write_text(
        f"open({str(marker)!r}, 'w').close()\ndef make(**kw):\n    raise ValueError\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    for spec in ("sidecar_pkg:make", "this:x"):
        path = reference_layer(tmp_path, f"Reference: `{spec}`")
        code, out, err = cli(capsys, "check", path + ":rl", "-p", "d=2")
        assert code == 2 and err.count("\n") == 1, err
        assert f"error: Reference {spec}: importing" in err and "--import-references" in err
    assert not marker.exists() and "sidecar_pkg" not in sys.modules
    path = reference_layer(tmp_path, "Reference: `sidecar_pkg:make`")
    code, out, err = cli(capsys, "check", path + ":rl", "-p", "d=2", "--import-references")
    assert code == 16 and marker.exists(), err  # imported (and its function raised) only when asked


def test_no_counterpart_is_checked_against_the_exact_interpreter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from pybridge.laws import exact as E
    from pybridge.laws.checks import EXACT_NAME, check_layer

    for line in ("", "PyTorch: none"):
        path = reference_layer(tmp_path / str(len(line)), line)
        results = check_layer(path + ":rl", {"d": 3})
        assert {r.reference for r in results if r.realisation != CROSS} == {EXACT_NAME}
        assert all(r.passed for r in results)
    code, out, _ = cli(capsys, "check", path + ":rl", "-p", "d=3")
    assert code == 0 and "checked against the exact interpreter of Arch.eval only" in out
    # rational arithmetic here (no exp/sqrt), floats for a layer norm
    used: list[str] = []
    real = E.eval_term
    monkeypatch.setattr(
        E, "eval_term", lambda t, p, x, ops=E.EXACT: used.append(ops.name) or real(t, p, x, ops)
    )
    check_layer(path + ":rl", {"d": 2}, dtypes=(torch.float64,), batches=(1,))
    norm = str(lean_file(tmp_path / "norm", layer("n", "Arch.layerNorm [] d (.rat 1 100000)")))
    used_rl = set(used)
    used.clear()
    check_layer(norm + ":n", {"d": 2}, dtypes=(torch.float64,), batches=(1,))
    assert used_rl == {E.EXACT.name} and used[-1] == E.FLOAT.name


def test_the_exact_check_detects_a_wrong_realisation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative control: an interpreter whose ReLU is the identity disagrees with the compiled layer."""
    from pybridge.laws import exact as E
    from pybridge.laws.checks import check_layer

    path = reference_layer(tmp_path, "")
    monkeypatch.setattr(E, "relu", lambda ops, x: x)
    results = check_layer(path + ":rl", {"d": 3}, dtypes=(torch.float64,))
    assert not all(r.passed for r in results)


# --- PyTorch: nestings ------------------------------------------------------------------------------------


def test_sequential_counterparts_with_layer_norm(tmp_path: Path) -> None:
    from pybridge.laws.checks import build_counterpart, check_layer
    from pybridge.torch import adapters

    expr = "torch.nn.Sequential(torch.nn.LayerNorm(d), torch.nn.Linear(d, 2 * d), torch.nn.ReLU(), torch.nn.Linear(2 * d, d))"  # noqa: E501
    module = build_counterpart(expr, {"d": 3}, torch.float64)
    assert [type(m).__name__ for m in module] == ["LayerNorm", "Linear", "ReLU", "Linear"]
    pairs = adapters.from_sequential(module)
    assert [tuple(w.shape) for w, _ in pairs] == [(3,), (6, 3), (3, 6)]
    body = "Arch.layerNorm [] d (.rat 1 100000) ≫ Arch.linear [] d (2 * d) ≫ Arch.relu [2 * d] ≫ Arch.linear [] (2 * d) d"  # noqa: E501
    path = lean_file(tmp_path, layer("pn", body, doc=f"Pre-norm MLP.\n\nPyTorch: `{expr}`"))
    results = check_layer(f"{path}:pn")
    assert results and all(r.passed for r in results)
    with pytest.raises(ValueError, match="last axis only"):
        adapters.from_sequential(torch.nn.Sequential(torch.nn.LayerNorm((2, 3))))
    with pytest.raises(BridgeError, match="not an allowed torch.nn class"):
        build_counterpart("torch.nn.Sequential(torch.nn.Dropout(0.1))", {}, torch.float64)


# --- hostile variants ---------------------------------------------------------------------------------------

HOSTILE = {
    "600 nested lets": (
        "".join(f"let x{i} := d\n  " for i in range(600)) + "Arch.relu [d]",
        "nested deeper than 200",
    ),
    "let chain doubling a layer": (
        "let f0 := Arch.relu [d]\n  "
        + "".join(f"let f{i + 1} := f{i} ≫ f{i}\n  " for i in range(40))
        + "f40",
        "more than 2000 constructors",  # the bound lowered for speed (see the test)
    ),
    "huge let arithmetic": (
        "let n := 1000000000 * 1000000000 * 1000000000\n  Arch.relu [n]",
        "exceeds 2\\^62",
    ),
    "where helpers calling each other in a cycle": (
        "a d\nwhere\n  a (n : Nat) : Arch (.tensor [n]) (.tensor [n]) := b n\n"
        "  b (n : Nat) : Arch (.tensor [n]) (.tensor [n]) := a n",
        "in terms of itself",
    ),
    "4300-digit literal in a let": ("let n := " + "7" * 4300 + "\n  Arch.relu [n]", "4300 digits"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_let_and_where_are_one_line_errors(
    tmp_path: Path, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pybridge.lean import expand

    monkeypatch.setattr(expand, "MAX_TERM_NODES", 2000)  # the same bound, reached 50 times sooner
    body, message = HOSTILE[case]
    with pytest.raises(BridgeError, match=message) as info:
        term_of(tmp_path, body)
    assert "\n" not in str(info.value) and ".lean:" in str(info.value)


def test_unknown_layer_lists_the_layers_of_the_file(tmp_path: Path) -> None:
    path = lean_file(tmp_path, layer("ok", "Arch.relu [d]"))
    with pytest.raises(UnknownLayerError, match=f"{path.as_posix()} has: ok"):
        load_external(path, REPO).layer("missing")
