"""Questions ``sync --push`` asks of the commit graph: is this work in the base already,
does this branch hold work of its own, where did this work start from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..gitio.objects import commit_at, descends, merge_base, new_commits

if TYPE_CHECKING:
    from pygit2 import Oid, Repository


def contains(repo: Repository, tip: Oid | None, commit: Oid) -> bool:
    """Whether ``commit`` is ``tip`` or one of its ancestors (``tip`` None: nothing)."""
    return tip is not None and (tip == commit or descends(repo, tip, commit))


def has_work(repo: Repository, tip: Oid, base: Oid | None) -> bool:
    """Whether ``tip`` holds commits the base lacks, other than merges of what the base has
    (an agent branch after a sync ends in such a merge of the base into it) or of such
    merges (brought along again after the base moved: a chain of them is no work either).

    Every parent of a commit the base lacks is in the base or is itself such a commit, so
    the work is exactly the non-merge commits among them."""
    if contains(repo, base, tip):
        return False
    if base is None:
        return True
    return any(len(commit.parent_ids) < 2 for commit in new_commits(repo, tip, base))


def start_of(repo: Repository, commit: Oid, base: Oid, *, look_back: int = 200) -> Oid | None:
    """The base an agent's work started from: its merge base with ``base``, or (when the
    work is in ``base`` already) with the base just before the merge that took it (a
    parent after the first, also of an integration that merged several agents), looked
    for among the base's last ``look_back`` first-parent commits; None when not found."""
    if not contains(repo, base, commit):
        return merge_base(repo, commit, base)
    seen = commit_at(repo, base)
    for _ in range(look_back):
        if commit in seen.parent_ids[1:]:
            return merge_base(repo, commit, seen.parent_ids[0])
        if not seen.parents:
            break
        seen = seen.parents[0]
    return None
