"""The repository around a directory: its index stages and the operation in progress."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import OperationalError
from ..gitio import git_dir as gitio_dir
from ..gitio import open_repo, relative_to_top, work_tree
from ..gitio.eol import to_index, to_worktree
from ..gitio.index import conflict_stages
from ..gitio.invoker import describe
from ..gitio.objects import blob_data
from ..gitio.operation import current, stopped_at

if TYPE_CHECKING:
    from pygit2 import IndexEntry, Repository

    from ..gitio.index import Stages
    from ..gitio.operation import Operation


class Context:
    """The repository around a directory (or none), and the operation in progress there."""

    def __init__(
        self, cwd: str | os.PathLike[str] = ".", *, by: dict[str, Any] | None = None
    ) -> None:
        self.cwd = Path(cwd)
        self.by = by
        """Who settles conflicts here (``resolvedBy``, a revert's agent) as the caller knows
        it (the MCP server's agent); None: who runs the command (``session.resolver``)."""
        try:
            self.repo: Repository | None = open_repo(cwd)
        except OperationalError:
            self.repo = None
        tree = work_tree(self.repo) if self.repo is not None else None
        self.top = Path(tree) if tree else None
        git_dir = gitio_dir(self.repo) if self.repo is not None else None
        self.git_dir = git_dir
        self.operation: Operation = current(git_dir)
        self.stopped_at = stopped_at(git_dir) if git_dir else None

    def relative(self, path: str) -> str:
        """A path as git names it (relative to the top, '/'-separated); as given outside git."""
        if self.top is None or self.repo is None:  # (a top comes with a repository)
            return path

        return relative_to_top(self.repo, self.cwd / path)

    def full(self, rel: str) -> Path:
        return self.top / rel if self.top is not None else self.cwd / rel

    def stages(self) -> dict[str, Stages]:
        """Conflicted paths of the index: (base, ours, theirs) entries, None where absent."""
        if self.repo is None:
            return {}
        return conflict_stages(self.repo)

    def reverted(self) -> tuple[str, str] | None:
        """(full id, subject) of the commit a stopped ``git revert`` undoes."""
        if self.repo is None:
            return None
        try:
            sha = (Path(gitio_dir(self.repo)) / "REVERT_HEAD").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return None
        return describe(gitio_dir(self.repo), sha) if sha else None

    def stored(self, rel: str, data: bytes) -> bytes:
        """A work-tree file's bytes as git stores them (``core.autocrlf``: CRLF -> LF)."""
        return to_index(self.repo, rel, data) if self.repo is not None else data

    def checked_out(self, rel: str, data: bytes) -> bytes:
        """Bytes as git stores them, as git would check them out at ``rel``."""
        return to_worktree(self.repo, rel, data) if self.repo is not None else data

    def blob(self, entry: IndexEntry | None) -> bytes | None:
        if entry is None or self.repo is None:  # (an entry comes from the repository)
            return None
        return bytes(blob_data(self.repo, entry.id))
