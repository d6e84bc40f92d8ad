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
from ..diffing.labels import id_label, key_label
from ..document import IDENTITY_KEYS, ITEM_ARRAY_KEYS
from ..values import pointer

Parts = tuple[str | int, ...]

_EVENT_FIRST = (*EVENT_KEYS, *(k for k in IDENTITY_KEYS if k not in EVENT_KEYS))
_SKIPPED = frozenset({"changeLog", "fork", "conflictResolution"})
"""Subtrees that copy items (a Change's oldValue, a Conflict's sides): not the items themselves."""

ITEM, EVENT, RECORD, ELEMENT, ENTRY = "item", "event", "record", "element", "entry"
_ITEM_FIELDS = frozenset({*ITEM_ARRAY_KEYS, "steps"})
"""Arrays of items: a container's, and the steps of a VerMAS template or process."""


class Slot:
    """One identified element: its kind, id, place, value and the id of the one before it."""

    __slots__ = ("_anchor", "ident", "kind", "parts", "prev", "root", "value")

    def __init__(
        self, kind: str, ident: Any, parts: Parts, value: Any, prev: Any, root: Any = None
    ) -> None:
        self.kind = kind
        self.ident = ident
        self.parts = parts
        self.value = value
        self.prev = prev
        self.root = root  # the document (to name the place by ids when asked)
        self._anchor: str | None = None

    @property
    def anchor(self) -> str:
        """The place named by ids, as diffs name it: ``todoList.items[t2].subItems[t2.1]``."""
        if self._anchor is None:
            self._anchor = anchor_of(self.root, self.parts)
        return self._anchor

    def named(self, anchor: str) -> Slot:
        """The slot with its anchor given (entries are not found by a path into data)."""
        self._anchor = anchor
        return self

    @property
    def pointer(self) -> str:
        return pointer(self.parts)

    @property
    def title(self) -> str | None:
        title = self.value.get("title") if isinstance(self.value, dict) else None
        return title if isinstance(title, str) else None

    def same_place(self, other: Slot) -> bool:
        """Same kind, same id-anchored place, same predecessor (a move changes one of them)."""
        return (self.kind, self.anchor, self.prev) == (other.kind, other.anchor, other.prev)


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
        # lazy: entries imports this module (an import cycle)
        from .entries import entry_slots

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


def identity(element: dict[str, Any]) -> tuple[str | None, Any]:
    """The key that identifies an element and its id (event ids first in events)."""
    order = _EVENT_FIRST if "eventId" in element or "event_id" in element else IDENTITY_KEYS
    for key in order:
        ident = element.get(key)
        if ident is not None and (type(ident) is str or type(ident) is int):
            return key, ident
    return None, None


def _kind(key: str, field: Any, top: bool) -> str:
    if top:
        return RECORD  # a JSONL file: one record per line
    if key in EVENT_KEYS:
        return EVENT
    return ITEM if field in _ITEM_FIELDS else ELEMENT


def anchor_of(data: Any, parts: Parts) -> str:
    """``todoList.items[t2].subItems[t2.1]`` for the parts of a path into ``data``."""
    out = ""
    node = data
    for part in parts:
        if isinstance(part, int):
            node = node[part]
            key, ident = identity(node) if type(node) is dict else (None, None)
            out += f"[{part}]" if key is None else id_label(ident, key)
        else:
            label = key_label(part)
            out = out + label if out else label[1:]
            node = node[part]
    return out
