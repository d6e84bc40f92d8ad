"""``git vcontext fork AGENT``: an agent branch with fork metadata, made without a checkout."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..branches import agents
from ..clock import now_rfc3339
from ..errors import ExitCode, OperationalError, UsageError
from ..gitio import git, open_repo, work_tree
from ..gitio.commits import current_branch
from ..sync.fork import fork_agent
from ..validation.model import command_word, quoted_path

if TYPE_CHECKING:
    from pygit2 import Repository


def run(*, agent: str, from_branch: str | None, reason: str | None, worktree: str | None) -> int:
    """Create ``agents/AGENT`` (one commit, base recorded), optionally with a worktree."""
    agents.check_agent_name(agent)
    if reason is not None and not agents.is_utf8(reason):
        raise UsageError("--reason is not UTF-8 text")
    repo = open_repo(os.getcwd())
    target = _worktree_path(worktree) if worktree is not None else None
    result = fork_agent(repo, agent, from_branch=from_branch, reason=reason, now=now_rfc3339())
    print(f"{result.branch}: forked from {result.base} at {result.base_commit[:7]}")
    for path in result.forked:
        print(f"  fork metadata: {quoted_path(path)}")
    if not result.forked and not result.rejected:
        print("  no document has a container uid: no fork metadata written")
    for path in result.no_uid:
        print(f"  left alone (no container uid): {quoted_path(path)}")
    for line in result.unreadable:
        print(f"  left alone (does not parse): {line}")
    for line in result.rejected:
        print(f"  left alone (validate rejects it): {line}")
    if target is not None:
        _add_worktree(target, result.branch)
        print(f"worktree: {quoted_path(str(target))}")
    elif work_tree(repo) is not None:
        print(_next_step(repo, result.branch))
    return int(ExitCode.OK)


def _next_step(repo: Repository, branch: str) -> str:
    """What leads the agent onto its branch: fork leaves this work tree where it was (an
    agent that stays there commits to the base, and its ``sync --push`` publishes those
    commits on the remote's base, not on its branch); ``git switch BRANCH`` takes it there
    (``--worktree PATH`` gives it a work tree of its own instead)."""
    here = current_branch(repo) or "a detached HEAD"
    return (
        f"next: git switch {command_word(branch)} (this work tree stays on {here}; an agent"
        f" commits on {branch}, which its sync merges into its base)"
    )


def _worktree_path(path: str) -> Path:
    """An absolute path for the new worktree; it must not exist, or be an empty directory."""
    target = Path(path).expanduser().resolve()
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise OperationalError(
            f"{quoted_path(path)}: already exists (--worktree needs a new or empty directory)"
        )
    return target


def _add_worktree(target: Path, branch: str) -> None:
    try:
        git(["worktree", "add", "--quiet", "--", str(target), branch])
    except OperationalError as exc:
        raise OperationalError(
            f"{branch} was created, but not its worktree: {exc.message} "
            f"(add it with: git worktree add {command_word(str(target))} {branch})"
        ) from None
