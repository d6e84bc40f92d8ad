"""File input/output for commands: readable errors, atomic replacement, stdin/stdout as ``-``."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path

from .errors import OperationalError


def read_bytes(path: str) -> bytes:
    """The bytes of a file (``-`` = stdin), or an OperationalError saying why not."""
    if path == "-":
        return sys.stdin.buffer.read()
    p = Path(path)
    try:
        return p.read_bytes()
    except FileNotFoundError:
        raise OperationalError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise OperationalError(f"{path}: is a directory, not a file") from None
    except PermissionError:
        raise OperationalError(f"{path}: permission denied") from None
    except OSError as exc:
        raise OperationalError(f"{path}: cannot read ({exc.strerror})") from None


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace a file's content all at once: readers see the old or the new bytes, never half.

    The new content goes to a temporary file in the same directory, is flushed
    to disk, gets the old file's permission bits, and is renamed over the target.
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    except OSError as exc:
        raise OperationalError(f"{path}: cannot write ({exc.strerror})") from None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise OperationalError(f"{path}: cannot write ({exc.strerror})") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise OperationalError(f"{path}: cannot write ({exc.strerror})") from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_output(path: str | None, text: str) -> None:
    """Write text to a file atomically, or to stdout when ``path`` is None or ``-``."""
    data = text.encode("utf-8")
    if path is None or path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        write_atomic(path, data)
