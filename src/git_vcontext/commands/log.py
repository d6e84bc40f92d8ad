"""``git vcontext log [REV-RANGE] [--follow] -- FILE[#ID]…``: the commits that changed items."""

from __future__ import annotations

import gc
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..boundary import say
from ..errors import ExitCode, OperationalError, UsageError
from ..fsio import read_bytes, write_output
from ..gitio import open_repo
from ..gitio.revwalk import GitHistory
from ..lineage import log_render
from ..lineage.changes import Key
from ..lineage.log import LogEntry, LogWalk
from ..lineage.spec import show_id, split_target
from ..lineage.versions import Versions
from . import in_submodule
from .diff import want_color
from .diff_revisions import is_revision
from .traced import check_document, is_file, missing_message, newest_content, repo_path

if TYPE_CHECKING:
    from pygit2 import Repository


def run(
    *,
    args: Sequence[str],
    paths: Sequence[str] | None = None,
    follow: bool = False,
    fmt: str = "text",
    color: str = "auto",
    max_count: int | None = None,
    full_history: bool = False,
) -> int:
    """Print the commits that changed the named items; exit 1 when an id is in no revision."""
    gc.disable()  # a short-lived process making many objects and no reference cycles
    repo = open_repo(os.getcwd())
    revs, specs = _split(repo, args, paths)
    if not specs:
        raise UsageError("name a document: git vcontext log [REV-RANGE] -- FILE[#ID]...")
    targets = _targets(repo, specs)
    extra = (["--follow"] if follow else []) + (["--format", fmt] if fmt != "text" else [])
    in_submodule.check(repo, "log", [t.named for t in targets], revs=revs, before=extra)
    entries: list[LogEntry] = []
    problems: list[str] = []
    for target in targets:
        found, missing = _trace(
            repo, revs, target, follow=follow, limit=max_count, full_history=full_history
        )
        entries += found
        problems += missing
    entries.sort(key=lambda e: (e.order, e.path))
    entries = _first_commits(entries, max_count)
    history = GitHistory(repo, revs)
    write_output(None, _render(entries, history.meta, fmt, color, targets))
    for problem in problems:
        say(f"git-vcontext: error: {problem}")
    return int(ExitCode.FOUND if problems else ExitCode.OK)


def _split(
    repo: Repository, args: Sequence[str], paths: Sequence[str] | None
) -> tuple[list[str], list[str]]:
    """Revisions, then documents; after ``--`` everything is a document (as in git)."""
    if paths is not None:
        return list(args), list(paths)
    revs = list(args)
    for i, arg in enumerate(revs):
        if "#" in arg or os.path.exists(arg) or not is_revision(repo, arg.removeprefix("^")):
            if not ("#" in arg or os.path.exists(arg) or is_file(repo, arg)):
                raise OperationalError(f"{arg}: no such file or revision")
            return revs[:i], revs[i:]
    return revs, []


@dataclass
class _Doc:
    """A traced document: its path in the repository, as named, and the ids asked about
    (None: the whole document)."""

    path: str
    shown: str
    keys: list[Key] = field(default_factory=list)
    named: tuple[str, str, str] = ("", "", "")  # (path, as named, "#ids" as named)


def _targets(repo: Repository, specs: Sequence[str]) -> list[_Doc]:
    """One per document (``a#t1 a#t2`` asks about both ids of ``a``)."""
    docs: dict[str, _Doc] = {}
    for spec in specs:
        target = split_target(spec, lambda name: is_file(repo, name))
        path = repo_path(repo, target.file)
        ids = spec[len(target.file) :] if spec.startswith(target.file) else ""
        doc = docs.setdefault(path, _Doc(path, target.file, named=(path, target.file, ids)))
        for key in target.ids or (None,):
            if key not in doc.keys:
                doc.keys.append(key)
    return list(docs.values())


def _trace(
    repo: Repository,
    revs: list[str],
    doc: _Doc,
    *,
    follow: bool,
    limit: int | None,
    full_history: bool = False,
) -> tuple[list[LogEntry], list[str]]:
    """Walk the range for one document; its entries and the ids found in no version."""
    history = GitHistory(repo, revs)  # an unknown revision stops here
    raw = newest_content(repo, doc.path, history.tips)
    if raw is None and os.path.isfile(doc.shown):  # not committed yet: say what it is
        check_document(repo, doc.path, read_bytes(doc.shown), shown=doc.shown)
        raise OperationalError(f"{doc.shown}: not committed yet (no revision of the range has it)")
    check_document(repo, doc.path, raw, shown=doc.shown)
    walk = LogWalk(
        history, Versions(history.read), follow=follow, limit=limit, full_history=full_history
    )
    for tip in history.tips:
        walk.start(tip, doc.path, {key: set() for key in doc.keys})
    walk.run()
    missing = (
        [] if walk.stopped else [k for k in doc.keys if k is not None and k not in walk.present]
    )
    have = walk.known.get(doc.path) or next(iter(walk.known.values()), [])
    return walk.entries(), [missing_message(doc.shown, k, have) for k in missing]


def _first_commits(entries: list[LogEntry], limit: int | None) -> list[LogEntry]:
    """The entries of the newest ``limit`` commits (all of them without a limit)."""
    if limit is None:
        return entries
    kept: list[str] = []
    for entry in entries:
        if entry.commit not in kept:
            kept.append(entry.commit)
    return [e for e in entries if e.commit in kept[:limit]]


def _render(entries: list[LogEntry], meta: Any, fmt: str, color: str, docs: list[_Doc]) -> str:
    if fmt == "json":
        return log_render.render_json(entries, meta)
    if fmt == "markdown":
        title = " ".join(_spec_text(d) for d in docs)
        return log_render.render_markdown(entries, meta, title=title)

    return log_render.render_text(entries, meta, color=want_color(color), name_files=len(docs) > 1)


def _spec_text(doc: _Doc) -> str:
    ids = [show_id(k) for k in doc.keys if k is not None]
    return "#".join([doc.path, *ids]) if None not in doc.keys else doc.path
