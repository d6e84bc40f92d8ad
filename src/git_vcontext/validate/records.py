"""JSONL files (VerMAS ``.work/*.jsonl``, seed 004): each line checked as the record it is."""

from __future__ import annotations

from collections.abc import Iterator

from .rules import check_datetimes, check_markers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Parts = tuple[str | int, ...]
    Issue = tuple[str, Parts, str]

BY_NAME = {
    "events.jsonl": "Event",
    "feed.jsonl": "Event",
    "work_orders.jsonl": "WorkOrder",
    "messages.jsonl": "Message",
    "routes.jsonl": "Route",
}
UNIQUE_KEY = {"Event": "event_id", "WorkOrder": "id", "Message": "id", "Route": "prefix"}
DATETIMES = frozenset({"timestamp", "created_at", "updated_at", "read_at", "idle_since"})


def record_type(path: str, records: list[Any]) -> str | None:
    """The VerMAS record type of a file: from its name, else events when all carry event_id."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if name in BY_NAME:
        return BY_NAME[name]
    if records and all(isinstance(r, dict) and "event_id" in r for r in records):
        return "Event"
    return None


def check_records(path: str, records: list[Any]) -> tuple[list[Issue], list[str]]:
    """Findings for the records of one JSONL file, and the checks skipped."""
    from .checks import schema_issues

    kind = record_type(path, records)
    issues: list[Issue] = []
    for i, rec in enumerate(records):
        if kind is not None:
            issues.extend(schema_issues(f"vermas#/$defs/{kind}", rec, (i,)))
        for rule, parts, msg in check_datetimes(rec, DATETIMES):
            issues.append((rule, (i, *parts), msg))
    if kind is not None:
        issues.extend(_duplicates(records, UNIQUE_KEY[kind]))
    issues.extend(check_markers(records))
    known = "events, work orders, messages, routes"
    skipped = [] if kind else [f"schema: not a known VerMAS record file ({known})"]
    return issues, skipped


def _duplicates(records: list[Any], key: str) -> Iterator[Issue]:
    seen: set[Any] = set()
    rule = "unique-event-id" if key == "event_id" else "unique-id"
    for i, rec in enumerate(records):
        value = rec.get(key) if isinstance(rec, dict) else None
        if not isinstance(value, str):
            continue
        if value in seen:
            msg = f'{key} "{value}" appears on an earlier line too; give this record its own {key}'
            yield rule, (i, key), msg
        seen.add(value)
