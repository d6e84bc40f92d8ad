"""Extension 10 bookkeeping of one write: ``sequence`` + 1, a ``changeLog`` Change, who and when."""

from __future__ import annotations

from typing import Any

from ..errors import Refused
from ..record import record

AGENT_TYPE = "aiAgent"
"""Extension 10's Agent ``type`` for what an MCP client writes."""


@record
class Stamp:
    """Who writes, and when (RFC 3339)."""

    agent: str
    now: str

    def agent_object(self) -> dict[str, str]:
        """The Extension 10 ``Agent`` of this writer."""
        return {"id": self.agent, "type": AGENT_TYPE}


@record
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
