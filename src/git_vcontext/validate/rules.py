"""Semantic rules of PRODUCT.md "Validation", each with a stable rule id (pure functions of data).

Every check yields ``(rule, path parts, message)``; ``files`` turns them into located findings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..codecs.text import find_conflict_marker
from ..document import (
    CONTAINER_KEYS,
    DATETIME_FIELDS,
    EXTRA_CONTAINER_KEYS,
    ITEM_ARRAY_KEYS,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Parts = tuple[str | int, ...]
    Issue = tuple[str, Parts, str]

RULES = {
    "parse": "the file is not valid JSON, TRON, JSONL or TOML",
    "conflict-markers": "git conflict markers left in the file or in a string",
    "not-vcontext": "a JSON value that is not a vContext document",
    "schema": "a field is missing, has the wrong type or a value outside its enumeration",
    "version": 'vContextInfo.version must be "0.4" (older documents need migration)',
    "container": "exactly one container (todoList, plan or playbook)",
    "unique-id": "ids unique within their container",
    "unique-event-id": "eventId (event_id in JSONL) unique in the log",
    "datetime": "RFC 3339 datetimes with an explicit offset",
    "changelog-sequence": "changeLog sequences non-decreasing, not above the container's sequence",
    "dependency-missing": "dependencies and edges point at existing ids",
    "dependency-cycle": "dependencies and blocking edges form no cycle",
    "fork-parent-sequence": "fork.parentSequence is not negative",
    "fork-merge-status": "fork.mergeStatus agrees with fork.conflictResolution",
    "playbook-dangling-prev": "prevEventId names an event of the log",
    "playbook-cross-target-prev": "prevEventId names an event of the same targetId",
    "playbook-cycle": "prevEventId links form no cycle",
    "playbook-append-with-prev": "append/initial events have no prevEventId",
    "playbook-update-without-prev": "update/deprecate events have a prevEventId",
    "playbook-duplicate-creation": "one append/initial event per targetId",
    "playbook-malformed-event": "log elements are events (objects with eventId and targetId)",
    "event-caused-by": "a VerMAS event's caused_by names an event of the same log",
    "event-type-unknown": "a VerMAS event_type seed 004 does not list (a note: the list grows)",
    "projection-drift": "work_orders.jsonl / messages.jsonl agree with what events.jsonl derives",
    "assignment": "a VerMAS assignment file holds one line {type}:{reference_id}",
}
"""Every rule id validation reports, with what it checks (stable: reports and tests use them)."""

NOTE_RULES = frozenset({"event-type-unknown"})
"""Rules whose findings are notes: reported with a line and column, the file stays valid."""

_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))\Z"
)
_DATE_TIME_START = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}")
_FULL_DATE = re.compile(r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\Z")
DATE_FIELDS = frozenset({"startDate", "endDate"})
"""Schedule fields that may hold a calendar date (RFC 3339 full-date, as plans use them)."""
MIGRATABLE = ("0.1", "0.2", "0.3")


def containers(data: dict[str, Any]) -> list[str]:
    """The container keys present at the top of a document."""
    return [k for k in CONTAINER_KEYS + EXTRA_CONTAINER_KEYS if k in data]


def check_container(data: dict[str, Any]) -> Iterator[Issue]:
    """Exactly one container per document (seed 000 conformance)."""
    found = containers(data)
    if not found:
        yield "container", (), "no container; add exactly one of todoList, plan or playbook"
    elif len(found) > 1:
        names = ", ".join(found)
        msg = f"{len(found)} containers ({names}); keep one per document, move the others to files"
        yield "container", (found[1],), msg


def check_version(info_key: str, version: Any) -> Iterator[Issue]:
    """``vContextInfo.version`` must be "0.4"; older ones need migration."""
    if info_key != "vContextInfo" or version == "0.4" or not isinstance(version, str):
        return
    where = ("vContextInfo", "version")
    if version in MIGRATABLE:
        msg = f'vContext {version} document; migrate it to 0.4 and set version to "0.4"'
    else:
        msg = f'unknown vContext version "{version}"; vContext documents must be version "0.4"'
    yield "version", where, msg


def check_datetimes(value: Any, fields: frozenset[str] = DATETIME_FIELDS) -> Iterator[Issue]:
    """Datetime fields hold RFC 3339 timestamps with ``Z`` or ``±hh:mm``."""
    for parts, key, text in _strings_under(value, fields):
        if key in DATE_FIELDS and _FULL_DATE.match(text):
            continue
        problem = datetime_problem(text)
        if problem:
            yield "datetime", parts, f"{key} {problem}"


def datetime_problem(text: str) -> str | None:
    """Why a string is not an RFC 3339 datetime with an offset (None when it is one)."""
    m = _RFC3339.match(text)
    if m is None:
        if _DATE_TIME_START.match(text) and not re.search(r"(?:[Zz]|[+-]\d{2}:?\d{2})\Z", text):
            return f'"{text}" has no UTC offset; add "Z" or "+hh:mm" (RFC 3339)'
        return f'"{text}" is not an RFC 3339 datetime; write e.g. "2025-01-31T09:00:00Z"'
    month, day, hour, minute, second = (int(m.group(i)) for i in range(2, 7))
    offset_ok = m.group(8) is None or (int(m.group(8)) < 24 and int(m.group(9)) < 60)
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61):
        return f'"{text}" is not a real date and time; fix it'
    if not offset_ok:
        return f'"{text}" has an impossible UTC offset; fix it'
    return None


def _strings_under(value: Any, fields: frozenset[str]) -> Iterator[tuple[Parts, str, str]]:
    stack: list[tuple[Any, Parts]] = [(value, ())]
    while stack:
        node, parts = stack.pop()
        if isinstance(node, dict):
            for key, child in node.items():
                if key in fields and isinstance(child, str):
                    yield (*parts, key), key, child
                elif isinstance(child, (dict, list)):
                    stack.append((child, (*parts, key)))
        elif isinstance(node, list):
            stack.extend((child, (*parts, i)) for i, child in enumerate(node))


def check_markers(value: Any) -> Iterator[Issue]:
    """Conflict markers inside string values (a text merge left them in a narrative)."""
    stack: list[tuple[Any, Parts]] = [(value, ())]
    while stack:
        node, parts = stack.pop()
        if isinstance(node, str):
            if ("<<<<<<<" in node or ">>>>>>>" in node) and find_conflict_marker(node) is not None:
                msg = "holds git conflict markers; resolve the conflict and remove them"
                yield "conflict-markers", parts, msg
        elif isinstance(node, dict):
            stack.extend((child, (*parts, key)) for key, child in node.items())
        elif isinstance(node, list):
            stack.extend((child, (*parts, i)) for i, child in enumerate(node))


def check_unique_ids(container: dict[str, Any], where: Parts) -> Iterator[Issue]:
    """``id`` values unique within one container, nested items included (Ext 2)."""
    seen: dict[str, Parts] = {}
    for parts, item in walk_items(container, where):
        ident = item.get("id")
        if not isinstance(ident, str):
            continue
        if ident in seen:
            msg = f'id "{ident}" is used twice in this container; give this item a new id'
            yield "unique-id", (*parts, "id"), msg
        else:
            seen[ident] = parts


def walk_items(container: dict[str, Any], where: Parts) -> Iterator[tuple[Parts, dict[str, Any]]]:
    """Every item of a container, depth first (subItems, phases, ACE entries; not nested lists)."""
    stack = [(container, where)]
    while stack:
        node, parts = stack.pop()
        for key in ITEM_ARRAY_KEYS:
            items = node.get(key)
            if not isinstance(items, list):
                continue
            for i in range(len(items) - 1, -1, -1):
                item = items[i]
                if isinstance(item, dict):
                    stack.append((item, (*parts, key, i)))
        if node is not container:
            yield parts, node
