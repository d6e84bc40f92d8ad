"""Array strategies: keyed (M3), sequences without identity (M4), sets (M5)."""

from __future__ import annotations

from .. import document as doc
from ..keys import fingerprint
from ..values import canonical
from .logs import all_carry
from .result import MISSING, NOT_HANDLED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Hashable
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


# -- arrays in general --------------------------------------------------------------


def merge_array(
    m: Merger, path: Path, base: list[Any], ours: list[Any], theirs: list[Any]
) -> list[Any]:
    """Keyed arrays by identity (M3), others by alignment to the base (M4).

    An array whose key values repeat is merged by M4 (noted ``duplicate-id``),
    so no element is merged into its twin. Elements a side moved away (M18) are
    no longer here on any side.
    """
    if m.moves:
        base, ours, theirs = m.moves.drop_left(base, ours, theirs)
    choice = doc.key_choice([base, ours, theirs], _candidates(m, path, [base, ours, theirs]))
    if choice.key is not None:
        return keyed(m, path, choice.key, base, ours, theirs)
    if choice.repeat is not None:
        what = choice.repeat.describe()
        m.note("duplicate-id", path, f"{what}: elements matched by position and content (M4)")
    return sequence(m, path, base, ours, theirs)


def _candidates(m: Merger, path: Path, lists: list[list[Any]]) -> tuple[str, ...]:
    """Identity keys of this array: JSONL records by ``event_id`` (logs), ``id``, ``prefix``."""
    if path or m.options.format != "jsonl":
        return doc.IDENTITY_KEYS
    return doc.JSONL_KEYS if all_carry(lists, doc.JSONL_EVENT_ID) else doc.JSONL_KEYS[1:]


def sequence(
    m: Merger, path: Path, base: list[Any], ours: list[Any], theirs: list[Any]
) -> list[Any]:
    """M4: elements aligned to the base; an element changed on both sides merges by M2."""
    # lazy: only arrays without identity keys align (M4)
    from .alignment import Slot, merge_sequences

    def merge_element(i: int, b: Any, o: Any, t: Any) -> Slot:
        return Slot(m.value((*path, i), b, o, t), "merged")

    key = alignment_key([base, ours, theirs])
    slots = merge_sequences(base, ours, theirs, key, merge_element, data=True)
    out: list[Any] = []
    for s in slots:
        if s.origin == "conflict":
            o, t = s.value
            base_value = base[s.base_index]
            out.append(m.conflict("delete/modify", base_value, o, t))
        elif s.value is not MISSING:
            out.append(s.value)
    return out


def alignment_key(lists: list[list[Any]]) -> Callable[[Any], Hashable]:
    """How M4 aligns elements: by identity where it names one element on every side,
    else by content (twins sharing an id are told apart by what they hold).

    Keys are computed once per element (by object identity: the lists stay alive
    while they are merged).
    """
    prints = {id(e): fingerprint(e) for elements in lists for e in elements}
    repeated: set[Any] = set()
    for elements in lists:
        seen: set[Any] = set()
        for e in elements:
            fp = prints[id(e)]
            if fp[0] == "@":
                if fp in seen:
                    repeated.add(fp)
                seen.add(fp)
    if repeated:
        for elements in lists:
            for e in elements:
                if prints[id(e)] in repeated:
                    prints[id(e)] = ("~", canonical(e))
    return lambda e: prints[id(e)]


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
    moves, equal = m.moves, m.same
    still = not moves  # (the merge's moves, found before its walk: none comes or goes)
    for ident in {**b_by, **o_by, **t_by}:
        b, o, t = b_by.get(ident, MISSING), o_by.get(ident, MISSING), t_by.get(ident, MISSING)
        if still and type(o) is dict and b == o and equal(o, t):
            # what value() answers for an object neither side changed (ours: no sequence in
            # it moved, nothing moved in), without its calls: most elements (issue 32)
            merged[ident] = o
            continue
        here = (*path, ("#", ident))
        v = moves.arrive(m, here, b, o, t) if moves else NOT_HANDLED
        if v is NOT_HANDLED:
            v = m.value(here, b, o, t)
        if v is MISSING and b is not MISSING and key == "id" and ident in m.protected:
            v = m.conflict("delete/reference", b, o, t)  # M19: the other side names it
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
