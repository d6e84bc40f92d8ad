"""Appending a correct event to a playbook: fresh id, chained to the winning head (pure)."""

from __future__ import annotations

import datetime as _dt
import hashlib
from dataclasses import dataclass, field
from typing import Any

from ..errors import Refused
from ..record import record
from ..values import canonical, parse_instant
from .instants import instant
from .log import log_kind, log_of
from .metrics import recompute_metrics
from .model import Entry
from .view import locate, playbook_view

_UTC = _dt.timezone(_dt.timedelta(0))
OPERATIONS = {"add": "append", "update": "update", "deprecate": "deprecate"}
KINDS = ("strategy", "learning", "rule", "warning", "note")
FIELD_ORDER = (
    "kind",
    "title",
    "text",
    "narrative",
    "tags",
    "evidence",
    "confidence",
    "delta",
    "feedbackType",
    "status",
    "deprecatedReason",
    "supersedes",
    "supersededBy",
    "duplicateOf",
)
"""Where fields go in a new event: the order of the seeds' examples."""


@dataclass(frozen=True)
class Edit:
    """One event to append: ``action`` is add, update or deprecate."""

    action: str
    target: str
    fields: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None


@record
class Appended:
    """The new document data, the event appended, and what a person should know about it."""

    data: Any
    event: dict[str, Any]
    notes: tuple[str, ...] = ()


def append_event(data: Any, edit: Edit, *, now: str, entropy: str | None = None) -> Appended:
    """Append the event ``edit`` describes to the first playbook of ``data``.

    ``now`` is the time to write (RFC 3339); the event is never dated before
    the target's latest event, so precedence by time follows the chain.
    ``entropy`` makes the id unique across agents; without it the id is
    derived from the content (reproducible with SOURCE_DATE_EPOCH).
    """
    where, playbook = locate(data)
    log_key, log = event_log(playbook)
    view = playbook_view(playbook, path=where)
    entry = view.entry(edit.target)
    _check_target(edit, entry)
    _check_links(edit, log)
    event = _event(edit, entry, _created_at(now, entry, playbook, log_key))
    event = like_neighbours({"eventId": _fresh_id(event, log, entropy), **event}, log)
    new_playbook = _with_event(playbook, log_key, event)
    new_data = _replace_at(data, where, new_playbook, event["createdAt"])
    return Appended(new_data, event, _notes(entry))


def event_log(playbook: dict[str, Any]) -> tuple[str, list[Any]]:
    """The playbook's log (its key, its list) when events can be appended to it: asked by
    every playbook write before anything else of the playbook (a target, a count), so a log
    of v0.3 items is ``OldItemsLog`` whatever the write (validate's finding then names the
    rewrite), and an ACE one is refused naming its tool."""
    log_key, log = log_of(playbook)
    kind = log_kind(log)
    if kind == "items":
        raise OldItemsLog("refused", _not_an_event_log(kind))
    if kind != "events":
        raise Refused("refused", _not_an_event_log(kind))
    return log_key, log


class OldItemsLog(Refused):
    """No event to chain: the playbook's log holds v0.3 items, a form ``validate`` rejects
    (its finding names the rewrite). A writer asks the one judge first
    (``sync.judge.refuse_rejected``), so the person is told what mends it."""


def _not_an_event_log(kind: str) -> str:
    if kind == "ace":
        return "this is an ACE playbook (entries keyed by id): use 'git vcontext ace apply'"
    return "this playbook holds v0.3 items, not events: nothing to chain an event to"


def _check_target(edit: Edit, entry: Entry | None) -> None:
    if edit.action == "add" and entry is not None:
        raise Refused("refused", f"target {edit.target} already exists: use 'playbook update'")
    if edit.action != "add" and entry is None:
        raise Refused("refused", f"no entry with targetId {edit.target} in this playbook")


def _check_links(edit: Edit, log: list[Any]) -> None:
    """``supersedes``/``supersededBy``/``duplicateOf`` name entries of this playbook (or the
    event's own target): a link to nothing is refused, as validation would refuse it."""
    targets = {e.get("targetId") for e in log if isinstance(e, dict)} | {edit.target}
    for link in ("supersedes", "supersededBy", "duplicateOf"):
        value = edit.fields.get(link)
        for name in value if isinstance(value, list) else [value]:
            if isinstance(name, str) and name not in targets:
                raise Refused(
                    "refused", f"{link} {name}: no entry with targetId {name} in this playbook"
                )


def _event(edit: Edit, entry: Entry | None, created: str) -> dict[str, Any]:
    event: dict[str, Any] = {"targetId": edit.target, "operation": OPERATIONS[edit.action]}
    if entry is not None:
        event["prevEventId"] = entry.winner
    for name in FIELD_ORDER:
        if name in edit.fields:
            event[name] = edit.fields[name]
    for name, value in edit.fields.items():
        event.setdefault(name, value)
    event["createdAt"] = created
    if edit.reason is not None:
        event["reason"] = edit.reason
    return event


def like_neighbours(event: dict[str, Any], log: list[Any]) -> dict[str, Any]:
    """The event's (or item's) keys in the order the log's (or array's) recent elements use.

    The orders of the last elements are merged (a key first seen goes right after
    its predecessor); keys the log never used keep their place after theirs.
    A TRON writer can then reuse the log's class, a JSON reader sees the
    familiar layout.
    """
    order: list[str] = []
    for e in [*log[-200:], event]:
        if not isinstance(e, dict):
            continue
        before = None
        for key in e:
            if key not in order:
                order.insert(order.index(before) + 1 if before is not None else 0, key)
            before = key
    return {key: event[key] for key in order if key in event}


def _created_at(now: str, entry: Entry | None, playbook: dict[str, Any], log_key: str) -> str:
    """``now``, unless an event of the target is later (clock skew, a fixed SOURCE_DATE_EPOCH)."""
    if entry is None:
        return now
    own = set(entry.event_ids)
    stamps = [
        e.get("createdAt")
        for e in playbook[log_key]
        if isinstance(e, dict) and e.get("eventId") in own and e.get("targetId") == entry.target_id
    ]
    latest = max((s for s in stamps if isinstance(s, str)), key=instant, default=now)
    if instant(latest)[:2] < instant(now)[:2]:
        return now
    if entry.multi_head and instant(latest)[0] == 1:
        # the event settles concurrent heads only as the winner: after every one of them
        when = parse_instant(latest)
        if when is not None:
            return (when + _dt.timedelta(seconds=1)).astimezone(_UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return latest if instant(latest)[:2] > instant(now)[:2] else now


def _fresh_id(event: dict[str, Any], log: list[Any], entropy: str | None) -> str:
    """``evt-<UTC time>-<8 hex>``: sorts by time, unique in the log."""
    when = parse_instant(event["createdAt"])
    moment = when.astimezone(_UTC).strftime("%Y%m%dT%H%M%SZ") if when else "0"
    taken = {e.get("eventId") for e in log if isinstance(e, dict)}
    seed = entropy if entropy is not None else canonical([event, len(log)])
    for attempt in range(1000):
        digest = hashlib.sha256(f"{seed}/{attempt}".encode()).hexdigest()[:8]
        candidate = f"evt-{moment}-{digest}"
        if candidate not in taken:
            return candidate
    raise Refused("refused", "could not find a free eventId")  # pragma: no cover - 1000 collisions


def _with_event(playbook: dict[str, Any], log_key: str, event: dict[str, Any]) -> dict[str, Any]:
    """The playbook with the event appended, ``version`` bumped, ``updated`` and metrics fresh."""
    out = dict(playbook)
    out[log_key] = [*playbook[log_key], event]
    version = out.get("version")
    if isinstance(version, int) and not isinstance(version, bool):
        out["version"] = version + 1
    if "updated" in out:
        out["updated"] = event["createdAt"]
    if isinstance(out.get("metrics"), dict):
        out["metrics"] = recompute_metrics(out)
    return out


def _replace_at(data: Any, where: tuple[str | int, ...], playbook: Any, when: str) -> Any:
    """The document with the playbook replaced; a host container's ``sequence`` advances."""
    if not where:
        return playbook
    if len(where) == 1:
        return {**data, where[0]: playbook}
    host = dict(data[where[0]])
    host[where[1]] = playbook
    bump_host(host, when)
    return {**data, where[0]: host}


def bump_host(container: dict[str, Any], when: str) -> None:
    """Extension 10: a change advances the container's ``sequence`` and ``updated``."""
    seq = container.get("sequence")
    if isinstance(seq, int) and not isinstance(seq, bool):
        container["sequence"] = seq + 1
    if "updated" in container:
        container["updated"] = when


def _notes(entry: Entry | None) -> tuple[str, ...]:
    if entry is None or not entry.multi_head:
        return ()
    heads = ", ".join(entry.open_heads)
    return (
        f"{entry.target_id} had {len(entry.open_heads)} heads ({heads}): "
        f"chained to the winner {entry.winner}, which settles them",
    )
