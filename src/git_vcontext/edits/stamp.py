"""Extension 10 bookkeeping of one write: ``sequence`` + 1, a ``changeLog`` Change, who and when."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import Refused

AGENT_TYPE = "aiAgent"
"""Extension 10's Agent ``type`` for what an MCP client writes."""


class Unchanged(Exception):
    """A write that would change nothing (a status set to the value it has): nothing is
    written, logged or committed; the tool says so, as a success."""

    def __init__(
        self, what: str, item_id: str, item: dict[str, Any] | None, container: Any
    ) -> None:
        super().__init__(what)
        self.what = what
        self.item_id = item_id
        self.item = item
        self.sequence = sequence_of(container)
        self.rel: str | None = None  # the document, once the writer knows it


@dataclass(frozen=True)
class Stamp:
    """Who writes, and when (RFC 3339)."""

    agent: str
    now: str

    def agent_object(self) -> dict[str, str]:
        """The Extension 10 ``Agent`` of this writer."""
        return {"id": self.agent, "type": AGENT_TYPE}


@dataclass(frozen=True)
class Change:
    """What one write did to a container, for its ``changeLog`` entry and the tool's answer."""

    operation: str  # create | update | delete
    path: tuple[str | int, ...]  # inside the document, e.g. ("todoList", "items", 3, "status")
    description: str


def sequence_of(container: Any, key: str = "sequence") -> int:
    """A container's revision counter (``version`` for a playbook); absent or odd = 0."""
    value = container.get(key) if isinstance(container, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def check_expected(container: Any, expected: int | None, what: str, key: str = "sequence") -> None:
    """The seed's optimistic locking: refuse when ``expectedSequence`` is not the current one."""
    if expected is None:
        return
    current = sequence_of(container, key)
    if expected != current:
        raise Refused(
            "stale-sequence",
            f"{what} is at {key} {current}, not the expectedSequence {expected}: "
            "someone changed it since you read it; read it again and retry",
        )


def json_path(parts: tuple[str | int, ...]) -> str:
    """The spec's ``Change.path``: JSONPath with index notation, e.g. ``$.todoList.items[2]``."""
    out = "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.replace("_", "a").isalnum():
            out += f".{part}"
        else:
            out += "[" + _quoted(part) + "]"
    return out


def _quoted(key: str) -> str:
    return "'" + key.replace("\\", "\\\\").replace("'", "\\'") + "'"


def said(name: str, before: Any, after: Any) -> str:
    """What one field's change reads as: ``status inProgress → completed``; a value that is
    not one short line is named only."""
    plain = (str, int, float, bool)
    if not isinstance(after, plain) or (before is not None and not isinstance(before, plain)):
        return name
    shown = [_short(v) for v in (before, after)]
    if any(s is None for s in shown):
        return name
    if before is None:
        return f"{name} set to {shown[1]}"
    return f"{name} {shown[0]} → {shown[1]}"


def described(fields: Any, old: dict[str, Any], new: dict[str, Any]) -> str:
    """The fields that changed, each as ``said`` writes it."""
    return ", ".join(said(k, old.get(k), new.get(k)) for k in fields if old.get(k) != new.get(k))


def current_values(fields: dict[str, Any], old: dict[str, Any]) -> str:
    """``status inProgress``: the values a write that changes nothing found there."""
    shown = []
    for name in fields:
        value = _short(old.get(name)) if old.get(name) is not None else None
        shown.append(f"{name} {value}" if value is not None else name)
    return ", ".join(shown)


def _short(value: Any) -> str | None:
    text = value if isinstance(value, str) else repr(value).lower()
    return text if len(text) <= 60 and "\n" not in text else None


def with_item_metadata(
    item: dict[str, Any], stamp: Stamp, container: dict[str, Any]
) -> dict[str, Any]:
    """An edited item's own ``updated``, ``lastModifiedBy`` and ``sequence`` (those it
    carries) refreshed: the time, this agent, the container's sequence after the write."""
    out = dict(item)
    if "updated" in out:
        out["updated"] = stamp.now
    if "lastModifiedBy" in out:
        out["lastModifiedBy"] = stamp.agent_object()
    if "sequence" in out:
        out["sequence"] = sequence_of(container) + 1
    return out


def stamped(container: dict[str, Any], stamp: Stamp, change: Change) -> dict[str, Any]:
    """The container after one write: ``sequence`` + 1, the Change appended, ``updated``,
    ``lastModifiedBy``. Keys it lacked are added after its own; the rest keep their place."""
    out = dict(container)
    sequence = sequence_of(container) + 1
    out["sequence"] = sequence
    out["updated"] = stamp.now
    out["lastModifiedBy"] = stamp.agent_object()
    log = container.get("changeLog")
    entry = {
        "sequence": sequence,
        "timestamp": stamp.now,
        "agent": stamp.agent_object(),
        "operation": change.operation,
        "path": json_path(change.path),
        "description": change.description,
    }
    out["changeLog"] = [*(log if isinstance(log, list) else []), entry]
    return out
