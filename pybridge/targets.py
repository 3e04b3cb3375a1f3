"""Model targets for the commands that analyse a model (``fragment``, ``site``, ``presheaf``, ...).

A TARGET is either the name of a Zoo layer (``attention``; its parameters from ``--param`` or the
``Example:`` line of its Lean docstring) or ``path/to/file.py:factory``, where ``factory()`` returns
``(module, example_input)``; ``example_input`` is a tensor, a tuple of tensors, or a dict of keyword
inputs (``{"input_ids": ids, "attention_mask": mask, "use_cache": False}``: its tensors become the
positional inputs of a :class:`pybridge.capture.KeywordInputs` wrapper, its other values are fixed).
No axis is assumed to be a batch axis; integer inputs (token ids, masks) are held fixed by the probe.
"""

from __future__ import annotations

import contextlib
import importlib.util
import signal
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from pybridge.errors import BridgeError, TargetError, UsageError, UserCodeError


@dataclass(frozen=True)
class Target:
    """A loaded model and an example input for it."""

    name: str
    module: torch.nn.Module
    inputs: tuple[torch.Tensor, ...]


def _one_line(err: BaseException) -> str:
    """``Type: first line of the message``, so that a user's exception stays one line."""
    try:
        lines = str(err).strip().splitlines()
    except BaseException:  # noqa: BLE001 - a user's exception whose __str__ raises
        lines = []
    return f"{type(err).__name__}: {lines[0]}" if lines else type(err).__name__


#: The longest exception text a one-line message about the user's code quotes.
_MAX_QUOTE = 200


def quote(err: BaseException) -> str:
    """``Type: first line of the message`` of a user's exception, cut to :data:`_MAX_QUOTE` characters:
    what a one-line error about the user's code quotes."""
    text = _one_line(err)
    return text if len(text) <= _MAX_QUOTE else text[: _MAX_QUOTE - 3] + "..."


def user_stdout() -> contextlib.AbstractContextManager[Any]:
    """Send what the user's code prints to stderr, so that stdout carries only pybridge's own output
    (``--json`` prints exactly one JSON document)."""
    return contextlib.redirect_stdout(sys.stderr)


@contextlib.contextmanager
def watch_sigint() -> Iterator[list[bool]]:
    """Tell a real Ctrl-C (SIGINT delivered to this process) from a ``KeyboardInterrupt`` that the user's
    code raises itself: while inside, SIGINT sets the flag (``[True]``) before raising KeyboardInterrupt.
    Only the main thread can install the handler; elsewhere the flag stays False."""
    seen = [False]
    if threading.current_thread() is not threading.main_thread():
        yield seen
        return
    try:
        previous = signal.getsignal(signal.SIGINT)
    except (ValueError, OSError):
        yield seen
        return
    if previous in (signal.SIG_IGN, None):  # Ctrl-C is ignored here (a background job): leave it so
        yield seen
        return

    def handler(signum: int, frame: Any) -> None:
        seen[0] = True
        raise KeyboardInterrupt

    try:
        signal.signal(signal.SIGINT, handler)
    except (ValueError, OSError):
        yield seen
        return
    try:
        yield seen
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)


@contextlib.contextmanager
def user_code(name: str, what: str) -> Iterator[None]:
    """Run the user's code (a model's ``forward``, its factory, its module) contained: its prints go to
    stderr (:func:`user_stdout`), and anything it raises, ``SystemExit`` and ``KeyboardInterrupt``
    included, becomes a one-line :class:`UserCodeError` (exit 16): ``NAME: WHAT raised Type: message``.
    A :class:`BridgeError` raised inside (pybridge's own) passes through unchanged, and so does a real
    Ctrl-C (SIGINT while inside: exit 130), told apart from the user's own ``raise KeyboardInterrupt``.
    """
    with watch_sigint() as interrupted:
        try:
            with user_stdout():
                yield
        except BridgeError:
            raise
        except KeyboardInterrupt:
            if interrupted[0]:
                raise
            raise UserCodeError(f"{name}: {what} raised KeyboardInterrupt") from None
        except BaseException as err:  # noqa: BLE001 - the user's code may raise anything
            raise UserCodeError(f"{name}: {what} raised {quote(err)}") from None


def _load_factory(spec: str) -> Target:
    path_text, _, factory_name = spec.rpartition(":")
    path = Path(path_text)
    if not path.is_file():
        raise TargetError(f"{spec}: no such file {path_text!r}")
    if not factory_name.isidentifier():
        raise TargetError(f"{spec}: {factory_name!r} is not a Python identifier")
    mod_name = f"_pybridge_target_{abs(hash(path.resolve()))}"
    loader_spec = importlib.util.spec_from_file_location(mod_name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise TargetError(f"{spec}: cannot import {path_text!r}")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[mod_name] = module
    # The user's code may raise anything, SystemExit and KeyboardInterrupt included: it is reported as
    # the user's error (exit 16), never a traceback and never this process exiting on its behalf.
    # A real Ctrl-C (SIGINT) is not the user's error: it propagates (exit 130).
    try:
        with watch_sigint() as interrupted, user_stdout():
            loader_spec.loader.exec_module(module)
    except BaseException as err:  # noqa: BLE001 - see above
        sys.modules.pop(mod_name, None)
        if isinstance(err, KeyboardInterrupt) and interrupted[0]:
            raise
        raise UserCodeError(f"{spec}: importing {path_text!r} failed: {_one_line(err)}") from None
    factory = getattr(module, factory_name, None)
    if not callable(factory):
        raise TargetError(f"{spec}: {path_text!r} has no function {factory_name!r}")
    try:
        with watch_sigint() as interrupted, user_stdout():
            result = factory()
        if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], torch.nn.Module)):
            raise TargetError(f"{spec}: {factory_name}() must return (torch.nn.Module, example_input)")
        model, example = result
        with user_stdout():
            model = model.eval()
    except TargetError:
        raise
    except BaseException as err:  # noqa: BLE001 - the user's factory or its module's eval()
        if isinstance(err, KeyboardInterrupt) and interrupted[0]:
            raise
        raise UserCodeError(f"{spec}: {factory_name}() failed: {_one_line(err)}") from None
    if isinstance(example, dict):
        from pybridge.capture import keyword_inputs

        if not all(isinstance(k, str) for k in example):
            raise TargetError(f"{spec}: the keys of the example input dict must be argument names")
        model, example = keyword_inputs(model, example)
        if not example:
            raise TargetError(f"{spec}: the example input dict holds no tensor")
    inputs = example if isinstance(example, tuple) else (example,)
    check_inputs(spec, inputs)
    return Target(name=f"{path.stem}:{factory_name}", module=model, inputs=tuple(inputs))


def check_inputs(spec: str, inputs: tuple[object, ...]) -> None:
    """Refuse example inputs the analyses cannot give a meaning to: none at all, a non-tensor, or a tensor
    with no entries. Integer and boolean tensors (token ids, masks) are accepted beside at least one real
    floating-point tensor: they are held fixed; complex tensors are refused."""
    if not inputs:
        raise TargetError(f"{spec}: the example input is empty; give a tensor, a tuple of tensors or a dict")
    for i, t in enumerate(inputs):
        where = "the example input" if len(inputs) == 1 else f"example input {i}"
        if not isinstance(t, torch.Tensor):
            raise TargetError(
                f"{spec}: the example input must be a tensor, a tuple of tensors or a dict ({where} is a "
                f"{type(t).__name__})"
            )
        if t.is_complex():
            raise TargetError(
                f"{spec}: {where} has dtype {t.dtype}; the analyses (probes, gradients, tolerances) "
                "need real inputs"
            )
        if t.dim() == 0:
            raise TargetError(f"{spec}: {where} has shape []; give it at least one axis")
        if t.numel() == 0:
            raise TargetError(f"{spec}: {where} has shape {list(t.shape)} and no entries")
    if not any(t.is_floating_point() for t in inputs):  # type: ignore[union-attr]
        raise TargetError(
            f"{spec}: no example input is real floating point; the analyses (probes, gradients, "
            "tolerances) need at least one (float64, float32, ...); integer inputs are held fixed"
        )


def load_target(spec: str, params: dict[str, int] | None = None, *, batch: int = 2, seed: int = 0) -> Target:
    """Load a TARGET (a Zoo name or ``file.py:factory``) as a module in eval mode plus example inputs.

    Zoo layers are compiled from their Lean definitions in float64 with seeded random weights.
    """
    if not 0 <= seed < 2**63:
        raise UsageError(f"--seed {str(seed)[:30]}: must be between 0 and 2^63 - 1")
    if spec.rpartition(":")[0].endswith(".py"):
        return _load_factory(spec)
    if spec.endswith(".py"):
        raise TargetError(f"{spec}: name the factory function as {spec}:FUNCTION")
    from pybridge import budget, zoo  # local import: the Zoo needs the Lean parser

    if not 1 <= batch <= 2**31:
        raise UsageError(f"batch {batch}: must be between 1 and 2^31")
    merged = zoo.example_params(spec, params or {})
    term, _ = zoo.instantiate(spec, merged)
    budget.require(budget.estimate(term, dims=merged, batch=batch, dtype_bytes=8), f"building {spec}")
    module, inputs = zoo.build_example(spec, params or {}, batch=batch, seed=seed)
    check_inputs(spec, tuple(inputs))  # the same refusals as a factory's (an empty axis: no entries)
    return Target(name=spec, module=module.eval(), inputs=tuple(inputs))
