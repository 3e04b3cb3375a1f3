"""The one exception hierarchy of pybridge.

Library code raises these; only the CLI turns them into a one-line message and an exit code.
Every message names the input at fault (a file and line, a parameter, a layer name).
"""

from __future__ import annotations


class BridgeError(Exception):
    """Base class: a user-facing error with a one-line message."""

    #: The process exit status the CLI uses for this kind of error.
    exit_code: int = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(BridgeError):
    """Bad command-line input: a malformed or missing ``--param``, an unknown option value."""

    exit_code = 2


class LeanParseError(BridgeError):
    """The Lean source is malformed, or uses syntax the bridge does not read (``file:line: ...``)."""

    exit_code = 3

    def __init__(self, file: str, line: int, message: str) -> None:
        super().__init__(f"{file}:{line}: {message}")
        self.file = file
        self.line = line


class UnknownLayerError(BridgeError):
    """A name that is not a layer of the Zoo."""

    exit_code = 4


class ShapeError(BridgeError):
    """A term or an input whose shapes do not fit together."""

    exit_code = 5


class OutputExistsError(BridgeError):
    """The output file exists and ``--force`` was not given."""

    exit_code = 6


class WriteError(BridgeError):
    """The output path cannot be written."""

    exit_code = 7


class TargetError(BridgeError):
    """A model target (``file.py:factory`` or a Zoo name) that cannot be loaded or traced."""

    exit_code = 8


class CheckFailed(BridgeError):
    """A numerical check exceeded its tolerance."""

    exit_code = 9


class ToolchainMissing(BridgeError):
    """No Lean toolchain (``lake``/``lean``) was found."""

    exit_code = 10


class VerificationFailed(BridgeError):
    """A Lean toolchain was found, but ``lake build`` or the trace failed."""

    exit_code = 11


class AuditFailed(BridgeError):
    """The static audit of ``Formal/`` found at least one violation (``pybridge audit``)."""

    exit_code = 12


class SiteError(BridgeError):
    """A layer graph or site the construction cannot handle: a cycle, or a site too large to count."""

    exit_code = 13


class NotExactError(BridgeError):
    """An operation with no exact rational value (``exp``, ``sqrt``) met by the exact interpreter of
    ``Arch.eval`` (``pybridge.laws.exact``)."""


class ReviewRecordError(BridgeError):
    """The review record (``REVIEWS.json``) is malformed, or a review to add is not valid."""

    exit_code = 15


class EmitError(BridgeError):
    """The emitter produced a file that is not exactly the intended module (a bug in the bridge, caught
    before the file is written)."""

    exit_code = 17


class ResourceLimitError(BridgeError):
    """A command would allocate more memory than is available (or than ``--max-memory`` allows); it
    stops before allocating."""

    exit_code = 14


class UserCodeError(TargetError):
    """The user's model code (a ``file.py:factory`` target) raised while being imported or called,
    including ``SystemExit`` and ``KeyboardInterrupt``."""

    exit_code = 16
