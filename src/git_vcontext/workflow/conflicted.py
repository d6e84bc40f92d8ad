"""The repository around a directory: its index stages and the operation in progress."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import OperationalError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..gitio.operation import Operation


class Context:
    """The repository around a directory (or none), and the operation in progress there."""

    def __init__(self, cwd: str | os.PathLike[str] = ".") -> None:
        from ..gitio import open_repo
        from ..gitio.operation import current, stopped_at

        self.cwd = Path(cwd)
        try:
            self.repo: Any = open_repo(cwd)
        except OperationalError:
            self.repo = None
        self.top = Path(self.repo.workdir) if self.repo is not None and self.repo.workdir else None
        git_dir = str(self.repo.path) if self.repo is not None else None
        self.operation: Operation = current(git_dir)
        self.stopped_at = stopped_at(git_dir) if git_dir else None

    def relative(self, path: str) -> str:
        """A path as git names it (relative to the top, '/'-separated); as given outside git."""
        if self.top is None:
            return path
        from ..gitio import relative_to_top

        return relative_to_top(self.repo, self.cwd / path)

    def full(self, rel: str) -> Path:
        return self.top / rel if self.top is not None else self.cwd / rel

    def stages(self) -> dict[str, tuple[Any, Any, Any]]:
        """Conflicted paths of the index: (base, ours, theirs) entries, None where absent."""
        if self.repo is None:
            return {}
        self.repo.index.read()
        conflicts = self.repo.index.conflicts
        if conflicts is None:
            return {}
        out = {}
        for anc, ours, theirs in conflicts:
            out[(ours or theirs or anc).path] = (anc, ours, theirs)
        return out

    def blob(self, entry: Any) -> bytes | None:
        return None if entry is None else bytes(self.repo[entry.id].data)
