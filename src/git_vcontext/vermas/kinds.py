"""Which VerMAS file a path (or, for a file named by hand, its content) is, and the event types."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

RECORD_FILES = {
    "events.jsonl": "Event",
    "feed.jsonl": "Event",
    "work_orders.jsonl": "WorkOrder",
    "messages.jsonl": "Message",
    "routes.jsonl": "Route",
}
"""JSONL files of a ``.work/`` directory and the record type of their lines."""

RECORD_KEY = {"Event": "event_id", "WorkOrder": "id", "Message": "id", "Route": "prefix"}
"""The key that identifies the records of each type (unique per file)."""

FOLDERS = {"templates": "Template", "processes": "Process", "evidence": "Evidence"}
"""Sub-folders of ``.work/`` and the kind of document each holds."""

EVENT_TYPES = (
    "work_order.created",
    "work_order.updated",
    "work_order.status_changed",
    "work_order.assigned",
    "work_order.closed",
    "mail.sent",
    "mail.delivered",
    "mail.read",
    "agent.started",
    "agent.assignment_checked",
    "agent.working",
    "agent.idle",
    "agent.stopped",
    "process.created",
    "process.step_started",
    "process.step_completed",
    "process.completed",
    "verify.started",
    "verify.verdict",
)
"""The event types seed 004 lists; each has a payload schema ``data.<type>`` in vermas.schema."""

ASSIGNMENT_TYPES = ("work_order", "mail", "process")
"""``{type}:{reference_id}`` types of an assignment file (seed 004)."""


def _parts(path: str) -> list[str]:
    return [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]


def in_work_directory(path: str) -> bool:
    """Whether a path lies in a VerMAS ``.work/`` directory."""
    return ".work" in _parts(path)[:-1]


def record_kind(path: str, records: list[Any]) -> str | None:
    """The record type of a JSONL file: from its name, else events when all carry event_id."""
    parts = _parts(path)
    if parts and parts[-1] in RECORD_FILES:
        return RECORD_FILES[parts[-1]]
    if records and all(isinstance(r, dict) and "event_id" in r for r in records):
        return "Event"
    return None


def document_kind(path: str, data: Any, fmt: str) -> str | None:
    """``Template``, ``Process``, ``Evidence`` or ``Assignment`` for a VerMAS file, else None.

    By place first (``.work/templates/*.toml``, ``.work/processes/*.json``,
    ``.work/evidence/*.json``, ``.work/.assignment-*``), then, for a file named by
    hand, by content: a TOML table with ``[[steps]]`` is a template, a JSON object
    with ``template``, ``state`` and ``steps`` a process.
    """
    parts = _parts(path)
    if fmt == "text":
        return "Assignment"
    if len(parts) >= 3 and parts[-3] == ".work" and parts[-2] in FOLDERS:
        kind = FOLDERS[parts[-2]]
        if (kind == "Template") == (fmt == "toml"):
            return kind
    if not isinstance(data, dict):
        return None
    if fmt == "toml":
        return "Template" if isinstance(data.get("steps"), list) or "template" in data else None
    if isinstance(data.get("steps"), list) and "template" in data and "state" in data:
        return "Process"
    return None
