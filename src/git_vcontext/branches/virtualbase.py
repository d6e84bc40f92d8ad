"""The base tree of an in-process merge: the merge base, or a virtual one for criss-cross histories.

libgit2's ``merge_base`` picks one of several merge bases, and a merge from the
wrong one sees a change both sides inherited as a conflict (an item reopened on one
side looks reopened against a base where it was never completed). As ``git merge``
does, the bases are merged into a virtual base first, oldest first; in that inner
merge every conflict takes the base's version (M16), so it never stops.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..gitio.bases import merge_bases
from ..gitio.objects import commit_at, make_commit, signature
from .treemerge import merge_trees

if TYPE_CHECKING:
    from pygit2 import Oid, Repository, Tree

MAX_DEPTH = 8
"""Nested criss-crosses deeper than this start from the oldest base (git has no limit)."""


def base_tree(
    repo: Repository,
    ours: Oid,
    theirs: Oid,
    *,
    now: str,
    depth: int = 0,
    bases: list[Oid] | None = None,
) -> Tree | None:
    """The tree to merge ``ours`` and ``theirs`` (commit ids) from; None without history.
    ``bases``: their merge bases (``merge_bases``), when the caller has them."""
    if bases is None:
        bases = merge_bases(repo, ours, theirs)
    if not bases:
        return None
    if len(bases) == 1 or depth >= MAX_DEPTH:
        return commit_at(repo, bases[0]).tree
    merged = bases[0]
    for other in bases[1:]:
        inner = base_tree(repo, merged, other, now=now, depth=depth + 1)
        ours_tree, theirs_tree = commit_at(repo, merged).tree, commit_at(repo, other).tree
        tree = merge_trees(repo, inner, ours_tree, theirs_tree, now=now, virtual=True)
        assert tree.tree is not None  # a virtual base's merge never stops on a conflict
        merged = _virtual_commit(repo, tree.tree, [merged, other])
    return commit_at(repo, merged).tree


def _virtual_commit(repo: Repository, tree: Oid, parents: list[Oid]) -> Oid:
    """An unreferenced commit standing for a merged base (git keeps it in memory), so that
    a third base can be merged with it; fixed identity and time: same inputs, same object."""
    nobody = signature("git-vcontext", "virtual-base@git-vcontext.invalid", time=0)
    return make_commit(repo, tree, parents, "virtual merge base\n", nobody, nobody)
