"""The interactive rebase a message advises to rewrite commits: the one place that words it.

A bare ``git rebase -i`` needs an upstream, which a branch that was never pushed (a forked
agent branch, the first push of a new repository) has not, and never reaches a root commit;
so the advice names the rebase that reaches the commit: ``git rebase -i COMMIT~1``, or
``git rebase -i --root`` when the commit has no parent. The pre-push check, the guard, sync's
check of its merges and the advice on a refused ``git revert`` all word it here."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pygit2 import Commit

SHORT = 12
"""The hex digits of a commit id in advice (unambiguous in any repository a person meets)."""


def rebase_after(since: str | None) -> str:
    """The interactive rebase whose list holds every commit after ``since`` (a revision), the
    whole history when None."""
    return "git rebase -i --root" if since is None else f"git rebase -i {since}"


def rebase_reaching(commit: Commit) -> str:
    """The interactive rebase whose list starts with ``commit``."""
    try:
        parents = bool(commit.parents)
    except KeyError:  # parents past a shallow boundary libgit2 does not see: none here
        parents = False
    return rebase_after(f"{str(commit.id)[:SHORT]}~1" if parents else None)
