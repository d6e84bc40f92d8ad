"""Every merge base of two commits (``git merge-base --all``); libgit2's ``merge_base`` picks one.

A criss-cross history (agents that merged each other) has several: a merge then
starts from a virtual base built by merging them (M16), as ``git merge`` does.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING

from .cutwalk import cut, descends, parent_ids
from .objects import commit_at

if TYPE_CHECKING:
    from pygit2 import Oid, Repository

_OURS, _THEIRS, _STALE = 1, 2, 4


def merge_bases(repo: Repository, a: Oid, b: Oid) -> list[Oid]:
    """The best common ancestors of commits ``a`` and ``b`` (ids), oldest first.

    Walks down from both tips newest first, painting what each reaches, until
    only commits below a found common ancestor are left (git's algorithm); then
    drops a candidate that is an ancestor of another one.
    """
    if a == b:
        return [a]
    flags: dict[Oid, int] = {a: _OURS, b: _THEIRS}
    found: list[Oid] = []
    queue: list[tuple[int, int, Oid]] = []
    for n, oid in enumerate((a, b)):
        heapq.heappush(queue, (-commit_at(repo, oid).commit_time, n, oid))
    tick = 2
    boundary = cut(repo)  # git walks no further (a shallow clone); libgit2 may not know
    while any(not flags[oid] & _STALE for _, _, oid in queue):
        _, _, oid = heapq.heappop(queue)
        paint = flags[oid] & (_OURS | _THEIRS | _STALE)
        if paint & (_OURS | _THEIRS) == _OURS | _THEIRS and not paint & _STALE:
            found.append(oid)
            paint |= _STALE
        for parent in parent_ids(repo, commit_at(repo, oid), boundary):
            if flags.get(parent, 0) & paint == paint:
                continue
            flags[parent] = flags.get(parent, 0) | paint
            heapq.heappush(queue, (-commit_at(repo, parent).commit_time, tick, parent))
            tick += 1
    return _independent(repo, found)


def _independent(repo: Repository, candidates: list[Oid]) -> list[Oid]:
    """Candidates that are no ancestor of another candidate, oldest first (as git orders
    the bases it merges into a virtual one)."""
    unique = list(dict.fromkeys(candidates))
    kept = [c for c in unique if not any(o != c and descends(repo, o, c) for o in unique)]
    return sorted(kept, key=lambda oid: (commit_at(repo, oid).commit_time, str(oid)))
