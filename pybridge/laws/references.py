"""Hand-written PyTorch references for the Zoo layers that PyTorch has no module for.

Each is written from the layer's mathematical definition, independently of the term compiler. It
takes the batch-first input, the ``(weight, bias)`` pairs of the layer's linear maps in the order of
the Lean term, and the layer's parameters.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

Pairs = list[tuple[torch.Tensor, torch.Tensor]]


def hyper_linear(x: torch.Tensor, pairs: Pairs, params: dict[str, int]) -> torch.Tensor:
    """``y = W(x) x`` with ``W(x) = reshape(A x + a)`` of shape ``[d_out, d_in]``, one matrix per sample."""
    ((a_weight, a_bias),) = pairs
    batch, d_in = x.shape
    w = (x @ a_weight.T + a_bias).reshape(batch, params["d_out"], d_in)
    return torch.einsum("boi,bi->bo", w, x)


def moe(x: torch.Tensor, pairs: Pairs, params: dict[str, int]) -> torch.Tensor:
    """Top-1 hard routing: each sample goes through the expert with the first maximal router logit."""
    (router_w, router_b), *experts = pairs
    assert len(experts) == params["experts"]
    logits = x @ router_w.T + router_b
    out = torch.empty(x.shape[0], experts[0][0].shape[0], dtype=x.dtype)
    for i in range(x.shape[0]):
        best = 0
        for e in range(1, logits.shape[1]):
            if logits[i, e] > logits[i, best]:
                best = e
        w, b = experts[best]
        out[i] = w @ x[i] + b
    return out


#: The names used in the Lean docstrings' ``PyTorch: none (reference: `...`)`` lines.
REFERENCES: dict[str, Callable[[torch.Tensor, Pairs, dict[str, int]], torch.Tensor]] = {
    "pybridge.laws.references.hyper_linear": hyper_linear,
    "pybridge.laws.references.moe": moe,
}
