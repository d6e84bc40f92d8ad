"""JSONL files (VerMAS ``.work/*.jsonl``, seed 004): each line checked as the record it is."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..vermas.kinds import RECORD_FILES, RECORD_KEY, record_kind
from .checks import schema_issues
from .events import check_events
from .rules import check_datetimes, check_markers

if TYPE_CHECKING:
    from typing import Any

    from .model import Issue

DATETIMES = frozenset({"timestamp", "created_at", "updated_at", "read_at", "idle_since"})


def check_records(path: str, records: list[Any]) -> tuple[list[Issue], list[str]]:
    """Findings for the records of one JSONL file, and the checks skipped."""
    kind = record_kind(path, records)
    issues: list[Issue] = []
    for i, rec in enumerate(records):
        if kind is not None:
            issues.extend(schema_issues(f"vermas#/$defs/{kind}", rec, (i,)))
        for rule, parts, msg in check_datetimes(rec, DATETIMES):
            issues.append((rule, (i, *parts), msg))
    if kind == "Event":
        window = path.replace("\\", "/").rsplit("/", 1)[-1] == "feed.jsonl"
        issues.extend(check_events(records, window=window))
    if kind is not None:
        issues.extend(_duplicates(records, RECORD_KEY[kind]))
    issues.extend(check_markers(records))
    known = ", ".join(sorted(RECORD_FILES))
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
