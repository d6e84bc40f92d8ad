"""Why a branch must not move under a work tree: git stopped there in the middle of an
operation (a merge, rebase, cherry-pick or revert) that the person or agent finishes first."""

from __future__ import annotations

from ..gitio.operation import current, find_git_dir
from .advice import PERSON, finish_command, for_agents_with_tools


def busy(path: str, branch: str) -> str | None:
    """Why ``branch``, checked out at ``path``, must not move: git stopped there in the
    middle of a merge, rebase, cherry-pick or revert (None when it did not)."""
    git_dir = find_git_dir(path, env={})
    if git_dir is None:
        return None
    op = current(git_dir, env={})
    if op.kind is None:
        return None
    what = f"{op.kind} of {op.theirs}" if op.kind == "merge" else op.kind
    if for_agents_with_tools():  # the conflicts are tool calls; finishing is a person's
        done = finish_command(op.kind)
        return (
            f"{branch} is checked out in {path}, where a {what} is in progress: "
            "vcontext_conflicts and vcontext_resolve, through the MCP server there, settle "
            f"its conflicts; {PERSON}finish it there ({done}) or abort it (git {op.kind} "
            "--abort), then sync again"
        )
    finish = {
        "merge": "git vcontext conflicts, git vcontext resolve, git commit --no-edit",
        "rebase": "git vcontext conflicts, git vcontext resolve, git rebase --continue",
        "cherry-pick": "git vcontext conflicts, git vcontext resolve, git cherry-pick --continue",
        "revert": "git vcontext conflicts, git vcontext resolve, git revert --continue",
    }[op.kind]
    return (
        f"{branch} is checked out in {path}, where a {what} is in progress: finish it there "
        f"({finish}) or abort it (git {op.kind} --abort), then sync again"
    )
