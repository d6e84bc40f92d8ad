"""A file's text as git stores it and as git checks it out (``core.autocrlf``, ``core.eol``,
the ``text``/``eol`` attributes): what the tool writes into a work tree goes through git's
own conversion, so a CRLF work tree stays CRLF (``git ls-files --eol``: ``w/crlf``) and an
untouched file compares equal to what git wrote there.

libgit2 (pygit2) applies the same end-of-line filters as git for a path; a repository
without such settings has no filter and the bytes pass unchanged.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pygit2 import Repository


def to_worktree(repo: Repository, rel: str, data: bytes) -> bytes:
    """``data`` (as stored: an index stage, a merge result) as git would check it out at ``rel``."""
    return _filtered(repo, rel, data, to_odb=False)


def to_index(repo: Repository, rel: str, data: bytes) -> bytes:
    """``data`` (a work-tree file) as ``git add`` would store it at ``rel``."""
    return _filtered(repo, rel, data, to_odb=True)


def _filtered(repo: Repository, rel: str, data: bytes, *, to_odb: bool) -> bytes:
    if b"\0" in data or repo.is_bare:  # no text; and a bare repository has no work tree
        return data
    import pygit2
    from pygit2.enums import FilterMode

    mode = FilterMode.TO_ODB if to_odb else FilterMode.TO_WORKTREE
    try:
        filters = repo.load_filter_list(rel, mode)
        if filters is None:
            return data
        return bytes(filters.apply_to_buffer(data))
    except (pygit2.GitError, ValueError, OSError):  # an attribute git itself would report
        return data
