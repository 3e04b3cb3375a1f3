"""The layer benchmark (``bench/bench_layers.py``): its README block is the generator's output on the
committed results file, and a ``--quick`` run goes end to end. No timing is asserted."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "bench_layers.py"
RESULTS = ROOT / "bench" / "results" / "layers.json"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_layers", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_layers"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _check_rows(bench: ModuleType, results: dict) -> None:
    """Every row names its configuration and has a median and a ratio for each pass and candidate."""
    assert results["schema"] == bench.SCHEMA
    assert results["rows"], "no configuration in the results"
    for row in results["rows"]:
        assert row["layer"] in bench.LAYERS and row["mode"] in bench.MODES and row["dtype"] in bench.DTYPES
        cands = row["ours"] + row["counterparts"]
        assert row["primary"] == row["counterparts"][0]
        for which in bench.PASSES:
            assert set(row["median_s"][which]) == set(cands)
            assert all(t > 0 for t in row["median_s"][which].values())
            for o in row["ours"]:
                for c in row["counterparts"]:
                    assert row["ratio"][which][f"{o}/{c}"] > 0
            rounds = results["runs"][row["run"]]["args"]["rounds"]
            assert all(len(v) == rounds for v in row["rounds"][which].values())
        assert set(row["max_abs_diff"]) == set(cands)


def test_readme_block_is_generated_from_the_committed_results(bench: ModuleType) -> None:
    results = json.loads(RESULTS.read_text(encoding="utf-8"))
    _check_rows(bench, results)
    block = bench.readme_block((ROOT / "README.md").read_text(encoding="utf-8"))
    assert block is not None, "README.md has no generated layer-benchmark block"
    assert block == bench.render_block(results), (
        "README.md is stale: run `python bench/bench_layers.py --from-results bench/results/layers.json "
        "--write-readme`"
    )
    # well-formed: one table whose rows all have the header's number of cells, one row per ours candidate
    table = [line for line in block.splitlines() if line.startswith("|")]
    width = table[0].count("|")
    assert set(table[1].strip("|").split("|")) == {"---"}
    assert all(line.count("|") == width for line in table)
    assert len(table) - 2 == sum(len(r["ours"]) for r in results["rows"])


def test_render_marks_targets(bench: ModuleType) -> None:
    """The pass/fail marks follow issue 13's targets (1.05 for most layers, 1.10 for moe, 8x the loop)."""
    assert bench._mark(1.05, 1.05 <= bench.TIME_TARGET_DEFAULT).endswith("✓")
    row = {"layer": "moe", "primary": "top1-dispatch", "ratio": {"fwd": {"ours/top1-dispatch": 1.08}}}
    assert bench._ratio_cell(row, "ours", "fwd") == "1.08 ✓"
    row = {"layer": "mlp", "primary": "pytorch", "ratio": {"fwd": {"ours/pytorch": 1.08}}}
    assert bench._ratio_cell(row, "ours", "fwd") == "1.08 ✗"
    row = {"layer": "hyperLinear", "ratio": {"fwd": {"ours/loop": 0.1}, "fwdbwd": {"ours/loop": 0.2}}}
    assert bench._other_cell(row, "ours") == "loop ÷ ours: 10.00× ✓ / 5.00× ✗"
    # with the rounds, the counterpart's own speed-up over the loop: median of per-round loop / einsum
    row["rounds"] = {
        "fwd": {"loop": [4.0, 6.0, 9.0], "einsum": [1.0, 1.0, 1.0]},
        "fwdbwd": {"loop": [2.0, 3.0, 8.0], "einsum": [1.0, 2.0, 2.0]},
    }
    assert bench._other_cell(row, "ours") == "loop ÷ ours: 10.00× ✓ / 5.00× ✗; loop ÷ einsum: 6.00× / 2.00×"


def test_median_interval_matches_the_binomial_tables(bench: ModuleType) -> None:
    """Order-statistic intervals for the median (e.g. Conover, Practical Nonparametric Statistics):
    n = 10 → ranks 2 and 9 (coverage 1 - 2·11/1024), n = 15 → ranks 4 and 12 (1 - 2·576/32768),
    n = 5 → no 95 % interval: the whole range (1 - 2/32)."""
    xs = [float(i) for i in range(1, 16)]
    assert bench.median_interval(xs[:10]) == (2.0, 9.0, 1 - 2 * 11 / 1024)
    assert bench.median_interval(xs) == (4.0, 12.0, 1 - 2 * 576 / 32768)
    assert bench.median_interval([3.0, 1.0, 5.0, 2.0, 4.0]) == (1.0, 5.0, 1 - 2 / 32)



def test_coverage_text_follows_the_round_counts_of_the_rows(bench: ModuleType) -> None:
    """The README's coverage sentence names each round count present, with the binomial coverage:
    n = 31 → ranks 10 and 22, 1 - 2·P(B(31, 1/2) ≤ 9); n = 5 → the whole range, 1 - 2/32."""
    def row(n: int) -> dict:
        return {"rounds": {"fwd": {"ours": [1.0] * n, "pytorch": [1.0] * n}}}

    p31 = sum(math.comb(31, i) for i in range(10)) / 2**31
    text = bench._coverages({"rows": [row(5), row(31), row(5)]})
    assert text == f"{100 * (1 - 2 * p31):.1f} % with 31 rounds, 93.8 % with 5 rounds (the whole range)"
    assert text.startswith("97.1 %")

def test_misses_lists_each_cell_outside_the_targets(bench: ModuleType) -> None:
    def row(layer: str, primary: str, fwd: float, fwdbwd: float, **extra: object) -> dict:
        ratio = {"fwd": {f"ours/{primary}": fwd}, "fwdbwd": {f"ours/{primary}": fwdbwd}}
        return {
            "layer": layer, "size": "small", "dtype": "float32", "mode": "eager",
            "ours": ["ours", "ours-literal"], "primary": primary, "ratio": ratio, **extra,
        }

    live = {"fwd": {"ours": 120, "pytorch": 100}, "fwdbwd": {"ours": 110, "pytorch": 100}}
    results = {"rows": [
        row("mlp", "pytorch", 1.05, 1.06, live_bytes=live),
        row("moe", "top1-dispatch", 1.10, 0.9),
        {**row("hyperLinear", "einsum", 1.0, 1.0), "ratio": {
            "fwd": {"ours/einsum": 1.0, "ours/loop": 0.25},
            "fwdbwd": {"ours/einsum": 1.11, "ours/loop": 0.1},
        }},
    ]}
    assert bench.misses(results) == [
        "mlp small float32 eager: fwdbwd time 1.06, fwd live peak 1.20",
        "hyperLinear small float32 eager: fwdbwd time 1.11, fwd only 4.00× faster than the loop",
    ]
    # with the rounds, each time miss says whether its interval reaches down to the target
    results["rows"][0]["rounds"] = {
        "fwd": {"ours": [1.0] * 5, "pytorch": [1.0] * 5},
        "fwdbwd": {"ours": [1.0, 1.06, 1.07, 1.08, 1.2], "pytorch": [1.0] * 5},
    }
    assert bench.misses(results)[0] == (
        "mlp small float32 eager: fwdbwd time 1.06 (interval 1.00–1.20 includes 1.05), fwd live peak 1.20"
    )
    results["rows"][0]["rounds"]["fwdbwd"]["ours"][0] = 1.051
    assert "(interval 1.05–1.20 lies above 1.05)" in bench.misses(results)[0]


def test_quick_run_end_to_end(tmp_path: Path, bench: ModuleType) -> None:
    """``--quick`` on one tiny configuration: a results file, and the README block rewritten from it."""
    out = tmp_path / "layers.json"
    readme = tmp_path / "README.md"
    readme.write_text(f"before\n{bench.BEGIN}\n{bench.END}\nafter\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [
        sys.executable,
        str(SCRIPT),
        "--quick",
        "--layers",
        "mlp",
        "--dtypes",
        "float32",
        "--mem-procs",
        "0",
        "--out",
        str(out),
        "--write-readme",
        "--readme",
        str(readme),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    results = json.loads(out.read_text(encoding="utf-8"))
    _check_rows(bench, results)
    (row,) = results["rows"]
    assert (row["layer"], row["size"], row["dtype"], row["mode"]) == ("mlp", "quick", "float32", "eager")
    # same weights and inputs: ours equals the PyTorch counterpart (float32 tolerance of pybridge check)
    assert max(row["max_abs_diff"].values()) <= 1e-5
    assert row["live_bytes"]["fwdbwd"]["pytorch"] > 0
    assert "rss" not in row  # --mem-procs 0: no child processes (they are exercised below, in-process)
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("before\n") and text.endswith("after\n")
    assert bench.readme_block(text) == bench.render_block(results)
    assert row["lean_rewrites"]["ours-literal"] == []


def test_existing_results_refused_without_force(
    tmp_path: Path, bench: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    """An existing results file is not replaced without ``--force``: one line on stderr, exit 2."""
    out = tmp_path / "layers.json"
    out.write_text("{}", encoding="utf-8")
    assert bench.main(["--quick", "--layers", "mlp", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "already exists" in err and len(err.strip().splitlines()) == 1
    assert out.read_text(encoding="utf-8") == "{}"


def test_memory_child_measures_growth(bench: ModuleType) -> None:
    """The RSS measurement in one fresh child process: 3 float64 forward+backward calls of a 256-row mlp
    of width 256 allocate at least its 256x1024 hidden activation (2 MiB, fresh pages in a new process)."""
    spec = {
        "layer": "mlp",
        "size": {"name": "t", "batch": 16, "seq": 16, "width": 256},
        "dtype": "float64",
        "candidate": "ours-literal",
        "which": "fwdbwd",
        "device": "cpu",
        "threads": 1,
        "calls": 3,
    }
    (got,) = bench.rss_growth([spec], procs=1, jobs=1)
    assert len(got["bytes"]) == 1 and got["method"]
    assert got["median"] >= 256 * 1024 * 8


def test_child_env_sets_the_mmap_threshold_only_when_asked(bench: ModuleType) -> None:
    spec = {"threads": 1, "mmap_threshold": 65536}
    assert bench.child_env(spec)["MALLOC_MMAP_THRESHOLD_"] == "65536"
    assert bench.child_env(spec)["OMP_NUM_THREADS"] == "1"
    assert "MALLOC_MMAP_THRESHOLD_" not in bench.child_env({"threads": 1, "mmap_threshold": 0})


def test_rss_with_a_fixed_mmap_threshold_follows_the_live_tensors(bench: ModuleType) -> None:
    """With glibc's mmap threshold fixed at 64 KiB, two fresh processes measure the same forward growth of a
    float64 mlp (within 1 MiB), at least its live-tensor peak and at most 4 MiB above it."""
    import torch

    size = {"name": "t", "batch": 16, "seq": 32, "width": 256}
    spec = {
        "layer": "mlp", "size": size, "dtype": "float64", "candidate": "ours", "which": "fwd",
        "device": "cpu", "threads": 1, "calls": 3, "mmap_threshold": 65536,
    }
    got = bench.rss_growth([spec], procs=2, jobs=1)[0]["bytes"]
    module = bench.build_candidates("mlp", bench.Size(**size), torch.float64, "cpu", only="ours")["ours"]
    x = torch.randn(512, 256, dtype=torch.float64)
    live = bench.live_peak(module, x, torch.zeros(512, 256, dtype=torch.float64), "fwd", "cpu")
    assert live == 2 * 512 * 1024 * 8  # the hidden activation and its ReLU
    assert abs(got[0] - got[1]) <= 2**20, got
    assert all(live <= g <= live + 4 * 2**20 for g in got), (got, live)


def test_live_peak_counts_new_storages_only(bench: ModuleType) -> None:
    """The live-tensor peak of ``relu(x @ w)`` is its two 100x200 float32 results (160,000 bytes): views of
    the operands (``w.t()``) are not counted, and freed storages leave the count."""
    import torch

    w = torch.randn(200, 50)
    x = torch.randn(100, 50)
    mode = bench.LivePeak()
    with mode:
        h = x @ w.t()
        y = torch.relu(h)
        del h
        z = torch.relu(y)
        del y, z
    assert mode.peak == 2 * 100 * 200 * 4
    assert mode.live == 0


def test_cuda_absent_is_skipped_cleanly(tmp_path: Path) -> None:
    """``--device cuda`` without CUDA runs nothing and exits 0 (with CUDA present it does not apply)."""
    import torch

    if torch.cuda.is_available():
        pytest.skip("CUDA is present on this machine")
    out = tmp_path / "cuda.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--device", "cuda", "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and "not available" in done.stdout
    assert not out.exists()
