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


def merge_bases(repo: Any, ours: Any, theirs: Any, *, limit: int = 20_000) -> list[Any]:
    """Every best common ancestor of two commits, as ``git merge-base --all`` gives them
    (several after criss-cross merges, e.g. of racing integrations); [] when none.

    The commits since libgit2's one merge base are walked on both sides; a common one
    that no other common one descends from is a merge base too. Past ``limit`` commits
    on a side, libgit2's one base is taken.
    """
    first = repo.merge_base(ours, theirs)
    if first is None:
        return []
    mine, yours = _since(repo, ours, first, limit), _since(repo, theirs, first, limit)
    if mine is None or yours is None or not (common := mine & yours):
        return [first]
    found = [first, *sorted(common, key=str)]
    return [c for c in found if not any(o != c and repo.descendant_of(o, c) for o in found)]


def _since(repo: Any, tip: Any, base: Any, limit: int) -> set[Any] | None:
    import pygit2

    walker = repo.walk(tip, pygit2.GIT_SORT_NONE)
    walker.hide(base)
    seen = set()
    for commit in walker:
        seen.add(commit.id)
        if len(seen) > limit:
            return None
    return seen
