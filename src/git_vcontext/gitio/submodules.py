"""Submodules: repositories of their own inside a work tree (gitlinks, mode 160000).

A path inside a submodule is no file of the superproject: its history is the submodule's,
and the superproject records only which commit of it each of its commits uses.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from . import git, resolve_commit

if TYPE_CHECKING:
    from pygit2 import Index, Repository

GITLINK = 0o160000


def checked_out(top: Path) -> list[str]:
    """The submodules of the work tree at ``top`` that are checked out (their own repository
    is there), as '/'-separated paths from ``top``, in git's order."""
    return [path for path, there in _gitlinks(top) if there]


def not_checked_out(top: Path) -> list[str]:
    """The submodules the index of ``top`` records whose repository is not there (a clone
    without ``--recurse-submodules``), in git's order."""
    return [path for path, there in _gitlinks(top) if not there]


def _gitlinks(top: Path) -> list[tuple[str, bool]]:
    """Each submodule path of the index, and whether its repository is checked out."""
    out = git(["ls-files", "--stage", "-z"], cwd=top, check=False)
    if out.returncode != 0:
        return []
    found: dict[str, bool] = {}
    for record in out.stdout.split("\0"):
        meta, _, path = record.partition("\t")
        if not meta.startswith("160000 ") or not path or path in found:
            continue
        found[path] = os.path.exists(top / path / ".git")  # a file (absorbed) or a folder
    return list(found.items())


def containing(repo: Repository, path: str) -> str | None:
    """The submodule (its path) that holds the repo-relative ``path``, or that ``path`` is:
    from the index, else HEAD's tree. None when ``path`` is the superproject's own."""
    parts = [p for p in path.strip("/").split("/") if p]
    if not parts:
        return None
    index = _index(repo)
    head = None if repo.head_is_unborn else resolve_commit(repo, "HEAD").tree
    for n in range(1, len(parts) + 1):
        prefix = "/".join(parts[:n])
        mode = _mode_in_index(index, prefix)
        if mode is not None:
            if mode == GITLINK:
                return prefix
            return None  # a file of the superproject
        if head is not None:
            try:
                found = head[prefix]
            except KeyError:
                continue
            if found.filemode == GITLINK:
                return prefix
    return None


def _index(repo: Repository) -> Index | None:
    import pygit2

    try:
        index: Index = repo.index
    except pygit2.GitError:
        return None
    return index


def _mode_in_index(index: Index | None, path: str) -> int | None:
    if index is None:
        return None
    try:
        return int(index[path].mode)
    except (KeyError, ValueError):
        return None


def recorded(repo: Repository, rev: str, submodule: str) -> str | None:
    """The commit of ``submodule`` that revision ``rev`` of the superproject records (None:
    it records none; an unknown revision is an OperationalError)."""
    commit = resolve_commit(repo, rev)
    try:
        entry = commit.tree[submodule]
    except KeyError:
        return None
    return str(entry.id) if entry.filemode == GITLINK else None
