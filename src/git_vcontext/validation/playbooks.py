"""Playbook invariants as validation findings: the anomalies of playbook/, not re-derived."""

from __future__ import annotations

from ..playbook.analyse import analyse
from ..playbook.log import find_playbooks, log_kind, log_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
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


LINKS = ("supersedes", "supersededBy", "duplicateOf")
"""Fields of an event that name other entries by targetId (seed 000, Ext 12)."""
CREATIONS = ("append", "initial")


def check_playbooks(data: Any, *, with_malformed: bool) -> Iterator[Issue]:
    """Anomalies of every event-log playbook in the document (root or embedded), links to
    entries it does not have, and creation events without content."""
    for where, playbook in find_playbooks(data):
        key, log = log_of(playbook)
        if not log or log_kind(log) != "events":
            continue
        yield from _links(log, (*where, key))
        yield from _content(log, (*where, key))
        states, anomalies, _ = analyse(log)
        if not anomalies:
            continue
        index = {e.get("eventId"): i for i, e in enumerate(log) if isinstance(e, dict)}
        # the entries whose heads an update after the winner settled: their concurrent
        # creations stay a fact of the log, but the advice was followed (view says so)
        settled = {
            s.target: s.winner for s in states if s.settled and len(s.heads) - len(s.settled) <= 1
        }
        for kind, ids, target, message in anomalies:
            if kind == "malformed-event" and not with_malformed:
                continue  # the schema already says what is missing
            at = index.get(ids[0]) if ids else None
            parts = (*where, key) if at is None else (*where, key, at)
            advice = _ADVICE.get(kind)
            if kind == "duplicate-creation" and target in settled:
                advice = f"settled by {settled[target]}, an update after the winner"
            yield rule_of(kind), parts, f"{message}; {advice}" if advice else message


def _links(log: list[Any], at: tuple[Any, ...]) -> Iterator[Issue]:
    """``supersedes`` / ``supersededBy`` / ``duplicateOf`` naming no targetId of the log."""
    targets = {e.get("targetId") for e in log if isinstance(e, dict)}
    for i, event in enumerate(log):
        if not isinstance(event, dict):
            continue
        for field in LINKS:
            value = event.get(field)
            named = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
            for j, name in named:
                if not isinstance(name, str) or name in targets:
                    continue
                parts = (*at, i, field) if j is None else (*at, i, field, j)
                msg = (
                    f'{field} names "{name}", which is no targetId of this playbook; point it '
                    "at an entry of this playbook, or leave it out"
                )
                yield "playbook-dangling-link", parts, msg


def _content(log: list[Any], at: tuple[Any, ...]) -> Iterator[Issue]:
    """A creation event whose narrative (or text) is empty: it says nothing. (One with
    neither is the schema's finding.)"""
    for i, event in enumerate(log):
        if not isinstance(event, dict) or event.get("operation") not in CREATIONS:
            continue
        given = [f for f in ("narrative", "text") if f in event]
        if not given or any(_says_something(event[f]) for f in given):
            continue
        msg = (
            f"{given[0]} {_shown(event[given[0]])} holds no content; write the guidance in "
            'the narrative (e.g. {"Overview": "..."}) or in text'
        )
        yield "playbook-content", (*at, i, given[0]), msg


def _says_something(value: Any) -> bool:
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, dict):
        return any(_says_something(v) for v in value.values())
    return value is not None


def _shown(value: Any) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."
