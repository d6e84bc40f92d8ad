"""Which files are vContext files: install's patterns plus what .gitattributes sends to the driver.

One set for ``validate``, ``doctor`` and the pre-push hook (PRODUCT.md "Validation"):
a path is in it when it matches ``document.FILE_PATTERNS`` or its ``merge`` attribute
is ``vcontext``. The attributes are those of the work tree (``validate``, ``doctor``)
or those of one commit (the hook judges a pushed commit by its own ``.gitattributes``,
whatever the work tree says), plus ``$GIT_DIR/info/attributes`` and the user's
attributes file, as git itself reads them when it merges.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..document import matches_file_patterns

# pygit2 is imported inside the functions that use it (lazy): it is slow to import,
# and commands that never read a repository import this module too.
if TYPE_CHECKING:
    from pygit2 import Commit, Oid, Repository
    from pygit2.enums import AttrCheck

DRIVER = "vcontext"


class FileSet:
    """``files(path)``: whether a repo path ('/'-separated) is a vContext file."""

    def __init__(self, reader: Repository, flags: AttrCheck, commit: str | None) -> None:
        self._reader = reader
        self._flags = flags
        self._commit = commit

    def __call__(self, path: str) -> bool:
        return matches_file_patterns(path) or self.routed(path)

    def routed(self, path: str) -> bool:
        """Whether the attributes send ``path`` to the vcontext merge driver."""
        try:
            value = self._reader.get_attr(path, "merge", flags=self._flags, commit=self._commit)
        except Exception:  # pygit2 raises various errors for odd paths: not routed
            return False
        return bool(value == DRIVER)


def work_tree_files(repo: Repository) -> FileSet:
    """The set by the work tree's attributes (the index's where a file is only staged)."""
    from pygit2.enums import AttrCheck

    return FileSet(repo, AttrCheck.FILE_THEN_INDEX, None)


def commit_files(repo: Repository) -> Callable[[Commit | Oid | str], FileSet]:
    """A function from a commit (or its id) to the set by that commit's attributes."""
    from pygit2.enums import AttrCheck

    reader = _without_index(repo)
    flags = AttrCheck.INDEX_ONLY | AttrCheck.INCLUDE_COMMIT
    return lambda commit: FileSet(reader, flags, str(getattr(commit, "id", commit)))


def stricter(*sets: Callable[[str], bool]) -> Callable[[str], bool]:
    """The union of file sets: a path any of them holds is checked (PRODUCT.md "Validation":
    the hook takes the stricter of the commit's routing and the remote's, so a push that
    un-routes a file is still checked for it)."""
    return lambda path: any(files(path) for files in sets)


def _without_index(repo: Repository) -> Repository:
    """The repository opened again with an empty in-memory index (never written), so that
    attributes come from a commit only, not from what is staged now."""

    # lazy: only what a partial clone, or a push being received, needs
    from . import reopen
    from .incoming import see_quarantine
    from .promisor import read_as_git

    reader = reopen(repo, bare=True)
    reader.index.clear()
    see_quarantine(reader)  # the server's guard: the pushed commits are still in quarantine
    read_as_git(reader)  # a commit's .gitattributes may not be fetched yet
    return reader
