"""The Zoo as a Python API: layers by name, instantiated from their Lean definitions.

Thin conveniences over :mod:`pybridge.lean.catalogue` and :mod:`pybridge.torch`, for the CLI and for the
commands that analyse models (``fragment``, ``site``, …).
"""

from __future__ import annotations

import torch

from pybridge.errors import BridgeError
from pybridge.lean.catalogue import LayerInfo, catalogue_for, load_catalogue
from pybridge.spec.shapes import Shape, TensorShape
from pybridge.spec.terms import Term
from pybridge.spec.typing import Signature
from pybridge.torch.compiler import compile_term


def layer_names() -> list[str]:
    """The names of the Zoo layers, sorted."""
    return sorted(load_catalogue().layers)


def info(name: str) -> LayerInfo:
    """The Lean-side description of a layer, ``NAME`` of the Zoo or ``path/File.lean:NAME`` (raises
    :class:`UnknownLayerError`, or the reader's error for a layer it cannot read)."""
    cat, short = catalogue_for(name)
    return cat.layer(short)


def instantiate(name: str, params: dict[str, int] | None = None) -> tuple[Term, Signature]:
    """The checked term of a layer (``NAME`` or ``path/File.lean:NAME``); ``params`` default to its
    Lean ``Example:`` line."""
    cat, short = catalogue_for(name)
    layer = cat.layer(short)
    return cat.instantiate(short, dict(layer.example if params is None else params))


def example_params(name: str, params: dict[str, int] | None = None) -> dict[str, int]:
    """The ``Example:`` parameters of a layer, overridden by ``params``."""
    merged = dict(info(name).example)
    merged.update(params or {})
    return merged


def random_input(
    shape: Shape,
    batch: int,
    *,
    dtype: torch.dtype,
    generator: torch.Generator,
    dims: dict[str, int] | None = None,
) -> torch.Tensor | tuple:
    """A standard-normal batch for ``shape``; run-time dimensions take their size from ``dims``."""
    if isinstance(shape, TensorShape):
        size = [batch] + [d if isinstance(d, int) else (dims or {})[d] for d in shape.dims]
        return torch.randn(size, dtype=dtype, generator=generator)
    if hasattr(shape, "b"):
        return (
            random_input(shape.a, batch, dtype=dtype, generator=generator, dims=dims),  # type: ignore[union-attr]
            random_input(shape.b, batch, dtype=dtype, generator=generator, dims=dims),
        )  # type: ignore[union-attr]
    raise BridgeError(
        "a layer whose input is a coproduct (a tagged value, `.coprod k s`) has no random input to check "
        "or trace it with: compose it after the `Arch.route` that makes the tag"
    )


def build_example(
    name: str,
    params: dict[str, int] | None = None,
    *,
    batch: int = 2,
    seed: int = 0,
    dtype: torch.dtype = torch.float64,
) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    """A compiled layer (seeded random weights, eval mode) and a seeded example input batch.

    The layer is the literal realisation (one module per Lean constructor, no rewrites): the model
    commands (``fragment``, ``site``) that take it as a target analyse the Lean term's own operations,
    and its ``copair`` has no data-dependent sizes for tracing."""
    merged = example_params(name, params)
    term, sig = instantiate(name, merged)
    torch.manual_seed(seed)
    module = compile_term(term, dtype=dtype, literal=True).eval()
    gen = torch.Generator().manual_seed(seed)
    x = random_input(sig.dom, batch, dtype=dtype, generator=gen, dims=merged)
    return module, (x if isinstance(x, tuple) else (x,))
