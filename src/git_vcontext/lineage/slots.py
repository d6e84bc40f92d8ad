"""One identified element of a document (a ``Slot``): its kind, id, place and value, and
the id-anchored name of its place as diffs write it."""

from __future__ import annotations

from typing import Any

from ..diffing.identity import EVENT_KEYS
from ..diffing.labels import id_label, key_label
from ..document import IDENTITY_KEYS
from ..values import pointer

Parts = tuple[str | int, ...]

ITEM, EVENT, RECORD, ELEMENT, ENTRY = "item", "event", "record", "element", "entry"

_EVENT_FIRST = (*EVENT_KEYS, *(k for k in IDENTITY_KEYS if k not in EVENT_KEYS))


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


def identity(element: dict[str, Any]) -> tuple[str | None, Any]:
    """The key that identifies an element and its id (event ids first in events)."""
    order = _EVENT_FIRST if "eventId" in element or "event_id" in element else IDENTITY_KEYS
    for key in order:
        ident = element.get(key)
        if ident is not None and (type(ident) is str or type(ident) is int):
            return key, ident
    return None, None


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
