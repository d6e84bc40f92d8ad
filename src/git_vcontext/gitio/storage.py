"""Why a repository could not be written: a full disk, a read-only file system, permissions.

libgit2 and git report such failures in their own words ("object not found" after a
write that did not happen, "failed to create temporary file", "failed to write out
file"). ``explained`` turns any failure of a command that writes into one line saying
what happened and what to do, when the file system is the cause.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import OperationalError, UsageError
from ..fsio import permitted

LOW = 1 << 20  # bytes free below which a disk counts as full
_FULL = ("No space left", "Disk quota exceeded")
_READ_ONLY = ("Read-only file system", "failed to create temporary file")


def problem(paths: list[str], said: str = "", code: int | None = None) -> str | None:
    """What stops writes under ``paths`` (the first that has a problem), or None: the file
    system as it is now, else what the failure said (``said``, an errno ``code``)."""
    for path in paths:
        try:
            st = os.statvfs(path)
        except OSError:
            continue
        if st.f_flag & os.ST_RDONLY:
            return f"{path} is on a read-only file system"
        if not permitted(path, os.W_OK):
            return f"{path} is not writable (permissions)"
        if st.f_bavail * st.f_frsize < LOW:
            return f"the disk holding {path} is full"
    if code in (errno.ENOSPC, errno.EDQUOT) or any(w in said for w in _FULL):
        return f"the disk holding {paths[0]} is full"
    if code in (errno.EROFS, errno.EACCES) or any(w in said for w in _READ_ONLY):
        return f"{paths[0]} cannot be written"
    return None


@contextmanager
def explained(paths: list[str], command: str) -> Iterator[None]:
    """Run the body; a failure caused by the file system under ``paths`` becomes one
    OperationalError saying what happened and what to do (others pass unchanged)."""
    import pygit2

    try:
        yield
    except UsageError:
        raise
    except (OperationalError, pygit2.GitError, OSError) as exc:
        said = exc.message if isinstance(exc, OperationalError) else str(exc)
        found = problem(paths, said, getattr(exc, "errno", None))
        if found is None:
            raise
        fix = (
            "free some space"
            if "full" in found
            else "make the repository writable (or work in a clone you can write)"
        )
        raise OperationalError(
            f"{command} stopped: {found} ({' '.join(said.split())[:200]}); what it did is "
            f"safe to finish: {fix}, then run git vcontext {command} again"
        ) from None
