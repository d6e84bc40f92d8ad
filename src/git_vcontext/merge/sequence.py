"""M4: three-way merge of sequences without identity (array elements, lines of text)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from .result import MISSING

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

KEEP, CHANGE, DELETE = "keep", "change", "delete"


class SideEdits:
    """What one side did to the base: per base element an action, per gap its insertions."""

    __slots__ = ("actions", "inserts")

    def __init__(self, actions: list[tuple[str, int]], inserts: list[list[int]]) -> None:
        self.actions = actions  # (KEEP|CHANGE|DELETE, index in the side) per base element
        self.inserts = inserts  # indexes in the side inserted before base element i (n+1)


def side_edits(base_keys: Sequence[Hashable], side_keys: Sequence[Hashable]) -> SideEdits:
    """Align a side to the base: equal elements match, one-for-one replacements pair up."""
    from difflib import SequenceMatcher

    n = len(base_keys)
    actions: list[tuple[str, int]] = [(DELETE, -1)] * n
    inserts: list[list[int]] = [[] for _ in range(n + 1)]
    matcher = SequenceMatcher(None, base_keys, side_keys, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                actions[i1 + k] = (KEEP, j1 + k)
        elif tag == "insert":
            inserts[i1].extend(range(j1, j2))
        elif tag == "replace":
            paired = min(i2 - i1, j2 - j1)
            for k in range(paired):
                actions[i1 + k] = (CHANGE, j1 + k)
            # leftovers: extra base elements stay deleted, extra side elements are inserted
            inserts[i1 + paired].extend(range(j1 + paired, j2))
    return SideEdits(actions, inserts)


class Slot:
    """One element of a merged sequence and where it came from."""

    __slots__ = ("base_index", "origin", "ours_index", "theirs_index", "value")

    def __init__(
        self,
        value: Any,
        origin: str,
        ours_index: int = -1,
        theirs_index: int = -1,
        base_index: int = -1,
    ) -> None:
        self.value = value
        self.origin = origin  # "base" | "ours" | "theirs" | "merged" | "conflict"
        self.ours_index = ours_index
        self.theirs_index = theirs_index
        self.base_index = base_index


if TYPE_CHECKING:
    MergeElement = Callable[[int, Any, Any, Any], Slot]
    """Merges one base element changed on both sides: (base index, base, ours, theirs) -> Slot."""


def merge_sequences(
    base: Sequence[Any],
    ours: Sequence[Any],
    theirs: Sequence[Any],
    key: Callable[[Any], Hashable],
    merge_element: MergeElement,
) -> list[Slot]:
    """Merge by alignment to the base (M4); conflicts come back as slots with origin "conflict".

    Edits to different base elements never conflict; insertions by both sides at
    the same place keep both, ours' first (equal ones once); deletion against a
    change of the same element is a conflict.
    """
    bk = [key(x) for x in base]
    o = side_edits(bk, [key(x) for x in ours])
    t = side_edits(bk, [key(x) for x in theirs])
    out: list[Slot] = []
    for i in range(len(base) + 1):
        out.extend(_gap(o.inserts[i], t.inserts[i], ours, theirs, key))
        if i < len(base):
            slot = _element(i, base, ours, theirs, o.actions[i], t.actions[i], merge_element)
            if slot is not None:
                out.append(slot)
    return out


def _gap(
    o_ins: list[int],
    t_ins: list[int],
    ours: Sequence[Any],
    theirs: Sequence[Any],
    key: Callable[[Any], Hashable],
) -> list[Slot]:
    """Insertions at one place: ours' first, then theirs' that ours did not insert too."""
    slots = [Slot(ours[j], "ours", ours_index=j) for j in o_ins]
    pending: dict[Hashable, int] = {}
    for j in o_ins:
        pending[key(ours[j])] = pending.get(key(ours[j]), 0) + 1
    for j in t_ins:
        k = key(theirs[j])
        if pending.get(k, 0):
            pending[k] -= 1
            continue
        slots.append(Slot(theirs[j], "theirs", theirs_index=j))
    return slots


def _element(
    i: int,
    base: Sequence[Any],
    ours: Sequence[Any],
    theirs: Sequence[Any],
    oa: tuple[str, int],
    ta: tuple[str, int],
    merge_element: MergeElement,
) -> Slot | None:
    (ok, oj), (tk, tj) = oa, ta
    if ok == DELETE and tk == DELETE:
        return None
    if ok == DELETE or tk == DELETE:
        changed = (tk, tj) if ok == DELETE else (ok, oj)
        if changed[0] == KEEP:
            return None  # deletion against an unchanged element: deleted
        o_val = ours[oj] if ok != DELETE else MISSING
        t_val = theirs[tj] if tk != DELETE else MISSING
        return Slot((o_val, t_val), "conflict", oj, tj, i)
    if ok == KEEP and tk == KEEP:
        return Slot(ours[oj], "base", oj, tj, i)
    if ok == KEEP:
        return Slot(theirs[tj], "theirs", oj, tj, i)
    if tk == KEEP:
        return Slot(ours[oj], "ours", oj, tj, i)
    slot = merge_element(i, base[i], ours[oj], theirs[tj])
    slot.ours_index, slot.theirs_index, slot.base_index = oj, tj, i
    return slot
