"""A file's past: the distinct versions of one path in the history of a revision."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import OperationalError
from . import resolve_commit


def file_versions(repo: Any, path: str, rev: str = "HEAD") -> Iterator[tuple[str, bytes]]:
    """(commit id, content) of ``path`` for each distinct version reachable from ``rev``.

    Newest first (topological, then time); a version that several commits share
    is given once, with the newest of them. Nothing when ``rev`` does not exist
    yet (a repository without commits).
    """
    import pygit2

    try:
        head = resolve_commit(repo, rev)
    except OperationalError:  # unborn branch: no history to read
        return
    seen: set[Any] = set()
    order = pygit2.GIT_SORT_TOPOLOGICAL | pygit2.GIT_SORT_TIME
    for commit in repo.walk(head.id, order):
        try:
            blob_id = commit.tree[path].id
        except KeyError:
            continue
        if blob_id in seen:
            continue
        seen.add(blob_id)
        yield str(commit.id), repo[blob_id].data
