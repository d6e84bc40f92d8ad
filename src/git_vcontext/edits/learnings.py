"""Playbook learnings: ``vbrief_add_learning`` (events chained by ``playbook.edit``), the query."""

from __future__ import annotations

from typing import Any

from ..playbook.edit import Edit, append_event
from ..playbook.model import Entry, PlaybookView
from ..playbook.render import matches
from ..playbook.view import locate, playbook_view
from ..record import record
from ..values import instant_key
from .stamp import Stamp, check_expected

KINDS = ("strategy", "learning", "rule", "warning", "note")
EVENT_FIELDS = ("kind", "title", "narrative", "tags", "evidence", "confidence")


@record
class Learned:
    """The new document data and the event appended (``append`` or ``update``)."""

    data: Any
    event: dict[str, Any]
    notes: tuple[str, ...]


def add_learning(
    data: Any, fields: dict[str, Any], stamp: Stamp, *, entropy: str, expected: int | None = None
) -> Learned:
    """A new ``targetId`` gets an ``append`` event, a known one an ``update`` chained to the
    winning head of its entry (``playbook.edit``: fresh eventId, version + 1, metrics)."""
    where, playbook = locate(data)
    check_expected(playbook, expected, "the playbook", key="version")
    target = fields["targetId"]
    known = playbook_view(playbook, path=where).entry(target) is not None
    event = {name: fields[name] for name in EVENT_FIELDS if name in fields}
    if "tags" in event:
        event["tags"] = list(dict.fromkeys(event["tags"]))
    if not known:
        event["status"] = "active"
    edit = Edit("update" if known else "add", target, event)
    result = append_event(data, edit, now=stamp.now, entropy=entropy)
    return Learned(result.data, result.event, result.notes)


def query(
    view: PlaybookView,
    *,
    kind: str | None = None,
    tags: list[str] | None = None,
    search: str | None = None,
    limit: int = 10,
    status: str = "active",
) -> tuple[list[Entry], int]:
    """Entries of the view that have ``kind``, every one of ``tags`` and ``search`` in their
    text, most recently updated first; and how many matched before ``limit``."""
    found = [
        e
        for e in view.entries
        if matches(e, status=status, kinds=(kind,) if kind else (), search=search)
        and _has_all(e, tags or [])
    ]
    found.sort(key=lambda e: (instant_key(e.updated_at or e.created_at), e.target_id), reverse=True)
    return found[: max(limit, 0)], len(found)


def _has_all(entry: Entry, tags: list[str]) -> bool:
    own = entry.fields.get("tags")
    have = {t for t in own if isinstance(t, str)} if isinstance(own, list) else set()
    return set(tags) <= have


def new_document(stamp: Stamp) -> dict[str, Any]:
    """An empty playbook document (``.vcontext/playbook.json`` when a repository has none)."""
    return {
        "vContextInfo": {"version": "0.4", "created": stamp.now},
        "playbook": {"version": 0, "created": stamp.now, "updated": stamp.now, "items": []},
    }
