"""Models of the three kinds that the first fragment classifier got wrong (issue 11), written here.

* :func:`graph_network`: a graph network whose input is ``[nodes, features]`` (no batch axis);
* :func:`elman_zero_state`: an unrolled ReLU RNN that starts from a zero state made by ``new_zeros``;
* :func:`hard_attention`: an arg-max over a bilinear score (hard attention).
"""

from __future__ import annotations

import torch
from torch import nn


class GraphNetwork(nn.Module):
    """Message passing ``H ↦ relu(A H W₁)``, then ``A H W₂`` on a fixed 5-node graph, and a sum readout."""

    def __init__(self, features: int = 3, hidden: int = 4) -> None:
        super().__init__()
        adj = torch.tensor([[0, 1, 0, 0, 1], [1, 0, 1, 0, 0], [0, 1, 0, 1, 0], [0, 0, 1, 0, 1],
                            [1, 0, 0, 1, 0]], dtype=torch.float32) + torch.eye(5)
        self.register_buffer("adj", adj / adj.sum(1, keepdim=True))
        self.w1 = nn.Linear(features, hidden)
        self.w2 = nn.Linear(hidden, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.adj @ self.w1(x))
        return (self.adj @ self.w2(h)).sum(0)


def graph_network() -> tuple[nn.Module, torch.Tensor]:
    """Input ``[nodes, features] = [5, 3]``: the first axis is the graph's nodes, not a batch."""
    torch.manual_seed(0)
    return GraphNetwork().eval(), torch.randn(5, 3)


class ElmanZeroState(nn.Module):
    """``h_0 = 0`` (``x.new_zeros``), ``h_{t+1} = relu(W x_t + U h_t)``, unrolled over the sequence."""

    def __init__(self, d_in: int = 3, hidden: int = 5) -> None:
        super().__init__()
        self.w = nn.Linear(d_in, hidden)
        self.u = nn.Linear(hidden, hidden, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.new_zeros(x.shape[0], self.u.in_features)
        for t in range(x.shape[1]):
            h = torch.relu(self.w(x[:, t]) + self.u(h))
        return h


def elman_zero_state() -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    return ElmanZeroState().eval(), torch.randn(2, 4, 3)


class HardAttention(nn.Module):
    """Each query attends to the one key of largest score ``<q_i, k_j>`` and copies its value."""

    def __init__(self, d: int = 4) -> None:
        super().__init__()
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, d, bias=False)
        self.v = nn.Linear(d, d, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scores = self.q(x) @ self.k(x).transpose(-2, -1)
        idx = scores.argmax(-1)
        v = self.v(x)
        return torch.gather(v, 1, idx.unsqueeze(-1).expand(-1, -1, v.shape[-1]))


def hard_attention() -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    return HardAttention().eval(), torch.randn(1, 5, 4)
