"""Items of a container by id: find, collect, make fresh ids, replace and remove (copy on write)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from typing import Any

from ..errors import Refused

ITEM_ARRAYS = ("items", "subItems")
"""Where items live: a container's ``items`` and, nested (Extension 4), ``subItems``."""

Path = tuple[str | int, ...]

_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")


def container_of(data: Any, key: str) -> dict[str, Any]:
    """The document's container under ``key`` (Refused when it has none)."""
    container = data.get(key) if isinstance(data, dict) else None
    if not isinstance(container, dict):
        raise Refused("wrong-kind", f"this document holds no {key}")
    return container


def walk_items(node: Any, path: Path = ()) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Every item under ``node`` (depth first, document order) with its path from ``node``."""
    for key in ITEM_ARRAYS:
        array = node.get(key) if isinstance(node, dict) else None
        if not isinstance(array, list):
            continue
        for index, item in enumerate(array):
            if isinstance(item, dict):
                here = (*path, key, index)
                yield here, item
                yield from walk_items(item, here)


def find_item(container: Any, item_id: str) -> Path | None:
    """The path of the item whose ``id`` is ``item_id`` (None when there is none)."""
    for path, item in walk_items(container):
        if item.get("id") == item_id:
            return path
    return None


def item_ids(container: Any) -> set[str]:
    """Every string ``id`` of the container's items, nested ones included."""
    return {i for _, item in walk_items(container) if isinstance(i := item.get("id"), str)}


def fresh_id(prefix: str, taken: set[str], entropy: str) -> str:
    """``prefix-<8 hex>`` (``<8 hex>`` without a prefix): unique among ``taken``;
    ``entropy`` makes it unique across agents."""
    for attempt in range(1000):
        digest = hashlib.sha256(f"{entropy}/{attempt}".encode()).hexdigest()[:8]
        candidate = f"{prefix}-{digest}" if prefix else digest
        if candidate not in taken:
            return candidate
    raise Refused("no-id", "could not find a free id")  # pragma: no cover - 1000 collisions


def client_id(value: Any, taken: set[str], what: str) -> str:
    """An id the client chose: kept when it is a plain id and not taken yet, else refused."""
    if not isinstance(value, str) or not _SAFE_ID.fullmatch(value) or ".." in value:
        raise Refused(
            "bad-id",
            f"{what} id {value!r} is not a plain id: use letters, digits and . _ : - "
            "(at most 128, no '..', no '/')",
        )
    if value in taken:
        raise Refused("duplicate-id", f"{what} id {value!r} is already taken in this document")
    return value


def is_plain_id(value: str) -> bool:
    """Whether a client's id could name a file without escaping its folder."""
    return bool(_SAFE_ID.fullmatch(value)) and ".." not in value


def get_at(node: Any, path: Path) -> Any:
    """The value at ``path`` under ``node``."""
    for part in path:
        node = node[part]
    return node


def replace_at(node: Any, path: Path, value: Any) -> Any:
    """A copy of ``node`` with ``value`` at ``path`` (only the containers on the way are copied)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    copy: Any = list(node) if isinstance(node, list) else dict(node)
    copy[head] = replace_at(node[head], rest, value) if rest else value
    return copy


def remove_at(node: Any, path: Path) -> Any:
    """A copy of ``node`` without the array element at ``path``."""
    parent_path, index = path[:-1], path[-1]
    array = list(get_at(node, parent_path))
    assert isinstance(index, int)
    del array[index]
    return replace_at(node, parent_path, array)


def insert_at(node: Any, array_path: Path, position: int, value: Any) -> Any:
    """A copy of ``node`` with ``value`` inserted at ``position`` of the array at ``array_path``
    (the array is created when absent)."""
    parent = get_at(node, array_path[:-1])
    array = list(parent.get(array_path[-1]) or [])
    array.insert(position, value)
    return replace_at(node, array_path, array)
