"""Projections are derived: work orders and messages folded from ``events.jsonl`` in log order.

Each event sets some fields of one record (seed 004's payloads): ``work_order.created``
the record itself (its payload, ``status`` open, ``created_by`` the actor unless
given, ``created_at``), ``updated`` the fields of ``changes``, ``status_changed``
the status, ``assigned`` the assignee, ``closed`` status closed; every event on a
work order sets its ``updated_at``. ``mail.sent`` makes a message (its payload,
``timestamp``, ``read_at`` null), ``mail.read`` sets ``read_at``. Only fields an
event set are compared with a projection file or written into it; the others
(labels, dependencies, a body the events do not carry) stay as the file has them.
"""

from __future__ import annotations

from ..record import record
from ..values import parse_instant, same

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

PROJECTIONS = {"work_orders.jsonl": "work order", "messages.jsonl": "message"}
"""Projection files of a ``.work/`` directory and what each record is."""

_SOURCE = {"work order": "work_order_id", "message": "message_id"}
_CREATES = {"work order": "work_order.created", "message": "mail.sent"}
FIELD_ORDER = {
    "work order": (
        "id", "title", "description", "status", "priority", "issue_type", "created_at",
        "updated_at", "created_by", "assignee", "dependencies", "labels", "metadata",
    ),
    "message": (
        "id", "from", "to", "subject", "body", "message_type", "timestamp", "read_at",
        "priority", "metadata",
    ),
}  # fmt: skip
"""Seed 004's field order, used for records a rebuild adds."""
DEFAULTS: dict[str, dict[str, Any]] = {"work order": {"priority": 2}, "message": {"body": ""}}
"""Values of required fields no event carries, for records a rebuild adds (seed defaults)."""


@record
class Derived:
    """One record as the events make it: field values and the event that last set each."""

    id: str
    fields: dict[str, Any]
    setters: dict[str, str]  # field -> event_id


def derive(events: Iterable[Any], kind: str) -> dict[str, Derived]:
    """The records of one projection (``work order`` or ``message``), in creation order."""
    out: dict[str, Derived] = {}
    for event in events:
        if not isinstance(event, dict) or not isinstance(event.get("data"), dict):
            continue
        ident = event["data"].get(_SOURCE[kind])
        if not isinstance(ident, str):
            continue
        changes = _changes(event, kind, ident in out)
        if changes is None:
            continue
        if ident not in out:
            out[ident] = Derived(ident, {"id": ident}, {"id": str(event.get("event_id"))})
        target = out[ident]
        for field, value in changes.items():
            target.fields[field] = value
            target.setters[field] = str(event.get("event_id"))
    return out


def _changes(event: dict[str, Any], kind: str, exists: bool) -> dict[str, Any] | None:
    """The fields one event sets on its record (None: it does not touch the projection)."""
    etype, data, when = event.get("event_type"), event["data"], event.get("timestamp")
    if etype == _CREATES[kind]:
        base = _created(data, kind, event.get("actor"), when)
        return base
    if not exists:
        return None  # an event about a record this log never created: nothing to project
    if kind == "message":
        if etype == "mail.read":
            return {"read_at": data.get("read_at", when)}
        return None
    found = _work_order_change(etype, data)
    if found is None:
        return None
    return {**found, "updated_at": when}


def _created(data: dict[str, Any], kind: str, actor: Any, when: Any) -> dict[str, Any]:
    fields = {k: v for k, v in data.items() if k != _SOURCE[kind]}
    if kind == "message":
        return {**fields, "timestamp": when, "read_at": None}
    fields.setdefault("created_by", actor)
    return {"status": "open", **fields, "created_at": when, "updated_at": when}


def _work_order_change(etype: Any, data: dict[str, Any]) -> dict[str, Any] | None:
    if etype == "work_order.updated" and isinstance(data.get("changes"), dict):
        return {k: v for k, v in data["changes"].items() if k != "id"}
    if etype == "work_order.status_changed" and "to_status" in data:
        return {"status": data["to_status"]}
    if etype == "work_order.assigned" and "agent" in data:
        return {"assignee": data["agent"]}
    if etype == "work_order.closed":
        return {"status": "closed"}
    return None


def rebuild(
    records: list[Any], derived: dict[str, Derived], kind: str
) -> tuple[list[Any], list[str]]:
    """The projection's records after a rebuild, and the ids it dropped.

    Records keep their order and every field no event sets; a record no event created
    (or a second record with an id already seen) is dropped; records the events
    create and the file lacks are added in creation order.
    """
    out: list[Any] = []
    seen: set[str] = set()
    dropped: list[str] = []
    for rec in records:
        ident = rec.get("id") if isinstance(rec, dict) else None
        if not isinstance(ident, str):
            out.append(rec)  # no id: not ours to judge (the schema check reports it)
        elif ident in seen or ident not in derived:
            dropped.append(ident)
        else:
            seen.add(ident)
            fields = derived[ident].fields
            out.append(
                {**rec, **{k: v for k, v in fields.items() if not agrees(rec.get(k, _NONE), v)}}
            )
    for ident, found in derived.items():
        if ident not in seen:
            out.append(_new_record(found, kind))
    return out, dropped


_NONE = object()


def agrees(have: Any, want: Any) -> bool:
    """A projection's value agrees with the events' (timestamps compared as instants)."""
    if same(have, want):
        return True
    a, b = parse_instant(have), parse_instant(want)
    return a is not None and a == b


def _new_record(found: Derived, kind: str) -> dict[str, Any]:
    values = {**DEFAULTS[kind], **found.fields}
    order = FIELD_ORDER[kind]
    known = [k for k in order if k in values]
    return {k: values[k] for k in known + [k for k in values if k not in order]}
