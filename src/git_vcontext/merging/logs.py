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
        if log is not NOT_HANDLED and lists[1] != lists[0] and lists[2] != lists[0]:
            from .heads import note_multi_heads  # both sides added or changed events

            note_multi_heads(m, path, log)
        return log
    if doc.is_changelog(path) and all(all(isinstance(e, dict) for e in x) for x in lists):
        keys = [_content_keys(x) for x in lists]
        by_key = [dict(zip(k, x, strict=True)) for k, x in zip(keys, lists, strict=True)]
        merged = _union(m, path, keys[0], by_key, _changelog_order)
        return _by_sequence(merged, len(lists[0]))
    if not path and m.options.format == "jsonl" and all_carry(lists, doc.JSONL_EVENT_ID):
        return _events(m, path, lists, doc.JSONL_EVENT_ID, "timestamp")
    return NOT_HANDLED


def _events(m: Merger, path: Path, lists: list[list[Any]], id_field: str, time_field: str) -> Any:
    """An event log unioned by id; NOT_HANDLED when an id repeats on a side (M3)."""
    keys = [_event_keys(x, id_field) for x in lists]
    by_key = [dict(zip(k, x, strict=True)) for k, x in zip(keys, lists, strict=True)]
    if any(len(b) != len(x) for b, x in zip(by_key, lists, strict=True)):
        return NOT_HANDLED
    return _union(m, path, keys[0], by_key, _event_order(time_field, id_field))


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
    # lazy: only for logs out of order (rare)
    import heapq

    return list(heapq.merge(base_part, new_part, key=lambda e: _changelog_sequence(_sort_value(e))))


def _union(
    m: Merger,
    path: Path,
    base_keys: list[Hashable],
    by_key: list[dict[Hashable, Any]],
    order: Callable[[Any], Any],
) -> list[Any]:
    """Base elements in base order (removals undone), then new ones sorted by ``order``.

    ``by_key``: base, ours and theirs by key; ``base_keys``: the base's keys in order.
    """
    b_by, o_by, t_by = by_key
    gone = MISSING
    out = [_logged(m, path, k, b_by[k], o_by.get(k, gone), t_by.get(k, gone)) for k in base_keys]
    seen = b_by
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
