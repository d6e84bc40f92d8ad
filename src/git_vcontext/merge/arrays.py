"""Array strategies: keyed (M3), sequences without identity (M4), sets (M5), logs (M6)."""

from __future__ import annotations

from collections.abc import Callable, Hashable

from .. import document as doc
from ..codecs.matching import fingerprint
from ..values import canonical, instant_key, same
from .result import MISSING, NOT_HANDLED, ConflictNode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .core import Merger, Path


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


# -- M5 sets ----------------------------------------------------------------------


def merge_set(base: Any, ours: Any, theirs: Any) -> Any:
    """3-way set merge: additions from both kept, removals from either applied; ours' order."""
    b, o, t = _as_list(base), _as_list(ours), _as_list(theirs)
    removed = (set(b) - set(o)) | (set(b) - set(t))
    out = [x for x in o if x not in removed]
    seen = set(out)
    for x in t:
        if x not in seen and x not in removed:
            out.append(x)
            seen.add(x)
    if not out and (ours is MISSING or theirs is MISSING):
        return MISSING
    return out


# -- M6 logs ----------------------------------------------------------------------


def merge_log(m: Merger, path: Path, base: Any, ours: Any, theirs: Any) -> Any:
    """Append-only logs: playbook events, changeLog, JSONL event files; else NOT_HANDLED."""
    lists = [_as_list(v) for v in (base, ours, theirs)]
    if doc.is_playbook_log(path) and doc.is_event_array(lists):
        return _union(m, path, lists, _event_key("eventId"), _event_order("createdAt", "eventId"))
    if doc.is_changelog(path) and all(all(isinstance(e, dict) for e in x) for x in lists):
        merged = _union(m, path, lists, canonical, _changelog_order)
        return _by_sequence(merged, len({canonical(e) for e in lists[0]}))
    if not path and m.options.format == "jsonl" and _all_carry(lists, doc.JSONL_EVENT_ID):
        return _union(
            m,
            path,
            lists,
            _event_key(doc.JSONL_EVENT_ID),
            _event_order("timestamp", doc.JSONL_EVENT_ID),
        )
    return NOT_HANDLED


def _all_carry(lists: list[list[Any]], key: str) -> bool:
    return any(lists) and all(isinstance(e, dict) and key in e for x in lists for e in x)


def _event_key(name: str) -> Callable[[Any], Hashable]:
    def key(e: Any) -> Hashable:
        ident = e.get(name) if isinstance(e, dict) else None
        return ("id", ident) if isinstance(ident, (str, int)) else ("=", canonical(e))

    return key


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
    key: Callable[[Any], Hashable],
    order: Callable[[Any], Any],
) -> list[Any]:
    """Base elements in base order (removals undone), then new ones sorted by ``order``."""
    base, ours, theirs = lists
    o_by = {key(e): e for e in ours}
    t_by = {key(e): e for e in theirs}
    out: list[Any] = []
    seen: set[Hashable] = set()
    for e in base:
        k = key(e)
        if k in seen:
            continue
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


# -- arrays in general --------------------------------------------------------------


def merge_array(
    m: Merger, path: Path, base: list[Any], ours: list[Any], theirs: list[Any]
) -> list[Any]:
    """Keyed arrays by identity (M3), others by alignment to the base (M4)."""
    candidates = doc.JSONL_KEYS[1:] if not path and m.options.format == "jsonl" else None
    key = doc.identity_key([base, ours, theirs], candidates or doc.IDENTITY_KEYS)
    if key is not None:
        return keyed(m, path, key, base, ours, theirs)
    return sequence(m, path, base, ours, theirs)


def sequence(
    m: Merger, path: Path, base: list[Any], ours: list[Any], theirs: list[Any]
) -> list[Any]:
    """M4: elements aligned to the base; an element changed on both sides merges by M2."""
    from .sequence import Slot, merge_sequences

    def merge_element(i: int, b: Any, o: Any, t: Any) -> Slot:
        return Slot(m.value((*path, i), b, o, t), "merged")

    slots = merge_sequences(base, ours, theirs, fingerprint, merge_element)
    out: list[Any] = []
    for s in slots:
        if s.origin == "conflict":
            o, t = s.value
            base_value = base[s.base_index]
            out.append(m.conflict("delete/modify", base_value, o, t))
        elif s.value is not MISSING:
            out.append(s.value)
    return out


# -- M3 keyed arrays ------------------------------------------------------------------


def keyed(
    m: Merger, path: Path, key: str, base: list[Any], ours: list[Any], theirs: list[Any]
) -> list[Any]:
    """Match by identity, merge element by element, order per M3."""
    ids = [_ids(x, key) for x in (base, ours, theirs)]
    b_by, o_by, t_by = (
        {i: e for i, e in zip(idx, x, strict=True) if i is not None}
        for idx, x in zip(ids, (base, ours, theirs), strict=True)
    )
    merged: dict[Any, Any] = {}
    for ident in {**b_by, **o_by, **t_by}:
        v = m.value(
            (*path, ("#", ident)),
            b_by.get(ident, MISSING),
            o_by.get(ident, MISSING),
            t_by.get(ident, MISSING),
        )
        if v is not MISSING:
            merged[ident] = v
    order = _keyed_order(ids, merged)
    out = [merged[i] for i in order]
    anonymous = [
        [e for i, e in zip(idx, x, strict=True) if i is None]
        for idx, x in zip(ids, (base, ours, theirs), strict=True)
    ]
    if any(anonymous):
        out.extend(sequence(m, path, *anonymous))
    return out


def _ids(elements: list[Any], key: str) -> list[Any]:
    return [doc.element_id(e, key) for e in elements]


def _keyed_order(ids: list[list[Any]], merged: dict[Any, Any]) -> list[Any]:
    """M3 order: the reordering side's order of common elements (else ours'), then insertions."""
    b, o, t = ([i for i in x if i is not None] for x in ids)
    in_all = set(b) & set(o) & set(t)
    common_b = [i for i in b if i in in_all]
    common_o = [i for i in o if i in in_all]
    common_t = [i for i in t if i in in_all]
    skeleton = common_t if common_o == common_b and common_t != common_b else common_o
    groups: dict[Any, list[Any]] = {}
    placed = set(skeleton)
    for side in (o, t):
        _anchor_insertions(side, merged, placed, groups)
    return _flatten(skeleton, groups)


def _anchor_insertions(
    side: list[Any], merged: dict[Any, Any], placed: set[Any], groups: dict[Any, list[Any]]
) -> None:
    """Each element of ``side`` not yet placed goes after its nearest present predecessor."""
    anchor: Any = None
    for ident in side:
        if ident not in merged:
            continue  # deleted in the result
        if ident not in placed:
            groups.setdefault(anchor, []).append(ident)
            placed.add(ident)
        anchor = ident


def _flatten(skeleton: list[Any], groups: dict[Any, list[Any]]) -> list[Any]:
    """Skeleton order with each element followed by what is anchored to it (iteratively)."""
    out: list[Any] = []
    stack: list[Any] = list(reversed(skeleton))
    stack.extend(reversed(groups.get(None, [])))
    while stack:
        ident = stack.pop()
        out.append(ident)
        stack.extend(reversed(groups.get(ident, [])))
    return out
