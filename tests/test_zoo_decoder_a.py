"""The Zoo layers ``causalAttention``, ``rmsNorm`` and ``swiglu`` through the reader and the CLI: the
catalogue builds the terms of the specification, and ``fragment``, ``site``, ``check`` and ``emit`` run
on each (small parameters keep the probe and the capture fast)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from emitted import emit_and_import
from typer.testing import CliRunner
from zoo_terms_a import causal_attention, rms_norm, swiglu

from pybridge.cli import app
from pybridge.zoo import instantiate

runner = CliRunner()

LAYERS = {
    "causalAttention": (["-p", "d_model=4", "-p", "heads=2", "-p", "seq=3"], "causalSoftmax"),
    "rmsNorm": (["-p", "d=4", "-p", "seq=3"], "rmsNorm"),
    "swiglu": (["-p", "d=3", "-p", "d_ff=4", "-p", "seq=2"], "sigmoid"),
}


def test_catalogue_builds_these_terms() -> None:
    assert instantiate("causalAttention", {"d_model": 8, "heads": 2})[0] == causal_attention(8, 2)
    assert instantiate("causalAttention", {"d_model": 9, "heads": 3})[0] == causal_attention(9, 3)
    assert instantiate("rmsNorm", {"d": 8})[0] == rms_norm(8)
    assert instantiate("swiglu", {"d": 8, "d_ff": 16})[0] == swiglu(8, 16)


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_fragment_runs(name: str) -> None:
    params, offender = LAYERS[name]
    res = runner.invoke(app, ["fragment", name, *params, "--json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    text = json.dumps(report)
    assert '"transcendental"' in text and offender in text
    plain = runner.invoke(app, ["fragment", name, *params])
    assert plain.exit_code == 0, plain.output
    assert "syntax verdict: transcendental" in plain.output
    assert "probe verdict:  transcendental" in plain.output and "agree: yes" in plain.output


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_site_runs(name: str) -> None:
    params = [a if a != "-p" else "--param" for a in LAYERS[name][0]]  # site has no -p short option
    res = runner.invoke(app, ["site", name, *params])
    assert res.exit_code == 0, res.output
    assert "captured by:     torch.export (core ATen)" in res.output
    assert "C thin (Prop. 1.1(i)): yes" in res.output


def test_check_runs() -> None:
    res = runner.invoke(app, ["check", "causalAttention", "-p", "d_model=4", "-p", "heads=2"])
    assert res.exit_code == 0, res.output
    assert "pybridge.references.hf:gpt2_attention" in res.output and "FAIL" not in res.output
    res = runner.invoke(app, ["check", "swiglu", "-p", "d=3", "-p", "d_ff=5"])
    assert res.exit_code == 0, res.output
    assert "pybridge.references.hf:llama_mlp" in res.output and "FAIL" not in res.output
    # LlamaRMSNorm computes in float32: its reference declares bridge_dtypes = (float32,), so check
    # compares it in float32 only and says so, and float64 against the exact interpreter of Arch.eval
    # (float64 against a hand-written reference: tests/test_references_hf.py)
    res = runner.invoke(app, ["check", "rmsNorm", "-p", "d=3"])
    assert res.exit_code == 0, res.output
    assert "pybridge.references.hf:llama_rms_norm is compared in float32 only" in res.output
    res = runner.invoke(app, ["check", "rmsNorm", "-p", "d=3", "--json"])
    rows = [r for r in json.loads(res.output) if r["realisation"] != "optimised vs literal"]
    assert {(r["reference"], r["dtype"], r["tolerance"]) for r in rows} == {
        ("pybridge.references.hf:llama_rms_norm", "float32", 1e-5),
        ("exact interpreter of Arch.eval", "float64", 1e-10),
    }
    assert all(r["passed"] for r in json.loads(res.output))


def test_emitted_files_from_torch_match_transformers(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    from pybridge.references import hf

    cases = {
        "causalAttention": (
            ["-p", "d_model=8", "-p", "heads=2"],
            lambda dt: hf.gpt2_attention(8, 2, dtype=dt),
        ),
        "rmsNorm": (["-p", "d=8"], lambda dt: hf.llama_rms_norm(8, dtype=dt)),
        "swiglu": (["-p", "d=8", "-p", "d_ff=16"], lambda dt: hf.llama_mlp(8, 16, dtype=dt)),
    }
    for name, (params, build) in cases.items():
        module = emit_and_import(tmp_path, name, params)
        torch.manual_seed(0)
        ref = build(torch.float32)
        # Layer.from_torch takes the transformers module itself (the one the reference wraps)
        inner = next(ref.children())
        assert type(inner).__name__ in ("GPT2Attention", "LlamaRMSNorm", "LlamaMLP")
        layer = module.Layer.from_torch(inner)
        x = torch.randn(2, 5, 8, generator=torch.Generator().manual_seed(1))
        with torch.no_grad():
            assert (layer(x) - ref(x)).abs().max().item() <= 1e-5
