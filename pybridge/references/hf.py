"""References from ``transformers`` for the Zoo layers of today's decoder models.

Each function is named by a Zoo layer's ``Reference:`` line. It is called with the layer's parameters
(ints) and ``dtype``, builds the real ``transformers`` module from a config (random weights, nothing
downloaded, eval mode, ``attn_implementation="eager"`` where there is attention) and returns it wrapped
in a small ``nn.Module`` ``m``: ``m(x)`` takes the layer's batch-first input and calls the module the
way ``transformers`` calls it, and ``m.bridge_pairs()`` returns its weights as the ``(weight, bias)``
pairs of the Lean term's parametrised leaves in depth-first order, through the adapters of
:mod:`pybridge.torch.adapters` (``(weight, None)`` for an RMS norm; a zero bias where ``transformers``
has no bias, since ``Arch.linear`` is affine).

**Weights.** ``transformers`` initialises biases to zero, norm scales to one and ``Conv1D`` weights
with standard deviation 0.02, which would leave the transfer of biases and scales untested and the
attention nearly uniform. After building, every parameter is redrawn from torch's global generator
(standard normal times ``1/√fan_in`` for matrices, standard normal for vectors), so
``torch.manual_seed`` makes a reference reproducible.

``transformers`` is the optional extra ``models``; without it these functions raise
:class:`~pybridge.errors.TargetError`.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn

from pybridge.errors import TargetError
from pybridge.torch import adapters

Pairs = list[tuple[torch.Tensor, torch.Tensor | None]]

#: ``Reference:`` line → (adapter of :mod:`pybridge.torch.adapters`, the ``transformers`` class it reads):
#: the emitted file's ``Layer.from_torch`` takes that module (the one the reference wraps).
ADAPTERS: dict[str, tuple[str, str]] = {
    "pybridge.references.hf:gpt2_attention": ("from_gpt2_attention", "GPT2Attention"),
    "pybridge.references.hf:llama_rms_norm": ("from_llama_rms_norm", "LlamaRMSNorm"),
    "pybridge.references.hf:llama_mlp": ("from_llama_mlp", "LlamaMLP"),
    "pybridge.references.hf:llama_attention": ("from_llama_attention", "LlamaAttention"),
    "pybridge.references.hf:llama_decoder_layer": ("from_llama_decoder_layer", "LlamaDecoderLayer"),
}


def _transformers() -> Any:
    try:
        import transformers
    except ImportError:
        raise TargetError(
            "pybridge.references.hf: these references need the optional extra 'models' "
            "(pip install -e '.[models]')"
        ) from None
    return transformers


def _redraw(module: nn.Module, fan_in_axis: int) -> None:
    """Redraw every parameter: matrices ``N(0, 1/fan_in)`` (``fan_in`` = size of ``fan_in_axis``),
    vectors ``N(0, 1)``."""
    with torch.no_grad():
        for p in module.parameters():
            if p.dim() >= 2:
                p.normal_(0.0, 1.0 / math.sqrt(p.shape[fan_in_axis]))
            else:
                p.normal_(0.0, 1.0)


def _positive(**dims: int) -> None:
    for name, value in dims.items():
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise TargetError(f"pybridge.references.hf: {name} must be a positive integer, got {value!r}")


# --- GPT-2 causal self-attention ---------------------------------------------------------------------


class GPT2CausalSelfAttention(nn.Module):
    """``GPT2Attention`` called as ``GPT2Model`` calls it: with the causal mask of
    ``transformers.masking_utils.create_causal_mask`` (no padding, no cache), returning the attention
    output (the first element of the module's output)."""

    def __init__(self, attn: nn.Module, config: Any) -> None:
        super().__init__()
        self.attn = attn
        self.config = config

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        from transformers.masking_utils import create_causal_mask

        mask = create_causal_mask(config=self.config, inputs_embeds=x, attention_mask=None, cache=None)
        return self.attn(x, attention_mask=mask)[0]

    def bridge_pairs(self) -> Pairs:
        """Queries, keys, values (``c_attn`` split and transposed), output projection (``c_proj``)."""
        return adapters.from_gpt2_attention(self.attn)


def gpt2_attention(d_model: int, heads: int, *, dtype: torch.dtype = torch.float32) -> nn.Module:
    """GPT-2's causal self-attention (``GPT2Attention``, eager, dropout 0, ``scale_attn_weights=True``)
    of width ``d_model`` with ``heads`` heads, for ``Formal.Zoo.causalAttention``. It computes in the
    input's dtype (``reorder_and_upcast_attn=False``, GPT-2's default)."""
    _positive(d_model=d_model, heads=heads)
    if d_model % heads:
        raise TargetError(f"gpt2_attention: heads={heads} must divide d_model={d_model}")
    tf = _transformers()
    from transformers.models.gpt2.modeling_gpt2 import GPT2Attention

    config = tf.GPT2Config(
        attn_implementation="eager",
        n_embd=d_model,
        n_head=heads,
        attn_pdrop=0.0,
        resid_pdrop=0.0,
        embd_pdrop=0.0,
    )
    attn = GPT2Attention(config, layer_idx=0)
    _redraw(attn, fan_in_axis=0)  # Conv1D weights are [in, out]
    return GPT2CausalSelfAttention(attn, config).to(dtype).eval()


# --- RMSNorm -----------------------------------------------------------------------------------------


class LlamaRMSNormReference(nn.Module):
    """``LlamaRMSNorm`` on the last axis, as the decoder layer calls it. It computes in float32 whatever
    the input's dtype, so it is faithful in float32 only: ``bridge_dtypes`` (read by ``pybridge
    check``, which compares it in those dtypes only)."""

    bridge_dtypes = (torch.float32,)

    def __init__(self, norm: nn.Module) -> None:
        super().__init__()
        self.norm = norm

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)

    def bridge_pairs(self) -> Pairs:
        """The scale, as ``(weight, None)``."""
        return adapters.from_llama_rms_norm(self.norm)


def llama_rms_norm(d: int, *, dtype: torch.dtype = torch.float32) -> nn.Module:
    """``LlamaRMSNorm(d, eps=1e-6)``, for ``Formal.Zoo.rmsNorm``.

    Its ``forward`` casts the input to float32, normalises, and casts back: a float64 input gets
    float32 precision. The float64 discrepancy to the Lean term's float64 realisation is float32
    rounding (``pybridge check rmsNorm``: at most 4.0e-07; ``tests/test_references_hf.py`` asserts that
    it lies in ``(1e-10, 1e-5]``)."""
    _positive(d=d)
    _transformers()
    from transformers.models.llama.modeling_llama import LlamaRMSNorm

    norm = LlamaRMSNorm(d, eps=1e-6)
    _redraw(norm, fan_in_axis=-1)
    return LlamaRMSNormReference(norm).to(dtype).eval()


# --- SwiGLU feed-forward -------------------------------------------------------------------------------


class LlamaMLPReference(nn.Module):
    """``LlamaMLP``: ``down_proj(silu(gate_proj(x)) * up_proj(x))``."""

    def __init__(self, mlp: nn.Module) -> None:
        super().__init__()
        self.mlp = mlp

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mlp(x)

    def bridge_pairs(self) -> Pairs:
        """``gate_proj``, ``up_proj``, ``down_proj``, each with a zero bias (``mlp_bias=False``)."""
        return adapters.from_llama_mlp(self.mlp)


def llama_mlp(d: int, d_ff: int, *, dtype: torch.dtype = torch.float32) -> nn.Module:
    """``LlamaMLP`` of width ``d`` and inner width ``d_ff`` (SiLU, ``mlp_bias=False`` as in Llama),
    for ``Formal.Zoo.swiglu``. It computes in the input's dtype. Its linear maps have no bias: their
    pairs carry zero biases."""
    _positive(d=d, d_ff=d_ff)
    tf = _transformers()
    from transformers.models.llama.modeling_llama import LlamaMLP

    config = tf.LlamaConfig(
        hidden_size=d,
        intermediate_size=d_ff,
        hidden_act="silu",
        mlp_bias=False,
        num_attention_heads=1,  # the attention fields are unused by LlamaMLP; an even head_dim
        num_key_value_heads=1,  # keeps the config's rotary validation quiet for any d
        head_dim=2,
    )
    mlp = LlamaMLP(config)
    _redraw(mlp, fan_in_axis=-1)  # nn.Linear weights are [out, in]
    return LlamaMLPReference(mlp).to(dtype).eval()


# --- rotary embedding, grouped-query attention, decoder layer (LLaMA) ------------------------------------

#: The RoPE base of the Zoo layers (``Arch.rope … 10000``).
ROPE_THETA = 10000.0


def llama_config(
    d_model: int, heads: int, kv_heads: int, head_dim: int, d_ff: int = 1, attn_implementation: str = "eager"
) -> Any:
    """The ``LlamaConfig`` of the Zoo's LLaMA layers: ``rope_parameters`` default with
    ``rope_theta = 10000``, ``rms_norm_eps = 1e-6``, SiLU, no biases, dropout 0, eager attention unless
    ``attn_implementation`` says otherwise. ``LlamaConfig``'s validator requires ``heads ∣ d_model``
    (the Lean layers do not), and ``kv_heads ∣ heads`` is required as in the Lean layers: other
    parameters raise :class:`~pybridge.errors.TargetError`."""
    _positive(d_model=d_model, heads=heads, kv_heads=kv_heads, head_dim=head_dim, d_ff=d_ff)
    if d_model % heads or heads % kv_heads:
        raise TargetError(
            f"pybridge.references.hf: transformers' LlamaConfig needs heads dividing d_model and kv_heads "
            f"dividing heads (got d_model={d_model}, heads={heads}, kv_heads={kv_heads})"
        )
    tf = _transformers()
    return tf.LlamaConfig(
        hidden_size=d_model,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        head_dim=head_dim,
        intermediate_size=d_ff,
        rms_norm_eps=1e-6,
        attention_bias=False,
        mlp_bias=False,
        hidden_act="silu",
        attention_dropout=0.0,
        rope_parameters={"rope_type": "default", "rope_theta": ROPE_THETA},
        attn_implementation=attn_implementation,
    )


def _positions(x: torch.Tensor, seq: int) -> torch.Tensor:
    """``LlamaModel``'s default position ids ``0, …, seq-1``, one row per sample."""
    return torch.arange(seq, device=x.device).unsqueeze(0).expand(x.shape[0], -1)


CosSin = tuple[torch.Tensor, torch.Tensor]


class LlamaRotaryReference(nn.Module):
    """``LlamaRotaryEmbedding`` + ``apply_rotary_pos_emb`` on a batch-first ``[B, heads, seq, head_dim]``
    input (the layout of ``LlamaAttention``'s queries); ``m(x)`` returns the rotated queries."""

    #: ``LlamaRotaryEmbedding`` computes ``inv_freq`` and the angles in float32 whatever the input's dtype:
    #: faithful in float32 only (``bridge_dtypes``, read by ``pybridge check``, which compares it there).
    bridge_dtypes = (torch.float32,)

    def __init__(self, rotary: nn.Module) -> None:
        super().__init__()
        self.rotary = rotary

    def position_embeddings(self, x: torch.Tensor) -> CosSin:
        """``(cos, sin)``, each ``[B, seq, head_dim]``, from ``LlamaRotaryEmbedding`` (float32 angles)."""
        return self.rotary(x, _positions(x, x.shape[-2]))

    def forward_with(self, x: torch.Tensor, position_embeddings: CosSin) -> torch.Tensor:
        """``apply_rotary_pos_emb`` with the given ``(cos, sin)``."""
        from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

        cos, sin = position_embeddings
        return apply_rotary_pos_emb(x, x, cos, sin)[0]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.forward_with(x, self.position_embeddings(x))

    def bridge_pairs(self) -> Pairs:
        """No weights (``Arch.rope`` has none); checks the RoPE configuration."""
        return adapters.from_llama_rotary_embedding(self.rotary)


class LlamaAttentionReference(nn.Module):
    """``LlamaAttention`` called as ``LlamaModel`` calls it: ``position_embeddings`` from
    ``LlamaRotaryEmbedding`` for positions ``0, …, seq-1`` and the causal mask that
    ``create_causal_mask`` builds for the attention implementation (no padding, no cache); returns the
    attention output."""

    #: The rotary angles are float32, and eager attention takes the softmax in float32, whatever the
    #: input's dtype: faithful in float32 only (``bridge_dtypes``, read by ``pybridge check``).
    bridge_dtypes = (torch.float32,)

    def __init__(self, attn: nn.Module, rotary: nn.Module, config: Any) -> None:
        super().__init__()
        self.attn = attn
        self.rotary = rotary
        self.config = config

    def position_embeddings(self, x: torch.Tensor) -> CosSin:
        """``(cos, sin)``, each ``[B, seq, head_dim]``, from ``LlamaRotaryEmbedding`` (float32 angles)."""
        return self.rotary(x, _positions(x, x.shape[1]))

    def forward_with(self, x: torch.Tensor, position_embeddings: CosSin) -> torch.Tensor:
        """``LlamaAttention`` with the given ``(cos, sin)`` (``LlamaAttention.forward`` takes them as an
        argument) and ``transformers``' causal mask (``create_causal_mask``)."""
        from transformers.masking_utils import create_causal_mask

        mask = create_causal_mask(config=self.config, inputs_embeds=x, attention_mask=None, cache=None,
                                  position_ids=_positions(x, x.shape[1]))
        return self.attn(x, position_embeddings=position_embeddings, attention_mask=mask)[0]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.forward_with(x, self.position_embeddings(x))

    def bridge_pairs(self) -> Pairs:
        """``q_proj, k_proj, v_proj, o_proj``, each with a zero bias (``attention_bias=False``)."""
        return adapters.from_llama_attention(self.attn)


class LlamaDecoderLayerReference(nn.Module):
    """``LlamaDecoderLayer`` called as ``LlamaModel`` calls it (position embeddings and causal mask as
    for :class:`LlamaAttentionReference`)."""

    #: The RMSNorms normalise in float32, the rotary angles are float32 and eager attention takes the
    #: softmax in float32, whatever the input's dtype: faithful in float32 only (``bridge_dtypes``, read
    #: by ``pybridge check``).
    bridge_dtypes = (torch.float32,)

    def __init__(self, layer: nn.Module, rotary: nn.Module, config: Any) -> None:
        super().__init__()
        self.layer = layer
        self.rotary = rotary
        self.config = config

    def position_embeddings(self, x: torch.Tensor) -> CosSin:
        """``(cos, sin)``, each ``[B, seq, head_dim]``, from ``LlamaRotaryEmbedding`` (float32 angles)."""
        return self.rotary(x, _positions(x, x.shape[1]))

    def forward_with(self, x: torch.Tensor, position_embeddings: CosSin) -> torch.Tensor:
        """``LlamaDecoderLayer`` with the given ``(cos, sin)`` and ``transformers``' causal mask."""
        from transformers.masking_utils import create_causal_mask

        positions = _positions(x, x.shape[1])
        mask = create_causal_mask(config=self.config, inputs_embeds=x, attention_mask=None, cache=None,
                                  position_ids=positions)
        return self.layer(
            x, attention_mask=mask, position_ids=positions, position_embeddings=position_embeddings
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.forward_with(x, self.position_embeddings(x))

    def bridge_pairs(self) -> Pairs:
        """``input_layernorm`` ``(γ, None)``, ``q, k, v, o``, ``post_attention_layernorm`` ``(γ, None)``,
        ``gate, up, down`` (zero biases): the leaf order of ``Arch.llamaDecoder``."""
        return adapters.from_llama_decoder_layer(self.layer)


def llama_rotary(heads: int, head_dim: int, *, dtype: torch.dtype = torch.float32) -> nn.Module:
    """``LlamaRotaryEmbedding`` (base 10000) applied by ``apply_rotary_pos_emb`` to a
    ``[B, heads, seq, head_dim]`` input, for ``Formal.Zoo.rotary``. ``LlamaRotaryEmbedding`` computes
    ``inv_freq`` and the angles in float32 whatever the dtype (then casts cos/sin to it): a float64 run
    has float32 angles."""
    config = llama_config(heads * head_dim, heads, heads, head_dim)
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    return LlamaRotaryReference(LlamaRotaryEmbedding(config)).to(dtype).eval()


def llama_attention(
    d_model: int, heads: int, kv_heads: int, head_dim: int, *, dtype: torch.dtype = torch.float32,
    attn_implementation: str = "eager",
) -> nn.Module:
    """``LlamaAttention`` (causal, grouped-query: ``heads / kv_heads`` query heads per key/value head,
    RoPE base 10000, ``attention_bias=False``: zero biases), for ``Formal.Zoo.gqa``. Eager attention
    takes the softmax in float32 (``eager_attention_forward``: ``softmax(..., dtype=torch.float32)``),
    and the rotary angles are float32 too; ``attn_implementation="sdpa"`` uses ``transformers``'
    ``sdpa_attention_forward`` (``torch``'s fused kernel, in the input's dtype)."""
    config = llama_config(d_model, heads, kv_heads, head_dim, attn_implementation=attn_implementation)
    from transformers.models.llama.modeling_llama import LlamaAttention, LlamaRotaryEmbedding

    attn = LlamaAttention(config, layer_idx=0)
    _redraw(attn, fan_in_axis=-1)
    return LlamaAttentionReference(attn, LlamaRotaryEmbedding(config), config).to(dtype).eval()


def llama_decoder_layer(
    d_model: int, heads: int, kv_heads: int, head_dim: int, d_ff: int, *, dtype: torch.dtype = torch.float32
) -> nn.Module:
    """``LlamaDecoderLayer`` (RMSNorm eps 1e-6, grouped-query causal attention with RoPE base 10000,
    SwiGLU MLP, no biases: zero biases), for ``Formal.Zoo.llamaDecoderLayer``. Its RMSNorms normalise in
    float32, its eager softmax is float32, its rotary angles are float32: a float64 run has float32
    rounding in it."""
    config = llama_config(d_model, heads, kv_heads, head_dim, d_ff)
    from transformers.models.llama.modeling_llama import LlamaDecoderLayer, LlamaRotaryEmbedding

    layer = LlamaDecoderLayer(config, layer_idx=0)
    _redraw(layer, fan_in_axis=-1)
    return LlamaDecoderLayerReference(layer, LlamaRotaryEmbedding(config), config).to(dtype).eval()
