"""Descriptive class names derived from where objects occur (todoList.items -> TodoItem)."""

from __future__ import annotations

from .header import RESERVED
from .lexer import is_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Objects under these keys are maps with free-form keys ("Overview", "proposal", ...):
# written with {} syntax; objects inside them are named after the map.
MAP_KEYS = frozenset({"narrative", "narratives", "metadata"})

_SAME_NAME = frozenset({"vContextInfo", "vAgendaInfo", "vBRIEFInfo"})
_OBJECT_NAMES = {
    "agent": "Agent",
    "lastModifiedBy": "Agent",
    "createdBy": "Agent",
    "updatedBy": "Agent",
    "mergedBy": "Agent",
    "lockedBy": "Lock",
}
_ELEMENT_NAMES = {"changeLog": "ChangeLogEntry", "uris": "URI", "urls": "URL", "ids": "ID"}
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def is_property_name(key: str) -> bool:
    """Whether a key can be written unquoted (class properties, dialect keys, named args)."""
    return is_name(key) and key not in RESERVED


def object_name(key: str, parent: str | None) -> str:
    """The name for an object held by ``key`` (``parent``: the name of the object holding it)."""
    if parent is None and (key in _SAME_NAME or (key[:1] == "v" and "A" <= key[1:2] <= "Z")):
        return key if is_name(key) else capitalised(key)
    return _OBJECT_NAMES.get(key) or capitalised(key)


def element_name(key: str, parent: str | None) -> str:
    """The name for the objects in the array held by ``key``."""
    if key == "items":
        return _item_of(parent)
    if key == "entries":
        return (parent or "") + "Entry"
    return _ELEMENT_NAMES.get(key) or capitalised(singular(key))


def member_name(map_key: str) -> str:
    """The name for objects that are values of a free-form map (narratives -> Narrative)."""
    return capitalised(singular(map_key))


def _item_of(parent: str | None) -> str:
    if not parent:
        return "Item"
    if parent.endswith("List"):
        return parent[:-4] + "Item"
    return parent if parent.endswith("Item") else parent + "Item"


def singular(word: str) -> str:
    """English singular of a plural key, good enough for field names."""
    if word.endswith("ies") and len(word) > 3:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 1:
        return word[:-1]
    return word


def capitalised(key: str) -> str:
    """A valid class name from any key: camelCase kept, other characters dropped."""
    # the runs of [A-Za-z0-9_] (what splitting at [^A-Za-z0-9_]+ leaves)
    parts = "".join(c if c in _NAME_CHARS else " " for c in key).split(" ")
    parts = [p for p in parts if p]
    name = "".join(p[0].upper() + p[1:] for p in parts) or "Object"
    return "C" + name if name[0].isdigit() else name


def letter_name(index: int) -> str:
    """A, B, ... Z, A1, ... Z1, A2, ... (the TRON spec's advice for encoders)."""
    cycle, position = divmod(index, 26)
    return chr(ord("A") + position) + (str(cycle) if cycle else "")


def made_by_in(values: list[Any], made_by: dict[int, str]) -> dict[int, str]:
    """The classes that wrote the objects in ``values`` (as ``TronDocument.made_by``)."""
    found: dict[int, str] = {}
    stack: list[Any] = [values]
    while stack:
        value = stack.pop()
        if type(value) is dict:
            name = made_by.get(id(value))
            if name is not None:
                found[id(value)] = name
            stack += [v for v in value.values() if type(v) is dict or type(v) is list]
        else:
            stack += [v for v in value if type(v) is dict or type(v) is list]
    return found
