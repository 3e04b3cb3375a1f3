"""Memory bounds, checked before anything is allocated.

A command that builds a layer (``emit``, ``check``, the Zoo targets of ``site``/``fragment``/...) first
computes from the term and its parameters how many bytes the weights, the activations of one forward
pass and the module objects will take (:func:`estimate`), and stops with :class:`ResourceLimitError`
(exit 14) when that exceeds the limit: ``--max-memory`` (or ``$PYBRIDGE_MAX_MEMORY``) when given,
otherwise the memory the operating system reports as available.

The estimate counts every constructor's output as live at once (an over-estimate of the peak of a
forward pass), and :data:`MODULE_BYTES` per ``nn.Module`` object.
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


def require(est: Estimate, what: str) -> None:
    """Raise :class:`ResourceLimitError` (exit 14) when ``est`` exceeds the limit."""
    cap, source = limit()
    if cap is None or est.total <= cap:
        return
    total = est.total
    shown = _human(total) if total < 1024**6 else f"about 10^{len(str(total)) - 1} bytes"
    weights = _human(est.weights) if est.weights < 1024**6 else "beyond 1 EiB"
    raise ResourceLimitError(
        f"{what} would need {shown} (weights {weights}, "
        f"{est.modules} modules), more than {source} ({_human(cap)}); choose smaller dimensions"
    )
