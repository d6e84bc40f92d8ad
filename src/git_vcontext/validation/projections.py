"""Projection drift: a ``work_orders.jsonl`` / ``messages.jsonl`` record that disagrees with
what ``events.jsonl`` next to it derives (rule ``projection-drift``; only fields events set)."""

from __future__ import annotations

from ..errors import ParseError
from ..vermas.project import PROJECTIONS, Derived, agrees, derive
from .messages import show_value as shown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    from .model import Issue

EVENTS = "events.jsonl"
HINT = "run 'git vcontext vermas project'"


def projection_kind(path: str) -> str | None:
    """``work order`` / ``message`` for a projection file's path, else None."""
    return PROJECTIONS.get(path.replace("\\", "/").rsplit("/", 1)[-1])


def drift_targets(changed: list[str]) -> list[str]:
    """The projection files whose drift a change of these paths (an event log or a
    projection) may change: every projection beside each of them."""
    folders = []
    for path in changed:
        folder, _, name = path.replace("\\", "/").rpartition("/")
        if (name == EVENTS or name in PROJECTIONS) and folder not in folders:
            folders.append(folder)
    return [f"{folder}/{name}" if folder else name for folder in folders for name in PROJECTIONS]


def projection_issues(
    path: str, records: list[Any], sibling: Callable[[str], bytes | None]
) -> tuple[list[Issue], list[str]]:
    """Drift of one projection file against the event log ``sibling(EVENTS)`` reads."""
    # lazy: only VerMAS projections beside an event log
    from ..codecs import jsonl

    kind = projection_kind(path)
    if kind is None:
        return [], []
    raw = sibling(EVENTS)
    if raw is None:
        return [], [f"projection-drift: no {EVENTS} next to this file to derive it from"]
    try:
        events = jsonl.loads(raw).data
    except ParseError as exc:
        return [], [f"projection-drift: {EVENTS} does not parse ({exc.one_line()})"]
    return list(drift_issues(records, derive(events, kind), kind)), []


def drift_issues(records: list[Any], derived: dict[str, Derived], kind: str) -> Iterator[Issue]:
    """One finding per record field that differs from the events, per record no event
    created, and per record the events create that the file lacks."""
    seen: set[str] = set()
    for i, rec in enumerate(records):
        ident = rec.get("id") if isinstance(rec, dict) else None
        if not isinstance(ident, str) or ident in seen:
            continue  # no id (the schema says so) or a duplicate (rule unique-id)
        seen.add(ident)
        found = derived.get(ident)
        if found is None:
            msg = (
                f'no event created {kind} "{ident}"; remove the record or log its creation ({HINT})'
            )
            yield "projection-drift", (i, "id"), msg
        else:
            yield from _fields(rec, found, i)
    for ident, found in derived.items():
        if ident not in seen:
            msg = (
                f'no record for {kind} "{ident}", which event {found.setters["id"]} created; {HINT}'
            )
            yield "projection-drift", (len(records),), msg


def _fields(rec: dict[str, Any], found: Derived, i: int) -> Iterator[Issue]:
    for field, value in found.fields.items():
        by = f"event {found.setters[field]}"
        if field not in rec:
            yield (
                "projection-drift",
                (i,),
                f"{field} is missing; {by} makes it {shown(value)} ({HINT})",
            )
        elif not agrees(rec[field], value):
            msg = f"{field} is {shown(rec[field])} but {by} makes it {shown(value)} ({HINT})"
            yield "projection-drift", (i, field), msg
