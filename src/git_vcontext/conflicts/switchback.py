"""The work tree ``sync --checkout`` switched to an agent branch goes back where it was.

When the agent branch is checked out nowhere, ``--checkout`` switches the current (clean)
work tree to it to leave the merge stopped there (``checkout.worktree_for``). A person's
clone left there after the way out would stay on ``agents/AGENT``, and ``status`` there
would speak for that agent. So the switch is noted (``<the work tree's git dir>/vcontext/
switched.json``: the agent branch, and the branch or detached commit it was on), and the
sync that lands that agent's pair afterwards switches the work tree back — only while it
is still on the agent branch, clean and in no operation; else it says how to go back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection
from pathlib import Path

from ..errors import UsageError
from ..fsio import write_atomic
from ..gitio import complaint, git, operands, worktrees
from ..gitio.operation import current, find_git_dir, head_branch
from ..validation.model import command_word

_HEX = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
NOTE = "switched.json"


def _note(path: str) -> Path | None:
    git_dir = find_git_dir(path, env={})
    return None if git_dir is None else Path(git_dir) / "vcontext" / NOTE


def was_on(path: str) -> str:
    """The branch the work tree at ``path`` is on, or its commit when HEAD is detached."""
    git_dir = find_git_dir(path, env={})
    branch = head_branch(git_dir) if git_dir else None
    if branch:
        return branch
    return git(["rev-parse", "--verify", "HEAD^{commit}"], cwd=path).stdout.strip()


def shown(was: str) -> str:
    """Where a work tree was, as a person reads it: a branch, or a detached HEAD."""
    return f"a detached HEAD at {was[:12]}" if _HEX.fullmatch(was) else was


def command(was: str) -> str:
    """The ``git switch`` that goes back to ``was``."""
    return (
        f"git switch --detach {was}" if _HEX.fullmatch(was) else f"git switch {command_word(was)}"
    )


def remember(path: str, branch: str, was: str) -> bytes | None:
    """Note that the work tree at ``path`` is switched from ``was`` to ``branch``; the note
    it replaces (None: none), for ``forget``."""
    note = _note(path)
    if note is None:
        return None
    try:
        before: bytes | None = note.read_bytes()
    except OSError:
        before = None
    note.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps({"branch": branch, "was": was}) + "\n"
    write_atomic(str(note), data.encode(), force=True)
    return before


def forget(path: str, before: bytes | None) -> None:
    """Undo ``remember`` for the work tree at ``path`` (its switch did not happen): the
    note it replaced back, or none."""
    note = _note(path)
    if note is None:
        return
    if before is None:
        note.unlink(missing_ok=True)
    else:
        write_atomic(str(note), before, force=True)


def switch_back(path: str, landed: Collection[str], say: Callable[[str], None]) -> None:
    """After a sync: the work tree at ``path`` that ``--checkout`` switched goes back where
    it was once its agent branch's pair landed (``landed``: the branches whose pairs are
    ok); a note whose work tree left the agent branch meanwhile is dropped."""
    note = _note(path)
    if note is None or not note.is_file():
        return
    try:
        data = json.loads(note.read_text(encoding="utf-8"))
        branch, was = operands.branch(data["branch"]), str(data["was"])
        if not _HEX.fullmatch(was):
            was = operands.branch(was)  # (read from a file: checked before git sees it)
    except (OSError, ValueError, KeyError, TypeError, UsageError):
        note.unlink(missing_ok=True)
        return
    git_dir = find_git_dir(path, env={})
    if git_dir is None or head_branch(git_dir) != branch:
        note.unlink(missing_ok=True)  # the person went elsewhere: nothing to undo
        return
    if branch not in landed:
        return  # its way out is not done yet
    back = command(was)
    if current(git_dir, env={}).kind is not None or worktrees.local_changes(path):
        say(f"this work tree stays on {branch} (it has work in progress): {back} goes back")
        return
    flags = ["--detach"] if _HEX.fullmatch(was) else []
    switched = git(["switch", "-q", *flags, "--", was], cwd=path, check=False)
    note.unlink(missing_ok=True)
    if switched.returncode != 0:
        why = complaint(switched.stderr, switched.returncode)
        say(f"this work tree stays on {branch}: {why}; {back} goes back")
        return
    say(f"switched this work tree back to {shown(was)}, where it was before sync --checkout")
