"""JSON Pointers for notes and conflicts in the merged tree; ours' data out of the tree."""

from __future__ import annotations

from .. import document as doc
from ..values import pointer
from .result import MISSING, Conflict, ConflictNode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def pointer_of(tree: Any, path: tuple[Any, ...]) -> str:
    """The pointer of a rule path (keys, ``("#", id)`` elements, base indexes) in the tree."""
    parts: list[str | int] = []
    node = tree
    for part in path:
        if isinstance(part, tuple):
            index = _index_of(node, part[1])
            parts.append(index if index is not None else str(part[1]))
            node = node[index] if index is not None else None
        elif isinstance(node, list) and isinstance(part, int):
            parts.append(part)
            node = node[part] if 0 <= part < len(node) else None
        else:
            parts.append(part)
            node = node.get(part) if isinstance(node, dict) else None
    return pointer(parts)


def _index_of(node: Any, ident: Any) -> int | None:
    if not isinstance(node, list):
        return None
    for i, element in enumerate(node):
        value = element.ours if isinstance(element, ConflictNode) else element
        if isinstance(value, dict) and any(value.get(k) == ident for k in doc.IDENTITY_KEYS):
            return i
    return None


def locate_conflicts(tree: Any) -> tuple[Any, list[Conflict]]:
    """Ours' data (conflicts replaced by ours' value) and the conflicts with their pointers."""
    found: list[Conflict] = []
    data = _strip(tree, [], found)
    return (None if data is MISSING else data), found


def _strip(node: Any, parts: list[str | int], found: list[Conflict]) -> Any:
    if isinstance(node, ConflictNode):
        bound = tuple((name, *values) for name, values in node.bound.items())
        found.append(Conflict(pointer(parts), node.kind, node.base, node.ours, node.theirs, bound))
        return node.ours
    if isinstance(node, dict):
        members: dict[str, Any] = {}
        for key, value in node.items():
            v = _strip(value, [*parts, key], found)
            if v is not MISSING:
                members[key] = v
        return members
    if isinstance(node, list):
        out: list[Any] = []
        for v in node:  # an element absent on ours (a conflict) takes no index in ours' data
            kept = _strip(v, [*parts, len(out)], found)
            if kept is not MISSING:
                out.append(kept)
        return out
    return node
