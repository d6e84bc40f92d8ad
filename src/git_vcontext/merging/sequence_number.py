"""M8: the ``sequence`` number (Extension 10) of the info object, a container or an item."""

from __future__ import annotations

from .. import document as doc
from ..values import instant_key, parse_instant, same
from .result import MISSING

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .core import Merger, Path

TOOL_AGENT = {"id": "git-vcontext", "type": "system", "name": "git-vcontext"}


def is_number(value: Any) -> bool:
    """An int or float, not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def merge_sequence(m: Merger, path: Path, base: Any, ours: Any, theirs: Any) -> Any:
    """Both advanced: max + 1 (noted); a decrease is a violation and max wins."""
    values = [0 if v is MISSING else v for v in (base, ours, theirs)]
    if not all(is_number(v) for v in values):
        return _generic(m, path, base, ours, theirs)
    b, o, t = values
    if o > b and t > b:
        new = max(o, t) + 1
        m.note(
            "sequence-conflict",
            path,
            f"concurrent edits: ours at {o}, theirs at {t} (base {b}); merged as {new}",
        )
        m.sequence_conflicts[path[:-1]] = (o, t, new)
        return new
    if o < b or t < b:
        side = "ours" if o < b else "theirs"
        m.note("sequence-decrease", path, f"{side} decreased {path[-1]} below {b}; max kept")
        return ours if o >= t else theirs
    return _generic(m, path, base, ours, theirs)


def _generic(m: Merger, path: Path, base: Any, ours: Any, theirs: Any) -> Any:
    if same(ours, theirs):
        return ours
    if same(base, ours):
        return theirs
    if same(base, theirs):
        return ours
    return m.both_changed(path, base, ours, theirs)


def log_sequence_conflict(m: Merger, path: Path, out: dict[str, Any]) -> None:
    """A ``merge`` Change in the object's changeLog when its sequence conflicted."""
    seq = m.sequence_conflicts.pop(path, None)
    log = out.get(doc.CHANGELOG_FIELD)
    if seq is not None and isinstance(log, list):
        o, t, new = seq
        out[doc.CHANGELOG_FIELD] = [*log, _merge_change(m, log, o, t, new)]


def _merge_change(m: Merger, log: list[Any], o: Any, t: Any, new: Any) -> dict[str, Any]:
    return {
        "sequence": new,
        "timestamp": m.options.now or _latest_timestamp(log),
        "agent": dict(TOOL_AGENT),
        "operation": "merge",
        "reason": f"git-vcontext merged concurrent edits at sequence {o} (ours) and {t} (theirs)",
    }


def _latest_timestamp(log: list[Any]) -> str:
    stamps = [e.get("timestamp") for e in log if isinstance(e, dict)]
    valid = [s for s in stamps if parse_instant(s) is not None]
    return str(max(valid, key=instant_key)) if valid else "1970-01-01T00:00:00Z"
