"""Builders for playbook events and documents shared by the playbook tests."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any


def stamp(minute: int) -> str:
    """A createdAt ``minute`` minutes after 2025-01-01T00:00:00Z."""
    return f"2025-01-01T{minute // 60:02d}:{minute % 60:02d}:00Z"


def ev(
    eid: str,
    target: str,
    op: str = "update",
    prev: object = None,  # a str, or a hostile value for the anomaly tests
    at: int | str | None = 0,  # minutes after the epoch stamp, or a createdAt as given
    **fields: Any,
) -> dict[str, Any]:
    """One playbook event; ``append`` events get a kind and text unless given."""
    e: dict[str, Any] = {"eventId": eid, "targetId": target, "operation": op}
    if prev is not None:
        e["prevEventId"] = prev
    if op in ("append", "initial"):
        fields.setdefault("kind", "rule")
        if "narrative" not in fields:
            fields.setdefault("text", f"text of {target}")
    e.update(fields)
    e["createdAt"] = stamp(at) if isinstance(at, int) else at
    return e


def doc(events: list[dict[str, Any]], **playbook: Any) -> dict[str, Any]:
    """A vContext document whose root playbook holds ``events``."""
    body = {"version": 1, "created": stamp(0), "updated": stamp(0), "items": events}
    body.update(playbook)
    return {"vContextInfo": {"version": "0.4"}, "playbook": body}


def ace_plan(*entries: dict[str, Any], **plan: Any) -> dict[str, Any]:
    """Seed 002's example plan (``plan-003``, sequence 12; ``plan``: fields changed) holding
    an ACE playbook of ``entries``: the plan's body, a new one each call."""
    body: dict[str, Any] = {
        "id": "plan-003",
        "title": "API development patterns",
        "status": "completed",
        "sequence": 12,
        "playbook": {
            "version": 1,
            "created": "2024-12-27T09:00:00Z",
            "updated": "2024-12-27T15:00:00Z",
            "entries": list(entries),
        },
    }
    body.update(plan)
    return body


def seed_blocks(shared: Path, seed_prefix: str) -> list[Any]:
    """The JSON examples of a seed document, in order (unparsable ones skipped)."""
    path = next((shared / "seeds").glob(f"{seed_prefix}_*.txt"))
    blocks = re.findall(r"```json\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
    out = []
    for block in blocks:
        try:
            out.append(json.loads(block))
        except ValueError:
            continue
    return out
