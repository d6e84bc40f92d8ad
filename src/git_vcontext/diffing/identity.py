"""How the elements of an array are identified: by an id key, by title (a guess), or not at all."""

from __future__ import annotations

from ..document import IDENTITY_KEYS, ITEM_ARRAY_KEYS, element_id, key_choice
from ..record import record
from .labels import id_label

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Indexed = list[tuple[int, Any]]

EVENT_KEYS = ("eventId", "event_id")
_EVENT_FIRST = (*EVENT_KEYS, *(k for k in IDENTITY_KEYS if k not in EVENT_KEYS))


@record
class Side:
    """One array indexed by identity: position of each id, and elements without one."""

    index: dict[Any, int]
    loose: Indexed


@record
class Identity:
    """The key that identifies both arrays' elements, with both arrays indexed by it."""

    key: str
    old: Side
    new: Side
    guess: bool = False  # matched by title: the arrays carry no ids at all


def identify(old: list[Any], new: list[Any], field: str | int | None) -> Identity | None:
    """Identity of two arrays found at ``field``: ``id``, ``uid``, ... (event ids first in
    event logs; ``prefix`` for top-level records, as in VerMAS ``routes.jsonl``), by the
    rule of ``document.key_choice`` (M3: a repeated id leaves them
    unkeyed, so twins are never paired by id); else titles when the items carry no id
    at all and titles are unique on both sides; else None."""
    if not all(type(e) is dict for e in old) or not all(type(e) is dict for e in new):
        return None
    events = any(k in e for e in (*old[:1], *new[:1]) for k in EVENT_KEYS)
    keys = _EVENT_FIRST if events else IDENTITY_KEYS
    if field is None:  # the records of a JSONL file: VerMAS routes are keyed by prefix
        keys = (*keys, "prefix")
    choice = key_choice([old, new], keys)
    if choice.key is not None:
        return Identity(choice.key, _side(old, choice.key), _side(new, choice.key))
    if field in ITEM_ARRAY_KEYS and choice.repeat is None:
        return _by_title(old, new)
    return None


def _side(elements: list[dict[str, Any]], key: str) -> Side:
    """Index by ``key`` (its values are unique ids: ``key_choice`` chose it)."""
    index: dict[Any, int] = {}
    loose: Indexed = []
    for i, e in enumerate(elements):
        if key in e:
            index[e[key]] = i
        else:
            loose.append((i, e))
    return Side(index, loose)


def _by_title(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> Identity | None:
    sides = []
    for elements in (old, new):
        index: dict[Any, int] = {}
        for i, e in enumerate(elements):
            title = e.get("title")
            if not isinstance(title, str) or not title or title in index or _has_id(e):
                return None
            index[title] = i
        sides.append(Side(index, []))
    return Identity("title", sides[0], sides[1], guess=True)


def _has_id(element: dict[str, Any]) -> bool:
    return any(k in element for k in IDENTITY_KEYS)


def element_label(element: Any, index: int) -> str:
    """``[t2]`` for an element with an id (``uid``, ...), else ``[3]`` (its index)."""
    for key in IDENTITY_KEYS:
        ident = element_id(element, key)
        if ident is not None:
            return id_label(ident, key)
    return f"[{index}]"
