"""Objects read as git reads them in a partial clone (``--filter=blob:none``) and the shallow
boundary of a shallow one.

libgit2 reads the local object store only: a blob a partial clone has not fetched yet is
"not found" there, where git fetches it from the promisor remote on demand. A repository
opened by gitio gets one more object backend, asked last: in a partial clone (found out at
the first miss), a ``git cat-file --batch`` process, which fetches a missing object as any
git command would (one process for all the objects a command reads); elsewhere a miss is
"not found", as before.
"""

from __future__ import annotations

import atexit
import os
import subprocess
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

    from pygit2 import OdbBackend, Oid, Repository


PROMISOR = r"^(extensions\.partialclone|remote\..*\.(promisor|partialclonefilter))$"
"""The settings that make git fetch missing objects from a remote (``promisor-remote.c``):
``remote.NAME.promisor`` true, any ``remote.NAME.partialclonefilter``, or
``extensions.partialClone``."""


def is_partial(git_dir: str) -> bool:
    """Whether git may fetch the missing objects of the repository at ``git_dir`` (a
    promisor remote), from the settings as git reads them (``configread``: ``git -c`` and
    the user's and system's files too, which libgit2 reads otherwise or not at all)."""
    from ..gitvalues import git_bool
    from . import configread

    for key, value in configread.matching(git_dir, PROMISOR):
        if not key.endswith(".promisor") or git_bool(value):
            return True
    return False


def read_as_git(repo: Repository) -> None:
    """Let every read of a missing object fetch it where git would (a partial clone),
    asked at the first object the repository lacks: one that lacks none (most) starts no
    process (log and blame read history in one)."""
    repo.odb.add_backend(_backend(repo.path), 1)  # after the store's own backends


class _Batch:
    """One ``git cat-file --batch`` process for a repository, started at the first miss."""

    def __init__(self, git_dir: str) -> None:
        self.git_dir = git_dir
        self.proc: subprocess.Popen[bytes] | None = None

    def read(self, oid: Oid) -> tuple[bytes, bytes]:
        """(kind, content) of an object; KeyError when git cannot have it either."""
        proc = self._started()
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(f"{oid}\n".encode())
            proc.stdin.flush()
            header = proc.stdout.readline().split()
        except OSError:
            raise KeyError(str(oid)) from None
        if len(header) != 3:  # "<oid> missing"
            raise KeyError(str(oid))
        data = proc.stdout.read(int(header[2]))
        proc.stdout.read(1)  # the newline after the content
        return header[1], data

    def _started(self) -> subprocess.Popen[bytes]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                ["git", "cat-file", "--batch"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={**os.environ, "GIT_DIR": self.git_dir},
            )
            atexit.register(_close, self.proc)
        return self.proc


class _Misses:
    """What the backend answers: git's objects in a partial clone (asked of configread at
    the first miss), "not found" elsewhere."""

    def __init__(self, git_dir: str) -> None:
        self.git_dir = git_dir
        self.batch = _Batch(git_dir)
        self.promised: bool | None = None  # whether git fetches what is missing here
        self.missed = False  # libgit2 refreshed the store: no backend had an object

    def read(self, oid: Oid) -> tuple[bytes, bytes]:
        if self.promised is None:
            self.promised = is_partial(self.git_dir)
        if not self.promised:
            raise KeyError(str(oid))  # not a partial clone: missing, as git says
        return self.batch.read(oid)

    def read_prefix(self, oid: Oid) -> tuple[bytes, bytes]:
        """libgit2 asks every backend for a prefix (ambiguity), those that have the object
        too: only after a miss (its refresh, then the second round) is it one to fetch."""
        if self.promised is None and not self.missed:
            raise KeyError(str(oid))
        self.missed = False
        return self.read(oid)


def _backend(git_dir: str) -> OdbBackend:
    import pygit2

    kinds = {
        b"blob": pygit2.enums.ObjectType.BLOB,
        b"tree": pygit2.enums.ObjectType.TREE,
        b"commit": pygit2.enums.ObjectType.COMMIT,
        b"tag": pygit2.enums.ObjectType.TAG,
    }
    misses = _Misses(git_dir)

    class GitObjects(pygit2.OdbBackend):
        """Objects from ``git cat-file --batch`` (which fetches what is promised)."""

        def read_cb(self, oid: Oid) -> tuple[int, bytes]:
            kind, data = misses.read(oid)
            return kinds[kind], data

        def read_prefix_cb(self, oid: Oid) -> tuple[int, bytes, Oid]:
            kind, data = misses.read_prefix(oid)
            return kinds[kind], data, oid

        def read_header_cb(self, oid: Oid) -> tuple[int, int]:
            kind, data = misses.read(oid)
            return kinds[kind], len(data)

        def exists_cb(self, oid: Oid) -> bool:
            return False  # not here: only a read fetches it (as git does)

        def exists_prefix_cb(self, oid: Oid) -> Oid:
            raise KeyError(str(oid))

        def refresh_cb(self) -> None:
            misses.missed = True

        def __iter__(self) -> Iterator[Oid]:
            return iter(())

    return GitObjects()


def _close(proc: subprocess.Popen[bytes]) -> None:
    try:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        proc.kill()


def shallow_boundary(repo: Repository) -> frozenset[str]:
    """The commits whose parents a shallow clone has not fetched (``shallow`` in git's
    common directory, a linked worktree's too: ``fsio.common_dir``, the one reading of it,
    as libgit2 opened ``repo``)."""
    from ..fsio import common_dir

    path = os.path.join(common_dir(repo.path, {}), "shallow")
    try:
        with open(path, encoding="utf-8") as fh:
            return frozenset(line.strip() for line in fh.read().splitlines() if line.strip())
    except OSError:
        return frozenset()


def no_common_history(repo: Repository, a: str, b: str) -> str:
    """Why two branches cannot be merged: unrelated histories, or, in a shallow clone,
    history that joins them and was not fetched (told apart, with git's fix)."""
    if repo.is_shallow or shallow_boundary(repo):  # a linked worktree: libgit2 says no
        return (
            f"{a} and {b} share no history in this shallow clone: the commits that join "
            "them were not fetched (git fetch --unshallow)"
        )
    return f"{a} and {b} share no history"
