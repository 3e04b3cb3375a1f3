"""Weights from PyTorch's own modules, in the depth-first leaf order of the Lean terms.

Each adapter takes a PyTorch module and returns the ``(weight, bias)`` pairs of the corresponding Zoo
layer's ``Linear``/``LayerNorm``/``RmsNorm`` leaves (an ``RmsNorm``'s pair is ``(weight, None)``), in the
order in which they occur in the Lean term. It checks the
configuration it relies on and raises ``ValueError`` otherwise. This module imports only ``torch``:
the emitter copies the adapter a layer needs into the emitted file, for ``Layer.from_torch``.
"""

import torch
from torch import nn


def _linear(m):
    return (m.weight.detach(), m.bias.detach())


def _norm(m):
    if m.weight is None or m.bias is None:
        raise ValueError("LayerNorm without elementwise affine weights has no counterpart")
    return (m.weight.detach(), m.bias.detach())


def from_sequential(module):
    """``nn.Sequential`` of ``Linear``/``ReLU``/``GLU``/``LayerNorm``: one pair per ``Linear`` and per
    ``LayerNorm`` (its ``(weight, bias)``, the ``(γ, β)`` of ``Arch.layerNorm``); a ``GLU(dim=-1)`` after a
    ``Linear`` splits it into its value half and its gate half (the two linear maps of ``Zoo.glu``)."""
    if not isinstance(module, nn.Sequential):
        raise ValueError(f"expected torch.nn.Sequential, got {type(module).__name__}")
    pairs = []
    for child in module:
        if isinstance(child, nn.Linear):
            if child.bias is None:
                raise ValueError("Linear without bias has no counterpart (Arch.linear is affine)")
            pairs.append(_linear(child))
        elif isinstance(child, nn.GLU):
            if child.dim != -1 or not pairs:
                raise ValueError("GLU must follow a Linear and act on the last axis (dim=-1)")
            w, b = pairs.pop()
            (wa, wg), (ba, bg) = w.chunk(2, dim=0), b.chunk(2, dim=0)
            pairs.extend([(wa, ba), (wg, bg)])
        elif isinstance(child, nn.LayerNorm):
            if len(child.normalized_shape) != 1:
                raise ValueError("LayerNorm must normalise the last axis only (Arch.layerNorm pre n eps)")
            pairs.append(_norm(child))
        elif isinstance(child, nn.ReLU):
            continue
        else:
            raise ValueError(f"unsupported module in the Sequential: {type(child).__name__}")
    return pairs


def _attention_pairs(mha):
    if not isinstance(mha, nn.MultiheadAttention):
        raise ValueError(f"expected torch.nn.MultiheadAttention, got {type(mha).__name__}")
    if not mha.batch_first:
        raise ValueError("MultiheadAttention must have batch_first=True")
    if not mha._qkv_same_embed_dim or mha.in_proj_bias is None or mha.bias_k is not None:
        raise ValueError(
            "MultiheadAttention must use one embedding width, input biases, and no bias_k/bias_v"
        )
    wq, wk, wv = mha.in_proj_weight.detach().chunk(3, dim=0)
    bq, bk, bv = mha.in_proj_bias.detach().chunk(3, dim=0)
    return [(wq, bq), (wk, bk), (wv, bv), _linear(mha.out_proj)]


def from_multihead_attention(module):
    """``nn.MultiheadAttention(batch_first=True)``: queries, keys, values, output projection."""
    return _attention_pairs(module)


def from_transformer_encoder_layer(module):
    """``nn.TransformerEncoderLayer(batch_first=True, norm_first=True, dropout=0.0)`` with ReLU:
    norm1, the attention's four projections, norm2, linear1, linear2."""
    if not isinstance(module, nn.TransformerEncoderLayer):
        raise ValueError(f"expected torch.nn.TransformerEncoderLayer, got {type(module).__name__}")
    if not module.norm_first:
        raise ValueError("TransformerEncoderLayer must have norm_first=True (the Zoo block is pre-norm)")
    if module.activation is not torch.nn.functional.relu and not isinstance(module.activation, nn.ReLU):
        raise ValueError("TransformerEncoderLayer must use the ReLU activation")
    if module.training and any(d.p > 0 for d in (module.dropout, module.dropout1, module.dropout2)):
        raise ValueError("TransformerEncoderLayer must have dropout=0.0 (or be in eval mode)")
    return [
        _norm(module.norm1),
        *_attention_pairs(module.self_attn),
        _norm(module.norm2),
        _linear(module.linear1),
        _linear(module.linear2),
    ]


def _expect_class(module, name):
    # transformers is not imported here (emitted files import only torch): compare class names
    if type(module).__name__ != name:
        raise ValueError(f"expected transformers' {name}, got {type(module).__name__}")


def _linear_or_zero_bias(m):
    """An ``nn.Linear``'s pair; without a bias, a zero bias (``Arch.linear`` is affine)."""
    w = m.weight.detach()
    b = m.bias.detach() if m.bias is not None else torch.zeros(w.shape[0], dtype=w.dtype, device=w.device)
    return (w, b)


def from_gpt2_attention(module):
    """transformers' ``GPT2Attention`` (self-attention, ``scale_attn_weights=True``, no layer-index
    scaling, no reordered upcast): its ``Conv1D`` ``c_attn`` (weight ``[in, 3 * out]``, columns
    q | k | v) split into the queries', keys' and values' ``[out, in]`` pairs, then ``c_proj``
    transposed. The module itself applies no causal mask: the ``GPT2Model`` around it passes one."""
    _expect_class(module, "GPT2Attention")
    if module.is_cross_attention:
        raise ValueError("GPT2Attention must be self-attention (is_cross_attention=False)")
    if not module.scale_attn_weights or module.scale_attn_by_inverse_layer_idx:
        raise ValueError(
            "GPT2Attention must scale the scores by 1/sqrt(head_dim) only "
            "(scale_attn_weights=True, scale_attn_by_inverse_layer_idx=False)"
        )
    if module.reorder_and_upcast_attn:
        raise ValueError("GPT2Attention must have reorder_and_upcast_attn=False (it computes in float32)")
    if module.training and module.attn_dropout.p > 0:
        raise ValueError("GPT2Attention must have attn_pdrop=0.0 (or be in eval mode)")
    d = module.embed_dim
    w = module.c_attn.weight.detach()
    b = module.c_attn.bias.detach()
    pairs = [(w[:, i * d : (i + 1) * d].t(), b[i * d : (i + 1) * d]) for i in range(3)]
    pairs.append((module.c_proj.weight.detach().t(), module.c_proj.bias.detach()))
    return pairs


def from_llama_rms_norm(module):
    """transformers' ``LlamaRMSNorm``: its scale, as the pair ``(weight, None)`` (no bias)."""
    _expect_class(module, "LlamaRMSNorm")
    return [(module.weight.detach(), None)]


def from_llama_mlp(module):
    """transformers' ``LlamaMLP`` with the SiLU activation: ``gate_proj``, ``up_proj``, ``down_proj``;
    each bias is zero where the module has none (``mlp_bias=False``, Llama's default)."""
    _expect_class(module, "LlamaMLP")
    if type(module.act_fn).__name__ not in ("SiLUActivation", "SiLU"):
        raise ValueError(f"LlamaMLP must use the SiLU activation, got {type(module.act_fn).__name__}")
    return [_linear_or_zero_bias(module.gate_proj), _linear_or_zero_bias(module.up_proj),
            _linear_or_zero_bias(module.down_proj)]


def _llama_rope_config(config):
    """The Zoo's ``rope`` has base 10000 and no scaling: refuse any other RoPE configuration."""
    rope = getattr(config, "rope_parameters", None) or {}
    if rope.get("rope_type", "default") != "default" or float(rope.get("rope_theta", -1)) != 10000.0:
        raise ValueError(f"the Zoo's rope has base 10000 and no scaling; got rope_parameters={rope!r}")


def _llama_attention_pairs(attn):
    _expect_class(attn, "LlamaAttention")
    _llama_rope_config(attn.config)
    if attn.training and attn.attention_dropout > 0:
        raise ValueError("LlamaAttention must have attention_dropout=0.0 (or be in eval mode)")
    return [_linear_or_zero_bias(attn.q_proj), _linear_or_zero_bias(attn.k_proj),
            _linear_or_zero_bias(attn.v_proj), _linear_or_zero_bias(attn.o_proj)]


def from_llama_rotary_embedding(module):
    """``transformers``' ``LlamaRotaryEmbedding`` (default RoPE, base 10000): no weights."""
    _expect_class(module, "LlamaRotaryEmbedding")
    _llama_rope_config(module.config)
    return []


def from_llama_attention(module):
    """``transformers``' ``LlamaAttention`` (default RoPE, base 10000): ``q_proj, k_proj, v_proj,
    o_proj``, zero biases where ``attention_bias=False``."""
    return _llama_attention_pairs(module)


def from_llama_decoder_layer(module):
    """``transformers``' ``LlamaDecoderLayer`` with SiLU: input_layernorm, q, k, v, o,
    post_attention_layernorm, gate_proj, up_proj, down_proj (zero biases where there are none)."""
    _expect_class(module, "LlamaDecoderLayer")
    return [
        *from_llama_rms_norm(module.input_layernorm),
        *_llama_attention_pairs(module.self_attn),
        *from_llama_rms_norm(module.post_attention_layernorm),
        *from_llama_mlp(module.mlp),
    ]


#: Counterpart class name (as in the ``PyTorch:`` line) → adapter function name.
ADAPTERS = {
    "Sequential": "from_sequential",
    "MultiheadAttention": "from_multihead_attention",
    "TransformerEncoderLayer": "from_transformer_encoder_layer",
    "GPT2Attention": "from_gpt2_attention",
    "LlamaRMSNorm": "from_llama_rms_norm",
    "LlamaMLP": "from_llama_mlp",
    "LlamaRotaryEmbedding": "from_llama_rotary_embedding",
    "LlamaAttention": "from_llama_attention",
    "LlamaDecoderLayer": "from_llama_decoder_layer",
}
