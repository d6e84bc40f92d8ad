"""VerMAS event logs (seed 004): each payload checked for its event type, causes, timestamps.

``data`` is checked against ``data.<event_type>`` of vermas.schema; an event type the
seed does not list is a note (rule ``event-type-unknown``: the list grows), not an
error. ``caused_by`` names an event of the same log (not in ``feed.jsonl``, a window of
recent changes whose causes may have left it). ``timestamp`` carries milliseconds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..vermas.kinds import EVENT_TYPES
from .checks import schema_issues
from .rules import datetime_problem

if TYPE_CHECKING:
    from typing import Any

    from .model import Issue

_KNOWN = frozenset(EVENT_TYPES)
_MILLISECONDS = re.compile(r"[Tt ]\d{2}:\d{2}:\d{2}\.\d{3}")
_EVENT_ID = re.compile(r"evt-[A-Za-z0-9][A-Za-z0-9_-]*\Z")
"""Seed 004: ``evt-{random12}`` (its own examples use fewer characters too)."""


def check_events(records: list[Any], *, window: bool = False) -> Iterator[Issue]:
    """Payloads, timestamps and (unless the log is a ``window``) ``caused_by`` of each event."""
    ids = {
        r["event_id"] for r in records if isinstance(r, dict) and isinstance(r.get("event_id"), str)
    }
    for i, event in enumerate(records):
        if not isinstance(event, dict):
            continue
        yield from _event_id(event, i)
        yield from _payload(event, i)
        yield from _milliseconds(event, i)
        cause = event.get("caused_by")
        if not window and isinstance(cause, str) and cause not in ids:
            msg = f'caused_by "{cause}" names no event of this log; fix it or remove caused_by'
            yield "event-caused-by", (i, "caused_by"), msg


def _payload(event: dict[str, Any], i: int) -> Iterator[Issue]:
    etype = event.get("event_type")
    if not isinstance(etype, str):
        return
    if etype not in _KNOWN:
        msg = f'event_type "{etype}" is not one seed 004 lists; its data is not checked'
        yield "event-type-unknown", (i, "event_type"), msg
    elif isinstance(event.get("data"), dict):
        yield from schema_issues(f"vermas#/$defs/data.{etype}", event["data"], (i, "data"))


def _milliseconds(event: dict[str, Any], i: int) -> Iterator[Issue]:
    stamp = event.get("timestamp")
    if not isinstance(stamp, str) or datetime_problem(stamp) or _MILLISECONDS.search(stamp):
        return  # not a string, or the datetime rule already says what is wrong
    msg = f'timestamp "{stamp}" has no milliseconds; write e.g. "2026-01-06T12:00:00.000Z"'
    yield "datetime", (i, "timestamp"), msg


def _event_id(event: dict[str, Any], i: int) -> Iterator[Issue]:
    ident = event.get("event_id")
    if not isinstance(ident, str) or not ident or _EVENT_ID.match(ident):
        return  # not a string or empty: the schema says so
    msg = (
        f"event_id {json.dumps(ident)} does not have seed 004's form evt-{{random}}: write "
        '"evt-" and letters or digits, e.g. "evt-abc123def456"'
    )
    yield "event-id", (i, "event_id"), msg
