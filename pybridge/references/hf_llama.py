"""``transformers``' LLaMA modules as references for the Zoo layers ``rotary``, ``gqa`` and
``llamaDecoderLayer`` (``Reference:`` lines of ``Formal/Zoo/{Rotary,GQA,Llama}.lean``).

Each function takes the layer's parameters (ints) and ``dtype``, builds the real ``transformers`` module
from a :class:`~transformers.LlamaConfig` (random initialisation, nothing downloaded; RoPE base
``rope_theta = 10000``, ``rms_norm_eps = 1e-6``, no biases, eager attention), and returns it in eval
mode, wrapped in a small ``nn.Module`` that calls it the way ``transformers``' ``LlamaModel`` does:
position ids ``0, …, seq-1``, ``position_embeddings`` from ``LlamaRotaryEmbedding``, and (for the
attention) the causal mask that ``create_causal_mask`` builds for eager attention. ``bridge_pairs()``
lists the weights in the depth-first leaf order of the Lean term: ``(weight, bias)`` for each linear map,
with a **zero** bias where ``transformers`` has none (``Arch.linear`` is affine), and ``(γ, None)`` for
each RMSNorm.

Precision, as ``transformers`` 5.24.0 ships these modules (read off ``modeling_llama.py``):
``LlamaRotaryEmbedding`` computes ``inv_freq`` and the angles in float32 whatever the dtype,
``LlamaRMSNorm`` normalises in float32 and casts back, and ``eager_attention_forward`` takes the softmax
in float32. A float64 run of these modules therefore has float32 rounding in it; the wrappers'
``forward_with`` methods take ``position_embeddings`` from the caller so that a float64 check can
supply angles computed in float64.
"""

from __future__ import annotations

import torch
from torch import nn

#: The RoPE base of the Zoo layers (``Arch.rope … 10000``).
ROPE_THETA = 10000.0
#: The RMSNorm epsilon of the Zoo layers (``.rat 1 1000000``).
RMS_NORM_EPS = 1e-6


def llama_config(
    d_model: int, heads: int, kv_heads: int, head_dim: int, d_ff: int = 1, attn_implementation: str = "eager"
) -> object:
    """The ``LlamaConfig`` of the Zoo layers: no biases, SiLU, RoPE base 10000, eager attention unless
    ``attn_implementation`` says otherwise. Raises ``ValueError`` for parameters that ``LlamaConfig``
    refuses (its validator requires ``heads ∣ d_model``; the Lean layers do not)."""
    from transformers import LlamaConfig

    if heads <= 0 or kv_heads <= 0 or d_model % heads or heads % kv_heads:
        raise ValueError(
            f"transformers' LlamaConfig needs heads > 0 dividing d_model and kv_heads > 0 dividing heads "
            f"(got d_model={d_model}, heads={heads}, kv_heads={kv_heads})"
        )
    return LlamaConfig(
        hidden_size=d_model,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        head_dim=head_dim,
        intermediate_size=d_ff,
        rms_norm_eps=RMS_NORM_EPS,
        attention_bias=False,
        mlp_bias=False,
        hidden_act="silu",
        attention_dropout=0.0,
        rope_parameters={"rope_type": "default", "rope_theta": ROPE_THETA},
        attn_implementation=attn_implementation,
    )


def _positions(x: torch.Tensor, seq: int) -> torch.Tensor:
    """``LlamaModel``'s default position ids, ``[[0, …, seq-1]]`` repeated over the batch."""
    return torch.arange(seq, device=x.device).unsqueeze(0).expand(x.shape[0], -1)


def _pair(linear: nn.Linear) -> tuple[torch.Tensor, torch.Tensor]:
    """``(W, b)`` of a linear map, ``b = 0`` where it has no bias."""
    w = linear.weight.detach()
    b = linear.bias.detach() if linear.bias is not None else torch.zeros(w.shape[0], dtype=w.dtype, device=w.device)
    return (w, b)


def _randomise_norms(module: nn.Module) -> None:
    """RMSNorm scales start at 1 in ``transformers``; draw them (``N(1, 0.1²)``) so that checks see γ."""
    with torch.no_grad():
        for name, p in module.named_parameters():
            if name.endswith("layernorm.weight"):
                p.normal_(1.0, 0.1)


class LlamaRotaryReference(nn.Module):
    """``LlamaRotaryEmbedding`` + ``apply_rotary_pos_emb`` on a batch-first ``[B, heads, seq, head_dim]``
    input (the query layout of ``LlamaAttention``); no weights."""

    def __init__(self, heads: int, head_dim: int, dtype: torch.dtype) -> None:
        super().__init__()
        from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

        self.config = llama_config(heads * head_dim, heads, heads, head_dim)
        self.rotary = LlamaRotaryEmbedding(self.config).to(dtype)
        self.eval()

    def position_embeddings(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(cos, sin)`` of ``LlamaRotaryEmbedding`` for positions ``0, …, seq-1``."""
        return self.rotary(x, _positions(x, x.shape[-2]))

    def forward_with(self, x: torch.Tensor, position_embeddings: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        """``apply_rotary_pos_emb`` with the given ``(cos, sin)`` (each ``[B, seq, head_dim]``)."""
        from transformers.models.llama.modeling_llama import apply_rotary_pos_emb

        cos, sin = position_embeddings
        return apply_rotary_pos_emb(x, x, cos, sin)[0]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.forward_with(x, self.position_embeddings(x))

    def bridge_pairs(self) -> list[tuple[torch.Tensor, torch.Tensor | None]]:
        """No weights: ``Arch.rope`` has none."""
        return []


class LlamaAttentionReference(nn.Module):
    """``LlamaAttention`` (causal, grouped-query) on a batch-first ``[B, seq, d_model]`` input."""

    def __init__(
        self, d_model: int, heads: int, kv_heads: int, head_dim: int, dtype: torch.dtype,
        attn_implementation: str = "eager",
    ) -> None:
        super().__init__()
        from transformers.models.llama.modeling_llama import LlamaAttention, LlamaRotaryEmbedding

        self.config = llama_config(d_model, heads, kv_heads, head_dim, attn_implementation=attn_implementation)
        self.attn = LlamaAttention(self.config, layer_idx=0).to(dtype)
        self.rotary = LlamaRotaryEmbedding(self.config).to(dtype)
        self.eval()

    def position_embeddings(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(cos, sin)`` of ``LlamaRotaryEmbedding`` for positions ``0, …, seq-1``."""
        return self.rotary(x, _positions(x, x.shape[1]))

    def forward_with(self, x: torch.Tensor, position_embeddings: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        """``LlamaAttention`` with the given ``(cos, sin)`` and ``transformers``' eager causal mask."""
        from transformers.masking_utils import create_causal_mask

        mask = create_causal_mask(
            config=self.config, inputs_embeds=x, attention_mask=None, cache=None,
            position_ids=_positions(x, x.shape[1]),
        )
        return self.attn(x, position_embeddings=position_embeddings, attention_mask=mask)[0]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.forward_with(x, self.position_embeddings(x))

    def bridge_pairs(self) -> list[tuple[torch.Tensor, torch.Tensor | None]]:
        """``q_proj, k_proj, v_proj, o_proj``, with zero biases (``attention_bias=False``)."""
        a = self.attn
        return [_pair(a.q_proj), _pair(a.k_proj), _pair(a.v_proj), _pair(a.o_proj)]


class LlamaDecoderLayerReference(nn.Module):
    """``LlamaDecoderLayer`` on a batch-first ``[B, seq, d_model]`` input."""

    def __init__(
        self, d_model: int, heads: int, kv_heads: int, head_dim: int, d_ff: int, dtype: torch.dtype
    ) -> None:
        super().__init__()
        from transformers.models.llama.modeling_llama import LlamaDecoderLayer, LlamaRotaryEmbedding

        self.config = llama_config(d_model, heads, kv_heads, head_dim, d_ff)
        self.layer = LlamaDecoderLayer(self.config, layer_idx=0).to(dtype)
        _randomise_norms(self.layer)
        self.rotary = LlamaRotaryEmbedding(self.config).to(dtype)
        self.eval()

    def position_embeddings(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(cos, sin)`` of ``LlamaRotaryEmbedding`` for positions ``0, …, seq-1``."""
        return self.rotary(x, _positions(x, x.shape[1]))

    def forward_with(self, x: torch.Tensor, position_embeddings: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        """``LlamaDecoderLayer`` with the given ``(cos, sin)`` and the eager causal mask."""
        from transformers.masking_utils import create_causal_mask

        positions = _positions(x, x.shape[1])
        mask = create_causal_mask(
            config=self.config, inputs_embeds=x, attention_mask=None, cache=None, position_ids=positions
        )
        return self.layer(x, attention_mask=mask, position_ids=positions, position_embeddings=position_embeddings)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.forward_with(x, self.position_embeddings(x))

    def bridge_pairs(self) -> list[tuple[torch.Tensor, torch.Tensor | None]]:
        """``input_layernorm`` (γ, None), ``q, k, v, o`` (zero biases), ``post_attention_layernorm``
        (γ, None), ``gate_proj, up_proj, down_proj`` (zero biases): the leaf order of ``Arch.llamaDecoder``."""
        layer = self.layer
        a, m = layer.self_attn, layer.mlp
        return [
            (layer.input_layernorm.weight.detach(), None),
            _pair(a.q_proj), _pair(a.k_proj), _pair(a.v_proj), _pair(a.o_proj),
            (layer.post_attention_layernorm.weight.detach(), None),
            _pair(m.gate_proj), _pair(m.up_proj), _pair(m.down_proj),
        ]


def llama_rotary(heads: int, head_dim: int, dtype: torch.dtype = torch.float32) -> nn.Module:
    """Reference of ``Zoo.rotary``: ``LlamaRotaryEmbedding`` + ``apply_rotary_pos_emb``."""
    return LlamaRotaryReference(heads, head_dim, dtype)


def llama_attention(
    d_model: int, heads: int, kv_heads: int, head_dim: int, dtype: torch.dtype = torch.float32,
    attn_implementation: str = "eager",
) -> nn.Module:
    """Reference of ``Zoo.gqa``: ``LlamaAttention`` (``attention_bias=False``: zero biases), eager
    attention (softmax in float32) unless ``attn_implementation="sdpa"`` (``transformers``'
    ``sdpa_attention_forward``: ``torch``'s fused kernel, in the input's dtype)."""
    return LlamaAttentionReference(d_model, heads, kv_heads, head_dim, dtype, attn_implementation)


def llama_decoder_layer(
    d_model: int, heads: int, kv_heads: int, head_dim: int, d_ff: int, dtype: torch.dtype = torch.float32
) -> nn.Module:
    """Reference of ``Zoo.llamaDecoderLayer``: ``LlamaDecoderLayer`` (no biases: zero biases; RMSNorm
    scales drawn from ``N(1, 0.1²)`` instead of ``transformers``' ones, so that the check sees them)."""
    return LlamaDecoderLayerReference(d_model, heads, kv_heads, head_dim, d_ff, dtype)
