"""Playbook invariants as validation findings: the anomalies of playbook/, not re-derived."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..playbook.analyse import analyse
from ..playbook.log import find_playbooks, log_kind, log_of

if TYPE_CHECKING:
    from typing import Any

    from .model import Issue

_ADVICE = {
    "dangling-prev": "point prevEventId at an event of this log",
    "cross-target-prev": "point prevEventId at an event of the same targetId",
    "cycle": "prevEventId links must lead back to the creation event",
    "append-with-prev": "remove prevEventId or make the event an update",
    "update-without-prev": "set prevEventId to the event this one follows",
    "duplicate-creation": "an update after the winner settles the heads they left",
    "duplicate-event-id": "give each event its own eventId",
}


def rule_of(kind: str) -> str:
    """The validation rule id of an anomaly kind."""
    return "unique-event-id" if kind == "duplicate-event-id" else f"playbook-{kind}"


def check_playbooks(data: Any, *, with_malformed: bool) -> Iterator[Issue]:
    """Anomalies of every event-log playbook in the document (root or embedded)."""
    for where, playbook in find_playbooks(data):
        key, log = log_of(playbook)
        if not log or log_kind(log) != "events":
            continue
        _, anomalies, _ = analyse(log)
        if not anomalies:
            continue
        index = {e.get("eventId"): i for i, e in enumerate(log) if isinstance(e, dict)}
        for kind, ids, _target, message in anomalies:
            if kind == "malformed-event" and not with_malformed:
                continue  # the schema already says what is missing
            at = index.get(ids[0]) if ids else None
            parts = (*where, key) if at is None else (*where, key, at)
            advice = _ADVICE.get(kind)
            yield rule_of(kind), parts, f"{message}; {advice}" if advice else message
