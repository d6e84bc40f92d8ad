"""One writer per document at a time: a thread lock here, an advisory file lock across servers.

Each lock file lives in the repository's common git directory (or the system's
temporary folder when serving a plain directory), named after the document's real
path, so two servers in two work trees of one repository, or two servers started in
one folder, take turns. ``flock`` locks vanish with their process: a killed server
never leaves a stale lock behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import threading
from collections.abc import Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: the thread lock alone
    fcntl = None  # type: ignore[assignment]


class Locks:
    """Locks by document real path; ``folder`` holds the lock files."""

    def __init__(self, folder: str | None) -> None:
        user = getattr(os, "getuid", lambda: "user")()
        self.folder = folder or os.path.join(tempfile.gettempdir(), f"git-vcontext-{user}")
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
        fd = os.open(os.path.join(self.folder, name), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
