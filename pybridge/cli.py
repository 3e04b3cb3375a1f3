"""The ``pybridge`` command line: a thin typer layer over the library.

Library functions raise :class:`pybridge.errors.BridgeError`; this module alone prints and picks exit
codes. Every error is one line on stderr, never a traceback.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import typer

try:  # typer ≥ 0.20 carries its own copy of click; its exceptions are those of that copy
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - older typer on the real click
    from click import exceptions as click_errors  # type: ignore[no-redef]

from pybridge.errors import BridgeError
from pybridge.lean.display import escape_text

app = typer.Typer(
    name="pybridge",
    help="topos-bridge: Lean-defined layers as PyTorch modules, and the topos structure of real models.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # usage errors are one plain line (see main), never a rich box
)

F = TypeVar("F", bound=Callable[..., Any])

#: Exit status for a run that ran out of memory (torch allocation failure or MemoryError).
OUT_OF_MEMORY = 14


def printable(text: str) -> str:
    """``text`` with its control characters (line breaks, escape sequences: Unicode category Cc), line
    separators and bidirectional controls written as ``\\n``, ``\\x1b``, ``\\u202e``, so that an error
    line stays one line and a terminal receives no control sequence from a name in a user's file (the
    one escaper of :mod:`pybridge.lean.display`)."""
    return escape_text(text)


def error_line(message: str) -> None:
    """Print ``error: message`` on stderr as one line of printable text (:func:`printable`)."""
    typer.echo(f"error: {printable(message.strip())}", err=True)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print ``error: message`` on stderr and return the Exit to raise."""
    error_line(message)
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


@app.callback()
def _options(
    max_memory: str | None = typer.Option(
        None,
        "--max-memory",
        help="Stop (exit 14) before a command allocates more than this, as counted in advance (e.g. 512M, "
        "2G): a layer's weights, activations and modules; a model's float64 copy, recorded activations "
        "and probe grid; default: $PYBRIDGE_MAX_MEMORY, else the available memory.",
    ),
) -> None:
    """topos-bridge: Lean-defined layers as PyTorch modules, and the topos structure of real models."""
    from pybridge.budget import parse_size, set_limit

    try:
        set_limit(None if max_memory is None else parse_size(max_memory))
    except BridgeError as err:
        raise fail(str(err), err.exit_code) from None


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


#: Exit status of an unexpected exception in pybridge itself (a bug), as ``EX_SOFTWARE`` of sysexits.h.
INTERNAL_ERROR = 70

#: Exit status of a run interrupted by the user (Ctrl-C), as a shell reports SIGINT.
INTERRUPTED = 130


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point.

    Usage errors (an unknown option, a missing argument) are one ``error:`` line and exit 2. Library
    warnings raised during the command are held back and printed after its output as ``warning:``
    lines, so that the first line on stderr of a failed command is its ``error:`` line.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        code = _run(argv)
    if code == 0:
        for w in caught:
            typer.echo(
                f"warning: {w.category.__name__}: {str(w.message).splitlines()[0] if str(w.message) else ''}",
                err=True,
            )
    sys.exit(code)


_NO_ARGS_IS_HELP: type[Exception] = getattr(
    click_errors, "NoArgsIsHelpError", getattr(click_errors, "NoArgsIsHelp", click_errors.UsageError)
)


def _run(argv: list[str] | None) -> int:
    try:
        result = app(args=argv, standalone_mode=False)
    except _NO_ARGS_IS_HELP as err:  # `pybridge` alone: the help text, exit 0
        ctx = getattr(err, "ctx", None)
        typer.echo(ctx.get_help() if ctx else "")
        return 0
    except BridgeError as err:  # raised outside a command (the root options)
        error_line(str(err))
        return err.exit_code
    except click_errors.UsageError as err:
        where = f"{err.ctx.command_path}: " if err.ctx else ""
        error_line(f"{where}{(err.format_message().splitlines() or [''])[0]}")
        return 2
    except typer.Exit as err:
        return int(err.exit_code or 0)
    except typer.Abort:
        typer.echo("error: interrupted", err=True)
        return INTERRUPTED
    except KeyboardInterrupt:
        typer.echo("error: interrupted", err=True)
        return INTERRUPTED
    except click_errors.ClickException as err:
        error_line((err.format_message().splitlines() or [""])[0])
        return err.exit_code
    except Exception as err:  # a bug in pybridge: still one line, with its own exit status
        if os.environ.get("PYBRIDGE_DEBUG"):
            raise
        text = (str(err).strip().splitlines() or [""])[0][:300]
        error_line(
            f"internal error ({type(err).__name__}: {text}); please report it "
            "(PYBRIDGE_DEBUG=1 shows the traceback)"
        )
        return INTERNAL_ERROR
    if result == INTERRUPTED:  # typer turned a real Ctrl-C into Exit(130)
        typer.echo("error: interrupted", err=True)
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    main()
