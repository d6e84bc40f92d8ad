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


def find_address(container: Any, address: str, key: str) -> Path | None:
    """The path of the item an address names: its ``id``, or a JSON Pointer (RFC 6901) to
    it, from the document (``/todoList/items/2``) or from the container (``/items/2``),
    for items without ids (the spec's minimal examples). None when it names no item."""
    if not address.startswith("/"):
        return find_item(container, address)
    parts = [p.replace("~1", "/").replace("~0", "~") for p in address[1:].split("/")]
    if parts and parts[0] == key:
        parts = parts[1:]
    if not parts or len(parts) % 2:
        return None
    path: list[str | int] = []
    node = container
    for array, index in zip(parts[::2], parts[1::2], strict=True):
        if array not in ITEM_ARRAYS or not index.isdigit() or (len(index) > 1 and index[0] == "0"):
            return None
        items = node.get(array) if isinstance(node, dict) else None
        if not isinstance(items, list) or int(index) >= len(items):
            return None
        node = items[int(index)]
        path += [array, int(index)]
    return tuple(path) if isinstance(node, dict) else None


def address_of(item: dict[str, Any], given: str) -> str:
    """How answers name an item: its ``id``, else the pointer the client gave."""
    own = item.get("id")
    return own if isinstance(own, str) and own and not given.startswith("/") else given


def pointer_to(key: str, path: Path) -> str:
    """The JSON Pointer of an item from the document's root: ``/todoList/items/2``."""
    return "/" + "/".join([key, *(str(p) for p in path)])


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


def slug_id(text: str, taken: set[str], *, prefix: str = "", words: int = 8) -> str | None:
    """A readable id from ``text`` (``Release 1.0: the parser!`` → ``release-1-0-the-parser``),
    ``prefix-`` before it, ``-2``, ``-3``... after it when taken; None when ``text`` has no
    letter or digit (ASCII letters and digits only: an id must stay a plain id)."""
    parts = re.findall(r"[a-z0-9]+", text.lower())[:words]
    if not parts:
        return None
    base = (prefix + "-" if prefix else "") + "-".join(parts)
    base = base[:60].rstrip("-")
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


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
