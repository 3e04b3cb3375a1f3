"""Hand-written float64 references for this round's layers (independent of the term compiler)."""

from __future__ import annotations

import torch


def rms_norm_float64(x: torch.Tensor, gamma: torch.Tensor, eps: float) -> torch.Tensor:
    """``LlamaRMSNorm``'s formula, ``γ * x / sqrt(mean(x²) + eps)``, entirely in float64 with the sum of
    squares written out (no float32 cast, no ``rsqrt``)."""
    x = x.to(torch.float64)
    n = x.shape[-1]
    ss = torch.zeros_like(x[..., :1])
    for j in range(n):
        ss = ss + x[..., j : j + 1] * x[..., j : j + 1]
    return gamma.to(torch.float64) * (x / torch.sqrt(ss / n + eps))
