"""Memory bounds, checked before anything is allocated.

A command that builds a layer (``emit``, ``check``, the Zoo targets of ``site``/``fragment``/...) first
computes from the term and its parameters how many bytes the weights, the activations of one forward
pass and the module objects will take (:func:`estimate`), and stops with :class:`ResourceLimitError`
(exit 14) when that exceeds the limit: ``--max-memory`` (or ``$PYBRIDGE_MAX_MEMORY``) when given,
otherwise the memory the operating system reports as available.

The estimate counts every constructor's output as live at once (an over-estimate of the peak of a
forward pass), and :data:`MODULE_BYTES` per ``nn.Module`` object.

A model given as ``file.py:factory`` has no term: :func:`model_estimate` reads the same quantities off the
module (its parameters and buffers, its example input) and :func:`value_bytes` off the values of its
captured graph, so that the model commands count what they allocate for it (a float64 copy of the model,
the recorded activations, the probe's grids) against the same limit.

Whatever the limit, no request of more than :data:`ADDRESSABLE` bytes is let through: PyTorch computes a
tensor's size in bytes as a signed 64-bit integer, and a larger shape would fail inside torch (``Storage
size calculation overflowed``) instead of as a one-line error.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import reduce

from pybridge.errors import ResourceLimitError, UsageError
from pybridge.spec import terms as T
from pybridge.spec.shapes import CoprodShape, ProdShape, Shape, TensorShape
from pybridge.spec.typing import signature

#: Bytes per ``nn.Module`` object (its ``__dict__``, parameter and hook tables, the emitted line).
MODULE_BYTES = 4096

#: The most bytes any request may need: ``2^63 - 1``, the largest tensor size PyTorch can compute (a
#: signed 64-bit byte count), far beyond any machine's memory.
ADDRESSABLE = 2**63 - 1

_limit: int | None = None


@dataclass(frozen=True)
class Estimate:
    """Bytes a command will allocate: weights, activations of one forward pass, module objects."""

    weights: int
    activations: int
    modules: int

    @property
    def total(self) -> int:
        return self.weights + self.activations + self.modules * MODULE_BYTES


_SIZE = re.compile(r"^\s*([0-9]{1,15})(?:\.([0-9]{1,6}))?\s*([KMGT]?)(i?B)?\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """``"512M"``, ``"2G"``, ``"1.5GiB"``, ``"1000000"`` → bytes (binary multiples); :class:`UsageError`."""
    m = _SIZE.match(text)
    if not m:
        raise UsageError(f"--max-memory {text[:40]!r}: expected a size such as 512M, 2G or 1000000 (bytes)")
    whole, frac, unit = m.group(1), m.group(2) or "0", m.group(3).upper()
    scale = 1024 ** "_KMGT".index(unit) if unit else 1
    value = int(whole) * scale + int(frac) * scale // 10 ** len(frac)
    if value <= 0:
        raise UsageError(f"--max-memory {text!r}: must be positive")
    return value


def set_limit(limit: int | None) -> None:
    """Set the process-wide limit in bytes (None: the available memory, or ``$PYBRIDGE_MAX_MEMORY``)."""
    global _limit
    _limit = limit


def available_memory() -> int | None:
    """``MemAvailable`` of ``/proc/meminfo`` (Linux), else free physical pages; None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def limit() -> tuple[int | None, str]:
    """The limit in bytes and where it comes from."""
    if _limit is not None:
        return _limit, "--max-memory"
    env = os.environ.get("PYBRIDGE_MAX_MEMORY")
    if env:
        return parse_size(env), "PYBRIDGE_MAX_MEMORY"
    return available_memory(), "the available memory"


def _numel(shape: Shape, dims: dict[str, int]) -> int:
    if isinstance(shape, TensorShape):
        return reduce(lambda a, d: a * (d if isinstance(d, int) else dims.get(d, 1)), shape.dims, 1)
    if isinstance(shape, ProdShape):
        return _numel(shape.a, dims) + _numel(shape.b, dims)
    assert isinstance(shape, CoprodShape)
    return _numel(shape.a, dims) + 1  # the value and its tag


def _dim(d: object, dims: dict[str, int]) -> int:
    return d if isinstance(d, int) else dims.get(str(d), 1)


def _walk(term: T.Term, dims: dict[str, int]) -> tuple[int, int, int]:
    """(weights, activations per sample, modules) of ``term``; recursion depth is the term's depth,
    which the reader bounds (``MAX_TERM_DEPTH``)."""
    if isinstance(term, T.Comp | T.Par):
        a, b = _walk(term.f, dims), _walk(term.g, dims)
        return a[0] + b[0], a[1] + b[1], a[2] + b[2] + 1
    if isinstance(term, T.Copair):
        k = _dim(term.k, dims)
        w, act, mods = _walk(term.f, dims)
        out = _numel(signature(term.f).cod, dims)
        return k * w, k * (act + out), k * mods + 1  # every branch runs on the whole batch, then stack
    weights = 0
    if isinstance(term, T.Linear):
        weights = _dim(term.m, dims) * _dim(term.n, dims) + _dim(term.n, dims)
    elif isinstance(term, T.LayerNorm):
        weights = 2 * _dim(term.n, dims)
    elif isinstance(term, T.RmsNorm):
        weights = _dim(term.n, dims)
    return weights, _numel(signature(term).cod, dims), 1


def estimate(
    term: T.Term, *, dims: dict[str, int] | None = None, batch: int = 1, dtype_bytes: int = 4, copies: int = 1
) -> Estimate:
    """Bytes to build ``copies`` instances of ``term`` (weights in ``dtype_bytes``-byte floats) and run
    each once on a batch of ``batch`` (run-time dimensions from ``dims``, else 1)."""
    dims = dims or {}
    weights, acts, modules = _walk(term, dims)
    inputs = _numel(signature(term).dom, dims)
    return Estimate(
        weights=copies * weights * dtype_bytes,
        activations=copies * batch * (acts + inputs) * dtype_bytes,
        modules=copies * modules,
    )


def _human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)  # pragma: no cover


def require(
    est: Estimate, what: str, *, at_least: bool = False, cap: tuple[int | None, str] | None = None
) -> None:
    """Raise :class:`ResourceLimitError` (exit 14) when ``est`` exceeds the limit, or :data:`ADDRESSABLE`
    whatever the limit (a byte count PyTorch cannot represent). ``at_least``: ``est`` is what has been
    counted so far of a larger need (the message says "at least"). ``cap``: the limit as :func:`limit`
    returned it before the allocations being counted began (the available memory shrinks as they are
    made; read once, it is not counted twice)."""
    cap, source = limit() if cap is None else cap
    total = est.total
    if total > ADDRESSABLE and (cap is None or cap >= total):
        bound = "PyTorch can address (2^63 bytes)"
    elif cap is None or total <= cap:
        return
    else:
        bound = f"{source} ({_human(cap) if cap < 1024**6 else f'about 10^{len(str(cap)) - 1} bytes'})"
    shown = _human(total) if total < 1024**6 else f"about 10^{len(str(total)) - 1} bytes"
    weights = _human(est.weights) if est.weights < 1024**6 else "beyond 1 EiB"
    raise ResourceLimitError(
        f"{what} would need {'at least ' if at_least else ''}{shown} (weights {weights}, "
        f"{est.modules} modules), more than {bound}; choose smaller dimensions"
    )


def value_bytes(value: object, dtype_bytes: int | None = None) -> int:
    """Bytes of the tensors in ``value`` (a tensor, or tuples, lists and dicts of them; fake and meta
    tensors count by their shape). Floating tensors count ``dtype_bytes`` per entry when given (the
    float64 copy a command makes), other tensors their own element size."""
    import torch

    if isinstance(value, torch.Tensor):
        size = dtype_bytes if dtype_bytes is not None and value.is_floating_point() else value.element_size()
        return int(value.numel()) * size
    if isinstance(value, list | tuple):
        return sum(value_bytes(v, dtype_bytes) for v in value)
    if isinstance(value, dict):
        return sum(value_bytes(v, dtype_bytes) for v in value.values())
    return 0


def model_estimate(module: object, inputs: object = (), *, dtype_bytes: int = 8) -> Estimate:
    """Bytes of a copy of a user's model (``file.py:factory``) with its floating parameters and buffers
    in ``dtype_bytes``-byte floats (a tensor shared by several modules counts once), of its example
    ``inputs`` in the same dtype (as ``activations``), and its ``nn.Module`` objects."""
    import torch

    assert isinstance(module, torch.nn.Module)
    seen: set[int] = set()
    weights = 0
    for t in (*module.parameters(), *module.buffers()):
        if id(t) not in seen:
            seen.add(id(t))
            weights += value_bytes(t, dtype_bytes)
    modules = sum(1 for _ in module.modules())
    return Estimate(weights=weights, activations=value_bytes(inputs, dtype_bytes), modules=modules)


def is_allocation_failure(err: BaseException) -> bool:
    """Whether ``err`` is a failed allocation: :class:`MemoryError`, or torch's ``RuntimeError`` saying
    "can't allocate memory" / "out of memory" (exit 14, not a failure of the model)."""
    if isinstance(err, MemoryError):
        return True
    if isinstance(err, RuntimeError):
        text = str(err).lower()
        return "can't allocate memory" in text or "out of memory" in text
    return False


def allocation_error(err: BaseException, what: str) -> ResourceLimitError:
    """The one-line exit-14 error for a failed allocation while doing ``what``."""
    lines = str(err).strip().splitlines()
    first = lines[0][:160] if lines else type(err).__name__
    return ResourceLimitError(f"out of memory while {what} ({type(err).__name__}: {first}); choose smaller "
                              "dimensions or a smaller model")
