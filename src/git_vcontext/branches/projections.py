"""After a tree merge: VerMAS projections rebuilt from the merged event log of their folder.

The two sides' ``work_orders.jsonl`` / ``messages.jsonl`` merge record by record (M2,
M9), which can disagree with the merged ``events.jsonl`` or conflict where both sides
moved a work order on. The events are the source of truth, so once the event log of a
folder merged, its projections are rebuilt from it (in the merged file's style), and a
projection conflict confined to fields the events set is settled by that rebuild.
"""

from __future__ import annotations

from ..codecs import parse
from ..errors import ParseError
from ..gitio.objects import blob_data, index_entry, stage, write_blob
from ..values import pointer_parts
from ..vermas.project import PROJECTIONS, derive, rebuild

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pygit2 import Index, Repository

    from ..merging.files import FileMerge
    from .treemerge import DocumentSides

    Deferred = tuple[FileMerge, int]  # a conflicted projection's outcome, its file mode

EVENTS = "events.jsonl"


def is_projection(path: str) -> bool:
    """A ``work_orders.jsonl`` / ``messages.jsonl`` (whose conflicts a rebuild may settle)."""
    return path.rsplit("/", 1)[-1] in PROJECTIONS


def reproject(
    repo: Repository,
    index: Index,
    sides: DocumentSides,
    merged: list[str],
    deferred: dict[str, Deferred],
) -> tuple[list[str], dict[str, FileMerge]]:
    """Rebuild the projections of every folder whose event log (among the ``merged``
    documents) differs between the sides.

    Writes the rebuilt blobs into ``index``; returns the paths it changed against ours
    and the deferred (conflicted) projections it could not settle.
    """
    changed: list[str] = []
    left = dict(deferred)
    for folder in _merged_logs(sides, merged):
        events = _index_data(repo, index, _join(folder, EVENTS))
        if events is None:
            continue
        for name in PROJECTIONS:
            path = _join(folder, name)
            built = _rebuilt(repo, index, sides, path, events, left.get(path))
            if built is None:
                continue
            left.pop(path, None)
            mode = deferred[path][1] if path in deferred else _mode(index, path)
            stage(index, path, write_blob(repo, built), mode)
            if built != sides.data("ours", path):
                changed.append(path)
    return changed, {p: outcome for p, (outcome, _) in left.items()}


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _merged_logs(sides: DocumentSides, merged: list[str]) -> list[str]:
    """Folders whose ``events.jsonl`` differs between ours and theirs (so it was merged)."""
    folders = {p.rpartition("/")[0] for p in merged if p.rsplit("/", 1)[-1] == EVENTS}
    logs = [(f, _join(f, EVENTS)) for f in folders]
    return sorted(f for f, log in logs if sides.data("ours", log) != sides.data("theirs", log))


def _index_data(repo: Repository, index: Index, path: str) -> bytes | None:
    entry = index_entry(index, path)
    return None if entry is None else blob_data(repo, entry.id)


def _mode(index: Index, path: str) -> int:
    entry = index_entry(index, path)
    assert entry is not None  # a projection the merge kept, rebuilt in place
    return int(entry.mode)


def _rebuilt(
    repo: Repository,
    index: Index,
    sides: DocumentSides,
    path: str,
    events_raw: bytes,
    deferred: Deferred | None,
) -> bytes | None:
    """The projection at ``path`` rebuilt from the merged events (None: leave it as merged)."""
    try:
        events = parse(events_raw, path=EVENTS, format="jsonl").data
        if deferred is not None:
            outcome = deferred[0]
            if outcome.result is None or not _settled(outcome, events, path):
                return None
            ours = sides.data("ours", path)
            assert ours is not None  # deferred: the engine merged both sides' projections
            style = parse(ours, path=path, format="jsonl")
            records = outcome.result.data
        else:
            merged = _index_data(repo, index, path)
            if merged is None:
                return None
            style = parse(merged, path=path, format="jsonl")
            records = style.data
    except ParseError:
        return None
    kind = PROJECTIONS[path.rsplit("/", 1)[-1]]
    new, _ = rebuild(records, derive(events, kind), kind)
    return style.render(new).encode("utf-8")


def _settled(outcome: FileMerge, events: list[Any], path: str) -> bool:
    """Every conflict is a field of a record that the events set (the rebuild decides it)."""
    assert outcome.result is not None
    derived = derive(events, PROJECTIONS[path.rsplit("/", 1)[-1]])
    records = outcome.result.data
    for conflict in outcome.result.conflicts:
        parts = pointer_parts(conflict.path)
        if len(parts) < 2 or not parts[0].isdigit() or int(parts[0]) >= len(records):
            return False
        record = records[int(parts[0])]
        ident = record.get("id") if isinstance(record, dict) else None
        if ident not in derived or parts[1] not in derived[ident].fields:
            return False
    return True
