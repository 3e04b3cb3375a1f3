"""The LLaMA layers (rotary embedding, grouped-query attention, decoder layer) against ``transformers``.

Our modules are compiled from the Lean Zoo layers ``Formal.Zoo.rotary``, ``gqa`` and
``llamaDecoderLayer`` as the reader instantiates them (``seq`` left a run-time dimension; the first test
checks that these are the terms of the round's specification, ``tests/llama_terms.py``) and get the
weights of the real ``transformers`` modules (``pybridge.references.hf``, through ``bridge_pairs``).
What ``transformers`` 5.24.0 does in float64 bounds what can be checked against it:

* ``LlamaRotaryEmbedding`` computes ``inv_freq`` and the angles in float32 whatever the dtype;
* ``LlamaRMSNorm`` casts to float32, normalises and casts back;
* ``eager_attention_forward`` takes the softmax with ``dtype=torch.float32``.

So the checks are: float32 against ``transformers`` ≤ 1e-5 (its eager attention, as ``LlamaModel`` runs
it); float64 ≤ 1e-10 against the hand-written float64 reference (``tests/llama_reference.py``); for the
attention, float64 ≤ 1e-10 against ``transformers``' ``LlamaAttention`` fed float64
``position_embeddings`` from that reference, with ``attn_implementation="sdpa"`` (eager would downcast the
softmax); and the measured float64 discrepancy to ``transformers`` as shipped, asserted to be float32
rounding: above 1e-12 and at most :data:`F64_VS_HF`.
"""

from __future__ import annotations

import pytest
import torch
from llama_reference import apply_rope, attention, decoder_layer, rope_cos_sin
from llama_terms import gqa_attention, llama_decoder

from pybridge.errors import TargetError
from pybridge.lean.catalogue import load_catalogue
from pybridge.references import hf
from pybridge.spec import terms as T
from pybridge.torch import adapters, runtime
from pybridge.torch.compiler import compile_term

#: The float64 discrepancy to ``transformers`` as shipped (float32 angles, norms and eager softmax):
#: measured 4.7e-8 to 2.3e-6 on these sizes (outputs of order 1); asserted at the float32 tolerance.
F64_VS_HF = 1e-5
SEQS = (1, 3, 8)


def _layer(name: str, **params: int) -> T.Term:
    """The Zoo layer's term for ``params`` (``seq`` stays the run-time dimension ``"seq"``)."""
    return load_catalogue().instantiate(name, params)[0]


def test_zoo_layers_are_the_spec_terms() -> None:
    assert _layer("rotary", heads=3, head_dim=4) == T.Rope(pre=(3,), seq="seq", k=4, base=10000)
    for d_model, heads, kv_heads, head_dim in GQA:
        assert _layer("gqa", d_model=d_model, heads=heads, kv_heads=kv_heads, head_dim=head_dim) == (
            gqa_attention("seq", d_model, kv_heads, heads // kv_heads, head_dim)
        )
    for d_model, heads, kv_heads, head_dim, d_ff in DECODER:
        term = _layer("llamaDecoderLayer", d_model=d_model, heads=heads, kv_heads=kv_heads,
                      head_dim=head_dim, d_ff=d_ff)
        assert term == llama_decoder("seq", d_model, kv_heads, heads // kv_heads, head_dim, d_ff)


def _double(pairs: list) -> list:
    return [(w.double(), None if b is None else b.double()) for w, b in pairs]


def _err(a: torch.Tensor, b: torch.Tensor) -> float:
    return (a.double() - b.double()).abs().max().item()


def _cos_sin(batch: int, seq: int, head_dim: int, dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    cos, sin = rope_cos_sin(seq, head_dim, dtype=dtype)
    return cos.expand(batch, -1, -1), sin.expand(batch, -1, -1)


# --- rotary -------------------------------------------------------------------------------------------

ROTARY = [(3, 4), (2, 8), (4, 16)]  # (heads, head_dim)


@pytest.mark.parametrize(("heads", "head_dim"), ROTARY)
def test_rotary_against_transformers(heads: int, head_dim: int) -> None:
    gen = torch.Generator().manual_seed(heads * head_dim)
    for dtype in (torch.float32, torch.float64):
        ours = compile_term(_layer("rotary", heads=heads, head_dim=head_dim), dtype=dtype)
        ref = hf.llama_rotary(heads, head_dim, dtype=dtype)
        assert ref.bridge_pairs() == []
        runtime.load_leaves(ours, ref.bridge_pairs())
        for seq in SEQS:
            x = torch.randn(2, heads, seq, head_dim, dtype=dtype, generator=gen)
            got = ours(x)
            if dtype == torch.float32:
                assert _err(got, ref(x)) <= 1e-5
                continue
            assert _err(got, apply_rope(x)) <= 1e-10
            # transformers' apply_rotary_pos_emb, fed float64 angles, is float64-exact
            assert _err(got, ref.forward_with(x, _cos_sin(2, seq, head_dim, dtype))) <= 1e-10
            # as shipped (float32 angles): float32 rounding
            err = _err(got, ref(x))
            assert err <= F64_VS_HF
            if seq > 1:  # position 0 has angle 0 in any precision
                assert err > 1e-12


# --- grouped-query attention --------------------------------------------------------------------------

GQA = [  # (d_model, heads, kv_heads, head_dim)
    (8, 4, 2, 2),  # the Lean Example
    (16, 4, 2, 4),
    (12, 6, 3, 6),  # heads * head_dim ≠ d_model
    (16, 4, 4, 4),  # kv_heads = heads: multi-head attention
    (16, 4, 1, 8),  # one key/value head: multi-query attention
]


def _gqa(d_model: int, heads: int, kv_heads: int, head_dim: int, dtype: torch.dtype,
         impl: str = "eager") -> tuple[torch.nn.Module, torch.nn.Module]:
    torch.manual_seed(d_model + heads + kv_heads + head_dim)
    term = _layer("gqa", d_model=d_model, heads=heads, kv_heads=kv_heads, head_dim=head_dim)
    ours = compile_term(term, dtype=dtype).eval()
    ref = hf.llama_attention(d_model, heads, kv_heads, head_dim, dtype=dtype, attn_implementation=impl)
    runtime.load_leaves(ours, ref.bridge_pairs())
    return ours, ref


@pytest.mark.parametrize("cfg", GQA, ids=[str(c) for c in GQA])
def test_gqa_float32_against_transformers(cfg: tuple[int, int, int, int]) -> None:
    ours, ref = _gqa(*cfg, torch.float32)
    gen = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for seq in SEQS:
            x = torch.randn(3, seq, cfg[0], generator=gen)
            assert _err(ours(x), ref(x)) <= 1e-5


@pytest.mark.parametrize("cfg", GQA, ids=[str(c) for c in GQA])
def test_gqa_float64(cfg: tuple[int, int, int, int]) -> None:
    d_model, heads, kv_heads, head_dim = cfg
    ours, sdpa = _gqa(*cfg, torch.float64, impl="sdpa")
    _, eager = _gqa(*cfg, torch.float64)  # same seed: the same weights
    pairs = _double(sdpa.bridge_pairs())
    assert all(torch.equal(a[0], b[0]) for a, b in zip(pairs, eager.bridge_pairs()))
    gen = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for seq in SEQS:
            x = torch.randn(3, seq, d_model, dtype=torch.float64, generator=gen)
            got = ours(x)
            assert _err(got, attention(x, pairs, heads, kv_heads, head_dim)) <= 1e-10
            cos_sin = _cos_sin(3, seq, head_dim, torch.float64)
            assert _err(got, sdpa.forward_with(x, cos_sin)) <= 1e-10
            # eager (float32 softmax) and float32 angles: float32 rounding
            for err in (_err(got, eager.forward_with(x, cos_sin)), _err(got, eager(x))):
                assert err <= F64_VS_HF
                if seq > 1:
                    assert err > 1e-12


def test_gqa_is_causal() -> None:
    ours, _ = _gqa(16, 4, 2, 4, torch.float64)
    x = torch.randn(2, 7, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        y = ours(x)
        for t in range(1, 7):
            x2 = x.clone()
            gen = torch.Generator().manual_seed(t)
            x2[:, t:] = torch.randn(2, 7 - t, 16, dtype=torch.float64, generator=gen)
            y2 = ours(x2)
            assert torch.equal(y2[:, :t], y[:, :t])  # earlier outputs: bit for bit
            assert not torch.equal(y2[:, t:], y[:, t:])


def test_gqa_groups_share_key_value_heads() -> None:
    # kv_heads = 1: every query head reads the same keys and values, so equal query heads give equal
    # outputs per head; with the query weights of head 0 copied to head 1 the merged outputs repeat.
    ours, ref = _gqa(16, 4, 1, 4, torch.float64)
    term = _layer("gqa", d_model=16, heads=4, kv_heads=1, head_dim=4)
    ours = compile_term(term, dtype=torch.float64, literal=True).eval()  # the tree, to run its fan3 step
    pairs = list(ref.bridge_pairs())
    wq, bq = pairs[0]
    wq = wq.clone()
    wq[4:8] = wq[0:4]
    pairs[0] = (wq, bq)
    runtime.load_leaves(ours, pairs)
    head_out = ours.f  # the fan3 step: ((Q, K), V)
    x = torch.randn(2, 5, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    with torch.no_grad():
        (q, k), v = head_out(x)
    assert q.shape == k.shape == v.shape == (2, 4, 5, 4)
    assert torch.equal(q[:, 0], q[:, 1])
    assert all(torch.equal(k[:, 0], k[:, h]) and torch.equal(v[:, 0], v[:, h]) for h in range(4))


# --- decoder layer ------------------------------------------------------------------------------------

DECODER = [  # (d_model, heads, kv_heads, head_dim, d_ff)
    (8, 4, 2, 2, 16),  # the Lean Example
    (16, 4, 2, 4, 24),
    (16, 4, 4, 4, 8),  # multi-head
]


def _decoder(cfg: tuple[int, ...], dtype: torch.dtype) -> tuple[torch.nn.Module, torch.nn.Module]:
    d_model, heads, kv_heads, head_dim, d_ff = cfg
    torch.manual_seed(sum(cfg))
    term = _layer("llamaDecoderLayer", d_model=d_model, heads=heads, kv_heads=kv_heads, head_dim=head_dim,
                  d_ff=d_ff)
    ours = compile_term(term, dtype=dtype).eval()
    ref = hf.llama_decoder_layer(d_model, heads, kv_heads, head_dim, d_ff, dtype=dtype)
    runtime.load_leaves(ours, ref.bridge_pairs())
    return ours, ref


@pytest.mark.parametrize("cfg", DECODER, ids=[str(c) for c in DECODER])
def test_decoder_layer_against_transformers(cfg: tuple[int, ...]) -> None:
    d_model, heads, kv_heads, head_dim, _ = cfg
    gen = torch.Generator().manual_seed(5)
    ours32, ref32 = _decoder(cfg, torch.float32)
    ours64, ref64 = _decoder(cfg, torch.float64)
    pairs = _double(ref64.bridge_pairs())
    with torch.no_grad():
        for seq in SEQS:
            x = torch.randn(2, seq, d_model, dtype=torch.float64, generator=gen)
            assert _err(ours32(x.float()), ref32(x.float())) <= 1e-5
            got = ours64(x)
            assert _err(got, decoder_layer(x, pairs, heads, kv_heads, head_dim)) <= 1e-10
            err = _err(got, ref64(x))  # float32 norms, softmax and angles inside transformers
            assert 1e-12 < err <= F64_VS_HF


def test_decoder_layer_is_causal() -> None:
    ours, _ = _decoder((16, 4, 2, 4, 24), torch.float64)
    x = torch.randn(1, 6, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(6))
    x2 = x.clone()
    x2[:, 4:] += 1.0
    with torch.no_grad():
        assert torch.equal(ours(x2)[:, :4], ours(x)[:, :4])


# --- adapters and references refuse what the Zoo layers do not compute ---------------------------------


def test_adapters_read_transformers_modules() -> None:
    ref = hf.llama_decoder_layer(16, 4, 2, 4, 24)
    pairs = adapters.from_llama_decoder_layer(ref.layer)
    assert [tuple(w.shape) for w, _ in pairs] == [(16,), (16, 16), (8, 16), (8, 16), (16, 16), (16,),
                                                   (24, 16), (24, 16), (16, 24)]
    assert [b is None for _, b in pairs] == [True, False, False, False, False, True, False, False, False]
    assert all(torch.equal(b, torch.zeros_like(b)) for _, b in pairs if b is not None)
    assert len(adapters.from_llama_attention(ref.layer.self_attn)) == 4
    assert adapters.from_llama_rotary_embedding(ref.rotary) == []
    assert {"LlamaRotaryEmbedding", "LlamaAttention", "LlamaDecoderLayer"} <= set(adapters.ADAPTERS)


def test_adapters_refuse_other_rope_and_activation() -> None:
    from transformers.models.llama.modeling_llama import LlamaAttention, LlamaDecoderLayer

    config = hf.llama_config(8, 4, 2, 2, 16)
    config.rope_parameters = {"rope_type": "default", "rope_theta": 500000.0}
    with pytest.raises(ValueError, match="base 10000"):
        adapters.from_llama_attention(LlamaAttention(config, layer_idx=0))
    config = hf.llama_config(8, 4, 2, 2, 16)
    config.hidden_act = "gelu"
    with pytest.raises(ValueError, match="SiLU"):
        adapters.from_llama_decoder_layer(LlamaDecoderLayer(config, layer_idx=0))
    with pytest.raises(ValueError, match="LlamaAttention"):
        adapters.from_llama_attention(torch.nn.Linear(2, 2))


def test_references_refuse_what_llama_config_refuses() -> None:
    with pytest.raises(TargetError, match="heads dividing d_model"):
        hf.llama_attention(10, 4, 2, 2)
    with pytest.raises(TargetError, match="kv_heads"):
        hf.llama_decoder_layer(8, 4, 3, 2, 16)
    with pytest.raises(TargetError, match="positive"):
        hf.llama_rotary(0, 2)


# --- the CLI: fragment and site on the three layers ---------------------------------------------------

EXPECTED_FRAGMENT = {  # rope is linear in its input (angles depend on positions only)
    "rotary": ("PL", 1, []),
    "gqa": ("transcendental", None, ["causalSoftmax", "matmul"]),
    "llamaDecoderLayer": ("transcendental", None, ["causalSoftmax", "matmul", "mul", "rmsNorm", "sigmoid"]),
}


@pytest.mark.parametrize("name", sorted(EXPECTED_FRAGMENT))
def test_cli_fragment_and_site(name: str) -> None:
    import json

    from typer.testing import CliRunner

    from pybridge.cli import app

    runner = CliRunner()
    args = ["fragment", name, "--json"] + ([] if name == "rotary" else ["--no-probe"])
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    cls, degree, offenders = EXPECTED_FRAGMENT[name]
    verdict = data["syntax"]["verdict"]
    assert (data["syntax"]["source"], verdict["cls"], verdict["degree"]) == ("arch", cls, degree)
    ops = {n["node"]: n["op"] for n in data["syntax"]["nodes"]}
    assert sorted({ops[n] for n in verdict["offending"]}) == offenders
    if name == "rotary":  # the numerical probe agrees: linear (second differences vanish)
        assert (data["probe"]["cls"], data["probe"]["degree"], data["agree"]) == ("PL", 1, True)
    site = runner.invoke(app, ["site", name])
    assert site.exit_code == 0, site.output
    assert "C thin (Prop. 1.1(i)): yes" in site.stdout


# --- `pybridge check` on the three layers (library) ------------------------------------------------------


@pytest.mark.parametrize("name", ["rotary", "gqa", "llamaDecoderLayer"])
def test_check_layer(name: str) -> None:
    from typer.testing import CliRunner

    from pybridge.cli import app
    from pybridge.laws.checks import EXACT_NAME, check_layer

    # the references declare bridge_dtypes = (float32,): check compares them in float32 only, and says
    # so; float64 is checked against the exact interpreter of Arch.eval (and above, by hand)
    results = check_layer(name, batches=(2,), seqs=(1, 5))
    spec = load_catalogue().layer(name).module_reference
    assert results and all(r.passed for r in results)
    cross = "optimised vs literal"
    against = {(r.reference, r.dtype, r.tolerance) for r in results if r.realisation != cross}
    assert against == {(spec, "float32", 1e-5), (EXACT_NAME, "float64", 1e-10)}
    res = CliRunner().invoke(app, ["check", name])
    assert res.exit_code == 0, res.output
    assert f"{spec} is compared in float32 only" in res.output and "FAIL" not in res.output


@pytest.mark.parametrize("name", ["gqa", "llamaDecoderLayer"])
def test_float64_against_the_exact_interpreter(name: str) -> None:
    # the compiled layer, with transformers' weights, against Arch.eval transcribed clause by clause
    # (float scalars: math.exp/sqrt/log/sin/cos)
    from pybridge.laws.checks import exact_reference

    if name == "gqa":
        ours, _ = _gqa(16, 4, 2, 4, torch.float64)
        term = _layer("gqa", d_model=16, heads=4, kv_heads=2, head_dim=4)
    else:
        ours, _ = _decoder((16, 4, 2, 4, 24), torch.float64)
        term = _layer("llamaDecoderLayer", d_model=16, heads=4, kv_heads=2, head_dim=4, d_ff=24)
    reference, _ = exact_reference(term, ours)
    gen = torch.Generator().manual_seed(8)
    with torch.no_grad():
        for seq in (1, 4):
            x = torch.randn(2, seq, 16, dtype=torch.float64, generator=gen)
            assert reference(x, ours(x)) <= 1e-10


def test_exact_reference_binds_seq_from_the_input() -> None:
    from pybridge.laws import exact as E
    from pybridge.spec.typing import signature

    term = _layer("gqa", d_model=8, heads=4, kv_heads=2, head_dim=2)
    x = torch.zeros(3, 6, 8)
    assert E.bind_dims(term, E.runtime_dims_of(signature(term).dom, x)) == gqa_attention(6, 8, 2, 2, 2)


# --- emitted files: Layer.from_torch on transformers' modules ------------------------------------------


def test_emitted_files_from_torch_match_transformers(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from emitted import emit_and_import

    cases = {  # the emitted file's from_torch takes the transformers module the reference wraps
        "gqa": (["-p", "d_model=16", "-p", "heads=4", "-p", "kv_heads=2", "-p", "head_dim=4"],
                lambda: hf.llama_attention(16, 4, 2, 4), lambda ref: ref.attn),
        "llamaDecoderLayer": (["-p", "d_model=16", "-p", "heads=4", "-p", "kv_heads=2", "-p", "head_dim=4",
                               "-p", "d_ff=24"], lambda: hf.llama_decoder_layer(16, 4, 2, 4, 24),
                              lambda ref: ref.layer),
    }
    for name, (params, build, inner) in cases.items():
        module = emit_and_import(tmp_path, name, params)
        torch.manual_seed(0)
        ref = build()
        layer = module.Layer.from_torch(inner(ref))
        gen = torch.Generator().manual_seed(1)
        with torch.no_grad():
            for seq in (1, 6):
                x = torch.randn(2, seq, 16, generator=gen)
                assert _err(layer(x), ref(x)) <= 1e-5


def test_decoder_layer_under_torch_compile() -> None:
    # one compiled graph (fullgraph, dynamic shapes) serves several sequence lengths: rope reads seq
    # from the input
    ours = compile_term(_layer("llamaDecoderLayer", d_model=16, heads=4, kv_heads=2, head_dim=4, d_ff=24),
                        dtype=torch.float32).eval()
    compiled = torch.compile(ours, backend="aot_eager", fullgraph=True, dynamic=True)
    gen = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for seq in (3, 7):
            x = torch.randn(2, seq, 16, generator=gen)
            assert _err(compiled(x), ours(x)) <= 1e-6
