"""The repository around a directory: its index stages and the operation in progress."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import OperationalError
from ..gitio import open_repo, relative_to_top
from ..gitio.objects import blob_data
from ..gitio.operation import current, stopped_at

if TYPE_CHECKING:
    from pygit2 import IndexEntry, Repository

    from ..gitio.operation import Operation

    Stages = tuple[IndexEntry | None, IndexEntry | None, IndexEntry | None]
    """A conflicted path's index entries: base (stage 1), ours (2), theirs (3); None: absent."""


class Context:
    """The repository around a directory (or none), and the operation in progress there."""

    def __init__(self, cwd: str | os.PathLike[str] = ".") -> None:
        self.cwd = Path(cwd)
        try:
            self.repo: Repository | None = open_repo(cwd)
        except OperationalError:
            self.repo = None
        self.top = Path(self.repo.workdir) if self.repo is not None and self.repo.workdir else None
        git_dir = str(self.repo.path) if self.repo is not None else None
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
        self.repo.index.read()
        conflicts = self.repo.index.conflicts
        if conflicts is None:
            return {}
        out: dict[str, Stages] = {}
        for anc, ours, theirs in conflicts:
            out[(ours or theirs or anc).path] = (anc, ours, theirs)
        return out

    def blob(self, entry: IndexEntry | None) -> bytes | None:
        if entry is None or self.repo is None:  # (an entry comes from the repository)
            return None
        return bytes(blob_data(self.repo, entry.id))
