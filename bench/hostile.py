"""A hostile run of the CLI: bad parameters, hostile Lean files and hostile model targets.

Each case runs ``python -m pybridge.cli`` in a fresh interpreter (a copy of the repository for Lean
mutations) with a time limit, and is classified:

- ``clean``: exit 0 where success is right, or a non-zero exit with exactly one ``error:`` line on stderr;
- ``traceback``: a Python traceback or a multi-line/boxed error;
- ``hang``: still running after the time limit; ``killed``: ended by a signal;
- ``wrong``: exit 0 where the input must be refused, or code ran that came from the input.

Usage: ``python bench/hostile.py [--only SUBSTRING] [--timeout S]``. Not a test: it prints a table.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MOE = "Formal/Zoo/MoE.lean"
MLP = "Formal/Zoo/MLP.lean"


@dataclass
class Case:
    name: str
    args: list[str]
    must_fail: bool = True
    edit: tuple[str, str, str] | None = None  # (file, old, new) applied to a repo copy
    extra_file: tuple[str, str] | None = None  # (relative path, text) written into the repo copy
    marker: str | None = None  # a file whose existence after the run means input code ran


def _layer(name: str, doc: str, body: str, binders: str = "(d : Nat)", typ: str = "") -> str:
    typ = typ or "Arch (.tensor [d]) (.tensor [d])"
    return (
        "import Formal.Network.Arch\n\nnamespace Formal.Zoo\n\nopen scoped Formal.Arch\n\n"
        f"/-- {doc}\n\nPyTorch: none (reference: `pybridge.laws.references.moe`)\n\nExample: `d=4` -/\n"
        f"def {name} {binders} : {typ} :=\n  {body}\n\nend Formal.Zoo\n"
    )


def cases(tmp: Path) -> list[Case]:
    pwn = tmp / "PWNED"
    inj = f'"""\nimport pathlib; pathlib.Path({str(pwn)!r}).write_text("x")\n"""'
    relu = "Arch.relu [d]"
    out = str(tmp / "out.py")
    cs = [
        Case(
            "injection: docstring with triple quotes",
            ["emit", "evil", "-p", "d=4", "-o", out, "--force"],
            must_fail=False,
            extra_file=("Formal/Zoo/Evil.lean", _layer("evil", f"Evil {inj} done.", relu)),
            marker=str(pwn),
        ),
        Case(
            "injection: backslash/NUL/quotes docstring",
            ["emit", "evil", "-p", "d=4", "-o", out, "--force"],
            must_fail=False,
            extra_file=(
                "Formal/Zoo/Evil.lean",
                _layer("evil", "Evil \\ ' \" \x00 \u2028 \\N{x} end \\", relu),
            ),
        ),
        Case(
            "moe experts=10**12 emit", ["emit", "moe", "-p", "d=4", "-p", "experts=1000000000000", "-o", out]
        ),
        Case("moe experts=10**12 check", ["check", "moe", "-p", "d=4", "-p", "experts=1000000000000"]),
        Case(
            "mlp huge widths check",
            ["check", "mlp", "-p", "d_in=100000", "-p", "d_hidden=100000", "-p", "d_out=100000"],
        ),
        Case(
            "attention seq=10**8 check",
            ["check", "attention", "-p", "seq=100000000", "-p", "d_model=8", "-p", "heads=2"],
        ),
        Case(
            "emit with --max-memory 1000",
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
                out,
                "--max-memory",
                "1000",
            ],
        ),
        Case("param unicode digit", ["show", "mlp", "-p", "d_in=²"]),
        Case("param 5000 digits", ["show", "mlp", "-p", "d_in=" + "9" * 5000]),
        Case("param negative", ["show", "mlp", "-p", "d_in=-3"]),
        Case("fragment huge seed", ["fragment", "mlp", "--seed", "9" * 30]),
        Case("equivariance huge step", ["equivariance", "mlp", "--step", "9" * 30]),
        Case(
            "4300-digit Example",
            ["show", "mlp"],
            edit=(MLP, "Example: `", "Example: `d_in=" + "7" * 4300 + " "),
        ),
        Case(
            "Unicode digit in Lean (²)",
            ["list"],
            edit=(MOE, "(.tensor [d]) (.tensor [d]) :=", "(.tensor [d²]) (.tensor [d]) :="),
        ),
        Case("Unicode digit in Lean (₁)", ["list"], edit=(MOE, "Arch.linear [] d d)", "Arch.linear [] d ₁)")),
        Case(
            "deep parentheses",
            ["show", "deep"],
            extra_file=("Formal/Zoo/Deep.lean", _layer("deep", "Deep.", "(" * 600 + relu + ")" * 600)),
        ),
        Case(
            "long ≫ chain (1000) emit",
            ["emit", "chain", "-p", "d=4", "-o", out, "--force"],
            must_fail=False,
            extra_file=(
                "Formal/Zoo/Chain.lean",
                _layer("chain", "Chain.", " ≫ ".join([relu] * 1000)).replace(
                    "none (reference: `pybridge.laws.references.moe`)",
                    "`torch.nn.Sequential(torch.nn.ReLU())`",
                ),
            ),
        ),
        Case(
            "long ≫ chain (1000) check",
            ["check", "chain", "-p", "d=4"],
            must_fail=False,
            extra_file=(
                "Formal/Zoo/Chain.lean",
                _layer("chain", "Chain.", " ≫ ".join([relu] * 1000)).replace(
                    "none (reference: `pybridge.laws.references.moe`)",
                    "`torch.nn.Sequential(torch.nn.ReLU())`",
                ),
            ),
        ),
        Case(
            "self-recursive def",
            ["show", "loop"],
            extra_file=("Formal/Zoo/Loop.lean", _layer("loop", "Loop.", "Arch.relu [d] ≫ loop d")),
        ),
        Case(
            "mutually recursive defs",
            ["show", "ping"],
            extra_file=(
                "Formal/Zoo/Ping.lean",
                _layer("ping", "Ping.", "pong d").replace(
                    "end Formal.Zoo",
                    "/-- Pong.\n\nPyTorch: none (reference: `x.y`) -/\n"
                    "def pong (d : Nat) : Arch (.tensor [d]) (.tensor [d]) :=\n  ping d\n\nend Formal.Zoo",
                ),
            ),
        ),
        Case(
            "exponential expansion",
            ["show", "e30"],
            extra_file=(
                "Formal/Zoo/Exp.lean",
                "import Formal.Network.Arch\n\nnamespace Formal.Zoo\n\n"
                + "".join(
                    f"/-- E{i}.\n\nPyTorch: none (reference: `x.y`)\n\nExample: `d=1` -/\n"
                    f"def e{i} (d : Nat) : Arch (.tensor [d]) (.tensor [d]) :=\n  "
                    + ("Arch.relu [d]" if i == 0 else f"e{i - 1} d ≫ e{i - 1} d")
                    + "\n\n"
                    for i in range(31)
                )
                + "end Formal.Zoo\n",
            ),
        ),
        Case("NUL byte in Lean", ["list"], edit=(MOE, "namespace Formal.Zoo", "namespace Formal.Zoo\x00")),
        Case(
            "theorem beside layers",
            ["list"],
            must_fail=False,
            edit=(MOE, "end Formal.Zoo", "theorem t : 1 = 1 := rfl\n\nend Formal.Zoo"),
        ),
        Case(
            "example beside layers",
            ["list"],
            must_fail=False,
            edit=(MOE, "end Formal.Zoo", "example : 1 = 1 := rfl\n\nend Formal.Zoo"),
        ),
        Case(
            "#check beside layers",
            ["list"],
            must_fail=False,
            edit=(MOE, "end Formal.Zoo", "#check Nat\n\nend Formal.Zoo"),
        ),
        Case(
            "hypothesis of the wrong type",
            ["show", "moe", "-p", "d=4", "-p", "experts=3"],
            edit=(MOE, "(h_pos : 0 < experts)", "(h_pos : 0 < d)"),
        ),
        Case(
            "name from a module not imported",
            ["show", "attention"],
            edit=("Formal/Zoo/Attention.lean", "import Formal.Network.Derived", "import Formal.Network.Arch"),
        ),
        Case(
            "factory raises SystemExit",
            ["site", "F.py:f"],
            extra_file=("F.py", "def f():\n    raise SystemExit(0)\n"),
        ),
        Case(
            "import raises KeyboardInterrupt",
            ["site", "F.py:f"],
            extra_file=("F.py", "raise KeyboardInterrupt\n"),
        ),
        Case(
            "import raises SystemExit",
            ["fragment", "F.py:f"],
            extra_file=("F.py", "import sys\nsys.exit(0)\n"),
        ),
        Case(
            "integer input",
            ["site", "F.py:f"],
            extra_file=(
                "F.py",
                "import torch\ndef f():\n"
                "    return torch.nn.Linear(3, 3), torch.ones(2, 3, dtype=torch.long)\n",
            ),
        ),
        Case(
            "complex input",
            ["fragment", "F.py:f"],
            extra_file=(
                "F.py",
                "import torch\ndef f():\n"
                "    return torch.nn.Identity(), torch.ones(2, 3, dtype=torch.complex64)\n",
            ),
        ),
        Case(
            "empty input",
            ["fragment", "F.py:f"],
            extra_file=("F.py", "import torch\ndef f():\n    return torch.nn.Identity(), ()\n"),
        ),
        Case("usage error: unknown option", ["list", "--bogus"]),
        Case("usage error: missing argument", ["emit"]),
    ]
    return cs


def classify(case: Case, rc: int | None, err: str) -> str:
    if rc is None:
        return "hang"
    if rc < 0:
        return "killed"
    if case.marker and Path(case.marker).exists():
        return "wrong (input code ran)"
    if "Traceback" in err or "╭" in err or "│" in err:
        return "traceback"
    lines = [x for x in err.strip().splitlines() if x.strip()]
    if rc == 0:
        return "wrong (exit 0)" if case.must_fail else "clean"
    if rc == 70:
        return "internal error (exit 70)"
    if len(lines) != 1 or not lines[0].startswith("error:"):
        return "traceback"
    return "clean"


def run_case(case: Case, timeout: float) -> tuple[str, int | None, str, float]:
    with tempfile.TemporaryDirectory(prefix="hostile-") as td:
        root = Path(td) / "repo"
        shutil.copytree(
            REPO,
            root,
            ignore=shutil.ignore_patterns(
                ".git", ".venv", "__pycache__", ".lake", "*.egg-info", ".pytest_cache", "bench"
            ),
        )
        if case.edit:
            path = root / case.edit[0]
            text = path.read_text()
            assert case.edit[1] in text, case.edit
            path.write_text(text.replace(case.edit[1], case.edit[2], 1))
        if case.extra_file:
            (root / case.extra_file[0]).write_text(case.extra_file[1])
        env = dict(os.environ, TOPOS_BRIDGE_ROOT=str(root), PYTHONPATH=str(REPO))
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "pybridge.cli", *case.args],
                cwd=root,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
            rc, err = proc.returncode, proc.stderr
        except subprocess.TimeoutExpired:
            rc, err = None, ""
        return classify(case, rc, err), rc, err, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=float, default=90.0)
    ns = ap.parse_args()
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as td:
        for case in cases(Path(td)):
            if ns.only not in case.name:
                continue
            for m in Path(td).glob("PWNED"):
                m.unlink()
            verdict, rc, err, secs = run_case(case, ns.timeout)
            counts[verdict] = counts.get(verdict, 0) + 1
            last = (err.strip().splitlines() or [""])[-1][:110]
            print(f"{verdict:22} rc={rc!s:4} {secs:5.1f}s  {case.name}: {last}", flush=True)
    print("totals:", ", ".join(f"{k}={v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    main()
