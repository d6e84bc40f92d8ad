"""Why a branch must not move under a work tree: git stopped there in the middle of an
operation (a merge, rebase, cherry-pick or revert) that the person or agent finishes first."""

from __future__ import annotations

from ..gitio import worktrees
from ..gitio.operation import Operation, current, find_git_dir
from .advice import PERSON, finish_or_abort, finish_steps, for_agents_with_tools


def _stopped(path: str) -> Operation | None:
    """The operation git stopped in at ``path`` (None when none is in progress)."""
    git_dir = find_git_dir(path, env={})
    if git_dir is None:
        return None
    op = current(git_dir, env={})
    return None if op.kind is None else op


def busy(path: str, branch: str) -> str | None:
    """Why ``branch``, checked out at ``path``, must not move: git stopped there in the
    middle of a merge, rebase, cherry-pick or revert (None when it did not). On the command
    line the commands that finish it follow under ``next:`` (``busy_steps``)."""
    op = _stopped(path)
    if op is None or op.kind is None:
        return None
    what = f"{op.kind} of {op.theirs}" if op.kind == "merge" else op.kind
    where = f"{branch} is checked out in {path}, where a {what} is in progress"
    if for_agents_with_tools():  # the conflicts are tool calls; finishing is a person's
        return (
            f"{where}: vcontext_conflicts and vcontext_resolve, through the MCP server there, "
            f"settle its conflicts; {PERSON}{finish_or_abort(op.kind, it='it there')}, "
            "then sync again"
        )
    how = finish_or_abort(op.kind, it="it there", how="as next: says")
    return f"{where}: {how}, then sync again"


def busy_steps(path: str) -> list[str]:
    """The commands that finish the operation git stopped in at ``path`` (``busy``'s), as
    the command line prints them under ``next:`` before the sync that goes on; [] when no
    operation is in progress there."""
    op = _stopped(path)
    if op is None or op.kind is None:
        return []
    return finish_steps(op.kind, path, worktrees.unmerged(path, check=False))
