"""History walked as git walks it, where libgit2 would stop at a missing parent.

A shallow clone's ``shallow`` file lives in git's common directory; libgit2 reads it from
the git directory of the worktree it opened, so in a linked worktree of a shallow clone it
sees no boundary: a boundary commit's parents (never fetched) are "not found", and its
walks, ``merge_base`` and ``descendant_of`` fail on them. There this module walks in Python,
with each commit's parents as git sees them (none past the boundary, only those the
repository holds); everywhere else it hands over to libgit2 (``walk``, ``descends``,
``merge_base``), so nothing changes where libgit2 already sees what git sees.
"""

from __future__ import annotations

import heapq
import os
from typing import TYPE_CHECKING

from ..errors import OperationalError

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from pygit2 import Commit, Oid, Repository, Walker
    from pygit2.enums import SortMode


_linked: dict[str, bool] = {}
"""Whether each git directory opened is a linked worktree's (a ``commondir`` file): it
stays what it is, so each is looked at once, not at every walk."""


def blind(repo: Repository) -> bool:
    """Whether libgit2 misses the shallow boundary git sees (a linked worktree of a shallow
    clone). Only a linked worktree's git directory can differ from git's common directory,
    where the ``shallow`` file is: any other answers False without reading a file (every
    ``descends``, ``merge_base`` and ``walk`` asks)."""
    from .promisor import shallow_boundary

    path = repo.path
    linked = _linked.get(path)
    if linked is None:
        linked = _linked[path] = os.path.isfile(os.path.join(path, "commondir"))
    return linked and not repo.is_shallow and bool(shallow_boundary(repo))


def cut(repo: Repository) -> frozenset[str]:
    """The commits whose parents git does not walk to here (the shallow boundary; none
    outside a shallow clone)."""
    from .promisor import shallow_boundary

    return shallow_boundary(repo)  # empty outside a shallow clone (no ``shallow`` file)


def parent_ids(repo: Repository, commit: Commit, boundary: frozenset[str]) -> list[Oid]:
    """``commit``'s parents as git sees them: none at the shallow ``boundary``, and only
    those the repository holds (a parent it lacks is where its history ends)."""
    if str(commit.id) in boundary:
        return []
    return [p for p in commit.parent_ids if p in repo]


def parent_commits(repo: Repository, commit: Commit) -> list[Commit]:
    """``commit.parents`` as git sees them (``parent_ids``): libgit2's own where it has
    them all, which is everywhere but past a boundary it cannot see."""
    try:
        return list(commit.parents)
    except KeyError:  # pygit2's "not found": a parent git does not walk to
        return [_commit(repo, p) for p in parent_ids(repo, commit, cut(repo))]


class Walk:
    """libgit2's walker (``push``, ``hide``, ``simplify_first_parent``, iteration, in
    topological order, newest first among the ready, or reversed) over ``parent_ids``."""

    def __init__(self, repo: Repository, reverse: bool = False) -> None:
        self.repo = repo
        self.reverse = reverse
        self._boundary = cut(repo)
        self._tips: list[Oid] = []
        self._hidden: list[Oid] = []
        self._first_parent = False

    def push(self, oid: Oid) -> None:
        self._tips.append(oid)

    def hide(self, oid: Oid) -> None:
        self._hidden.append(oid)

    def simplify_first_parent(self) -> None:
        self._first_parent = True

    def parents(self, commit: Commit) -> list[Oid]:
        found = parent_ids(self.repo, commit, self._boundary)
        return found[:1] if self._first_parent else found

    def reach(self, tips: Iterable[Oid], stop: set[Oid]) -> dict[Oid, Commit]:
        """The commits ``tips`` reach (themselves too), but those in ``stop``."""
        seen: dict[Oid, Commit] = {}
        todo = [t for t in tips if t not in stop]
        while todo:
            oid = todo.pop()
            if oid in seen or oid in stop:
                continue
            seen[oid] = commit = _commit(self.repo, oid)
            todo.extend(self.parents(commit))
        return seen

    def descends(self, commit: Oid, ancestor: Oid) -> bool:
        """Whether ``ancestor`` is in ``commit``'s history (not ``commit`` itself)."""
        return ancestor in self.reach(self.parents(_commit(self.repo, commit)), set())

    def merge_base(self, a: Oid, b: Oid) -> Oid | None:
        """The newest best common ancestor of ``a`` and ``b``; None: no shared history."""
        common = set(self.reach([a], set())).intersection(self.reach([b], set()))
        below = self.reach([p for c in common for p in self.parents(_commit(self.repo, c))], set())
        best = [_commit(self.repo, c) for c in common - set(below)]
        return max(best, key=lambda c: (c.commit_time, str(c.id))).id if best else None

    def __iter__(self) -> Iterator[Commit]:
        hidden = set(self.reach(self._hidden, set()))
        commits = self.reach(self._tips, hidden)
        children = dict.fromkeys(commits, 0)
        for commit in commits.values():
            for parent in self.parents(commit):
                if parent in children:
                    children[parent] += 1
        ready = [(-c.commit_time, n, c.id) for n, c in enumerate(commits.values())]
        ready = [r for r in ready if children[r[2]] == 0]
        heapq.heapify(ready)
        tick = len(commits)
        found: list[Commit] = []
        while ready:
            _, _, oid = heapq.heappop(ready)
            found.append(commits[oid])
            for parent in self.parents(commits[oid]):
                if parent in children:
                    children[parent] -= 1
                    if children[parent] == 0:
                        heapq.heappush(ready, (-commits[parent].commit_time, tick, parent))
                        tick += 1
        return reversed(found) if self.reverse else iter(found)


def walk(repo: Repository, tip: Oid | None, order: SortMode) -> Walk | Walker:
    """``repo.walk(tip, order)``, walked as git walks it (see the module's docstring)."""
    import pygit2

    if not blind(repo):
        return repo.walk(tip, order)
    walker = Walk(repo, reverse=bool(order & pygit2.enums.SortMode.REVERSE))
    if tip is not None:
        walker.push(tip)
    return walker


def walked(walker: Walk | Walker) -> Iterator[Commit]:
    """The commits of ``walker``; a commit its history needs that the repository lacks
    (outside a shallow clone: a corrupt repository, where libgit2's walk stops on a "not
    found") an OperationalError naming it, as ``git log`` stops there."""
    import pygit2

    commits = iter(walker)
    while True:
        try:
            commit = next(commits)
        except StopIteration:
            return
        except (pygit2.GitError, KeyError) as exc:
            raise missing_object(exc) from None
        yield commit


def missing_object(exc: BaseException) -> OperationalError:
    """The one line for an object libgit2 did not find that history needs (``exc`` names
    it); another failure of libgit2's in git's words of a repository it cannot read."""
    import re

    named = re.search(r"\b[0-9a-f]{40}(?:[0-9a-f]{24})?\b", str(exc))
    if named is None:
        return OperationalError(f"cannot read the repository's history: {exc}")
    return OperationalError(
        f"the repository is corrupt: object {named.group(0)}, which its history needs, is "
        "missing (git fsck --full lists what else is); a fresh "
        "clone from a remote that has it brings it back"
    )


def descends(repo: Repository, commit: Oid, ancestor: Oid) -> bool:
    """Whether ``ancestor`` is in ``commit``'s history (not ``commit`` itself)."""
    if not blind(repo):
        return bool(repo.descendant_of(commit, ancestor))
    return Walk(repo).descends(commit, ancestor)


def merge_base(repo: Repository, a: Oid, b: Oid) -> Oid | None:
    """One best common ancestor of two commits, None when they share no history here."""
    if not blind(repo):
        found: Oid | None = repo.merge_base(a, b)
        return found
    return Walk(repo).merge_base(a, b)


def _commit(repo: Repository, oid: Oid) -> Commit:
    import pygit2

    return repo[oid].peel(pygit2.Commit)
