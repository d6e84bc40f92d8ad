"""M4 alignment: three-way merge of sequences without identity (array elements, lines of text)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from ..values import canonical, same
from .result import MISSING

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    Origin = Literal["base", "ours", "theirs", "merged", "conflict"]

    PairBlock = Callable[[int, int, int, int], list[tuple[int, int]]]
    """Pairs (base index, side index) of the elements of one replaced block."""

KEEP, CHANGE, DELETE = "keep", "change", "delete"


class SideEdits:
    """What one side did to the base: per base element an action, per gap its insertions."""

    __slots__ = ("actions", "inserts")

    def __init__(self, actions: list[tuple[str, int]], inserts: list[list[int]]) -> None:
        self.actions = actions  # (KEEP|CHANGE|DELETE, index in the side) per base element
        self.inserts = inserts  # indexes in the side inserted before base element i (n+1)


def side_edits(
    base_keys: Sequence[Hashable], side_keys: Sequence[Hashable], pair: PairBlock | None = None
) -> SideEdits:
    """Align a side to the base: equal elements match, replaced ones pair up.

    ``pair(i1, i2, j1, j2)`` says which elements of a replaced block continue
    which (absolute indexes, in order on both sides); by default they pair by
    position. Side elements left unpaired are inserted after the last paired one.
    """
    # lazy: difflib stays off the driver's clean path
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
            paired = pair(i1, i2, j1, j2) if pair else _by_position(i1, i2, j1, j2)
            _replaced(actions, inserts, paired, i1, j1, j2)
    return SideEdits(actions, inserts)


def kept_at(base: Sequence[Hashable], side: Sequence[Hashable]) -> list[int | None]:
    """For each base element, the index of the equal element of ``side`` it is aligned
    with (None: the side changed or deleted it)."""
    return [j if action == KEEP else None for action, j in side_edits(base, side).actions]


def _by_position(i1: int, i2: int, j1: int, j2: int) -> list[tuple[int, int]]:
    return [(i1 + k, j1 + k) for k in range(min(i2 - i1, j2 - j1))]


def _replaced(
    actions: list[tuple[str, int]],
    inserts: list[list[int]],
    pairs: list[tuple[int, int]],
    i1: int,
    j1: int,
    j2: int,
) -> None:
    """Paired elements changed; unpaired base ones deleted, unpaired side ones inserted."""
    gap, nxt = i1, 0
    for j in range(j1, j2):
        if nxt < len(pairs) and pairs[nxt][1] == j:
            i = pairs[nxt][0]
            actions[i] = (CHANGE, j)
            gap, nxt = i + 1, nxt + 1
        else:
            inserts[gap].append(j)


class Slot:
    """One element of a merged sequence and where it came from."""

    __slots__ = ("base_index", "origin", "ours_index", "theirs_index", "value")

    def __init__(
        self,
        value: Any,
        origin: Origin,
        ours_index: int = -1,
        theirs_index: int = -1,
        base_index: int = -1,
    ) -> None:
        self.value = value
        self.origin = origin
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
    *,
    data: bool = False,
) -> list[Slot]:
    """Merge by alignment to the base (M4); conflicts come back as slots with origin "conflict".

    Edits to different base elements never conflict; insertions by both sides at
    the same place keep both, ours' first (equal ones once); deletion against a
    change of the same element is a conflict. ``data``: the elements are JSON
    values whose ``key`` may be an identity, so elements matched by key but
    changed count as changed, and replaced objects pair by what they share.
    """
    bk = [key(x) for x in base]
    o = _edits(bk, base, ours, key, data)
    t = _edits(bk, base, theirs, key, data)
    once = canonical if data else key  # insertions made by both sides are kept once
    out: list[Slot] = []
    for i in range(len(base) + 1):
        out.extend(_gap(o.inserts[i], t.inserts[i], ours, theirs, once))
        if i < len(base):
            slot = _element(i, base, ours, theirs, o.actions[i], t.actions[i], merge_element)
            if slot is not None:
                out.append(slot)
    return out


def _edits(
    bk: list[Hashable],
    base: Sequence[Any],
    side: Sequence[Any],
    key: Callable[[Any], Hashable],
    data: bool,
) -> SideEdits:
    if not data:
        return side_edits(bk, [key(x) for x in side])
    # lazy: only replaced blocks of data need pairing
    from ..pairing import pair_replaced

    def pair(i1: int, i2: int, j1: int, j2: int) -> list[tuple[int, int]]:
        pairs = pair_replaced(base[i1:i2], side[j1:j2])
        return [(i1 + i, j1 + j) for i, j in pairs]

    edits = side_edits(bk, [key(x) for x in side], pair)
    for i, (action, j) in enumerate(edits.actions):
        if action == KEEP and not same(base[i], side[j]):
            edits.actions[i] = (CHANGE, j)
    return edits


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
