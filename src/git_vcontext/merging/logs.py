"""M6 append-only logs: playbook events, ``changeLog`` and JSONL events, unioned by identity."""

from __future__ import annotations

from .. import document as doc
from ..values import canonical, instant_key, same
from .result import MISSING, NOT_HANDLED, ConflictNode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Hashable
    from typing import Any

    from .core import Merger, Path


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def merge_log(m: Merger, path: Path, base: Any, ours: Any, theirs: Any) -> Any:
    """Append-only logs: playbook events, changeLog, JSONL event files; else NOT_HANDLED.

    A log in which an event id repeats on any side is no log to union (M3): it is
    left to the array rules, which merge it by alignment (M4) with a note.
    """
    lists = [_as_list(v) for v in (base, ours, theirs)]
    if doc.is_playbook_log(path) and doc.is_event_array(lists):
        log = _events(m, path, lists, doc.EVENT_ID, "createdAt")
        if log is not NOT_HANDLED:
            log = _chained_creations(m, path, lists, log)
        if log is not NOT_HANDLED and lists[1] != lists[0] and lists[2] != lists[0]:
            from .heads import note_multi_heads  # both sides added or changed events

            note_multi_heads(m, path, log)
        return log
    if doc.is_changelog(path) and all(all(isinstance(e, dict) for e in x) for x in lists):
        keys = [_content_keys(x) for x in lists]
        by_key = [dict(zip(k, x, strict=True)) for k, x in zip(keys, lists, strict=True)]
        return _union(m, path, by_key, _changelog_order, appended=True)
    if not path and m.options.format == "jsonl" and all_carry(lists, doc.JSONL_EVENT_ID):
        return _events(m, path, lists, doc.JSONL_EVENT_ID, "timestamp")
    return NOT_HANDLED


def _chained_creations(m: Merger, path: Path, lists: list[list[Any]], log: list[Any]) -> list[Any]:
    """In a replay, the commit's creation of a target ours already holds (both created it
    since the base) becomes an update chained to ours' winner of that target: the commit
    is rewritten anyway, and replayed on ours its agent would have written an update (the
    pre-push hook refuses a commit that creates a target its parent had)."""
    base, ours, theirs = lists
    if not m.maybe_replay:
        return log
    creations = [
        e
        for e in theirs
        if isinstance(e, dict) and e.get("operation") in _CREATIONS and e.get("prevEventId") is None
    ]
    if not creations or not m.replay:
        return log
    targets = {e.get("targetId") for e in ours if isinstance(e, dict)}
    targets -= {e.get("targetId") for e in base if isinstance(e, dict)}
    known = {e.get(doc.EVENT_ID) for e in (*base, *ours) if isinstance(e, dict)}
    found = [
        e for e in creations if e.get(doc.EVENT_ID) not in known and e.get("targetId") in targets
    ]
    if not found:
        return log
    # lazy: only a replay that meets a target both created
    from ..playbook.graph import TargetGraph
    from ..playbook.log import EventIndex

    index = EventIndex([e for e in ours if isinstance(e, dict)])
    winners: dict[Any, Any] = {}
    for e in found:
        target = e["targetId"]
        if target not in winners:
            heads = TargetGraph(target, index.targets.get(target, []), index).heads()
            winners[target] = max(heads, key=index.key.__getitem__) if heads else None
    chained: dict[int, dict[str, Any]] = {}
    for e in found:
        winner = winners[e["targetId"]]
        if winner is None:
            continue
        new = {**e, "operation": "update", "prevEventId": winner}
        chained[id(e)] = {k: new[k] for k in _event_order_like(e, new)}
        m.note(
            "replay-creation-chained",
            path,
            f"event {e[doc.EVENT_ID]} created target {e['targetId']} that ours already has:"
            f" replayed as an update after {winner}",
        )
    return [chained.get(id(e), e) for e in log]


def _event_order_like(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The keys of ``new`` in ``old``'s order, ``prevEventId`` after ``operation``."""
    keys = [k for k in old if k != "prevEventId"]
    at = keys.index("operation") + 1 if "operation" in keys else len(keys)
    return [*keys[:at], "prevEventId", *keys[at:]]


_CREATIONS = ("append", "initial")


def _events(m: Merger, path: Path, lists: list[list[Any]], id_field: str, time_field: str) -> Any:
    """An event log unioned by id; NOT_HANDLED when an id repeats on a side (M3)."""
    keys = [_event_keys(x, id_field) for x in lists]
    by_key = [dict(zip(k, x, strict=True)) for k, x in zip(keys, lists, strict=True)]
    if any(len(b) != len(x) for b, x in zip(by_key, lists, strict=True)):
        return NOT_HANDLED
    return _union(m, path, by_key, _event_order(time_field, id_field))


def all_carry(lists: list[list[Any]], key: str) -> bool:
    """Every element of these (not all empty) arrays is an object carrying ``key``."""
    return any(lists) and all(isinstance(e, dict) and key in e for x in lists for e in x)


def _event_keys(elements: list[Any], name: str) -> list[Hashable]:
    """Events by id; one without a usable id by its content (the n-th copy is its own)."""
    out: list[Hashable] = []
    copies: dict[str, int] = {}
    for e in elements:
        ident = e.get(name) if type(e) is dict else None
        kind = type(ident)
        if kind is str or kind is int:  # not bool: true is no id
            out.append(("id", ident))
        else:
            out.append(_nth_copy(canonical(e), copies))
    return out


def _content_keys(elements: list[Any]) -> list[Hashable]:
    """changeLog entries by their whole content; an entry written twice is two entries."""
    copies: dict[str, int] = {}
    return [_nth_copy(canonical(e), copies) for e in elements]


def _nth_copy(text: str, copies: dict[str, int]) -> Hashable:
    n = copies.get(text, 0)
    copies[text] = n + 1
    return ("=", text, n)


def _event_order(time_field: str, id_field: str) -> Callable[[Any], Any]:
    """(time as an instant, id): unique in a log merged by id (a repeated id is no log)."""

    def order(e: Any) -> Any:
        ident = e.get(id_field)
        return (instant_key(e.get(time_field)), str(ident))

    return order


def _changelog_order(e: Any) -> Any:
    seq = e.get("sequence")
    numeric = isinstance(seq, (int, float)) and not isinstance(seq, bool)
    seq_key = (0, float(seq)) if numeric else (1, 0.0)
    return (seq_key, instant_key(e.get("timestamp")), canonical(e))


def _union(
    m: Merger,
    path: Path,
    by_key: list[dict[Hashable, Any]],
    order: Callable[[Any], Any],
    *,
    appended: bool = False,
) -> list[Any]:
    """Ours' elements in ours' order, then every other one placed by ``order`` (M6).

    ``by_key``: base, ours and theirs by key (each in its own order). An element of
    ours keeps its place (a one-sided edit or a conflict in it is merged where it
    is); an element only theirs has, or one of the base that ours removed (kept:
    the log is append-only), goes after the last of ours' elements whose key sorts
    before or equal to its own, so a branch merged again never reorders what ours
    holds, and the log stays in key order wherever ours is.

    In a replay (``m.replay``: a rebase step, a cherry-pick, a revert) an element of the
    base that ours lacks was never ours (the base is the replayed commit's parent, not
    ours' ancestor): it is not brought in, so a pick carries the picked commit's entries
    only; and, ``appended`` (a changeLog), theirs' new entries go after ours' in theirs'
    order (M8 renumbers them once the container is merged).
    """
    b_by, o_by, t_by = by_key
    gone = MISSING
    missing = [k for k in b_by if k not in o_by]
    if missing and m.replay:
        b_by = {k: v for k, v in b_by.items() if k in o_by}
        t_by = {k: v for k, v in t_by.items() if k not in missing}
    out: list[Any] = []
    for k, o in o_by.items():
        t = t_by.get(k, gone)
        if k in b_by:
            out.append(_logged(m, path, k, b_by[k], o, t))
        else:
            out.append(o if t is MISSING or same(o, t) else m.conflict("add/add", MISSING, o, t))
    extra = [
        _logged(m, path, k, b, gone, t_by.get(k, gone)) for k, b in b_by.items() if k not in o_by
    ]
    extra.extend(t for k, t in t_by.items() if k not in o_by and k not in b_by)
    if not extra:
        return out
    if appended and len(o_by) > len(b_by) and m.replay:
        return out + extra  # theirs' commit after ours (M8: renumbered with the container)
    return _placed(out, extra, order)


def _placed(ours: list[Any], extra: list[Any], order: Callable[[Any], Any]) -> list[Any]:
    """``ours`` with each element of ``extra`` after the last element of ``ours`` whose key
    is not greater than its own (at the start when there is none); several at one place
    in key order. Keys of ours are computed from the end back only as far as needed: new
    elements are usually the newest."""
    keyed = sorted(((order(_sort_value(v)), i, v) for i, v in enumerate(extra)), key=_first)
    lowest = keyed[0][0]
    scanned: list[Any] = []  # keys of ours[start:], from the end back
    start = len(ours)
    while start > 0:
        key = order(_sort_value(ours[start - 1]))
        scanned.append(key)
        start -= 1
        if key <= lowest:
            break
    scanned.reverse()
    suffix_min = scanned[:]
    for i in range(len(suffix_min) - 2, -1, -1):
        if suffix_min[i + 1] < suffix_min[i]:
            suffix_min[i] = suffix_min[i + 1]
    after: dict[int, list[Any]] = {}  # index in ours (-1: the start) -> elements after it
    for key, _, v in keyed:
        # the last index whose key <= key: suffix minima do not decrease, so bisect them
        lo, hi = 0, len(suffix_min)
        while lo < hi:
            mid = (lo + hi) // 2
            if suffix_min[mid] <= key:
                lo = mid + 1
            else:
                hi = mid
        at = start + lo - 1 if lo else -1  # none <= key: the scan reached the start
        after.setdefault(at, []).append(v)
    out = list(after.get(-1, ()))
    for i, v in enumerate(ours):
        out.append(v)
        out.extend(after.get(i, ()))
    return out


def _first(entry: tuple[Any, int, Any]) -> tuple[Any, int]:
    return entry[0], entry[1]


def _sort_value(v: Any) -> Any:
    return v.ours if isinstance(v, ConflictNode) else v


def _logged(m: Merger, path: Path, k: Hashable, base: Any, ours: Any, theirs: Any) -> Any:
    """One base element of a log: removals are undone, one-sided edits kept, both conflict."""
    if ours is MISSING or theirs is MISSING:
        side = "both sides" if ours is theirs else "ours" if ours is MISSING else "theirs"
        m.note("append-only-violation", path, f"{side} removed {_label(k)}; kept (append-only log)")
        kept = theirs if ours is MISSING else ours
        return base if kept is MISSING else _logged(m, path, k, base, kept, kept)
    if same(ours, theirs) or same(base, theirs):
        if not same(base, ours):
            m.note("append-only-violation", path, f"ours modified {_label(k)}; its version kept")
        return ours
    if same(base, ours):
        m.note("append-only-violation", path, f"theirs modified {_label(k)}; its version kept")
        return theirs
    return m.conflict("modify/modify", base, ours, theirs)


def _label(k: Hashable) -> str:
    if isinstance(k, tuple) and k and k[0] == "id":
        return f"event {k[1]}"
    return "an entry"


# -- a revert (merging.revert): what its sides look like, asked of every merge ----------


def looks_reverted(base: Any, theirs: Any) -> bool:
    """What a revert's sides look like (cheap, asked before anything else): theirs (the
    parent) lacks changeLog entries or playbook events the base (the commit) has, or holds
    a lower sequence."""
    from .sequence_number import decreased_within

    if not isinstance(base, dict) or not isinstance(theirs, dict):
        return False
    if decreased_within(base, theirs):
        return True
    for key in doc.CONTAINER_KEYS:
        b, t = base.get(key), theirs.get(key)
        if isinstance(b, dict) and isinstance(t, dict) and lost_entries(b, t):
            return True
    return False


def lost_entries(base: dict[str, Any], theirs: dict[str, Any]) -> bool:
    b, t = base.get(doc.CHANGELOG_FIELD), theirs.get(doc.CHANGELOG_FIELD)
    if isinstance(b, list) and len(b) > (len(t) if isinstance(t, list) else 0):
        return True
    return bool(added_events(base, theirs)) or bool(
        added_events(base.get(doc.PLAYBOOK_KEY), theirs.get(doc.PLAYBOOK_KEY))
    )


def is_playbook(value: Any) -> bool:
    return isinstance(value, dict) and any(
        isinstance(value.get(k), list) for k in ("items", "entries")
    )


def added_events(base: Any, theirs: Any) -> list[dict[str, Any]]:
    """The events of ``base``'s playbook log that ``theirs`` lacks, in log order."""
    if not is_playbook(base) or not isinstance(theirs, dict):
        return []
    if not any(
        isinstance(e, dict) and isinstance(e.get("eventId"), str)
        for k in ("items", "entries")
        if isinstance(base.get(k), list)
        for e in base[k]
    ):
        return []  # no event in the base (a todo list's items): the playbook modules stay out
    # lazy: a merge of a todo list or plan never needs them
    from ..playbook.log import log_of

    _key, log = log_of(base)
    _tkey, before = log_of(theirs) if is_playbook(theirs) else ("items", [])
    had = {e.get("eventId") for e in before if isinstance(e, dict)}
    return [
        e
        for e in log
        if isinstance(e, dict) and isinstance(e.get("eventId"), str) and e["eventId"] not in had
    ]
