"""Field rules: text (M7), timestamps (M9), counters (M10), locks (M12), status (M13)."""

from __future__ import annotations

from .. import document as doc
from ..values import canonical, instant_key, parse_instant, same
from .result import MISSING, NOT_HANDLED, ConflictNode
from .sequence_number import is_number, log_sequence_conflict, replayed_sequence
from .textmerge import merge_lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .core import Merger, Path


# -- M7 multi-line text ---------------------------------------------------------------


def merge_text(m: Merger, path: Path, base: Any, ours: str, theirs: str) -> Any:
    """Line-level three-way merge of text (M4 over lines); a conflict only where lines conflict."""
    merged, conflicts = merge_lines(base if isinstance(base, str) else "", ours, theirs, by="line")
    if conflicts:
        return m.conflict("modify/modify", base, ours, theirs)
    return merged


# -- deletes, timestamps, counters, locks, status -------------------------------------


def delete_vs_modify(m: Merger, path: Path, base: Any, ours: Any, theirs: Any) -> Any:
    """One side deleted what the other changed: a conflict, except a released lock (M12)."""
    if path and path[-1] == doc.LOCK_FIELD:
        kept = ours if theirs is MISSING else theirs
        m.note("lock", path, "one side released the lock, the other changed it: changed lock kept")
        return kept
    return m.conflict("delete/modify", base, ours, theirs)


def field_rule(m: Merger, path: Path, base: Any, ours: Any, theirs: Any) -> Any:
    """Rules chosen by the field's name, for values both sides changed differently."""
    name = path[-1] if path else None
    if not isinstance(name, str):
        return NOT_HANDLED
    if name in doc.LATER_WINS_TIMESTAMPS or name in doc.EARLIER_WINS_TIMESTAMPS:
        return _timestamp(name, ours, theirs)
    if name in doc.COUNTER_FIELDS and all(is_number(v) for v in (ours, theirs)):
        b = base if is_number(base) else 0
        return ours + theirs - b
    if name == doc.LOCK_FIELD and isinstance(ours, dict) and isinstance(theirs, dict):
        return _lock(m, path, base, ours, theirs)
    return NOT_HANDLED


def _timestamp(name: str, ours: Any, theirs: Any) -> Any:
    """M9: the later (``updated``…) or earlier (``created``…) instant; ties keep ours."""
    o, t = parse_instant(ours), parse_instant(theirs)
    if o is None or t is None:
        return NOT_HANDLED
    later = name in doc.LATER_WINS_TIMESTAMPS
    if o == t:
        return ours
    return (ours if o > t else theirs) if later else (ours if o < t else theirs)


def last_modified_by(
    m: Merger, path: Path, base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any]
) -> Any:
    """M9: ``lastModifiedBy`` follows the side whose ``updated`` is later (tie: ours)."""
    b, o, t = (x.get("lastModifiedBy", MISSING) for x in (base, ours, theirs))
    if same(b, o) or same(b, t) or o is MISSING or t is MISSING:
        return m.value(path, b, o, t)
    ko, kt = (instant_key(_updated(x)) for x in (ours, theirs))
    return theirs["lastModifiedBy"] if kt > ko else o


def _updated(obj: dict[str, Any]) -> Any:
    for name in ("updated", "updatedAt", "updated_at", "lastUpdated"):
        if name in obj:
            return obj[name]
    return None


def _lock(m: Merger, path: Path, base: Any, ours: dict[str, Any], theirs: dict[str, Any]) -> Any:
    """M12: a lock that expired before the other was acquired loses; overlapping locks conflict."""
    if _expired_before(ours, theirs):
        m.note("lock", path, "ours' lock had expired when theirs was acquired: theirs kept")
        return theirs
    if _expired_before(theirs, ours):
        m.note("lock", path, "theirs' lock had expired when ours was acquired: ours kept")
        return ours
    return m.conflict("lock", base, ours, theirs)


def _expired_before(first: dict[str, Any], second: dict[str, Any]) -> bool:
    expires = parse_instant(first.get("expiresAt"))
    acquired = parse_instant(second.get("acquiredAt"))
    return expires is not None and acquired is not None and expires <= acquired


def is_ace_entry(path: Path) -> bool:
    """A field of an element of playbook.entries/items merged by identity (ACE entries)."""
    return len(path) >= 4 and isinstance(path[-2], tuple) and doc.is_playbook_log(path[:-2])


def ace_status(
    m: Merger,
    path: Path,
    values: tuple[Any, Any, Any],
    ours_entry: dict[str, Any],
    theirs_entry: dict[str, Any],
) -> Any:
    """M13 exception: for ACE entries, deprecated or quarantined wins over active, unless
    the ``active`` side is the later change (its entry's ``updated``/``updatedAt`` instant
    is later than the other side's): the seeds' "unless explicitly reactivated by a later
    change". The side that wins brings its status fields (``bind_status_fields``)."""
    base, ours, theirs = values
    rank = doc.ACE_STATUS_PRECEDENCE
    ro, rt = rank.get(ours), rank.get(theirs)
    if ro is None or rt is None or ro == rt:
        return m.conflict("status", base, ours, theirs)
    active, other = ("ours", "theirs") if ro < rt else ("theirs", "ours")
    entries = {"ours": ours_entry, "theirs": theirs_entry}
    at_active, at_other = (parse_instant(_updated(entries[side])) for side in (active, other))
    later = at_active is not None and at_other is not None and at_active > at_other
    winner = active if later else other
    value = ours if winner == "ours" else theirs
    if later:
        m.note("ace-status", path, f"status 'active' wins: {winner} reactivated the entry later")
    else:
        m.note("ace-status", path, f"status {value!r} wins over 'active' (ACE)")
    m.status_winners[path] = winner
    return value


def bind_status_fields(
    m: Merger,
    path: Path,
    base: dict[str, Any],
    ours: dict[str, Any],
    theirs: dict[str, Any],
    out: dict[str, Any],
) -> None:
    """M13: the fields that belong to a status (``completed``, ``cancelledAt`` …) and that a
    side set or removed go with that side's status. In a status conflict they become part
    of it (``out`` holds ours' values, the conflict each side's); where a rule chose a
    side's status (ACE), they are that side's."""
    status = out.get(doc.STATUS_FIELD, MISSING)
    winner = m.status_winners.pop((*path, doc.STATUS_FIELD), None)
    conflict = isinstance(status, ConflictNode) and status.kind == "status"
    if not conflict and winner is None:
        return
    names = [k for k in {**base, **ours, **theirs} if doc.is_status_bound(k)]
    for name in names:
        b, o, t = (x.get(name, MISSING) for x in (base, ours, theirs))
        if same(b, o) and same(b, t):
            continue  # not changed by either side
        if isinstance(out.get(name), ConflictNode):
            m.conflicts -= 1  # now part of the status conflict (or settled with it)
        if conflict:
            status.bound[name] = (b, o, t)
            out[name] = o  # MISSING: ours has none (kept in place for the other sides)
        else:
            chosen = o if winner == "ours" else t
            if chosen is MISSING:
                out.pop(name, None)
            else:
                out[name] = chosen


# -- after an object merged from two changed sides ------------------------------------


def after_object(
    m: Merger,
    path: Path,
    base: dict[str, Any],
    ours: dict[str, Any],
    theirs: dict[str, Any],
    out: dict[str, Any],
) -> None:
    """Status fields go with their status (M13); record a sequence conflict in the
    changeLog (M8); recompute playbook metrics (M10)."""
    if doc.STATUS_FIELD in out:
        bind_status_fields(m, path, base, ours, theirs, out)
    if m.replayed:
        replayed_sequence(m, path, base, ours, theirs, out)
    log_sequence_conflict(m, path, base, ours, out)
    if path and path[-1] == doc.PLAYBOOK_KEY and isinstance(out.get(doc.METRICS_FIELD), dict):
        _recompute_metrics(m, path, out)


def _recompute_metrics(m: Merger, path: Path, playbook: dict[str, Any]) -> None:
    # lazy: only playbooks carrying metrics (M10)
    from ..playbook import recompute_metrics

    new = recompute_metrics(playbook)
    if canonical(new) != canonical(playbook[doc.METRICS_FIELD]):
        playbook[doc.METRICS_FIELD] = new
        m.note(
            "metrics-recomputed",
            (*path, doc.METRICS_FIELD),
            "playbook metrics recomputed from the merged log",
        )
