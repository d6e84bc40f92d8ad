"""One file that differs between two states (two commits, the index, the work tree, two files)."""

from __future__ import annotations

from .record import record


@record
class FileChange:
    """A changed file: its path, blob id and content on each side (None where it is absent,
    or, for ids and contents, where the reader had none or did not read them)."""

    old_path: str | None
    new_path: str | None
    old_id: str | None = None  # blob ids (a work-tree or hand-given file has none)
    new_id: str | None = None
    old: bytes | None = None  # contents, when read
    new: bytes | None = None
    renamed: bool = False  # git paired the two paths as one file (two files given by hand: no)

    @classmethod
    def at(cls, path: str, old: bytes | None, new: bytes | None) -> FileChange:
        """One path's two contents (no blob ids); a side without content has no path."""
        old_path, new_path = (path if side is not None else None for side in (old, new))
        return cls(old_path, new_path, old=old, new=new)

    @property
    def path(self) -> str:
        """The name to show: the new path, or the old one for a deletion."""
        return self.new_path or self.old_path or ""

    @property
    def status(self) -> str:
        """``added``, ``deleted``, ``renamed`` or ``modified``."""
        if self.old_path is None:
            return "added"
        if self.new_path is None:
            return "deleted"
        return "renamed" if self.renamed else "modified"
