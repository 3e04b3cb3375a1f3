"""Hand-written models for the PL-fragment tests (``pybridge fragment tests/models_fragment.py:NAME``).

Each factory returns ``(module, example_input)`` as ``pybridge.targets`` expects, and :data:`EXPECTED`
records the class that a reader of the model (not the classifier) assigns to it, with the degree
bound for the polynomial ones. The weights are PyTorch's default initialisation under a fixed seed.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class Map(nn.Module):
    """A module that applies the function ``fn`` (the probe's tests build one-line models with it)."""

    def __init__(self, fn) -> None:  # type: ignore[no-untyped-def]
        super().__init__()
        self.fn = fn

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fn(x)


def _seed(s: int) -> None:
    torch.manual_seed(s)


def mlp() -> tuple[nn.Module, torch.Tensor]:
    """Two-layer ReLU perceptron: PL."""
    _seed(1)
    return nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3)), torch.randn(2, 4)


def cnn() -> tuple[nn.Module, torch.Tensor]:
    """Convolution, ReLU, 2×2 max-pooling, linear read-out: PL."""
    _seed(2)
    model = nn.Sequential(
        nn.Conv2d(1, 3, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(3 * 3 * 3, 4)
    )
    return model, torch.randn(2, 1, 6, 6)


class ElmanReLU(nn.Module):
    """An Elman RNN with ReLU, unrolled by a Python loop over a fixed sequence length (fx unrolls it)."""

    def __init__(self, d_in: int = 3, hidden: int = 8, d_out: int = 2, steps: int = 4) -> None:
        super().__init__()
        self.steps = steps
        self.inp = nn.Linear(d_in, hidden)
        self.rec = nn.Linear(hidden, hidden, bias=False)
        self.out = nn.Linear(hidden, d_out)
        self.hidden = hidden

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.inp(x[:, 0]))
        for t in range(1, self.steps):
            h = torch.relu(self.inp(x[:, t]) + self.rec(h))
        return self.out(h)


def elman() -> tuple[nn.Module, torch.Tensor]:
    """Unrolled ReLU Elman RNN: PL."""
    _seed(3)
    return ElmanReLU(), torch.randn(2, 4, 3)


class LSTMHead(nn.Module):
    """``nn.LSTM`` followed by a linear read-out of the last hidden state."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(3, 6, batch_first=True)
        self.head = nn.Linear(6, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


def lstm() -> tuple[nn.Module, torch.Tensor]:
    """LSTM: transcendental (sigmoid and tanh gates)."""
    _seed(4)
    return LSTMHead(), torch.randn(2, 4, 3)


def transformer() -> tuple[nn.Module, torch.Tensor]:
    """``nn.TransformerEncoderLayer`` itself: transcendental (softmax, layer norm)."""
    _seed(5)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    return layer, torch.randn(2, 5, 8)


class HardMoE(nn.Module):
    """Top-1 mixture of linear experts: the arg-max of a linear router picks one expert (one-hot mask)."""

    def __init__(self, d: int = 4, experts: int = 3) -> None:
        super().__init__()
        self.router = nn.Linear(d, experts)
        self.experts = nn.ModuleList(nn.Linear(d, d) for _ in range(experts))
        self.k = experts

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        choice = self.router(x).argmax(dim=-1)
        mask = F.one_hot(choice, self.k).to(x.dtype)
        out = mask[:, 0:1] * self.experts[0](x)
        for i in range(1, self.k):
            out = out + mask[:, i : i + 1] * self.experts[i](x)
        return out


def hard_moe() -> tuple[nn.Module, torch.Tensor]:
    """Hard top-1 MoE: PL but discontinuous."""
    _seed(6)
    return HardMoE(), torch.randn(2, 4)


class SoftMoE(nn.Module):
    """Soft-gated mixture: experts weighted by the softmax of a linear router."""

    def __init__(self, d: int = 4, experts: int = 3) -> None:
        super().__init__()
        self.router = nn.Linear(d, experts)
        self.experts = nn.ModuleList(nn.Linear(d, d) for _ in range(experts))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gates = torch.softmax(self.router(x), dim=-1)
        outs = torch.stack([e(x) for e in self.experts], dim=1)
        return (gates.unsqueeze(-1) * outs).sum(dim=1)


def soft_moe() -> tuple[nn.Module, torch.Tensor]:
    """Soft-gated MoE: transcendental (softmax gates)."""
    _seed(7)
    return SoftMoE(), torch.randn(2, 4)


class HyperNet(nn.Module):
    """``x ↦ W(x) x`` with ``W(x) = reshape(A x)``, no biases: a homogeneous quadratic map."""

    def __init__(self, d_in: int = 4, d_out: int = 3) -> None:
        super().__init__()
        self.gen = nn.Linear(d_in, d_out * d_in, bias=False)
        self.d_in, self.d_out = d_in, d_out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.gen(x).view(x.shape[0], self.d_out, self.d_in)
        return torch.bmm(w, x.unsqueeze(-1)).squeeze(-1)


def hypernet() -> tuple[nn.Module, torch.Tensor]:
    """Hypernetwork: bilinear, quadratic."""
    _seed(8)
    return HyperNet(), torch.randn(2, 4)


class LinearAttention(nn.Module):
    """Attention without softmax: ``(Q Kᵀ) V / 4`` with bias-free projections, a homogeneous cubic map."""

    def __init__(self, d: int = 4) -> None:
        super().__init__()
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, d, bias=False)
        self.v = nn.Linear(d, d, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scores = torch.matmul(self.q(x), self.k(x).transpose(1, 2)) * 0.25
        return torch.matmul(scores, self.v(x))


def linear_attention() -> tuple[nn.Module, torch.Tensor]:
    """Linear attention: bilinear, cubic."""
    _seed(9)
    return LinearAttention(), torch.randn(2, 3, 4)


class DataDependentBranch(nn.Module):
    """Python control flow on a tensor value: fx cannot trace it."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum() > 0:
            return self.lin(x)
        return -x


def untraceable() -> tuple[nn.Module, torch.Tensor]:
    """A model that fx cannot trace."""
    _seed(10)
    return DataDependentBranch(), torch.randn(2, 4)


#: name -> (factory, expected class, expected degree bound or None).
MODELS = {
    "mlp": (mlp, "PL", 1),
    "cnn": (cnn, "PL", 1),
    "elman": (elman, "PL", 1),
    "lstm": (lstm, "transcendental", None),
    "transformer": (transformer, "transcendental", None),
    "hard_moe": (hard_moe, "discontinuous-PL", 1),
    "soft_moe": (soft_moe, "transcendental", None),
    "hypernet": (hypernet, "bilinear", 2),
    "linear_attention": (linear_attention, "bilinear", 3),
}


if __name__ == "__main__":  # print the README results table: python tests/models_fragment.py
    import warnings
    from pathlib import Path

    from pybridge import zoo
    from pybridge.fragment.report import analyse, results_markdown

    warnings.filterwarnings("ignore")
    here = Path(__file__).resolve().relative_to(Path.cwd().resolve())
    specs = [f"{here}:{name}" for name in MODELS] + zoo.layer_names()
    print(results_markdown(analyse(spec) for spec in specs))
