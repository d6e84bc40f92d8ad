"""``playbook.metrics`` recomputed from the log (M10): entries, mean confidence, last update."""

from __future__ import annotations

from .analyse import analyse
from .instants import instant, latest
from .log import log_kind, log_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, TypeGuard

CONFIDENCE_TOLERANCE = 0.005
"""A stored mean within half a hundredth agrees: the seeds write it with two decimals."""

METRIC_KEYS = ("totalEntries", "averageConfidence", "lastUpdated")


def recompute_metrics(playbook: dict[str, Any]) -> dict[str, Any]:
    """Stored metrics with ``totalEntries``, ``averageConfidence``, ``lastUpdated`` recomputed.

    Other keys of the stored metrics are kept, in their order. Stored values
    that already agree (same number, same instant, a mean within the tolerance)
    keep their spelling, so an unchanged playbook keeps its metrics byte for byte.
    ``averageConfidence`` is left out when no entry has a confidence, and
    ``lastUpdated`` kept as stored when nothing gives a time.
    """
    _, log = log_of(playbook)
    if log_kind(log) == "events":
        states, _, _ = analyse(log)
        facts = facts_of(states)
    else:
        facts = _keyed_facts([e for e in log if isinstance(e, dict)])
    return updated_metrics(playbook, facts)


def facts_of(entries: Iterable[Any]) -> tuple[int, list[Any], list[Any]]:
    """Number of entries, their confidences and latest times (view entries or target states)."""
    entries = list(entries)
    return (
        len(entries),
        [e.fields.get("confidence") for e in entries],
        [s for e in entries for s in (e.updated_at, e.created_at)],
    )


def _keyed_facts(entries: list[dict[str, Any]]) -> tuple[int, list[Any], list[Any]]:
    """ACE entries count by ``id``; their times are ``updatedAt`` and ``createdAt``."""
    ids = {e.get("id") if isinstance(e.get("id"), str) else i for i, e in enumerate(entries)}
    stamps = [e.get(k) for e in entries for k in ("updatedAt", "createdAt")]
    return len(ids), [e.get("confidence") for e in entries], stamps


def updated_metrics(
    playbook: dict[str, Any], facts: tuple[int, list[Any], list[Any]]
) -> dict[str, Any]:
    """The stored metrics block updated with what the facts say (see ``recompute_metrics``)."""
    total, raw_confidences, raw_stamps = facts
    stored = playbook.get("metrics")
    out: dict[str, Any] = dict(stored) if isinstance(stored, dict) else {}
    if not (_is_number(out.get("totalEntries")) and out["totalEntries"] == total):
        out["totalEntries"] = total
    confidences = [float(c) for c in raw_confidences if _is_number(c)]
    if confidences:
        mean = sum(confidences) / len(confidences)
        old = out.get("averageConfidence")
        if not (_is_number(old) and abs(old - mean) <= CONFIDENCE_TOLERANCE):
            out["averageConfidence"] = round(mean, 4)
    else:
        out.pop("averageConfidence", None)
    when = latest(raw_stamps) or latest([playbook.get("updated")])
    if when is not None and instant(out.get("lastUpdated"))[:2] != instant(when)[:2]:
        out["lastUpdated"] = when
    return out


def metric_differences(stored: Any, recomputed: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(key, stored, recomputed) for each metric a stored block gets wrong (absent = None)."""
    if not isinstance(stored, dict):
        return []
    missing = object()
    diffs = []
    for key in METRIC_KEYS:
        old, new = stored.get(key, missing), recomputed.get(key, missing)
        if old is not new and (old is missing or new is missing or old != new):
            diffs.append((key, None if old is missing else old, None if new is missing else new))
    return diffs


def _is_number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
