"""``playbook_view``: the current guidance of a playbook, one entry per target, heads resolved."""

from __future__ import annotations

from typing import Any

from ..errors import NoPlaybookError
from ..record import replace
from .analyse import NOTE_KINDS, PausedGC, analyse
from .fold import TargetState, as_count
from .log import find_playbooks, log_kind, log_of, looks_like_playbook
from .model import Anomaly, Entry, FieldConflict, PlaybookView

Path = tuple[str | int, ...]


def locate(data: Any, path: Path = ()) -> tuple[Path, dict[str, Any]]:
    """The first playbook of a document (or the playbook object itself) and its path."""
    found = find_playbooks(data)
    if found:
        where, playbook = found[0]
        return (*path, *where), playbook
    if looks_like_playbook(data):
        return path, data
    raise NoPlaybookError(NO_PLAYBOOK)


NO_PLAYBOOK = "no playbook in this document"


def no_playbook_in(rel: str, data: Any) -> NoPlaybookError:
    """The one line every writer (``playbook add``, ``ace apply``, the MCP server) and
    ``view`` say of a document without a playbook: the file named, and what it holds."""
    from ..document import CONTAINER_KEYS, EXTRA_CONTAINER_KEYS

    keys = CONTAINER_KEYS + EXTRA_CONTAINER_KEYS
    held = [k for k in keys if k in data] if isinstance(data, dict) else []
    what = f" (it holds {' and '.join(held)})" if held else ""
    return NoPlaybookError(f"{rel}: {NO_PLAYBOOK}{what}")


def playbook_view(data_or_playbook: Any, *, path: Path = ()) -> PlaybookView:
    """The view of the first playbook in a document, or of a playbook object.

    Accepts parsed data or a ``Document`` (what ``git_vcontext.load`` returns).
    """
    return view_and_states(data_or_playbook, path=path)[0]


def view_and_states(
    data_or_playbook: Any, *, path: Path = ()
) -> tuple[PlaybookView, list[TargetState]]:
    """The view, and the target states it was folded from (their event graphs, in the
    order of the entries); no states for ACE entries and v0.3 items, which have no log."""
    if hasattr(data_or_playbook, "render") and hasattr(data_or_playbook, "data"):
        data_or_playbook = data_or_playbook.data
    where, playbook = locate(data_or_playbook, path)
    log_key, log = log_of(playbook)
    kind = log_kind(log)
    states: list[TargetState] = []
    with PausedGC():
        if kind == "events":
            states, raw, count = analyse(log)
            entries = [_event_entry(s) for s in states]
        else:
            entries, raw = _keyed_entries(log, kind)
            count = len(log)
        found = [Anomaly(k, ids, target, msg) for k, ids, target, msg in raw]
        anomalies = tuple(a for a in found if a.kind not in NOTE_KINDS or kind != "events")
        notes = tuple(a for a in found if a.kind in NOTE_KINDS and kind == "events")
        entries = _with_links(entries)
    return PlaybookView(where, log_key, tuple(entries), anomalies, kind, count, notes), states


def _event_entry(s: TargetState) -> Entry:
    conflicts = tuple(FieldConflict(f, ids, values) for f, ids, values in s.conflicts)
    return _entry(
        s.target,
        s.status,
        s.fields,
        (s.counters["helpfulCount"], s.counters["harmfulCount"]),
        heads=tuple(s.heads),
        winner=s.winner,
        settled=tuple(s.settled),
        conflicts=conflicts,
        event_ids=tuple(s.graph.order),
        stamps=(s.created_at, s.updated_at),
    )


def _entry(
    target: str,
    status: str,
    fields: dict[str, Any],
    counts: tuple[int, int],
    *,
    heads: tuple[str, ...],
    winner: str,
    settled: tuple[str, ...] = (),
    conflicts: tuple[FieldConflict, ...] = (),
    event_ids: tuple[str, ...],
    stamps: tuple[Any, Any],
) -> Entry:
    supersedes = fields.get("supersedes")
    narrative = fields.get("narrative")
    return Entry.build(
        {
            "target_id": target,
            "status": status,
            "kind": _str(fields.get("kind")),
            "title": _str(fields.get("title")),
            "narrative": narrative if isinstance(narrative, dict) else None,
            "text": _str(fields.get("text")),
            "fields": fields,
            "helpful_count": counts[0],
            "harmful_count": counts[1],
            "heads": heads,
            "winner": winner,
            "settled": settled,
            "conflicts": conflicts,
            "event_ids": event_ids,
            "supersedes": tuple(x for x in supersedes if isinstance(x, str))
            if isinstance(supersedes, list)
            else (),
            "superseded_by": _str(fields.get("supersededBy")),
            "duplicate_of": _str(fields.get("duplicateOf")),
            "duplicates": (),
            "created_at": _str(stamps[0]),
            "updated_at": _str(stamps[1]),
        }
    )


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _keyed_entries(log: list[Any], kind: str) -> tuple[list[Entry], list[Any]]:
    """ACE entries (by ``id``, counters held as values) or v0.3 items (by position)."""
    entries: list[Entry] = []
    anomalies: list[Any] = []
    seen: set[str] = set()
    for index, e in enumerate(log):
        if not isinstance(e, dict):
            msg = f"element {index} of the log is not an object"
            anomalies.append(("malformed-event", (), None, msg))
            continue
        ident = e.get("id")
        target = ident if isinstance(ident, str) else f"#{index}"
        if target in seen:
            msg = f"{target}: more than one entry with this id (the first is shown)"
            anomalies.append(("duplicate-creation", (target,), target, msg))
            continue
        seen.add(target)
        entries.append(_keyed_entry(target, e))
    return entries, anomalies


def _keyed_entry(target: str, e: dict[str, Any]) -> Entry:
    """An entry that is its own single version: counters and status as stored."""
    fields = {k: v for k, v in e.items() if k != "id" and v is not None}
    status = fields.get("status")
    counts = (as_count(e.get("helpfulCount")) or 0, as_count(e.get("harmfulCount")) or 0)
    return _entry(
        target,
        status if isinstance(status, str) else "active",
        fields,
        counts,
        heads=(target,),
        winner=target,
        event_ids=(target,),
        stamps=(e.get("createdAt"), e.get("updatedAt")),
    )


def _with_links(entries: list[Entry]) -> list[Entry]:
    """Fill in the other direction of links: who supersedes an entry, which duplicate it."""
    superseders: dict[str, list[str]] = {}
    duplicates: dict[str, list[str]] = {}
    for e in entries:
        for old in e.supersedes:
            superseders.setdefault(old, []).append(e.target_id)
        if e.duplicate_of is not None:
            duplicates.setdefault(e.duplicate_of, []).append(e.target_id)
    if not superseders and not duplicates:
        return entries
    out = []
    for e in entries:
        by = e.superseded_by
        if by is None and e.target_id in superseders:
            by = min(superseders[e.target_id])
        dups = tuple(sorted(duplicates.get(e.target_id, ())))
        if by != e.superseded_by or dups:
            e = replace(e, superseded_by=by, duplicates=dups)
        out.append(e)
    return out
