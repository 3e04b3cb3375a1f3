"""A property-based fuzz test of the Lean reader, the expander and the emitter (issue 10, point 8).

Hypothesis mutates the real catalogue files (``Formal/Network/Derived.lean`` and ``Formal/Zoo/*.lean``):
it deletes, duplicates and moves spans, and inserts hostile fragments (brackets, operators, Unicode
digits, NUL, huge numbers, comments, commands, other definitions' names). Every outcome must be a
result or the project's own error type (:class:`pybridge.errors.BridgeError`); any other exception is a
crash, and a case that runs past :data:`CASE_SECONDS` is a hang.

The number of cases is ``$PYBRIDGE_FUZZ_CASES`` (default 2,000); a longer local run, e.g.
``PYBRIDGE_FUZZ_CASES=20000 pytest tests/test_fuzz.py``, prints its tally (cases, errors, results).
"""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pybridge.errors import BridgeError
from pybridge.lean.catalogue import COMBINATOR_FILES, ZOO_DIR, build_catalogue
from pybridge.torch.emit import render_source

ROOT = Path(__file__).resolve().parents[1]
CASES = int(os.environ.get("PYBRIDGE_FUZZ_CASES", "2000"))
#: A case that takes longer than this is a hang (the slowest honest case takes well under a second).
CASE_SECONDS = 10.0

SOURCES: dict[str, bytes] = {
    rel: (ROOT / rel).read_bytes()
    for rel in [
        *COMBINATOR_FILES,
        *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / ZOO_DIR).glob("*.lean")),
    ]
}
FILES = sorted(SOURCES)

FRAGMENTS = [
    "(",
    ")",
    "[",
    "]",
    "⟨",
    "⟩",
    "{",
    "}",
    ",",
    ":",
    ":=",
    "≫",
    "⊗",
    "++",
    "::",
    "*",
    "/",
    "%",
    "+",
    "-",
    "<",
    "∣",
    ".",
    "@",
    "_",
    "·",
    "^",
    "²",
    "₁",
    "١",
    "\x00",
    "\u2028",
    "🦀",
    '"',
    '"""',
    "\\",
    "«",
    "»",
    "«x»",
    "/-",
    "-/",
    "/--",
    "/-!",
    "--",
    "\n",
    " ",
    "0",
    "1",
    "7",
    "9" * 30,
    "9" * 5000,
    "d",
    "seq",
    "heads",
    "experts",
    "x",
    "Arch.copy",
    "Arch.relu",
    "Arch.linear",
    "Arch.route",
    "Arch.copair",
    "Arch.rope",
    "Arch.repeatInterleave",
    "Arch.comp",
    "Arch.id",
    "Arch.fst",
    "Arch.residual",
    "Arch.fan3",
    "Arch.selfAttention",
    "attention",
    "mlp",
    "moe",
    "glu",
    ".tensor",
    ".prod",
    ".coprod",
    ".invSqrt",
    ".rat",
    "Nat",
    "List Nat",
    "Shape",
    "Prop",
    "Type",
    "def",
    "theorem",
    "example",
    "#check",
    "#eval",
    "namespace",
    "section",
    "end",
    "open",
    "import",
    "set_option",
    "universe",
    "variable",
    "mutual",
    "instance",
    "where",
    "fun",
    "let",
    "by",
    "match",
    "if",
    "(x := 1)",
    "{seq : Nat}",
    "(h : 0 < d)",
    "h_pos",
    "h_dvd",
    "PyTorch: none",
    "Example: `d=",
    "Example: `d=0 experts=0`",
    "PyTorch: `torch.nn.Linear(d, d)`",
    "PyTorch: `__import__('os').system('true')`",
    "(" * 300,
    ")" * 300,
    " ≫ Arch.relu [d]" * 50,
    " ⊗ Arch.relu [d]" * 300,
]


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, dict[str, bytes]]:
    """One catalogue file with 1 to 4 mutations; the others unchanged."""
    rel = draw(st.sampled_from(FILES))
    text = SOURCES[rel].decode("utf-8")
    for _ in range(draw(st.integers(1, 4))):
        n = len(text)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 200)))
        op = draw(st.sampled_from(["insert", "delete", "replace", "duplicate", "move", "unicode"]))
        if op == "insert":
            text = text[:i] + draw(st.sampled_from(FRAGMENTS)) + text[i:]
        elif op == "delete":
            text = text[:i] + text[j:]
        elif op == "replace":
            text = text[:i] + draw(st.sampled_from(FRAGMENTS)) + text[j:]
        elif op == "duplicate":
            text = text[:j] + text[i:j] * draw(st.integers(1, 3)) + text[j:]
        elif op == "move":
            span, rest = text[i:j], text[:i] + text[j:]
            k = draw(st.integers(0, len(rest)))
            text = rest[:k] + span + rest[k:]
        else:
            text = text[:i] + draw(st.text(min_size=1, max_size=4)) + text[j:]
    sources = dict(SOURCES)
    sources[rel] = text.encode("utf-8", errors="surrogatepass")
    return rel, sources


class Hang(Exception):
    """Raised by the alarm when one case runs past CASE_SECONDS."""


def _alarm(signum: int, frame: object) -> None:
    raise Hang


def run_case(rel: str, sources: dict[str, bytes]) -> str:
    """Read the catalogue; instantiate at its Example and emit every layer the mutated file can change
    (those it defines; all of them when it is a combinator file).
    Returns ``"result"`` or ``"error"``; raises on anything that is not a BridgeError."""
    try:
        cat = build_catalogue(ROOT, sources)
        for name, info in sorted(cat.layers.items()):
            params = {k: v for k, v in info.example.items() if k in info.params}
            if set(params) != set(info.params) or not (info.file == rel or rel in COMBINATOR_FILES):
                continue
            cat.instantiate(name, params)
            render_source(cat, name, params)
    except BridgeError as err:
        assert "\n" not in str(err).strip() or "Traceback" not in str(err)
        return "error"
    return "result"


TALLY: Counter[str] = Counter()


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="the per-case time guard needs setitimer")
@settings(
    max_examples=CASES,
    deadline=None,
    derandomize=os.environ.get("PYBRIDGE_FUZZ_SEED") is None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)
@given(case=mutated())
def test_mutated_zoo_files_give_a_result_or_a_bridge_error(case: tuple[str, dict[str, bytes]]) -> None:
    rel, sources = case
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
    start = time.perf_counter()
    try:
        outcome = run_case(rel, sources)
    except Hang:
        TALLY["hang"] += 1
        pytest.fail(f"hang: a case on {rel} ran past {CASE_SECONDS} s")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    TALLY[outcome] += 1
    TALLY["seconds"] += round(time.perf_counter() - start, 3)  # type: ignore[assignment]


def test_fuzz_tally_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    """Runs after the fuzz test (file order): prints the tally, and checks that it ran every case."""
    cases = TALLY["result"] + TALLY["error"]
    if not cases:
        pytest.skip("the fuzz test did not run in this session (deselected)")
    with capsys.disabled():
        print(
            f"\nfuzz: {cases} cases, {TALLY['error']} BridgeErrors, {TALLY['result']} results, "
            f"{TALLY['hang']} hangs, 0 crashes, {TALLY['seconds']:.1f} s in cases"
        )
    assert cases >= CASES and TALLY["hang"] == 0
