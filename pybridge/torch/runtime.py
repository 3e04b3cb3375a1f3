"""PyTorch realisations of the ``Formal.Arch`` constructors: one small ``nn.Module`` per constructor.

This module imports only ``torch`` and ``math``: the emitter copies its source verbatim into every
emitted layer file, so that in-process compilation and emitted files run the same code. Values are
tensors with a leading batch axis, or tuples of values (products); a value of a coproduct is the pair
``(tag, value)`` with an integer tensor ``tag`` of shape ``[batch]``. Every module works on CPU and
CUDA, in any floating dtype, under autograd and ``torch.compile``.
"""

import math

import torch
from torch import nn

#: ``torch.nn.functional``, as the straight-line realisation writes it.
F = torch.nn.functional


class Id(nn.Module):
    """``Arch.id``."""

    def forward(self, x):
        return x


def chain(*steps):
    """``f₁ ≫ f₂ ≫ … ≫ fₙ``, right-nested as Lean parses it: ``Comp(f₁, Comp(f₂, …))``."""
    if len(steps) == 1:
        return steps[0]
    return Comp(steps[0], chain(*steps[1:]))


class Comp(nn.Module):
    """``Arch.comp f g`` (``f ≫ g``): first ``f``, then ``g``."""

    def __init__(self, f, g):
        super().__init__()
        self.f = f
        self.g = g

    def forward(self, x):
        return self.g(self.f(x))


class Par(nn.Module):
    """``Arch.par f g`` (``f ⊗ g``): ``(a, b) ↦ (f a, g b)``."""

    def __init__(self, f, g):
        super().__init__()
        self.f = f
        self.g = g

    def forward(self, x):
        return (self.f(x[0]), self.g(x[1]))


class Copy(nn.Module):
    """``Arch.copy``: ``x ↦ (x, x)``."""

    def forward(self, x):
        return (x, x)


class Fst(nn.Module):
    """``Arch.fst``."""

    def forward(self, x):
        return x[0]


class Snd(nn.Module):
    """``Arch.snd``."""

    def forward(self, x):
        return x[1]


class Add(nn.Module):
    """``Arch.add``: entrywise sum."""

    def forward(self, x):
        return x[0] + x[1]


class Mul(nn.Module):
    """``Arch.mul``: entrywise product of two computed tensors."""

    def forward(self, x):
        return x[0] * x[1]


class Scale(nn.Module):
    """``Arch.scale c``: multiplication by the constant ``c``."""

    def __init__(self, c):
        super().__init__()
        self.c = float(c)

    def forward(self, x):
        return x * self.c


class Linear(nn.Linear):
    """``Arch.linear pre m n``: ``nn.Linear(m, n)`` on the last axis."""


class StackedLinear(nn.Linear):
    """Two ``Arch.linear [] m n`` leaves that read the same input, stored as one ``nn.Linear(m, 2n)``
    whose weight is the first leaf's rows above the second's (``torch.cat((W, W'))``, Lean's
    ``Formal.Kernel.stack W W'``; used under ``Formal.Arch.glu_stacked``). It counts as two
    parametrised leaves (:func:`_leaves`), each a view of its rows (:class:`LinearRows`), so weight
    pairs load into it as into two ``Linear`` leaves. ``nn.Linear(m, 2n)`` initialises its weight and
    bias from the same distribution as two ``nn.Linear(m, n)`` (both bounds are ``1/√m``)."""

    def __init__(self, m, n, device=None, dtype=None):
        super().__init__(int(m), 2 * int(n), device=device, dtype=dtype)

    def rows(self):
        """The two leaves: rows ``0:n`` (the first ``linear``) and ``n:2n`` (the second)."""
        n = self.out_features // 2
        return [LinearRows(self, 0, n), LinearRows(self, n, 2 * n)]


class LinearRows:
    """Rows ``start:stop`` of a :class:`StackedLinear`, as a parametrised leaf: ``weight`` and ``bias``
    are views of the stacked parameters (copying into them writes the stacked parameters)."""

    def __init__(self, stacked, start, stop):
        self.stacked = stacked
        self.start = int(start)
        self.stop = int(stop)
        self.in_features = stacked.in_features
        self.out_features = self.stop - self.start

    @property
    def weight(self):
        return self.stacked.weight[self.start : self.stop]

    @property
    def bias(self):
        return self.stacked.bias[self.start : self.stop]


class ReLU(nn.Module):
    """``Arch.relu``."""

    def forward(self, x):
        return torch.relu(x)


class Sigmoid(nn.Module):
    """``Arch.sigmoid``."""

    def forward(self, x):
        return torch.sigmoid(x)


class Softmax(nn.Module):
    """``Arch.softmax``: softmax over the last axis."""

    def forward(self, x):
        return torch.softmax(x, dim=-1)


class LayerNorm(nn.LayerNorm):
    """``Arch.layerNorm pre n eps``: ``nn.LayerNorm(n, eps)`` on the last axis."""


class MatMul(nn.Module):
    """``Arch.matmul pre m k post``: ``[..., m, k] × [..., k, *post] → [..., m, *post]``."""

    def __init__(self, post_rank):
        super().__init__()
        self.post_rank = int(post_rank)

    def forward(self, x):
        a, b = x
        if self.post_rank == 1:
            return a @ b
        if self.post_rank == 0:
            return (a @ b.unsqueeze(-1)).squeeze(-1)
        post = b.shape[b.dim() - self.post_rank :]
        flat = b.flatten(start_dim=b.dim() - self.post_rank)
        return (a @ flat).unflatten(-1, post)


class Transpose(nn.Module):
    """``Arch.transpose pre a b post``: swap the two axes in front of the last ``post_rank`` axes."""

    def __init__(self, post_rank):
        super().__init__()
        self.post_rank = int(post_rank)

    def forward(self, x):
        r = self.post_rank
        return x.transpose(-r - 2, -r - 1)


class SplitLast(nn.Module):
    """``Arch.splitLast pre a b``: ``[..., a * b] → [..., a, b]``, row-major."""

    def __init__(self, a, b):
        super().__init__()
        self.sizes = (int(a), int(b))

    def forward(self, x):
        return x.unflatten(-1, self.sizes)


class MergeLast(nn.Module):
    """``Arch.mergeLast pre a b``: ``[..., a, b] → [..., a * b]``, row-major."""

    def forward(self, x):
        return x.flatten(start_dim=-2)


class Route(nn.Module):
    """``Arch.route k``: ``(logits, x) ↦ (first arg-max of logits, x)``."""

    def forward(self, x):
        logits, value = x
        return (torch.argmax(logits, dim=-1), value)


def _select(outputs, tag):
    """Per sample ``i``, the output of branch ``tag[i]`` (recursing through tuples)."""
    first = outputs[0]
    if isinstance(first, tuple):
        return tuple(_select([o[j] for o in outputs], tag) for j in range(len(first)))
    stacked = torch.stack(outputs, dim=0)
    rows = torch.arange(stacked.shape[1], device=stacked.device)
    return stacked[tag, rows]


def rows_where(mask, a, b):
    """Row ``i`` (leading axis) of ``a`` where ``mask[i]``, else row ``i`` of ``b`` (the compile-friendly
    ``copair``: no data-dependent sizes)."""
    return torch.where(mask.reshape(tuple(mask.shape) + (1,) * (a.dim() - 1)), a, b)


class Copair(nn.Module):
    """``Arch.copair k f``: ``k`` independently parametrised copies of ``f``; the tag picks one."""

    def __init__(self, branches):
        super().__init__()
        self.branches = nn.ModuleList(branches)

    def forward(self, x):
        tag, value = x
        return _select([branch(value) for branch in self.branches], tag)


class CausalSoftmax(nn.Module):
    """``Arch.causalSoftmax pre n``: on each ``[n, n]`` block (the last two axes), entries above the
    diagonal (``j > i``) are set to ``-inf`` and each row goes through softmax, so they come out exactly
    ``0`` and row ``i`` is the softmax of its entries ``j ≤ i``."""

    def forward(self, x):
        above = x.new_ones(x.shape[-2:], dtype=torch.bool).triu(1)  # traceable by torch.fx and export
        return torch.softmax(x.masked_fill(above, float("-inf")), dim=-1)


class RmsNorm(nn.Module):
    """``Arch.rmsNorm pre n eps``: ``x * rsqrt(mean(x²) + eps) * weight`` over the last axis (the
    formula of ``LlamaRMSNorm``, computed in the input's dtype). One parameter, the scale ``weight``
    (initialised to ones); ``bias`` is ``None``."""

    def __init__(self, n, eps, device=None, dtype=None):
        super().__init__()
        self.eps = float(eps)
        self.weight = nn.Parameter(torch.ones(int(n), device=device, dtype=dtype))
        self.register_parameter("bias", None)

    def forward(self, x):
        ms = x.pow(2).mean(dim=-1, keepdim=True)
        return x * torch.rsqrt(ms + self.eps) * self.weight


class Rope(nn.Module):
    """``Arch.rope pre seq k base``: rotary position embedding on the last two axes ``[seq, k]``.

    Position ``p`` is the index on the ``seq`` axis, read off the input in ``forward`` (nothing depends
    on ``seq`` at construction); ``h = k // 2``; the angle of frequency ``f`` is
    ``θ(p, f) = p · exp(-(2f · (1/k)) · log base)``, computed in the input's dtype. Entry ``i < h`` is
    ``x[p, i] cos θ(p, i) - x[p, i + h] sin θ(p, i)``, entry ``i ≥ h`` is
    ``x[p, i] cos θ(p, i - h) + x[p, i - h] sin θ(p, i - h)`` (``transformers``' ``rotate_half`` for
    even ``k``).
    """

    def __init__(self, k, base):
        super().__init__()
        self.k = int(k)
        self.base = int(base)

    def forward(self, x):
        k, h = self.k, self.k // 2
        seq = x.shape[-2]
        f = torch.arange(k - h, dtype=x.dtype, device=x.device)
        inv_freq = torch.exp(-((2 * f) * (1.0 / k)) * math.log(self.base))
        p = torch.arange(seq, dtype=x.dtype, device=x.device)
        theta = p[:, None] * inv_freq[None, :]
        angles = torch.cat((theta[:, :h], theta), dim=-1)
        rotated = torch.cat((-x[..., h : 2 * h], x[..., : k - h]), dim=-1)
        return x * torch.cos(angles) + rotated * torch.sin(angles)


class RepeatInterleave(nn.Module):
    """``Arch.repeatInterleave pre a r post``: repeat each entry of the axis in front of the last
    ``post_rank`` axes ``r`` times in place (``torch.repeat_interleave(x, r, dim)``)."""

    def __init__(self, r, post_rank):
        super().__init__()
        self.r = int(r)
        self.post_rank = int(post_rank)

    def forward(self, x):
        return torch.repeat_interleave(x, self.r, dim=-self.post_rank - 1)


class Sdpa(nn.Module):
    """``Arch.sdpa heads seq k causal``: ``((Q, K), V) ↦ softmax(Q Kᵀ · (1/√k)) V`` per head, by
    ``torch.nn.functional.scaled_dot_product_attention`` (``is_causal=causal``, ``scale=1/√k``)."""

    def __init__(self, k, causal):
        super().__init__()
        self.scale = 1 / math.sqrt(k) if k else 0.0
        self.causal = bool(causal)

    def forward(self, x):
        (q, k), v = x
        return F.scaled_dot_product_attention(q, k, v, is_causal=self.causal, scale=self.scale)


def _leaves(module):
    """Parametrised leaves in depth-first order (the order of the Lean term); a ``StackedLinear`` is
    its two ``LinearRows``."""
    if isinstance(module, StackedLinear):
        return module.rows()
    if isinstance(module, (Linear, LayerNorm, RmsNorm)):
        return [module]
    out = []
    for child in module.children():
        out.extend(_leaves(child))
    return out


def _shape_of(t):
    return None if t is None else tuple(t.shape)


def load_leaves(root, pairs):
    """Copy ``(weight, bias)`` pairs into the parametrised leaves of ``root``, in depth-first order
    (``RmsNorm`` has no bias: its pair is ``(weight, None)``)."""
    leaves = _leaves(root)
    if len(leaves) != len(pairs):
        raise ValueError(f"expected {len(leaves)} weight sets, got {len(pairs)}")
    with torch.no_grad():
        for i, (leaf, (w, b)) in enumerate(zip(leaves, pairs)):
            if _shape_of(leaf.weight) != _shape_of(w) or _shape_of(leaf.bias) != _shape_of(b):
                raise ValueError(
                    f"weight set {i} ({type(leaf).__name__}): expected weight {_shape_of(leaf.weight)} "
                    f"and bias {_shape_of(leaf.bias)}, got {_shape_of(w)} and {_shape_of(b)}"
                )
            leaf.weight.copy_(w)
            if b is not None:
                leaf.bias.copy_(b)


def check_input(x, expected, where="input"):
    """Raise ``ValueError`` unless ``x`` matches ``expected``.

    ``expected`` is a list of per-sample dimensions for a tensor (``None``: any size), or a pair of
    such specifications for a product.
    """
    if isinstance(expected, tuple):
        if not isinstance(x, tuple) or len(x) != len(expected):
            raise ValueError(f"{where}: expected a pair of values")
        for i, (xi, ei) in enumerate(zip(x, expected)):
            check_input(xi, ei, f"{where}[{i}]")
        return
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"{where}: expected a tensor, got {type(x).__name__}")
    dims = list(expected)
    got = list(x.shape[1:])
    if x.dim() != len(dims) + 1 or any(d is not None and d != g for d, g in zip(dims, got)):
        want = ", ".join(["B"] + [str(d) if d is not None else "*" for d in dims])
        raise ValueError(f"{where}: expected shape [{want}] (batch first), got {list(x.shape)}")
