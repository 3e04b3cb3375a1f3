"""The Zoo layers ``causalAttention``, ``rmsNorm`` and ``swiglu`` against the real ``transformers``
modules (``pybridge/references/hf.py``): GPT-2's ``GPT2Attention``, ``LlamaRMSNorm``, ``LlamaMLP``.

Our side is the layer's term (``tests/zoo_terms_a.py``, the definitions of ``Formal/Network/Derived.lean``
in Python; the reader builds the same terms from the Lean files, ``test_catalogue_builds_these_terms``),
compiled, with the reference's weights copied in through ``bridge_pairs()``. Tolerances (maximal
absolute error, inputs standard normal): float64 1e-10, float32 1e-5, where ``transformers`` computes
in the input's dtype (GPT-2 attention, ``LlamaMLP``). ``LlamaRMSNorm`` computes in float32 whatever the
input dtype, so it is checked in float32 (1e-5) against ``transformers`` and in float64 (1e-10) against a
hand-written float64 reference of its formula; the float64 discrepancy to ``transformers`` is float32
rounding, and the test asserts it lies in ``(1e-10, 1e-5]``. Also: the exact interpreter of the Lean
semantics (float scalars) against the compiled layers (1e-12), and the causal mask (changing a later
token changes no earlier output; without the mask the comparison with GPT-2 fails).
"""

from __future__ import annotations

import pytest
import torch

transformers = pytest.importorskip("transformers")

from tests_support_a import rms_norm_float64  # noqa: E402
from zoo_terms_a import causal_attention, rms_norm, swiglu  # noqa: E402

from pybridge.laws import exact as E  # noqa: E402
from pybridge.references import hf  # noqa: E402
from pybridge.spec import terms as T  # noqa: E402
from pybridge.torch import adapters, compile_term, runtime  # noqa: E402

TOL = {torch.float64: 1e-10, torch.float32: 1e-5}
SEQS = (1, 4, 7)


def _pair(term: T.Term, ref: torch.nn.Module, dtype: torch.dtype) -> torch.nn.Module:
    ours = compile_term(term, dtype=dtype).eval()
    runtime.load_leaves(ours, ref.bridge_pairs())
    return ours


def _x(batch: int, seq: int, d: int, dtype: torch.dtype, seed: int = 0) -> torch.Tensor:
    return torch.randn(batch, seq, d, dtype=dtype, generator=torch.Generator().manual_seed(seed))


def _err(a: torch.Tensor, b: torch.Tensor) -> float:
    return (a.to(torch.float64) - b.to(torch.float64)).abs().max().item()


# --- GPT-2 causal self-attention ---------------------------------------------------------------------


@pytest.mark.parametrize(("d_model", "heads"), [(8, 2), (4, 1), (6, 3)])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_causal_attention_equals_gpt2_attention(d_model: int, heads: int, dtype: torch.dtype) -> None:
    torch.manual_seed(d_model + heads)
    ref = hf.gpt2_attention(d_model=d_model, heads=heads, dtype=dtype)
    assert type(ref.attn).__name__ == "GPT2Attention" and ref.config._attn_implementation == "eager"
    ours = _pair(causal_attention(d_model, heads), ref, dtype)
    with torch.no_grad():
        for seq in SEQS:
            x = _x(3, seq, d_model, dtype, seed=seq)
            assert _err(ours(x), ref(x)) <= TOL[dtype]


def test_the_causal_mask_is_applied() -> None:
    torch.manual_seed(1)
    ref = hf.gpt2_attention(d_model=8, heads=2, dtype=torch.float64)
    ours = _pair(causal_attention(8, 2), ref, torch.float64)
    x = _x(2, 6, 8, torch.float64, seed=3)
    y = x.clone()
    y[:, 3] += 5.0  # change token 3
    with torch.no_grad():
        for model in (ours, ref):
            a, b = model(x), model(y)
            assert torch.equal(a[:, :3], b[:, :3])  # earlier outputs: bit for bit unchanged
            assert _err(a[:, 3:], b[:, 3:]) > 1e-3  # token 3 and later do change
        # without the mask: GPT2Attention called with no mask is bidirectional, and differs from ours
        unmasked = ref.attn(x, attention_mask=None)[0]
        assert _err(ours(x), unmasked) > 1e-3


def test_non_causal_attention_term_fails_against_gpt2() -> None:
    # negative control: the same term with softmax in place of causalSoftmax
    term = causal_attention(8, 2)
    causal = T.CausalSoftmax(pre=(2,), n="seq")
    plain = T.Softmax(pre=(2, "seq"), n="seq")

    def swap(t: T.Term) -> T.Term:
        if t == causal:
            return plain
        if isinstance(t, T.Comp | T.Par):
            return type(t)(f=swap(t.f), g=swap(t.g))
        return t

    bidirectional = swap(term)
    assert bidirectional != term
    torch.manual_seed(2)
    ref = hf.gpt2_attention(d_model=8, heads=2, dtype=torch.float64)
    ours = _pair(bidirectional, ref, torch.float64)
    x = _x(2, 5, 8, torch.float64)
    with torch.no_grad():
        assert _err(ours(x), ref(x)) > 1e-3


def test_gpt2_adapter_refuses_other_configurations() -> None:
    from transformers.models.gpt2.modeling_gpt2 import GPT2Attention

    def build(**kw):
        return GPT2Attention(transformers.GPT2Config(n_embd=4, n_head=2, **kw), layer_idx=0).eval()

    assert len(adapters.from_gpt2_attention(build())) == 4
    with pytest.raises(ValueError, match="reorder_and_upcast_attn"):
        adapters.from_gpt2_attention(build(reorder_and_upcast_attn=True))
    with pytest.raises(ValueError, match="scale"):
        adapters.from_gpt2_attention(build(scale_attn_weights=False))
    with pytest.raises(ValueError, match="GPT2Attention"):
        adapters.from_gpt2_attention(torch.nn.Linear(2, 2))
    cross = GPT2Attention(transformers.GPT2Config(n_embd=4, n_head=2), is_cross_attention=True, layer_idx=0)
    with pytest.raises(ValueError, match="self-attention"):
        adapters.from_gpt2_attention(cross)


def test_gpt2_pairs_split_c_attn_into_q_k_v() -> None:
    torch.manual_seed(3)
    ref = hf.gpt2_attention(d_model=4, heads=2, dtype=torch.float64)
    (wq, bq), (wk, bk), (wv, bv), (wo, bo) = ref.bridge_pairs()
    x = _x(1, 2, 4, torch.float64)
    qkv = ref.attn.c_attn(x)  # Conv1D: x @ W + b, columns q | k | v
    for i, (w, b) in enumerate(((wq, bq), (wk, bk), (wv, bv))):
        assert _err(x @ w.T + b, qkv[..., 4 * i : 4 * (i + 1)]) <= 1e-14
    assert _err(x @ wo.T + bo, ref.attn.c_proj(x)) <= 1e-14


# --- RMSNorm -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [1, 8, 13])
def test_rms_norm_float64_against_hand_written_reference(d: int) -> None:
    torch.manual_seed(d)
    ref = hf.llama_rms_norm(d=d, dtype=torch.float64)
    ours = _pair(rms_norm(d), ref, torch.float64)
    ((gamma, bias),) = ref.bridge_pairs()
    assert bias is None and torch.equal(gamma, ref.norm.weight.detach())
    assert ref.norm.variance_epsilon == 1e-6
    with torch.no_grad():
        for seq in SEQS:
            x = _x(3, seq, d, torch.float64, seed=seq)
            assert _err(ours(x), rms_norm_float64(x, gamma, 1e-6)) <= 1e-10


@pytest.mark.parametrize("d", [1, 8, 13])
def test_rms_norm_float32_against_llama_rms_norm(d: int) -> None:
    torch.manual_seed(d)
    ref = hf.llama_rms_norm(d=d, dtype=torch.float32)
    ours = _pair(rms_norm(d), ref, torch.float32)
    with torch.no_grad():
        for seq in SEQS:
            x = _x(3, seq, d, torch.float32, seed=seq)
            assert _err(ours(x), ref(x)) <= 1e-5


def test_rms_norm_float64_discrepancy_to_transformers_is_float32_rounding() -> None:
    # LlamaRMSNorm casts to float32 inside: against it a float64 input gets float32 precision, not 1e-10
    torch.manual_seed(0)
    ref = hf.llama_rms_norm(d=8, dtype=torch.float64)
    ours = _pair(rms_norm(8), ref, torch.float64)
    with torch.no_grad():
        worst = max(_err(ours(x), ref(x)) for x in (_x(3, s, 8, torch.float64, seed=s) for s in SEQS))
    assert 1e-10 < worst <= 1e-5
    # so the reference declares that it is faithful in float32 only (pybridge check reads it)
    assert ref.bridge_dtypes == (torch.float32,)
    assert not hasattr(hf.llama_mlp(d=2, d_ff=2), "bridge_dtypes")
    assert not hasattr(hf.gpt2_attention(d_model=2, heads=1), "bridge_dtypes")


def test_rms_norm_adapter() -> None:
    from transformers.models.llama.modeling_llama import LlamaRMSNorm

    norm = LlamaRMSNorm(3)
    ((w, b),) = adapters.from_llama_rms_norm(norm)
    assert b is None and torch.equal(w, norm.weight.detach())
    with pytest.raises(ValueError, match="LlamaRMSNorm"):
        adapters.from_llama_rms_norm(torch.nn.LayerNorm(3))


# --- SwiGLU feed-forward -----------------------------------------------------------------------------


@pytest.mark.parametrize(("d", "d_ff"), [(8, 16), (1, 1), (5, 7)])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_swiglu_equals_llama_mlp(d: int, d_ff: int, dtype: torch.dtype) -> None:
    torch.manual_seed(d * 31 + d_ff)
    ref = hf.llama_mlp(d=d, d_ff=d_ff, dtype=dtype)
    assert ref.mlp.gate_proj.bias is None  # mlp_bias=False: the pairs carry zero biases
    assert all(torch.equal(b, torch.zeros_like(b)) for _, b in ref.bridge_pairs())
    ours = _pair(swiglu(d, d_ff), ref, dtype)
    with torch.no_grad():
        for seq in SEQS:
            x = _x(3, seq, d, dtype, seed=seq)
            assert _err(ours(x), ref(x)) <= TOL[dtype]


def test_swiglu_with_biases_and_leaf_order() -> None:
    # mlp_bias=True: the biases are transferred too; swapping gate and up is detected
    from transformers.models.llama.modeling_llama import LlamaMLP

    torch.manual_seed(4)
    cfg = transformers.LlamaConfig(hidden_size=4, intermediate_size=6, mlp_bias=True, hidden_act="silu",
                                   num_attention_heads=1, num_key_value_heads=1, head_dim=4)
    mlp = LlamaMLP(cfg).to(torch.float64).eval()
    with torch.no_grad():
        for p in mlp.parameters():
            p.normal_()
    ours = compile_term(swiglu(4, 6), dtype=torch.float64).eval()
    pairs = adapters.from_llama_mlp(mlp)
    runtime.load_leaves(ours, pairs)
    x = _x(2, 3, 4, torch.float64)
    with torch.no_grad():
        assert _err(ours(x), mlp(x)) <= 1e-10
        runtime.load_leaves(ours, [pairs[1], pairs[0], pairs[2]])
        assert _err(ours(x), mlp(x)) > 1e-3
    cfg.hidden_act = "gelu"
    with pytest.raises(ValueError, match="SiLU"):
        adapters.from_llama_mlp(LlamaMLP(cfg))


# --- the Lean semantics ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("term", "ref"),
    [
        (causal_attention(4, 2, seq=3), lambda: hf.gpt2_attention(d_model=4, heads=2, dtype=torch.float64)),
        (causal_attention(3, 1, seq=1), lambda: hf.gpt2_attention(d_model=3, heads=1, dtype=torch.float64)),
        (rms_norm(5, seq=2), lambda: hf.llama_rms_norm(d=5, dtype=torch.float64)),
        (swiglu(3, 4, seq=2), lambda: hf.llama_mlp(d=3, d_ff=4, dtype=torch.float64)),
    ],
    ids=["causalAttention-seq3", "causalAttention-seq1", "rmsNorm", "swiglu"],
)
def test_exact_interpreter_against_compiled(term: T.Term, ref) -> None:
    torch.manual_seed(5)
    ours = _pair(term, ref(), torch.float64)
    params = E.params_from_module(term, ours)
    seq, d = E.check(term).dom.dims  # instantiated terms: seq is an integer here
    x = _x(2, seq, d, torch.float64, seed=7)
    with torch.no_grad():
        y = ours(x)
    for i in range(2):
        assert E.max_abs_error(E.sample(y, i), E.eval_term(term, params, E.sample(x, i), E.FLOAT)) <= 1e-12
