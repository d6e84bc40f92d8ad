"""``vbrief_create_todo``, ``vbrief_update_todo``, ``vbrief_delete_todo``."""

from __future__ import annotations

import uuid
from typing import Any

from ...edits import todos
from ...edits.items import find_item
from ...errors import Refused
from ..catalog import Entry
from ..service import Answer, Service, sequenced

KIND = "todoList"
ITEM_FIELDS = ("title", "description", "status", "assignee", "dependencies", "id", "parentId")


def create_todo(svc: Service, args: dict[str, Any]) -> Answer:
    svc.may_write(KIND)
    stamp, entropy = svc.stamp(), svc.entropy()
    target = svc.target_of(
        KIND, args.get("todoListId"), lambda: todos.new_document(stamp, uid=str(uuid.uuid4()))
    )
    fields = {k: args[k] for k in ITEM_FIELDS if k in args}
    outcome, out = svc.apply(
        "vbrief_create_todo",
        target,
        lambda data, strict: todos.create(
            data,
            fields,
            stamp,
            entropy=entropy,
            expected=args.get("expectedSequence") if strict else None,
        ),
    )
    return sequenced(f"Created todo item with ID: {outcome.item_id} in {target.rel}", out)


def update_todo(svc: Service, args: dict[str, Any]) -> Answer:
    svc.may_write(KIND)
    entry = _holding(svc, args["id"], args.get("todoListId"))
    fields = {k: args[k] for k in ITEM_FIELDS if k in args and k not in ("id", "parentId")}
    outcome, out = svc.edit("vbrief_update_todo", entry, args, todos.update, args["id"], fields)
    what = outcome.change.description.split(": ", 1)[-1]
    return sequenced(f"Updated todo item {outcome.item_id}: {what} in {entry.rel}", out)


def delete_todo(svc: Service, args: dict[str, Any]) -> Answer:
    svc.may_write(KIND)
    entry = _holding(svc, args["id"], args.get("todoListId"))
    outcome, out = svc.edit("vbrief_delete_todo", entry, args, todos.delete, args["id"])
    return sequenced(f"Deleted todo item {outcome.item_id} from {entry.rel}", out)


def _holding(svc: Service, item_id: str, list_id: str | None) -> Entry:
    """The todo list named, else the current one when it holds the item, else the only
    other list that does (the current one when none does: its refusal lists its ids)."""
    if list_id is not None:
        return svc.document(KIND, list_id)
    current = svc.document(KIND, None)
    if item_id.startswith("/") or _has(svc, current, item_id):  # a pointer: the current list
        return current
    holders = [e for e in svc.catalog.entries(KIND) if e != current and _has(svc, e, item_id)]
    if len(holders) > 1:
        names = ", ".join(e.id for e in holders)
        raise Refused(
            "ambiguous", f"todo item {item_id!r} is in several lists ({names}): give todoListId"
        )
    return holders[0] if holders else current


def _has(svc: Service, entry: Entry, item_id: str) -> bool:
    loaded = svc.catalog.store.load(entry.rel, entry.real)
    data = loaded.data if loaded is not None else None
    container = data.get(KIND) if isinstance(data, dict) else None
    return isinstance(container, dict) and find_item(container, item_id) is not None
