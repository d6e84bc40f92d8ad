"""What ``log`` and ``blame`` share: naming a document in the repository and checking it is one."""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..document import looks_like_vcontext
from ..errors import OperationalError
from ..gitio import read_at, relative_to_top, work_tree
from ..gitio.history import file_versions
from ..lineage.spec import show_id
from .diff_revisions import declared_paths

if TYPE_CHECKING:
    from pygit2 import Repository


def repo_path(repo: Repository, file: str) -> str:
    """A file named on the command line, as its path from the top of the repository
    (exit 3 when it lies outside)."""
    return relative_to_top(repo, file)


def is_file(repo: Repository, name: str) -> bool:
    """Whether a name is a file of the work tree or of ``HEAD`` (for ``FILE#ID``)."""
    if os.path.isfile(name):
        return True
    try:
        path = relative_to_top(repo, name)
        read_at(repo, "HEAD", path)
    except OperationalError:
        return False
    return True


def check_document(repo: Repository, path: str, raw: bytes | None, *, shown: str) -> None:
    """Exit 3 unless ``path`` is a vContext file: declared by name or attributes (as
    install's patterns and ``.gitattributes`` route it), or recognised by content."""
    if raw is None:
        top = work_tree(repo)
        if top and os.path.isdir(os.path.join(top, path)):
            raise OperationalError(f"{shown}: a directory; name a document in it")
        raise OperationalError(f"{shown}: no such file in the work tree or the history")
    if not declared_paths(repo)(path) and not looks_like_vcontext(raw):
        raise OperationalError(f"{shown}: not a vContext document")


def newest_content(repo: Repository, path: str, tips: Sequence[str]) -> bytes | None:
    """The newest committed content of ``path`` reachable from these commits."""
    for tip in tips:
        found = next(file_versions(repo, path, tip), None)
        if found is not None:
            return found[1]
    return None


def closest(wanted: str, have: Sequence[str], n: int = 5) -> list[str]:
    """Up to ``n`` ids of ``have``, the most like ``wanted`` first (ties: document order)."""
    ranked = sorted(
        enumerate(have),
        key=lambda pair: (-difflib.SequenceMatcher(None, wanted, pair[1]).ratio(), pair[0]),
    )
    return [ident for _, ident in ranked[:n]]


def missing_message(shown: str, wanted: str, have: Sequence[str]) -> str:
    """``todo.json: no "t33" in any revision (it has: t3, t31, ...)``."""
    head = f"{shown}: no item, entry or event {show_id(wanted)} in any revision"
    if not have:
        return head + " (it has no ids)"
    return head + " (it has: " + ", ".join(show_id(i) for i in closest(wanted, have)) + ")"
