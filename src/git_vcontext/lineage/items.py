"""What a document holds that has an identity: items, events, records, playbook entries.

Every object in an array that carries an identity key (``id``, ``uid``, ``eventId``,
``event_id``, ``depends_on_id``; events by their event id first) is indexed under
that id as text, with where it is, so ``FILE#ID`` can name it. Repeated ids (real
documents have them) are kept, each occurrence in document order. Playbook event
logs also give one entry per ``targetId``: its current view (``git vcontext view``).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from ..diffing.identity import EVENT_KEYS
from ..document import ITEM_ARRAY_KEYS
from .entries import entry_slots
from .slots import ELEMENT, EVENT, ITEM, RECORD, Slot, identity

_SKIPPED = frozenset({"changeLog", "fork", "conflictResolution"})
"""Subtrees that copy items (a Change's oldValue, a Conflict's sides): not the items themselves."""

_ITEM_FIELDS = frozenset({*ITEM_ARRAY_KEYS, "steps"})
"""Arrays of items: a container's, and the steps of a VerMAS template or process."""


class Index:
    """The identified elements of one parsed document, found on first use.

    ``source`` (anything with ``.data``) stands for data parsed only when asked for,
    with ``slots`` known beforehand (a version read from its neighbour).
    """

    def __init__(
        self, data: Any = None, *, source: Any = None, slots: list[Slot] | None = None
    ) -> None:
        self._data = data
        self._source = source
        if slots is not None:
            self.__dict__["slots"] = slots

    @property
    def data(self) -> Any:
        return self._data if self._source is None else self._source.data

    @cached_property
    def slots(self) -> list[Slot]:
        """Every identified element, in document order (parents before their children)."""
        return _walk(self.data)

    @cached_property
    def by_key(self) -> dict[str, list[Slot]]:
        """Slots by id as text; an id used twice has two."""
        out: dict[str, list[Slot]] = {}
        for slot in self.slots:
            out.setdefault(key_of(slot.ident), []).append(slot)
        return out

    @cached_property
    def _playbook_entries(self) -> tuple[dict[str, Slot], dict[str, str]]:
        return entry_slots(self.data) if self.has_playbook else ({}, {})

    @property
    def entries(self) -> dict[str, Slot]:
        """One slot per playbook entry (event logs only): value = what its view shows."""
        return self._playbook_entries[0]

    @property
    def winners(self) -> dict[str, str]:
        """Each entry's winning head (eventId)."""
        return self._playbook_entries[1]

    def find(self, key: str) -> list[Slot]:
        """Everything ``FILE#key`` names: elements with that id, the entry of that
        ``targetId`` and its events."""
        found = list(self.by_key.get(key, ()))
        entry = self.entries.get(key)
        if entry is not None:
            found.append(entry)
            found += [s for s in self.slots if s.kind == EVENT and _target(s) == key]
        return found

    @cached_property
    def has_playbook(self) -> bool:
        """Whether it has playbook events (an event log without events has no entries)."""
        return any(s.kind == EVENT for s in self.slots)

    def keys(self) -> list[str]:
        """Every id this document has (elements, then entries), each once."""
        keys = dict.fromkeys(self.by_key)
        keys.update(dict.fromkeys(self.entries))
        return list(keys)


def key_of(ident: Any) -> str:
    """The text form under which an id is looked up (``7`` and ``"7"`` meet)."""
    return ident if isinstance(ident, str) else str(ident)


def _target(slot: Slot) -> Any:
    return slot.value.get("targetId") if isinstance(slot.value, dict) else None


def _walk(data: Any) -> list[Slot]:
    """Depth first, in document order; arrays of objects give their identified elements."""
    out: list[Slot] = []
    if isinstance(data, (dict, list)):
        _visit(data, None, [], data, out)
    return out


def _visit(node: Any, field: Any, parts: list[str | int], root: Any, out: list[Slot]) -> None:
    """One container (plain functions, not closures: a closure that calls itself is a
    reference cycle, which would keep every parsed document alive without the collector)."""
    if type(node) is dict:
        _visit_object(node, parts, root, out)
    else:
        _visit_array(node, field, parts, root, out)


def _visit_object(node: dict[str, Any], parts: list[str | int], root: Any, out: list[Slot]) -> None:
    for key, value in node.items():
        kind = type(value)
        if kind is list:  # most lists hold strings (tags): nothing to find in them
            if key in _SKIPPED or not any(type(e) is dict or type(e) is list for e in value):
                continue
            parts.append(key)
            _visit_array(value, key, parts, root, out)
            parts.pop()
        elif kind is dict and key not in _SKIPPED:
            parts.append(key)
            _visit_object(value, parts, root, out)
            parts.pop()


def _visit_array(
    node: list[Any], field: Any, parts: list[str | int], root: Any, out: list[Slot]
) -> None:
    prev: Any = None
    for i, element in enumerate(node):
        kind = type(element)
        if kind is dict:
            key, ident = identity(element)
            if key is not None:
                kind_of = _kind(key, field, not parts)
                out.append(Slot(kind_of, ident, (*parts, i), element, prev, root))
            prev = ident
            parts.append(i)
            _visit_object(element, parts, root, out)
            parts.pop()
        elif kind is list:
            parts.append(i)
            _visit_array(element, None, parts, root, out)
            parts.pop()


def _kind(key: str, field: Any, top: bool) -> str:
    if top:
        return RECORD  # a JSONL file: one record per line
    if key in EVENT_KEYS:
        return EVENT
    return ITEM if field in _ITEM_FIELDS else ELEMENT
