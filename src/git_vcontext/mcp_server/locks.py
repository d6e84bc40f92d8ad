"""One writer per document at a time: a thread lock here, an advisory file lock across servers.

Each lock file lives in the repository's common git directory (or the system's
temporary folder when serving a plain directory), named after the document's real
path, so two servers in two work trees of one repository, or two servers started in
one folder, take turns. ``flock`` locks vanish with their process: a killed server
never leaves a stale lock behind.

A lock file is removed when its lock is let go (while still held), so the folder holds
only the locks held now, not one file per document ever served. A server that opened
the file before it went, and then gets its lock, finds the name gone or naming another
file and opens it again (``_locked``): two servers never each hold a lock of their own
for one document. A folder left full by older versions is emptied of the files nobody
holds when a server starts (``_sweep``).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
import threading
from collections.abc import Iterator

from ..errors import OperationalError
from ..fsio import private_folder

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: the thread lock alone
    fcntl = None  # type: ignore[assignment]


class Locks:
    """Locks by document real path; ``folder`` holds the lock files."""

    def __init__(self, folder: str | None) -> None:
        if folder is None:  # a plain directory: this user's folder in the shared /tmp
            user = getattr(os, "getuid", lambda: "user")()
            folder = os.path.join(tempfile.gettempdir(), f"git-vcontext-{user}")
            _tighten(folder)
            if not private_folder(folder):
                raise OperationalError(
                    f"{folder} is not a folder of this user's alone (another owner, a link, "
                    "or open to others): remove it, or set TMPDIR to a folder of yours"
                )
        self.folder = folder
        _sweep(folder)
        self._threads: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    @contextlib.contextmanager
    def hold(self, real: str) -> Iterator[None]:
        """Hold the document's lock for the duration of the block."""
        with self._guard:
            lock = self._threads.setdefault(real, threading.Lock())
        with lock, self._file_lock(real):
            yield

    @contextlib.contextmanager
    def _file_lock(self, real: str) -> Iterator[None]:
        if fcntl is None:  # pragma: no cover
            yield
            return
        os.makedirs(self.folder, exist_ok=True)
        name = hashlib.sha1(real.encode("utf-8", "surrogateescape")).hexdigest() + ".lock"
        path = os.path.join(self.folder, name)
        fd = _locked(path)
        assert fd is not None  # (blocking: it waits for the lock)
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                os.unlink(path)  # still held: whoever waits on this file opens the name anew
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


def _locked(path: str, blocking: bool = True) -> int | None:
    """An open descriptor of the lock file ``path``, its ``flock`` held, and ``path`` still
    naming that very file (it was not removed, nor made anew, while we waited); None when
    ``blocking`` is False and someone holds it."""
    assert fcntl is not None
    mode = fcntl.LOCK_EX if blocking else fcntl.LOCK_EX | fcntl.LOCK_NB
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, mode)
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        held = os.fstat(fd)
        try:
            named = os.stat(path)
        except OSError:
            named = None
        if named is not None and (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino):
            return fd
        os.close(fd)  # (its lock goes with it) the file we waited on is gone: again


def _sweep(folder: str) -> None:
    """Remove the lock files nobody holds (an older version left one per document)."""
    if fcntl is None:  # pragma: no cover
        return
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".lock")]
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        try:
            fd = _locked(path, blocking=False)
        except OSError:
            continue
        if fd is None:
            continue  # held now: its holder removes it
        with contextlib.suppress(OSError):
            os.unlink(path)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _tighten(folder: str) -> None:
    """Close the folder older versions made with the default mode (0755) to others, when it
    is this user's own folder that nobody else could write into."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:  # no user ids (Windows), no modes to close
        return
    try:
        info = os.lstat(folder)
    except OSError:
        return
    if stat.S_ISDIR(info.st_mode) and info.st_uid == getuid() and not info.st_mode & 0o022:
        with contextlib.suppress(OSError):
            os.chmod(folder, 0o700)
