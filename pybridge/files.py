"""Writing the files the bridge produces (emitted layers, ``verification.json``, ``TRUST.md``, README).

One writer for all of them: a temporary file in the target's directory, then a rename, so a reader
never sees a half-written file and a failure leaves the old one in place.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from pybridge.errors import OutputExistsError, WriteError


def _new_file_mode(path: Path) -> int:
    """The permission bits ``path`` should get: its current ones when it exists, else ``0o666 & ~umask``
    (what ``open(path, "w")`` would give; ``mkstemp`` alone would leave the file private, ``0o600``)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_atomic(path: Path, data: str | bytes, *, force: bool = True) -> None:
    """Write ``data`` (text is written as UTF-8) to ``path`` via a temporary file and a rename.

    Never half-writes: on any failure the temporary file is removed and ``path`` is unchanged. Raises
    :class:`OutputExistsError` when ``path`` exists (a symbolic link, dangling or not, included) and
    ``force`` is false, and :class:`WriteError` when
    ``path`` is a directory, or its directory is missing or not writable.
    """
    path = Path(path)
    if path.is_dir():
        raise WriteError(f"{path}: is a directory")
    if (path.exists() or path.is_symlink()) and not force:  # a dangling link counts as existing
        raise OutputExistsError(f"{path}: already exists (use --force to replace it)")
    directory = path.parent
    if not directory.is_dir():
        raise WriteError(f"{path}: the directory {directory} does not exist")
    payload = data.encode("utf-8") if isinstance(data, str) else data
    mode = _new_file_mode(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as err:
        raise WriteError(f"{path}: cannot write in {directory}: {err.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as err:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise WriteError(f"{path}: cannot write: {err.strerror}") from None
        raise
