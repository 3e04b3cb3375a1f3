"""The ``pybridge`` command line: a thin typer layer over the library.

Library functions raise :class:`pybridge.errors.BridgeError`; this module alone prints and picks exit
codes. Every error is one line on stderr, never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import typer

from pybridge.errors import BridgeError

app = typer.Typer(
    name="pybridge",
    help="topos-bridge: Lean-defined layers as PyTorch modules, and the topos structure of real models.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

F = TypeVar("F", bound=Callable[..., Any])

#: Exit status for a run that ran out of memory (torch allocation failure or MemoryError).
OUT_OF_MEMORY = 14


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print ``error: message`` on stderr and return the Exit to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def user_errors(fn: F) -> F:
    """Turn a :class:`BridgeError` raised by a command into one stderr line and its exit code."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except BridgeError as err:
            raise fail(str(err), err.exit_code) from None
        except MemoryError:
            raise fail("out of memory: choose smaller dimensions", OUT_OF_MEMORY) from None
        except RuntimeError as err:  # torch reports allocation failures as RuntimeError subclasses
            text = str(err)
            if "out of memory" in text.lower() or "can't allocate memory" in text:
                first = text.strip().splitlines()[0] if text.strip() else "allocation failed"
                message = f"out of memory ({first[:160]}): choose smaller dimensions"
                raise fail(message, OUT_OF_MEMORY) from None
            raise

    return wrapper  # type: ignore[return-value]


# --- command modules register themselves here (one line each) ---------------------------------
from pybridge import commands as _spine  # noqa: E402

_spine.register(app)
# REGISTER: further command modules (claims/audit/verify, fragment, site) go below this line.
from pybridge.site import commands as _site  # noqa: E402

_site.register(app)
from pybridge.fragment import commands as _fragment  # noqa: E402

_fragment.register(app)
from pybridge import verify_commands as _verify  # noqa: E402

_verify.register(app)
from pybridge import review_commands as _review  # noqa: E402

_review.register(app)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("error: interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
