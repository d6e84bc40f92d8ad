"""``git vcontext blame FILE [--rev REV] [--fields]``: the commit that last changed each item."""

from __future__ import annotations

import gc
import os
from typing import TYPE_CHECKING, Any

from ..diffing.files import load
from ..errors import ExitCode, OperationalError
from ..fsio import read_bytes, write_output
from ..gitio import open_repo, read_at, resolve_commit
from ..gitio.commits import head_commit
from ..gitio.revwalk import GitHistory
from ..lineage import blame_render
from ..lineage.blame import BlameWalk, Unit, units
from ..lineage.meta import CommitMeta, uncommitted_meta
from ..lineage.parsed import Version
from ..lineage.versions import Versions
from . import in_submodule
from .diff import want_color
from .traced import check_document, repo_path

if TYPE_CHECKING:
    from pygit2 import Repository


def run(
    *,
    file: str,
    rev: str | None = None,
    fields: bool = False,
    fmt: str = "text",
    color: str = "auto",
) -> int:
    """Print one line per item (per field with ``--fields``) with the commit that made it so."""
    gc.disable()  # a short-lived process making many objects and no reference cycles
    repo = open_repo(os.getcwd())
    path = repo_path(repo, file)
    extra = (["--fields"] if fields else []) + (["--format", fmt] if fmt != "text" else [])
    targets = [(path, file, "")]
    in_submodule.check(repo, "blame", targets, after=extra, dash_dash=False, rev_option=rev)
    raw, start = _tip(repo, file, path, rev)
    check_document(repo, path, raw, shown=file)
    doc = load(raw, path)
    tip = units(Version(None, path, None if doc is None else doc.data), fields=fields)
    blamed, meta = _blame(repo, start, path, tip)
    rows = [(unit, blamed.get(i)) for i, unit in enumerate(tip)]

    if fmt == "json":
        text = blame_render.render_json(rows, meta)
    else:
        text = blame_render.render_text(rows, meta, color=want_color(color))
    write_output(None, text)
    return int(ExitCode.OK)


def _tip(repo: Repository, file: str, path: str, rev: str | None) -> tuple[bytes, str | None]:
    """The content blamed and the commit the walk starts from (None: no commit yet).

    Without ``--rev``: the work tree's file, as ``git blame`` does (changes not
    committed are blamed on nobody), else HEAD's.
    """
    if rev is not None:
        return read_at(repo, rev, path), str(resolve_commit(repo, rev).id)
    start = head_commit(repo)
    if os.path.isfile(file):
        return read_bytes(file), start
    if start is None:
        raise OperationalError(f"{file}: no such file")
    return read_at(repo, "HEAD", path), start


def _blame(
    repo: Repository, start: str | None, path: str, tip: list[Unit]
) -> tuple[dict[int, str | None], Any]:
    """The commit blamed for each unit, and how to describe a commit."""
    nobody = uncommitted_meta()
    if start is None or not tip:
        return {}, lambda commit: nobody
    history = GitHistory(repo, [start])
    walk = BlameWalk(history, Versions(history.read), tip)
    walk.start(start, path, dict.fromkeys(range(len(tip))))
    walk.run()

    def meta(commit: str | None) -> CommitMeta:
        return nobody if commit is None else history.meta(commit)

    return walk.blamed, meta
