"""An independent float64 reference for the LLaMA layers, written by hand from the formulas.

RoPE (Su et al., *RoFormer*, eq. 34, in ``transformers``' "rotate half" layout: entry ``i`` pairs with
entry ``i + h``, ``h = head_dim / 2``) is applied as a complex multiplication
``(x_i + i·x_{i+h}) · e^{iθ}``, ``θ = p · base^(-2f/head_dim)``, ``inv_freq`` by ``**`` in float64;
attention loops over the query heads (query head ``q`` reads key/value head ``q // groups``), masks
``j > i`` with ``-inf`` and takes the softmax; RMSNorm is ``x / sqrt(mean(x²) + eps) · γ``; the MLP is
``down(silu(gate x) · up x)`` with ``silu x = x / (1 + e^{-x})``. Nothing here calls ``pybridge``'s
compiler or ``transformers``.
"""

from __future__ import annotations

import torch

Pair = tuple[torch.Tensor, torch.Tensor | None]


def rope_cos_sin(seq: int, head_dim: int, base: float = 10000.0,
                 dtype: torch.dtype = torch.float64) -> tuple[torch.Tensor, torch.Tensor]:
    """``(cos θ, sin θ)`` for positions ``0..seq-1``, each ``[seq, head_dim]`` (angles ``θ[p, f]``
    repeated for the two halves, as ``LlamaRotaryEmbedding`` lays them out)."""
    h = head_dim // 2
    inv_freq = torch.tensor([base ** (-(2.0 * f) / head_dim) for f in range(h)], dtype=torch.float64)
    theta = torch.arange(seq, dtype=torch.float64)[:, None] * inv_freq[None, :]
    emb = torch.cat((theta, theta), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def apply_rope(x: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """RoPE on ``[..., seq, head_dim]`` (even ``head_dim``) as a complex rotation of the pairs
    ``(x_i, x_{i+h})``."""
    seq, k = x.shape[-2], x.shape[-1]
    h = k // 2
    inv_freq = torch.tensor([base ** (-(2.0 * f) / k) for f in range(h)], dtype=torch.float64)
    theta = torch.arange(seq, dtype=torch.float64)[:, None] * inv_freq[None, :]
    z = torch.complex(x[..., :h].double(), x[..., h:].double()) * torch.polar(torch.ones_like(theta), theta)
    return torch.cat((z.real, z.imag), dim=-1).to(x.dtype)


def linear(x: torch.Tensor, pair: Pair) -> torch.Tensor:
    w, b = pair
    out = torch.einsum("...i,oi->...o", x, w)
    return out if b is None else out + b


def attention(x: torch.Tensor, pairs: list[Pair], heads: int, kv_heads: int, head_dim: int) -> torch.Tensor:
    """Causal grouped-query attention with RoPE on ``[B, seq, d_model]``; ``pairs`` = q, k, v, o."""
    q_pair, k_pair, v_pair, o_pair = pairs
    batch, seq, _ = x.shape
    groups = heads // kv_heads
    q = apply_rope(linear(x, q_pair).reshape(batch, seq, heads, head_dim).permute(0, 2, 1, 3))
    k = apply_rope(linear(x, k_pair).reshape(batch, seq, kv_heads, head_dim).permute(0, 2, 1, 3))
    v = linear(x, v_pair).reshape(batch, seq, kv_heads, head_dim).permute(0, 2, 1, 3)
    causal = torch.ones(seq, seq, dtype=torch.bool).tril()
    outs = []
    for hq in range(heads):
        kv = hq // groups
        scores = q[:, hq] @ k[:, kv].transpose(-1, -2) / head_dim**0.5
        scores = scores.masked_fill(~causal, float("-inf"))
        weights = torch.exp(scores - scores.amax(-1, keepdim=True))
        weights = weights / weights.sum(-1, keepdim=True)
        outs.append(weights @ v[:, kv])
    merged = torch.stack(outs, dim=2).reshape(batch, seq, heads * head_dim)
    return linear(merged, o_pair)


def rms_norm(x: torch.Tensor, gamma: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * gamma


def mlp(x: torch.Tensor, pairs: list[Pair]) -> torch.Tensor:
    gate, up, down = pairs
    g = linear(x, gate)
    return linear(g / (1 + torch.exp(-g)) * linear(x, up), down)


def decoder_layer(x: torch.Tensor, pairs: list[Pair], heads: int, kv_heads: int, head_dim: int,
                  eps: float = 1e-6) -> torch.Tensor:
    """Pre-norm residual block: ``h = x + attn(rms₁ x)``, ``out = h + mlp(rms₂ h)``; ``pairs`` in the
    leaf order input_layernorm, q, k, v, o, post_attention_layernorm, gate, up, down."""
    n1, q, k, v, o, n2, gate, up, down = pairs
    h = x + attention(rms_norm(x, n1[0], eps), [q, k, v, o], heads, kv_heads, head_dim)
    return h + mlp(rms_norm(h, n2[0], eps), [gate, up, down])
