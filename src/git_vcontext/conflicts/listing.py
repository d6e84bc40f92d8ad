"""The vContext conflicts of a repository, listed: what ``conflicts`` and MCP's tool call.

Those of a stopped merge, rebase or cherry-pick (from the index stages), or of files
holding markers or an unresolved ``ConflictResolution``. ``list_conflicts`` is what the
``conflicts`` command and the MCP tool ``vcontext_conflicts`` call.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..branches.treemerge import is_document
from ..document import looks_like_vcontext, may_spell
from ..errors import OperationalError
from ..fsio import open_regular, read_regular
from ..gitio import repository_error
from ..gitio.fileset import work_tree_files
from ..gitio.index import tracked_paths
from ..record import record
from ..resolution.model import FileConflict
from .context import Context
from .session import Session, StrayMarkers, open_file

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, Literal

    Source = Literal["stages", "markers", "structured"]  # where a file's conflicts are read

    from ..gitio.index import Stages


@record
class FileListing:
    """One file's conflicts still to resolve."""

    path: str
    labels: dict[str, str]
    operation: str | None
    source: Source
    conflicts: tuple[FileConflict, ...] = ()
    resolved: int = 0  # settled by earlier ``resolve`` calls
    error: str | None = None  # why the file cannot be read as data (resolve it by hand)
    edited: bool = False  # the work tree differs from what the merge (and resolve) wrote
    base_known: bool = True  # False: markers without a base section (the base is unknown)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "labels": dict(self.labels),
            "operation": self.operation,
            "source": self.source,
            "conflicts": [c.to_json() for c in self.conflicts],
            "resolved": self.resolved,
        }
        if self.edited:
            out["edited"] = True
        if not self.base_known:
            out["baseKnown"] = False
        if self.error:
            out["error"] = self.error
        return out


@record
class Listing:
    """Every file with conflicts, and conflicted files that are not vContext documents."""

    files: tuple[FileListing, ...] = ()
    others: tuple[str, ...] = ()

    @property
    def found(self) -> bool:
        """Anything left: conflicts, a file git still has unmerged, another conflicted file."""
        unmerged = any(f.source == "stages" for f in self.files)
        return unmerged or any(f.conflicts or f.error for f in self.files) or bool(self.others)

    def to_json(self) -> dict[str, Any]:
        return {"files": [f.to_json() for f in self.files], "others": list(self.others)}


def list_conflicts(
    paths: Sequence[str] = (),
    *,
    cwd: str | os.PathLike[str] = ".",
    by: dict[str, Any] | None = None,
) -> Listing:
    """The conflicts of ``paths`` (files or directories; none: the whole repository);
    ``by``: who settles them (``open_file``'s)."""
    ctx = Context(cwd, by=by)
    if ctx.repo is None and not paths:
        raise repository_error(cwd)
    wanted = [ctx.relative(p) for p in paths]
    stages = ctx.stages()
    _check_exist(ctx, paths, wanted, stages)
    wanted = [w for w in wanted if w not in ("", ".")] if "." not in wanted else []
    files: list[FileListing] = []
    others: list[str] = []
    for rel in sorted(p for p in stages if _selected(p, wanted)):
        if _is_document(ctx, rel, stages[rel]):
            listing = _listing(ctx, rel)
            assert listing is not None  # not quiet: an error is listed too
            files.append(listing)
        else:
            others.append(rel)
    for rel in _candidates(ctx, wanted, set(stages)):
        listing = _listing(ctx, rel, quiet=True)
        if listing is not None:
            files.append(listing)
    return Listing(tuple(files), tuple(others))


def _listing(ctx: Context, rel: str, *, quiet: bool = False) -> FileListing | None:
    """One file's listing; None (when ``quiet``) for a file without conflicts."""
    op = ctx.operation
    try:
        session = open_file(rel, cwd=ctx.top or ctx.cwd, by=ctx.by)
    except StrayMarkers as exc:  # markers validate refuses, which no side can settle
        return FileListing(rel, {}, None, "markers", error=exc.reason)
    except OperationalError as exc:
        if quiet:
            return None
        return FileListing(rel, op.labels(), op.kind, "stages", error=exc.one_line())
    return _of_session(session, op.kind if session.source == "stages" else None)


def _of_session(s: Session, operation: str | None) -> FileListing:
    remaining = tuple(s.remaining)
    resolved = len(s.conflicts) - len(remaining)
    edited = s.edited_copy is not None
    return FileListing(
        s.path, s.labels, operation, s.source, remaining, resolved, None, edited, s.base_known
    )


def _check_exist(
    ctx: Context, given: Sequence[str], wanted: list[str], stages: Mapping[str, Stages]
) -> None:
    """A path that is neither in the work tree nor conflicted is a typo, not 'no conflicts'."""
    for path, rel in zip(given, wanted, strict=True):
        if rel not in (".", "") and rel not in stages and not ctx.full(rel).exists():
            raise OperationalError(f"{path}: no such file or folder")


def _selected(rel: str, wanted: list[str]) -> bool:
    return not wanted or any(rel == w or rel.startswith(w.rstrip("/") + "/") for w in wanted)


def _is_document(ctx: Context, rel: str, entries: Stages) -> bool:
    return is_document(rel, lambda: [ctx.blob(e) for e in entries[1:]], ctx.repo)


def _candidates(ctx: Context, wanted: list[str], conflicted: set[str]) -> list[str]:
    """Files (not in the index's conflicts) that may hold markers or a structured record."""
    if wanted:
        names = [w for w in wanted if w not in conflicted and not _is_dir(ctx, w)]
        names += [n for n in _tracked(ctx) if n not in conflicted and _under_dir(ctx, n, wanted)]
    else:
        names = [n for n in _tracked(ctx) if n not in conflicted]
    return [n for n in names if _may_hold_conflicts(ctx, n)]


def _is_dir(ctx: Context, rel: str) -> bool:
    return ctx.full(rel).is_dir()


def _under_dir(ctx: Context, rel: str, wanted: list[str]) -> bool:
    return any(_is_dir(ctx, w) and _selected(rel, [w]) for w in wanted)


def _tracked(ctx: Context) -> list[str]:
    """Tracked vContext files (the file set validate and the hook use), and tracked
    .json/.tron files outside it whose root is a vContext one."""
    if ctx.repo is None:
        return []

    files = work_tree_files(ctx.repo)
    out = []
    for rel in tracked_paths(ctx.repo):
        sniffed = rel.endswith((".json", ".tron")) and looks_like_vcontext(_head(ctx, rel))
        if sniffed or files(rel):
            out.append(rel)
    return out


def _head(ctx: Context, rel: str) -> bytes:
    try:
        with os.fdopen(open_regular(str(ctx.full(rel))), "rb") as fh:
            return fh.read(65536)
    except (OSError, OperationalError):  # unreadable, or no regular file: nothing to see
        return b""


def _may_hold_conflicts(ctx: Context, rel: str) -> bool:
    """A cheap look before parsing: a marker line (any of the four: one left alone when
    the others were edited away is what validate refuses), or an unresolved Conflict (its word, or
    an escape that may spell it: validation.rules reads ``\\u0075nresolved`` alike)."""
    try:
        raw = read_regular(str(ctx.full(rel)))
    except OperationalError:
        return False
    markers = (b"<<<<<<<", b"=======", b">>>>>>>", b"|||||||")
    return any(m in raw for m in markers) or may_spell(raw, b"unresolved")
