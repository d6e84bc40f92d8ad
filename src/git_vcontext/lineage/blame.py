"""``blame``: for each item (or field) of a document, the commit that last changed it.

Each unit carries its value at the tip down history for as long as the versions
below hold the same value; the commit whose parents all hold another value (or no
file) changed it. At a merge it follows the first parent holding the same value,
as ``git blame`` does for a line. A version that does not parse is passed through:
the unit is blamed on the oldest commit known to hold its value. A playbook entry
is blamed on the commit that brought its winning head (the event, as it is now).
"""

from __future__ import annotations

from typing import Any

from ..diffing.model import ABSENT
from ..record import record, replace
from ..values import same
from .parsed import Version
from .slots import ENTRY, EVENT, ITEM, RECORD, Slot
from .versions import Versions
from .walk import History, Link, Walk, first

State = dict[int, str | None]
"""Unit number -> the oldest commit known to hold its tip value (None: none yet)."""

BLAMED_KINDS = (ITEM, RECORD)


@record
class Unit:
    """One line of ``blame``: an item (or one of its fields) or a playbook entry."""

    key: str
    nth: int  # which element with that id (ids repeat in real documents)
    kind: str
    ident: Any
    anchor: str
    pointer: str
    title: str | None  # an item's title, an entry's title (or text)
    status: str | None
    value: Any  # at the tip; an entry's is its winning head event
    field: str | None = None
    event: str | None = None  # an entry's winning head


def units(version: Version, *, fields: bool) -> list[Unit]:
    """The blame lines of a version: items and records in document order, then entries."""
    out: list[Unit] = []
    index = version.index
    seen: dict[str, int] = {}
    for slot in index.slots:
        if slot.kind in BLAMED_KINDS:
            key = str(slot.ident)
            nth = seen[key] = seen.get(key, -1) + 1
            out += _split(_unit(slot, key, nth, slot.value, None), slot.value, fields)
    for key, slot in index.entries.items():
        winner = index.winners[key]
        head = _event(version, winner)
        out += _split(_unit(slot, key, 0, head, winner), slot.value, fields)
    return out


def _unit(slot: Slot, key: str, nth: int, value: Any, event: str | None) -> Unit:
    facts = slot.value if isinstance(slot.value, dict) else {}
    title = facts.get("title", facts.get("text") if slot.kind == ENTRY else None)
    status = facts.get("status")
    return Unit(
        key,
        nth,
        slot.kind,
        slot.ident,
        slot.anchor,
        slot.pointer,
        title if isinstance(title, str) else None,
        status if isinstance(status, str) else None,
        value,
        None,
        event,
    )


def _split(unit: Unit, whole: Any, fields: bool) -> list[Unit]:
    if not fields or not isinstance(whole, dict):
        return [unit]
    return [replace(unit, value=value, field=name) for name, value in whole.items()]


def value_in(version: Version, unit: Unit) -> Any:
    """A unit's value in another version (ABSENT when it has none there)."""
    if not version.present:
        return ABSENT
    index = version.index
    if unit.kind == ENTRY:
        if unit.field is None:
            return _event(version, unit.event)
        entry = index.entries.get(unit.key)
        return ABSENT if entry is None else entry.value.get(unit.field, ABSENT)
    found = index.by_key.get(unit.key, ())
    if len(found) == 1 and unit.nth == 0:  # ids are unique in most documents
        slot = found[0]
        if slot.kind not in BLAMED_KINDS:
            return ABSENT
        value = slot.value
    else:
        slots = [s for s in found if s.kind in BLAMED_KINDS]
        if unit.nth >= len(slots):
            return ABSENT
        value = slots[unit.nth].value
    if unit.field is None:
        return value
    return value.get(unit.field, ABSENT) if isinstance(value, dict) else ABSENT


def _event(version: Version, event_id: str | None) -> Any:
    for slot in version.index.by_key.get(event_id or "", ()):
        if slot.kind == EVENT:
            return slot.value
    return ABSENT


class BlameWalk(Walk[State]):
    """Finds, for every unit, the commit that gave it its tip value."""

    def __init__(self, history: History, versions: Versions, tip: list[Unit]) -> None:
        super().__init__(history, versions, follow=True)
        self.tip = tip
        self.blamed: dict[int, str | None] = {}
        self._held: dict[int, Any] = {}  # per unit, the last value object found equal to it

    def join(self, a: State, b: State) -> State:
        a.update(b)
        return a

    def step(self, commit: str, path: str, state: State) -> list[tuple[Link, State]]:
        blob = self.history.blob(commit, path)
        if blob is None:
            return self._blame(state)
        links = self.links(commit, path, blob)
        twin = first(links, lambda link: link.blob == blob)
        if twin is not None:
            return [(twin, state)]
        version = self.version(blob, path)
        if not version.readable:
            return [(links[0], state)] if links else self._blame(state)
        kept: State = {}
        for u, since in state.items():
            if self._holds(version, u):
                kept[u] = commit
            else:
                self.blamed[u] = since
        return self._hand_down(commit, kept, links)

    def _hand_down(self, commit: str, state: State, links: list[Link]) -> list[tuple[Link, State]]:
        out: dict[Link, State] = {}
        below = [(link, self.version(link.blob, link.path)) for link in links]
        for u in state:
            same_link = next((lk for lk, v in below if v.readable and self._holds(v, u)), None)
            if same_link is None:  # a parent that does not parse may still hold it
                same_link = next((lk for lk, v in below if not v.readable), None)
            if same_link is None:
                self.blamed[u] = commit
            else:
                out.setdefault(same_link, {})[u] = commit
        return list(out.items())

    def _holds(self, version: Version, u: int) -> bool:
        """Whether the unit has its tip value in ``version``. Versions read from a
        neighbour share the values of unchanged items: those need no comparing."""
        unit = self.tip[u]
        value = value_in(version, unit)
        if value is self._held.get(u):
            return True
        if same(value, unit.value):
            self._held[u] = value
            return True
        return False

    def _blame(self, state: State) -> list[tuple[Link, State]]:
        self.blamed.update(state)
        return []

    def boundary(self, commit: str, path: str, state: State) -> None:
        self.blamed.update(state)
