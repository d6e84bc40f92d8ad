"""A file's past: the distinct versions of one path in the history of a revision."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..errors import OperationalError
from . import resolve_commit
from .cutwalk import missing_object, walk, walked
from .objects import blob_data

# pygit2 is imported inside the functions that use it (lazy): it is slow to import,
# and commands that never read a repository import this module too.
if TYPE_CHECKING:
    from pygit2 import Oid, Repository


def file_versions(repo: Repository, path: str, rev: str = "HEAD") -> Iterator[tuple[str, bytes]]:
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
    seen: set[Oid] = set()
    order = pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME
    for commit in walked(walk(repo, head.id, order)):
        try:
            entry = commit.tree[path]
        except KeyError:
            continue
        except pygit2.GitError as exc:  # a tree the history needs is missing (corrupt)
            raise missing_object(exc) from None
        if entry.type_str != "blob":  # a folder or a submodule there: no version of a file
            continue
        blob_id = entry.id
        if blob_id in seen:
            continue
        seen.add(blob_id)
        try:
            data = blob_data(repo, blob_id)
        except (pygit2.GitError, KeyError) as exc:
            raise missing_object(exc) from None
        yield str(commit.id), data
