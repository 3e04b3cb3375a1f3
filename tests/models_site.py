"""Hand-built models for the site tests. Each factory returns ``(module, example_input)`` (a TARGET)."""

from __future__ import annotations

import torch
from torch import nn


def _seed() -> None:
    torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.l1, self.l2, self.l3 = nn.Linear(4, 6), nn.Linear(6, 5), nn.Linear(5, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.l3(torch.relu(self.l2(torch.relu(self.l1(x)))))


class Residual(nn.Module):
    """``relu(f(x) + x)`` with ``f = lin2 . relu . lin1``: one residual join."""

    def __init__(self, d: int = 4) -> None:
        super().__init__()
        self.lin1, self.lin2 = nn.Linear(d, d), nn.Linear(d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.lin2(torch.relu(self.lin1(x))) + x)


class ResidualInplace(nn.Module):
    """The torchvision idiom: ``out += identity`` and ``nn.ReLU(inplace=True)``."""

    def __init__(self, d: int = 4) -> None:
        super().__init__()
        self.lin1, self.lin2 = nn.Linear(d, d), nn.Linear(d, d)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x
        out = self.relu(self.lin1(x))
        out = self.lin2(out)
        out += identity
        return self.relu(out)


class UNet(nn.Module):
    """Two down steps, two up steps, three skip concatenations."""

    def __init__(self, c: int = 2) -> None:
        super().__init__()
        self.e0 = nn.Conv2d(1, c, 3, padding=1)
        self.e1 = nn.Conv2d(c, c, 3, padding=1)
        self.e2 = nn.Conv2d(c, c, 3, padding=1)
        self.pool = nn.AvgPool2d(2)
        self.up = nn.Upsample(scale_factor=2.0, mode="nearest")
        self.d1 = nn.Conv2d(2 * c, c, 3, padding=1)
        self.d0 = nn.Conv2d(2 * c, c, 3, padding=1)
        self.out = nn.Conv2d(2 * c, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = torch.relu(self.e0(x))
        b = torch.relu(self.e1(self.pool(a)))
        m = torch.relu(self.e2(self.pool(b)))
        u1 = torch.relu(self.d1(torch.cat([self.up(m), b], dim=1)))
        u0 = torch.relu(self.d0(torch.cat([self.up(u1), a], dim=1)))
        return self.out(torch.cat([u0, a], dim=1))


class Inception(nn.Module):
    """A diamond: three branches from one stem, concatenated."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(1, 2, 1)
        self.b1 = nn.Conv2d(2, 2, 1)
        self.b2a, self.b2b = nn.Conv2d(2, 2, 1), nn.Conv2d(2, 2, 3, padding=1)
        self.b3 = nn.MaxPool2d(3, stride=1, padding=1)
        self.head = nn.Conv2d(6, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = torch.relu(self.stem(x))
        y = torch.cat([self.b1(s), self.b2b(torch.relu(self.b2a(s))), self.b3(s)], dim=1)
        return self.head(y)


class DenseBlock(nn.Module):
    """A DenseNet block: layer k reads the concatenation of the input and all earlier layers."""

    def __init__(self, layers: int = 4, c: int = 2, g: int = 1) -> None:
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv2d(c + k * g, g, 3, padding=1) for k in range(layers))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        feats = [x]
        for conv in self.convs:
            feats.append(torch.relu(conv(torch.cat(feats, dim=1))))
        return torch.cat(feats, dim=1)


class ConvNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(1, 3, 3, padding=1)
        self.c2 = nn.Conv2d(3, 4, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(4 * 4 * 4, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.pool(torch.relu(self.c2(torch.relu(self.c1(x)))))
        return self.fc(h.view(h.size(0), -1))


class CircularConvNet(nn.Module):
    """Convolutions with circular padding and pointwise nonlinearities: exactly shift-equivariant."""

    def __init__(self) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(1, 3, 3, padding=1, padding_mode="circular")
        self.c2 = nn.Conv2d(3, 2, 3, padding=1, padding_mode="circular")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c2(torch.tanh(self.c1(x)))


class LSTMCell(nn.Module):
    """A hand-written LSTM cell: one matrix for all gates, ``chunk`` and ``getitem``."""

    def __init__(self, d_in: int = 3, d_h: int = 4) -> None:
        super().__init__()
        self.wx = nn.Linear(d_in, 4 * d_h)
        self.wh = nn.Linear(d_h, 4 * d_h, bias=False)

    def forward(self, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        gates = self.wx(x) + self.wh(h)
        i, f, g, o = gates.chunk(4, 1)
        c2 = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h2 = torch.sigmoid(o) * torch.tanh(c2)
        return h2, c2


class Untraceable(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum() > 0:
            return x
        return -x


def mlp() -> tuple[nn.Module, torch.Tensor]:
    _seed()
    return MLP(), torch.randn(2, 4)


def residual() -> tuple[nn.Module, torch.Tensor]:
    _seed()
    return Residual(), torch.randn(2, 4)


def residual_inplace() -> tuple[nn.Module, torch.Tensor]:
    _seed()
    return ResidualInplace(), torch.randn(2, 4)


def unet() -> tuple[nn.Module, torch.Tensor]:
    _seed()
    return UNet(), torch.randn(1, 1, 8, 8)


def inception() -> tuple[nn.Module, torch.Tensor]:
    _seed()
    return Inception(), torch.randn(1, 1, 6, 6)


def densenet() -> tuple[nn.Module, torch.Tensor]:
    _seed()
    return DenseBlock(), torch.randn(1, 2, 5, 5)


def convnet() -> tuple[nn.Module, torch.Tensor]:
    _seed()
    return ConvNet(), torch.randn(2, 1, 8, 8)


def circular() -> tuple[nn.Module, torch.Tensor]:
    _seed()
    return CircularConvNet(), torch.randn(1, 1, 6, 6)


def lstm_cell() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    _seed()
    return LSTMCell(), (torch.randn(2, 3), torch.randn(2, 4), torch.randn(2, 4))


def untraceable() -> tuple[nn.Module, torch.Tensor]:
    return Untraceable(), torch.randn(2, 3)


ALL = {
    "mlp": mlp,
    "residual": residual,
    "residual_inplace": residual_inplace,
    "unet": unet,
    "inception": inception,
    "densenet": densenet,
    "convnet": convnet,
    "circular": circular,
    "lstm_cell": lstm_cell,
}


class InplaceAlias(nn.Module):
    """``y.relu_()`` mutates ``y`` after ``z`` has read it: the later reader must see the mutated value."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.lin(x)
        z = y * 2.0
        y.relu_()
        return y + z


def inplace_alias() -> tuple[nn.Module, torch.Tensor]:
    _seed()
    return InplaceAlias(), torch.randn(4, 3)


class FunctionalWeights(nn.Module):
    """Parameters read by ``get_attr`` in functional calls (``h * self.gain``, ``F.linear(h, w, b)``)."""

    def __init__(self) -> None:
        super().__init__()
        self.l1 = nn.Linear(4, 6)
        self.gain = nn.Parameter(torch.randn(6))
        self.w2 = nn.Parameter(torch.randn(3, 6) / 3)
        self.b2 = nn.Parameter(torch.randn(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.tanh(self.l1(x)) * self.gain
        return nn.functional.linear(h, self.w2, self.b2)


class TiedAutoencoder(nn.Module):
    """The decoder reads the encoder's weight transposed (``enc.weight.t()``): one parameter, two layers."""

    def __init__(self) -> None:
        super().__init__()
        self.enc = nn.Linear(4, 6)
        self.dec_bias = nn.Parameter(torch.randn(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.tanh(self.enc(x))
        return nn.functional.linear(h, self.enc.weight.t(), self.dec_bias)


class TiedChain(nn.Module):
    """``l3.weight`` is ``l1.weight`` (module aliasing): a tied weight at both ends of a chain."""

    def __init__(self) -> None:
        super().__init__()
        self.l1, self.l2, self.l3 = nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 4)
        self.l3.weight = self.l1.weight

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.l3(torch.tanh(self.l2(torch.tanh(self.l1(x)))))


def functional_weights() -> tuple[nn.Module, torch.Tensor]:
    _seed()
    return FunctionalWeights(), torch.randn(3, 4)


def tied_autoencoder() -> tuple[nn.Module, torch.Tensor]:
    _seed()
    return TiedAutoencoder(), torch.randn(3, 4)


def tied_chain() -> tuple[nn.Module, torch.Tensor]:
    _seed()
    return TiedChain(), torch.randn(3, 4)
