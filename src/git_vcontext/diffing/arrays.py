"""Arrays: matched by identity with minimal moves, by title as a flagged guess, else aligned."""

from __future__ import annotations

from ..document import is_changelog, is_playbook_log
from ..values import canonical, pointer, same
from .identity import EVENT_KEYS, identify
from .labels import id_label, title_label
from .model import ABSENT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from .core import Walker
    from .here import Here
    from .identity import Identity, Indexed

EVENT_REMOVED = "append-only log: event removed"
EVENT_MODIFIED = "append-only log: event modified"
CHANGELOG_REMOVED = "append-only log: changeLog entry removed"


def diff_array(w: Walker, old: list[Any], new: list[Any], here: Here) -> None:
    """Pick the matching strategy for two arrays found at the same place."""
    if is_changelog(here.new):
        changelog(w, old, new, here)
        return
    identity = identify(old, new, here.field)
    if identity is None:
        aligned(w, list(enumerate(old)), list(enumerate(new)), here)
    else:
        _Keyed(w, here, identity).run(old, new)


class _Keyed:
    """One keyed array pair: removals, then additions, moves and edits in new order."""

    def __init__(self, w: Walker, here: Here, identity: Identity) -> None:
        self.w = w
        self.here = here
        self.identity = identity

    @property
    def event(self) -> bool:
        """Playbook events and JSONL events: an append-only log."""
        key = self.identity.key
        return (key in EVENT_KEYS and is_playbook_log(self.here.new)) or key == "event_id"

    def at(self, ident: Any, i: int, j: int, value: Any) -> Here:
        guess = self.identity.guess
        label = title_label(ident) if guess else id_label(ident, self.identity.key)
        return self.here.element(i, j, label, value, ident=ABSENT if guess else ident, guess=guess)

    def kind(self, element: Any) -> str:
        return _kind(element, "event" if self.identity.key in EVENT_KEYS else "item")

    def run(self, old: list[Any], new: list[Any]) -> None:
        o_index, n_index = self.identity.old.index, self.identity.new.index
        note = EVENT_REMOVED if self.event else None
        for k, i in o_index.items():
            if k not in n_index:
                if self.w.moved_from and self.w.left(old[i]):
                    continue
                self.w.emit(
                    "remove",
                    self.at(k, i, i, old[i]),
                    old=old[i],
                    kind=self.kind(old[i]),
                    note=note,
                )
        moved = moved_keys(o_index, n_index)
        previous: Any = None
        for k, j in n_index.items():
            was = o_index.get(k)
            if was is None:
                here = self.at(k, j, j, new[j])
                if not (self.w.moved_to and self.w.moved(here, new[j], self.kind(new[j]))):
                    self.w.emit("add", here, new=new[j], kind=self.kind(new[j]))
            elif k in moved or not same(old[was], new[j]):
                self.common(k, old[was], new[j], (was, j), previous if k in moved else ABSENT)
            previous = k
        if self.identity.old.loose or self.identity.new.loose:
            aligned(self.w, self.identity.old.loose, self.identity.new.loose, self.here)

    def common(self, k: Any, old: Any, new: Any, where: tuple[int, int], after: Any) -> None:
        """An element on both sides: its move (``after`` its new predecessor), then its edits."""
        here = self.at(k, where[0], where[1], new)
        if after is not ABSENT:
            self.w.emit(
                "move",
                here,
                from_path=pointer((*self.here.old, where[0])),
                after=after,
                kind=self.kind(new),
            )
        start = len(self.w.changes)
        self.w.value(old, new, here)
        if self.event:  # events are immutable: say so on every edit inside one
            changes = self.w.changes
            for n in range(start, len(changes)):
                changes[n] = changes[n].noted(EVENT_MODIFIED)


def _kind(element: Any, kind: str) -> str:
    return kind if isinstance(element, dict) else "value"


def moved_keys(o_index: dict[Any, int], n_index: dict[Any, int]) -> set[Any]:
    """Elements that moved: the common ones outside a longest increasing subsequence.

    Keeping the longest run of elements whose relative order did not change
    and calling every other common element "moved" gives the fewest moves
    that explain the new order (n - LIS).
    """
    common = [k for k in o_index if k in n_index]
    kept = longest_increasing([n_index[k] for k in common])
    return {k for x, k in enumerate(common) if x not in kept}


def longest_increasing(values: Sequence[int]) -> set[int]:
    """Indexes of one longest strictly increasing subsequence (patience sorting, O(n log n))."""
    # lazy: only arrays whose common elements moved are asked
    import bisect

    tails: list[int] = []  # tails[length-1] = smallest tail value of a run of that length
    tail_at: list[int] = []  # index in ``values`` of that tail
    back: list[int] = [-1] * len(values)
    for x, value in enumerate(values):
        pos = bisect.bisect_left(tails, value)
        if pos == len(tails):
            tails.append(value)
            tail_at.append(x)
        else:
            tails[pos] = value
            tail_at[pos] = x
        back[x] = tail_at[pos - 1] if pos else -1
    kept: set[int] = set()
    x = tail_at[-1] if tail_at else -1
    while x >= 0:
        kept.add(x)
        x = back[x]
    return kept


def aligned(w: Walker, old: Indexed, new: Indexed, here: Here) -> None:
    """Arrays without identity (M4): equal elements match; replaced ones pair by position."""
    a = [canonical(e) for _, e in old]
    b = [canonical(e) for _, e in new]
    import difflib  # only arrays without identity need it

    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            _replace(w, old[i1:i2], new[j1:j2], here)


def _replace(w: Walker, old: Indexed, new: Indexed, here: Here) -> None:
    # lazy: only replaced elements without identity
    from ..pairing import pair_replaced

    matched = pair_replaced([e for _, e in old], [e for _, e in new])
    pairs = [(old[i], new[j]) for i, j in matched]
    paired_old = {o[0] for o, _ in pairs}
    paired_new = {n[0] for _, n in pairs}
    for i, e in old:
        if i not in paired_old:
            w.emit("remove", here.element(i, i, f"[{i}]", e), old=e, kind=_kind(e, "item"))
    for (i, o), (j, n) in pairs:
        w.value(o, n, here.element(i, j, f"[{j}]", n))
    for j, e in new:
        if j not in paired_new:
            w.emit("add", here.element(j, j, f"[{j}]", e), new=e, kind=_kind(e, "item"))


def changelog(w: Walker, old: list[Any], new: list[Any], here: Here) -> None:
    """``changeLog`` (M6): entries are identified by their whole content; the log only grows."""
    for i, e in _unmatched(old, new):
        w.emit(
            "remove",
            here.element(i, i, f"[{i}]", e),
            old=e,
            kind="changeLog",
            note=CHANGELOG_REMOVED,
        )
    for j, e in _unmatched(new, old):
        w.emit("add", here.element(j, j, f"[{j}]", e), new=e, kind="changeLog")


def _unmatched(these: list[Any], others: list[Any]) -> list[tuple[int, Any]]:
    """The elements of ``these`` (with their index) that no equal element of ``others`` is
    left for, equal elements matched first come, first served."""
    left: dict[str, int] = {}  # (not collections.Counter: the diff runs once per file)
    for e in others:
        c = canonical(e)
        left[c] = left.get(c, 0) + 1
    out = []
    for i, e in enumerate(these):
        c = canonical(e)
        if left.get(c):
            left[c] -= 1
        else:
            out.append((i, e))
    return out
