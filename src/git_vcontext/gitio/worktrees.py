"""Which branch is checked out where, whether that checkout is clean, and bringing it along.

Git's own rule for a checked-out branch: never move it behind the user's back.
Like ``receive.denyCurrentBranch=updateInstead``, a checked-out branch is moved
only when its work tree is clean, and its files and index follow the move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import GitResult, complaint, git, locks

if TYPE_CHECKING:
    from pygit2 import Repository


def checkouts(repo: Repository) -> dict[str, str]:
    """``{short branch name: work tree path}`` for every work tree with a branch checked out."""
    cwd = repo.workdir or repo.path
    # -z: a path holding a newline stays one field (without it git 2.39 writes it raw)
    out = git(["worktree", "list", "--porcelain", "-z"], cwd=cwd, check=False)
    found: dict[str, str] = {}
    path: str | None = None
    for line in out.stdout.split("\0"):
        if line.startswith("worktree "):
            path = line[len("worktree ") :]
        elif line.startswith("branch refs/heads/") and path is not None:
            found[line[len("branch refs/heads/") :]] = path
        elif line == "bare":
            path = None
    return found


def local_changes(path: str) -> list[str]:
    """Tracked files with staged or unstaged changes in the work tree at ``path``."""
    out = git(["status", "--porcelain", "--untracked-files=no", "-z"], cwd=path, check=False)
    if out.returncode != 0:
        return ["(git status failed: the work tree cannot be checked)"]
    return [entry[3:] for entry in out.stdout.split("\0") if len(entry) > 3]


def unmerged(path: str, *, check: bool = True) -> list[str]:
    """The files in conflict in the work tree at ``path`` (a merge, rebase, cherry-pick or
    revert stopped there), sorted, as ``git diff --diff-filter=U`` names them; ``check``
    False: [] when git fails there."""
    out = git(["diff", "--name-only", "--diff-filter=U", "-z"], cwd=path, check=check)
    return sorted(filter(None, out.stdout.split("\0"))) if out.returncode == 0 else []


def can_follow(path: str, old_commit: str, new_commit: str) -> str | None:
    """None when ``follow`` would succeed (``read-tree -n``), else git's complaint,
    e.g. an untracked file the new commit would overwrite."""
    out = git(["read-tree", "-n", "-m", "-u", "--", old_commit, new_commit], cwd=path, check=False)
    if out.returncode == 0:
        return None
    return _complaint(out)


def follow(path: str, old_commit: str, new_commit: str) -> str | None:
    """Update the files and index at ``path`` from ``old_commit`` to ``new_commit``.

    A two-tree ``read-tree -m -u``, as ``git checkout`` does: files the user
    changed since are never overwritten. Returns None, or git's complaint.
    """
    out = git(["read-tree", "-m", "-u", "--", old_commit, new_commit], cwd=path, check=False)
    if out.returncode == 0:
        return None
    return _complaint(out)


def _complaint(out: GitResult) -> str:
    """git's complaint about a work tree it could not update, and, when a lock file (its
    ``index.lock``, left by a killed git or sync) is in the way, that file with the command
    that removes it (``locks.advice``), as for a ref's lock."""
    why = complaint(out.stderr, out.returncode)
    lock = locks.named_lock(out.stderr)
    if lock is not None and locks.age(lock) is not None:
        why += f"; {locks.advice(lock)}"
    return why
