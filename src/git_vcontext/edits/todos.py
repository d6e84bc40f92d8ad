"""Todo items: create, update, delete, each a new document value plus the Change it made."""

from __future__ import annotations

from typing import Any

from ..errors import Refused
from ..playbook.edit import like_neighbours
from ..record import record
from ..values import same
from . import items as it
from .stamp import (
    Change,
    Stamp,
    Unchanged,
    check_expected,
    current_values,
    said,
    stamped,
    with_item_metadata,
)
from .statuses import checked

CONTAINER = "todoList"
SEED_FIELDS = ("title", "status", "description", "assignee", "dependencies")
"""Fields of a todo item the seed's tools set; ``description`` is kept as ``narrative.Overview``."""


@record
class Outcome:
    """The new document data, the Change recorded, and the item it is about."""

    data: Any
    change: Change
    item_id: str
    item: dict[str, Any] | None  # None when deleted


def todo_list(data: Any) -> dict[str, Any]:
    """The document's todo list (Refused when it has none)."""
    return it.container_of(data, CONTAINER)


def create(
    data: Any, fields: dict[str, Any], stamp: Stamp, *, entropy: str, expected: int | None = None
) -> Outcome:
    """Append a new item to the todo list's ``items``: a fresh id unless the client gave one."""
    container = todo_list(data)
    check_expected(container, expected, "the todo list")
    taken = it.item_ids(container)
    given = fields.get("id")
    item_id = it.client_id(given, taken, "todo") if given is not None else None
    item_id = item_id or it.fresh_id("todo", taken, entropy)
    item = {"id": item_id, **_item_fields(data, {"status": "pending", **fields}, stamp)}
    parent_id = fields.get("parentId")  # a sub-item: at the end of its parent's subItems
    array_path: it.Path = (*_locate(container, parent_id), "subItems") if parent_id else ("items",)
    existing = it.get_at(container, array_path[:-1]).get(array_path[-1])
    array = existing if isinstance(existing, list) else []
    item = like_neighbours(item, array)
    position = len(array)
    container = it.insert_at(container, array_path, position, item)
    change = Change(
        "create", (CONTAINER, *array_path, position), f"created {item_id}: {item['title']}"
    )
    return Outcome(_with(data, stamped(container, stamp, change)), change, item_id, item)


def update(
    data: Any, item_id: str, fields: dict[str, Any], stamp: Stamp, *, expected: int | None = None
) -> Outcome:
    """Set the given fields of one item (nested items too; ``item_id`` may be a JSON
    Pointer). Unchanged when every field already has its value: nothing to write."""
    container = todo_list(data)
    check_expected(container, expected, "the todo list")
    path = _locate(container, item_id)
    if not fields:
        raise Refused("nothing-to-do", "give at least one field to change (title, status, ...)")
    old = it.get_at(container, path)
    name = it.address_of(old, item_id)
    item = {**old, **_item_fields(data, fields, stamp, old)}
    if "dependencies" in fields:
        item = checked_dependencies(container, item_id, item)
    if same(item, old):
        what = f"todo item {name} already has {current_values(fields, old)}"
        raise Unchanged(what, name, old, container)
    if "status" in fields:
        item = _completion(item, old, stamp)
    item = with_item_metadata(item, stamp, container)
    container = it.replace_at(container, path, item)
    where = (CONTAINER, *path, *((next(iter(fields)),) if len(fields) == 1 else ()))
    change = Change("update", where, f"updated {name}: {_describe(fields, old, item)}")
    return Outcome(_with(data, stamped(container, stamp, change)), change, name, item)


def delete(data: Any, item_id: str, stamp: Stamp, *, expected: int | None = None) -> Outcome:
    """Remove one item (with its sub-items; ``item_id`` may be a JSON Pointer)."""
    container = todo_list(data)
    check_expected(container, expected, "the todo list")
    path = _locate(container, item_id)
    old = it.get_at(container, path)
    name = it.address_of(old, item_id)
    container = it.remove_at(container, path)
    change = Change("delete", (CONTAINER, *path), f"deleted {name}: {old.get('title')}")
    return Outcome(_with(data, stamped(container, stamp, change)), change, name, None)


def _locate(container: dict[str, Any], item_id: str) -> it.Path:
    path = it.find_address(container, item_id, CONTAINER)
    if path is None:
        if item_id.startswith("/"):
            raise Refused(
                "unknown-id",
                f"{item_id} points at no todo item of this list (a JSON Pointer such as "
                "/todoList/items/0 names an item by its place)",
            )
        known = sorted(it.item_ids(container))
        hint = f" (ids: {', '.join(known[:8])}{', ...' if len(known) > 8 else ''})" if known else ""
        raise Refused("unknown-id", f"no todo item with id {item_id!r} in this list{hint}")
    return path


def _item_fields(
    data: Any, fields: dict[str, Any], stamp: Stamp, old: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The seed's fields as vContext fields (``description`` -> ``narrative.Overview``)."""
    out: dict[str, Any] = {}
    for name in SEED_FIELDS:
        if name not in fields:
            continue
        value = fields[name]
        if name == "status":
            value = checked(data, "item", value)
        if name == "description":
            narrative = (old or {}).get("narrative")
            out["narrative"] = {
                **(narrative if isinstance(narrative, dict) else {}),
                "Overview": value,
            }
        elif name == "dependencies":
            out[name] = list(dict.fromkeys(value))
        else:
            out[name] = value
    return out


def checked_dependencies(
    container: dict[str, Any], item_id: str, item: dict[str, Any], *, of: str = "this list"
) -> dict[str, Any]:
    """An item's new ``dependencies``: ids of items of the container (``of`` names it in
    refusals), no cycle; [] drops the key."""
    wanted = item.get("dependencies") or []
    if not wanted:
        return {k: v for k, v in item.items() if k != "dependencies"}
    known = it.item_ids(container)
    unknown = [d for d in wanted if d not in known or d == item_id]
    if unknown:
        why = "itself" if unknown[0] == item_id else f"no item of {of}"
        raise Refused(
            "unknown-id",
            f"dependency {unknown[0]!r} of {item_id!r} is {why}; give ids of other items of {of}",
        )
    edges = {
        i.get("id"): [d for d in i.get("dependencies") or [] if isinstance(d, str)]
        for _, i in it.walk_items(container)
    }
    edges[item_id] = list(wanted)
    seen: set[str] = set()
    stack = list(wanted)
    while stack:  # does anything item_id waits for wait for item_id?
        current = stack.pop()
        if current == item_id:
            raise Refused(
                "cycle",
                f"dependencies of {item_id!r} would make a cycle (an item that "
                f"{item_id!r} waits for already waits for it)",
            )
        if current not in seen:
            seen.add(current)
            stack.extend(edges.get(current, []))
    return item


def _completion(item: dict[str, Any], old: dict[str, Any], stamp: Stamp) -> dict[str, Any]:
    """Extension 1's ``completed``: set when an item becomes completed, dropped when reopened."""
    if item.get("status") == "completed" and old.get("status") != "completed":
        return {**item, "completed": stamp.now}
    if item.get("status") != "completed" and "completed" in item:
        return {k: v for k, v in item.items() if k != "completed"}
    return item


def _describe(fields: dict[str, Any], old: dict[str, Any], new: dict[str, Any]) -> str:
    """What changed, field by field: ``status inProgress → completed, title A → B``."""
    parts = []
    for name in fields:
        key = "narrative" if name == "description" else name
        if same(old.get(key), new.get(key)):
            continue
        if name == "description":
            parts.append("description")
        else:
            parts.append(said(name, old.get(name), new.get(name)))
    return ", ".join(parts)


def _with(data: dict[str, Any], container: dict[str, Any]) -> dict[str, Any]:
    return {**data, CONTAINER: container}


def new_document(stamp: Stamp, *, uid: str, version: str = "0.4") -> dict[str, Any]:
    """An empty todo list document (``.vcontext/todo.json`` when a repository has none)."""
    return {
        "vContextInfo": {"version": version, "created": stamp.now},
        CONTAINER: {"uid": uid, "created": stamp.now, "items": []},
    }
