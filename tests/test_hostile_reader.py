"""Hostile input to the Lean reader (the second audit): nothing in a Lean file makes the reader run for
minutes, exhaust memory, crash, or print control characters; what Lean rejects is a one-line error.

Each test builds its hostile files in ``tmp_path``. The sizes are chosen so that the reader before these
fixes would take far more than 30 s (or crash); the tests assert on the result, never on wall time.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pybridge.errors import BridgeError, LeanParseError
from pybridge.lean import expand
from pybridge.lean.catalogue import load_catalogue, load_external
from pybridge.lean.lexer import MAX_LEAN_BYTES, read_lean_bytes, tokenize
from pybridge.spec import terms as T
from tests.test_hostile import repo_copy
from tests.test_reader import HEAD, REPO, TYPE, cli, layer, lean_file


def file_with(tmp_path: Path, text: str, name: str = "Layers.lean") -> Path:
    """A layer file ``name`` in ``tmp_path``: :data:`HEAD`, ``text``, ``end Mine``."""
    return lean_file(tmp_path, text, name=name)


def one_line_error(err: BaseException) -> str:
    """The message of ``err``, checked to be one printable line naming a Lean file."""
    message = str(err)
    assert "\n" not in message and "\x1b" not in message and ".lean:" in message, message
    return message


# --- 1. definitions that repeat work: remembered, bounded -------------------------------------------------


def doubling_nats(levels: int, binders: str = "(d : Nat)", args: str = "d") -> str:
    """``n0 = d``, ``n{i} = n{i-1} * n{i-1} / n{i-1}`` (= d): 3^levels calls when not remembered."""
    calls = f"n{{i}} {args}"
    return f"def n0 {binders} : Nat := d\n" + "".join(
        f"def n{i} {binders} : Nat := {calls.format(i=i - 1)} * {calls.format(i=i - 1)} / "
        f"{calls.format(i=i - 1)}\n"
        for i in range(1, levels + 1)
    )


def test_nat_helpers_are_evaluated_once_per_argument(tmp_path: Path) -> None:
    path = file_with(tmp_path, doubling_nats(30) + "\n" + layer("big", "Arch.relu [n30 d]"))
    term, _ = load_external(path, REPO).instantiate("big", {"d": 3})
    assert term == T.ReLU(s=(3,))


def test_nat_helpers_with_hypotheses_are_evaluated_once_per_argument(tmp_path: Path) -> None:
    nats = doubling_nats(30, "(d : Nat) (h : 0 < d)", "d h")
    text = nats + "\n" + layer("big", "Arch.relu [n30 d h]", binders="(d : Nat) (h : 0 < d)")
    term, _ = load_external(file_with(tmp_path, text), REPO).instantiate("big", {"d": 3})
    assert term == T.ReLU(s=(3,))


def test_a_layer_used_twice_is_two_layers(tmp_path: Path) -> None:
    """Values of ``Arch`` definitions are never remembered: each use has its own weights."""
    text = f"def w (d : Nat) : {TYPE} := Arch.linear [] d d\n\n" + layer("twice", "w d ≫ w d")
    term, _ = load_external(file_with(tmp_path, text), REPO).instantiate("twice", {"d": 2})
    assert isinstance(term, T.Comp) and term.f == term.g == T.Linear(pre=(), m=2, n=2)
    assert term.f is not term.g


def test_a_list_doubled_at_each_level_stops_at_the_rank_bound(tmp_path: Path) -> None:
    lists = "def s0 (d : Nat) : List Nat := [d]\n" + "".join(
        f"def s{i} (d : Nat) : List Nat := s{i - 1} d ++ s{i - 1} d\n" for i in range(1, 41)
    )
    path = file_with(tmp_path, lists + "\n" + layer("shp", "Arch.relu (s40 d)"))
    with pytest.raises(
        LeanParseError, match=f"a list of 2048 dimensions .*at most {expand.MAX_LIST_LEN}"
    ) as err:
        load_external(path, REPO).instantiate("shp", {"d": 2})
    one_line_error(err.value)


def test_a_symbolic_dimension_doubled_at_each_level_stops_at_the_length_bound(tmp_path: Path) -> None:
    nats = "def n0 (d : Nat) : Nat := d\n" + "".join(
        f"def n{i} (d : Nat) : Nat := n{i - 1} d * n{i - 1} d\n" for i in range(1, 61)
    )
    ty = "Arch (.tensor [n60 seq, d]) (.tensor [n60 seq, d])"
    text = nats + "\n" + layer("sym", "Arch.relu [n60 seq, d]", binders="{seq : Nat} (d : Nat)", ty=ty)
    with pytest.raises(LeanParseError, match=f"symbolic dimension of more than {expand.MAX_SYMBOLIC_LEN}"):
        load_external(file_with(tmp_path, text), REPO).instantiate("sym", {"d": 2})


def test_a_shape_doubled_at_each_level_stops_at_the_size_bound(tmp_path: Path) -> None:
    shapes = "def s0 (d : Nat) : Shape := .tensor [d]\n" + "".join(
        f"def s{i} (d : Nat) : Shape := .prod (s{i - 1} d) (s{i - 1} d)\n" for i in range(1, 41)
    )
    text = shapes + "\n" + layer("shp", "Arch.id (s40 d)", ty="Arch (s40 d) (s40 d)")
    with pytest.raises(LeanParseError, match=f"a shape of more than {expand.MAX_SHAPE_SIZE} parts"):
        load_external(file_with(tmp_path, text), REPO).instantiate("shp", {"d": 2})


def test_work_that_is_not_remembered_stops_at_the_step_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Layers are expanded anew at each use; arguments of 200 dimensions make each use cost 200 steps,
    so the step budget (lowered here 400 times) stops the expansion long before the constructor bound."""
    monkeypatch.setattr(expand, "MAX_EVAL_STEPS", 5_000)
    big = "[" + ", ".join(["d"] * 200) + "]"
    defs = f"def e0 (d : Nat) : {TYPE} := Arch.id (.tensor {big}) ≫ Arch.relu [d]\n" + "".join(
        f"def e{i} (d : Nat) : {TYPE} := e{i - 1} d ≫ e{i - 1} d\n" for i in range(1, 30)
    )
    path = file_with(tmp_path, defs + "\n" + layer("slow", "e29 d"))
    with pytest.raises(LeanParseError, match="expanding 'slow' takes more than 5000 evaluation steps") as err:
        load_external(path, REPO).instantiate("slow", {"d": 2})
    one_line_error(err.value)


def test_the_zoo_stays_far_inside_the_step_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every Zoo layer, at its example parameters, needs less than 1% of :data:`MAX_EVAL_STEPS`."""
    monkeypatch.setattr(expand, "MAX_EVAL_STEPS", expand.MAX_EVAL_STEPS // 100)
    cat = load_catalogue(REPO)
    assert cat.layers
    for name, info in cat.layers.items():
        params = {k: v for k, v in info.example.items() if k in info.params or k in info.runtime_dims}
        cat.instantiate(name, params or {p: 4 for p in info.params})


# --- 2. let chains -----------------------------------------------------------------------------------------


def let_chain(levels: int) -> str:
    return "let x0 := d\n  " + "".join(
        f"let x{i} := x{i - 1} * x{i - 1} / x{i - 1}\n  " for i in range(1, levels + 1)
    )


def test_a_let_is_evaluated_once(tmp_path: Path) -> None:
    text = (
        "def r (n : Nat) : Arch (.tensor [n]) (.tensor [n]) := Arch.relu [n]\n\n"
        + layer("lets", let_chain(30) + "Arch.relu [x30]")
        + layer("passed", let_chain(30) + "r x30")  # the symbolic value of an argument, too
    )
    cat = load_external(file_with(tmp_path, text), REPO)
    assert cat.instantiate("lets", {"d": 3})[0] == T.ReLU(s=(3,))
    assert cat.instantiate("passed", {"d": 3})[0] == T.ReLU(s=(3,))


def test_a_let_nested_in_let_values_is_checked_once(tmp_path: Path) -> None:
    """An untyped ``let`` is checked by trying each kind of value in turn (a layer is tried fifth); the
    ``let``s nested in its value are not checked again at each try (5^depth)."""
    value = "Arch.relu [d]"
    for k in range(14):
        value = f"(let b{k} := {value}; b{k})"
    body = f"let a := {value}\n  a"
    term, _ = load_external(file_with(tmp_path, layer("nest", body)), REPO).instantiate("nest", {"d": 2})
    assert term == T.ReLU(s=(2,))


# --- 3. a definition used in its own argument is not recursion ----------------------------------------------


def test_a_combinator_applied_to_itself_is_not_recursion(tmp_path: Path) -> None:
    text = layer("twoRes", "Arch.residual [d] (Arch.residual [d] (Arch.relu [d]))")
    term, _ = load_external(file_with(tmp_path, text), REPO).instantiate("twoRes", {"d": 2})
    assert sum(1 for node in T.walk(term) if isinstance(node, T.Add)) == 2


def test_recursion_through_an_argument_is_still_recursion(tmp_path: Path) -> None:
    text = layer("loop", "Arch.residual [d] (loop d)")
    with pytest.raises(LeanParseError, match="'loop' is defined in terms of itself"):
        load_external(file_with(tmp_path, text), REPO).instantiate("loop", {"d": 2})


# --- 4. numerals beyond 2^62 -------------------------------------------------------------------------------

HUGE = "9" * 30


@pytest.mark.parametrize(
    ("body", "ty"),
    [
        (f"Arch.relu [{HUGE}, 0]", f"Arch (.tensor [{HUGE}, 0]) (.tensor [{HUGE}, 0])"),
        (f"Arch.scale (.rat {HUGE} 1) [d]", TYPE),
        (f"Arch.scale (.rat (-{HUGE}) 1) [d]", TYPE),
        (f"Arch.scale (.rat 1 {HUGE}) [d]", TYPE),
        (f"Arch.relu [{2**62 + 1} - 2]", TYPE),
    ],
)
def test_a_numeral_beyond_2_62_is_refused(tmp_path: Path, body: str, ty: str) -> None:
    path = file_with(tmp_path, layer("huge", body, ty=ty))
    with pytest.raises(LeanParseError, match=r"exceeds 2\^62") as err:
        load_external(path, REPO).instantiate("huge", {"d": 2})
    one_line_error(err.value)


def test_2_62_itself_is_a_dimension(tmp_path: Path) -> None:
    ty = f"Arch (.tensor [{2**62}]) (.tensor [{2**62}])"
    term, _ = load_external(
        file_with(tmp_path, layer("edge", f"Arch.relu [{2**62}]", ty=ty)), REPO
    ).instantiate("edge", {"d": 2})
    assert term == T.ReLU(s=(2**62,))


def test_a_huge_dimension_is_exit_3_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ty = f"Arch (.tensor [{'9' * 100}]) (.tensor [{'9' * 100}])"
    path = file_with(tmp_path, layer("huge", f"Arch.relu [{'9' * 100}]", ty=ty))
    code, _, err = cli(capsys, "show", f"{path}:huge", "-p", "d=2")
    assert code == 3 and err.count("\n") == 1 and "exceeds 2^62" in err


# --- 5. a run-time dimension in a constant -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("const", "message"),
    [
        (".rat 1 seq", "denominator of a constant must be a known number, not the run-time dimension 'seq'"),
        (".rat (seq + 1) 2", r"numerator of a constant must be a known number, not '\(seq \+ 1\)'"),
    ],
)
def test_a_run_time_dimension_in_a_constant_is_refused(tmp_path: Path, const: str, message: str) -> None:
    ty = "Arch (.tensor [seq, d]) (.tensor [seq, d])"
    text = layer("c", f"Arch.scale ({const}) [seq, d]", binders="{seq : Nat} (d : Nat)", ty=ty)
    with pytest.raises(LeanParseError, match=message) as err:
        load_external(file_with(tmp_path, text), REPO).instantiate("c", {"d": 2})
    one_line_error(err.value)


# --- 6. file size ------------------------------------------------------------------------------------------


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = file_with(tmp_path, layer("a", "Arch.relu [d]"))
    with path.open("a", encoding="utf-8") as handle:
        handle.write("!" * (MAX_LEAN_BYTES + 1))
    with pytest.raises(LeanParseError, match=f"the bridge reads Lean files of at most {MAX_LEAN_BYTES:,}"):
        load_external(path, REPO)


def test_an_imported_file_over_the_size_limit_is_the_error_of_its_use(tmp_path: Path) -> None:
    big = tmp_path / "Big.lean"
    big.write_text(HEAD + layer("h", "Arch.relu [d]") + "end Mine\n" + "-" * MAX_LEAN_BYTES, encoding="utf-8")
    head = HEAD.replace("import Formal.Network.Derived\n", "import Formal.Network.Derived\nimport Big\n")
    path = lean_file(tmp_path, layer("a", "Mine.h d"), head=head)
    with pytest.raises(LeanParseError, match=r"Big\.lean:1: the file has .* bytes; the bridge reads"):
        load_external(path, REPO).instantiate("a", {"d": 2})


def test_junk_characters_are_one_token_per_run() -> None:
    tokens = tokenize("def !!!!" + "∀" * 100_000 + " x #check", "f.lean")
    assert [t.kind for t in tokens] == ["ident", "other", "ident", "other", "ident", "eof"]
    assert tokens[1].text == "!"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "Fifo.lean"
    os.mkfifo(fifo)
    with pytest.raises(LeanParseError, match="not a regular file"):
        read_lean_bytes(fifo, "Fifo.lean")


# --- 7./8. imports beside the file: read from where they were found; cycles ---------------------------------


def sibling(directory: Path, name: str, imports: str, body: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    head = HEAD.replace("import Formal.Network.Derived\n", f"import Formal.Network.Derived\n{imports}")
    path = directory / f"{name}.lean"
    path.write_text(head + body + "end Mine\n", encoding="utf-8")
    return path


def test_a_sibling_import_of_a_relative_path_is_read_beside_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sibling(tmp_path / "imp", "Helper", "", f"def h (d : Nat) : {TYPE} := Arch.relu [d]\n\n")
    sibling(tmp_path / "imp", "Uses", "import Helper\n", layer("a", "h d"))
    monkeypatch.chdir(tmp_path)
    cat = load_external(Path("imp/Uses.lean"), REPO)
    assert cat.instantiate("a", {"d": 2})[0] == T.ReLU(s=(2,))
    assert "imp/Helper.lean" in cat.dependencies("a")


@pytest.mark.parametrize("cycle", ["two files", "itself"])
def test_an_import_cycle_is_refused(tmp_path: Path, cycle: str) -> None:
    if cycle == "two files":
        path = sibling(tmp_path, "C1", "import C2\n", layer("a", "Arch.relu [d]"))
        sibling(tmp_path, "C2", "import C1\n", layer("b", "Arch.relu [d]"))
        expected = r"C1\.lean:\d+: import cycle .*C1\.lean → .*C2\.lean → .*C1\.lean"
    else:
        path = sibling(tmp_path, "Self", "import Self\n", layer("a", "Arch.relu [d]"))
        expected = r"Self\.lean:\d+: import cycle .*Self\.lean → .*Self\.lean"
    with pytest.raises(LeanParseError, match=expected) as err:
        load_external(path, REPO)
    one_line_error(err.value)


def test_an_import_cycle_in_the_zoo_breaks_the_layers_of_its_files(tmp_path: Path) -> None:
    root = repo_copy(tmp_path)
    zoo = root / "Formal/Zoo"
    zoo_head = "import Formal.Network.Derived\nimport Formal.Zoo.{other}\n\nnamespace Formal.Zoo\n\n"
    for name, other in (("CycA", "CycB"), ("CycB", "CycA")):
        (zoo / f"{name}.lean").write_text(
            zoo_head.format(other=other)
            + f"/-- L. -/\ndef l{name} (d : Nat) : Formal.{TYPE} := Formal.Arch.relu [d]\n\nend Formal.Zoo\n",
            encoding="utf-8",
        )
    cat = load_catalogue(root)
    assert "mlp" in cat.layers
    with pytest.raises(LeanParseError, match="import cycle"):
        cat.layer("lCycA")


# --- 9. a name declared again -------------------------------------------------------------------------------


def test_redeclaring_a_name_of_an_imported_module_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "Dup.lean"
    path.write_text(
        "import Formal.Zoo.MLP\n\nnamespace Formal.Zoo\n\n/-- Again. -/\n"
        f"def mlp (d : Nat) : Formal.{TYPE} := Formal.Arch.relu [d]\n\n"
        "/-- Uses it. -/\ndef useIt (d_in d_hidden d_out : Nat) :\n"
        "    Formal.Arch (.tensor [d_in]) (.tensor [d_out]) :=\n"
        "  mlp d_in d_hidden d_out\n\nend Formal.Zoo\n",
        encoding="utf-8",
    )
    cat = load_external(path, REPO)
    with pytest.raises(LeanParseError, match=r"Dup\.lean:6: 'Formal\.Zoo\.mlp' has already been declared"):
        cat.layer("mlp")
    term, _ = cat.instantiate("useIt", {"d_in": 2, "d_hidden": 3, "d_out": 2})  # the Zoo's mlp, as in Lean
    assert isinstance(term, T.Comp)
    code, out, _ = cli(capsys, "list", str(path))
    assert code == 0 and "has already been declared" in out


# --- 10. a byte order mark ---------------------------------------------------------------------------------


def test_a_byte_order_mark_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "Bom.lean"
    path.write_text("\ufeff" + HEAD + layer("a", "Arch.relu [d]") + "end Mine\n", encoding="utf-8")
    with pytest.raises(LeanParseError, match=r"Bom\.lean:1: the file starts with a byte order mark") as err:
        load_external(path, REPO)
    one_line_error(err.value)


# --- 11. names with control characters --------------------------------------------------------------------

EVIL = "evil\nname \x1b[31mRED\x1b[0m \u202ecba\\"


def test_control_characters_in_a_name_are_escaped_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = layer(f"«{EVIL}»", "Arch.relu [d]") + layer("after", "nope d") + layer("third", "Arch.relu [d]")
    path = file_with(tmp_path, text)
    cat = load_external(path, REPO)
    escaped = "evil\\nname \\x1b[31mRED\\x1b[0m \\u202ecba\\\\"
    assert escaped in cat.layers
    info = cat.layers[escaped]
    assert info.lean_decl == f"Mine.{escaped}" and info.line == HEAD.count("\n") + 4
    assert (
        cat.layers["third"].line
        == path.read_text().splitlines().index(f"def third (d : Nat) : {TYPE} :=") + 1
    )
    assert cat.instantiate(escaped, {"d": 2})[0] == T.ReLU(s=(2,))
    with pytest.raises(BridgeError) as err:
        cat.instantiate("after", {"d": 2})
    one_line_error(err.value)
    code, out, err_text = cli(capsys, "list", str(path))
    assert code == 0, err_text
    assert not any(c in out for c in "\x1b\u202e") and len(out.splitlines()) == 2 + 3


# --- 12. found by a fuzz round (mutated Zoo files and generated layer files, run through the CLI) ----------


def test_a_path_too_long_to_look_up_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``Path.is_file`` raises on ENAMETOOLONG (it was exit 70, an internal error)."""
    long = tmp_path / ("a" * 300 + ".lean")
    for args in (
        ["list", str(long)],
        ["show", f"{long}:x"],
        ["emit", f"{long}:x", "--out", str(tmp_path / "o.py")],
    ):
        code, out, err = cli(capsys, *args)
        assert code == 3 and out == "", (args, err)
        assert err.startswith(f"error: {long}:0: cannot read (File name too long)"), err
        assert err.count("\n") == 1


def test_an_import_too_long_for_a_file_name_is_not_found(tmp_path: Path) -> None:
    module = "Formal." + "Network" * 60
    head = HEAD.replace(
        "import Formal.Network.Derived\n", f"import Formal.Network.Derived\nimport {module}\n"
    )
    path = lean_file(tmp_path, layer("a", "Arch.relu [d]"), head=head)
    with pytest.raises(
        LeanParseError, match=f"Layers.lean:2: cannot find the imported module {module} "
    ) as err:
        load_external(path, REPO)
    one_line_error(err.value)
    mine = "Mine" * 80  # beside the file: looked up in every directory above it
    head = HEAD.replace(
        "import Formal.Network.Derived\n", f"import Formal.Network.Derived\nimport {mine}.X\n"
    )
    path = lean_file(tmp_path / "beside", layer("a", "Arch.relu [d]"), head=head)
    with pytest.raises(LeanParseError, match="no file beside it has that module name"):
        load_external(path, REPO)


def test_reading_a_large_file_runs_the_cycle_collector_rarely(tmp_path: Path) -> None:
    """A file near the size limit is some 250,000 tokens and as many nodes; with Python's default
    threshold the cycle collector ran every 700 allocations and took half the reader's time (the CLI
    ran past 20 s on a 50,000-step chain). The reader collects cycles rarely while it runs
    (:func:`pybridge.lean.parser.reader_gc`), and restores the collector's thresholds after."""
    import gc

    from pybridge.lean import catalogue

    path = file_with(tmp_path, layer("chain", " ≫ ".join(["Arch.relu [d]"] * 20_000)))
    collections = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    before = gc.get_threshold()
    catalogue._parse.cache_clear()
    gc.callbacks.append(count)
    try:
        term, _ = load_external(path, REPO).instantiate("chain", {"d": 2})
    finally:
        gc.callbacks.remove(count)
    assert gc.get_threshold() == before
    assert isinstance(term, T.Comp)
    assert len(collections) < 100, f"{len(collections)} collections"
