"""M6 append-only logs: playbook events, ``changeLog`` and JSONL events, unioned by identity."""

from __future__ import annotations

from collections.abc import Callable, Hashable

from .. import document as doc
from ..values import canonical, instant_key, same
from .result import MISSING, NOT_HANDLED, ConflictNode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .core import Merger, Path

    Keys = Callable[[list[Any]], list[Hashable]]


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def merge_log(m: Merger, path: Path, base: Any, ours: Any, theirs: Any) -> Any:
    """Append-only logs: playbook events, changeLog, JSONL event files; else NOT_HANDLED.

    A log in which an event id repeats on any side is no log to union (M3): it is
    left to the array rules, which merge it by alignment (M4) with a note.
    """
    lists = [_as_list(v) for v in (base, ours, theirs)]
    if doc.is_playbook_log(path) and doc.is_event_array(lists):
        if _repeats(lists, doc.EVENT_ID):
            return NOT_HANDLED
        order = _event_order("createdAt", doc.EVENT_ID)
        return _union(m, path, lists, _event_keys(doc.EVENT_ID), order)
    if doc.is_changelog(path) and all(all(isinstance(e, dict) for e in x) for x in lists):
        merged = _union(m, path, lists, _content_keys, _changelog_order)
        return _by_sequence(merged, len(lists[0]))
    if not path and m.options.format == "jsonl" and all_carry(lists, doc.JSONL_EVENT_ID):
        if _repeats(lists, doc.JSONL_EVENT_ID):
            return NOT_HANDLED
        order = _event_order("timestamp", doc.JSONL_EVENT_ID)
        return _union(m, path, lists, _event_keys(doc.JSONL_EVENT_ID), order)
    return NOT_HANDLED


def all_carry(lists: list[list[Any]], key: str) -> bool:
    """Every element of these (not all empty) arrays is an object carrying ``key``."""
    return any(lists) and all(isinstance(e, dict) and key in e for x in lists for e in x)


def _repeats(lists: list[list[Any]], key: str) -> bool:
    return doc.key_choice(lists, (key,)).repeat is not None


def _event_keys(name: str) -> Keys:
    """Events by id; one without a usable id by its content (the n-th copy is its own)."""

    def keys(elements: list[Any]) -> list[Hashable]:
        out: list[Hashable] = []
        copies: dict[str, int] = {}
        for e in elements:
            ident = e.get(name) if isinstance(e, dict) else None
            if isinstance(ident, (str, int)) and not isinstance(ident, bool):
                out.append(("id", ident))
            else:
                out.append(_nth_copy(canonical(e), copies))
        return out

    return keys


def _content_keys(elements: list[Any]) -> list[Hashable]:
    """changeLog entries by their whole content; an entry written twice is two entries."""
    copies: dict[str, int] = {}
    return [_nth_copy(canonical(e), copies) for e in elements]


def _nth_copy(text: str, copies: dict[str, int]) -> Hashable:
    n = copies.get(text, 0)
    copies[text] = n + 1
    return ("=", text, n)


def _event_order(time_field: str, id_field: str) -> Callable[[Any], Any]:
    def order(e: Any) -> Any:
        ident = e.get(id_field)
        return (instant_key(e.get(time_field)), str(ident), canonical(e))

    return order


def _changelog_order(e: Any) -> Any:
    seq = e.get("sequence")
    numeric = isinstance(seq, (int, float)) and not isinstance(seq, bool)
    seq_key = (0, float(seq)) if numeric else (1, 0.0)
    return (seq_key, instant_key(e.get("timestamp")), canonical(e))


def _changelog_sequence(e: Any) -> float:
    seq = e.get("sequence") if isinstance(e, dict) else None
    if isinstance(seq, (int, float)) and not isinstance(seq, bool):
        return float(seq)
    return float("inf")


def _by_sequence(merged: list[Any], n_base: int) -> list[Any]:
    """A changeLog union whose new entries are placed among the base's by ``sequence``.

    ``_union`` puts new entries after the base's. An entry written at sequence n
    reaches a base that already logs n+1 when an agent merges late (a push retried
    after fetch, criss-cross histories); appended, it would break Validation's
    "sequence non-decreasing in changeLog". Both parts are in sequence order when the
    base is, so a stable merge keeps the base's order, puts base entries first on
    ties, and gives the same log for both merge orders.
    """
    base_part, new_part = merged[:n_base], merged[n_base:]
    if not base_part or not new_part:
        return merged
    last = max(_changelog_sequence(_sort_value(e)) for e in base_part)
    if _changelog_sequence(_sort_value(new_part[0])) >= last:
        return merged  # the common case: everything new comes after the base
    import heapq

    return list(heapq.merge(base_part, new_part, key=lambda e: _changelog_sequence(_sort_value(e))))


def _union(
    m: Merger,
    path: Path,
    lists: list[list[Any]],
    keys: Keys,
    order: Callable[[Any], Any],
) -> list[Any]:
    """Base elements in base order (removals undone), then new ones sorted by ``order``."""
    base, ours, theirs = lists
    o_by = dict(zip(keys(ours), ours, strict=True))
    t_by = dict(zip(keys(theirs), theirs, strict=True))
    out: list[Any] = []
    seen: set[Hashable] = set()
    for k, e in zip(keys(base), base, strict=True):
        seen.add(k)
        out.append(_logged(m, path, k, e, o_by.get(k, MISSING), t_by.get(k, MISSING)))
    added: dict[Hashable, Any] = {}
    for k in [*o_by, *t_by]:
        if k in seen or k in added:
            continue
        o, t = o_by.get(k, MISSING), t_by.get(k, MISSING)
        added[k] = (
            o
            if t is MISSING or same(o, t)
            else t
            if o is MISSING
            else (m.conflict("add/add", MISSING, o, t))
        )
    out.extend(sorted(added.values(), key=lambda v: order(_sort_value(v))))
    return out


def _sort_value(v: Any) -> Any:
    return v.ours if isinstance(v, ConflictNode) else v


def _logged(m: Merger, path: Path, k: Hashable, base: Any, ours: Any, theirs: Any) -> Any:
    """One base element of a log: removals are undone, one-sided edits kept, both conflict."""
    label = _label(k)
    if ours is MISSING or theirs is MISSING:
        side = "both sides" if ours is theirs else "ours" if ours is MISSING else "theirs"
        m.note("append-only-violation", path, f"{side} removed {label}; kept (append-only log)")
        kept = theirs if ours is MISSING else ours
        return base if kept is MISSING else _logged(m, path, k, base, kept, kept)
    if same(ours, theirs) or same(base, theirs):
        if not same(base, ours):
            m.note("append-only-violation", path, f"ours modified {label}; its version kept")
        return ours
    if same(base, ours):
        m.note("append-only-violation", path, f"theirs modified {label}; its version kept")
        return theirs
    return m.conflict("modify/modify", base, ours, theirs)


def _label(k: Hashable) -> str:
    if isinstance(k, tuple) and k and k[0] == "id":
        return f"event {k[1]}"
    return "an entry"
