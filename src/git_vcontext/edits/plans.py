"""Plans: create (a new document), update, add and update plan items (seed 003's plan tools)."""

from __future__ import annotations

from typing import Any

from ..errors import Refused
from ..playbook.edit import like_neighbours
from ..validation.container_rules import PROPOSAL, has_content
from ..values import same
from . import items as it
from .stamp import (
    Change,
    Stamp,
    Unchanged,
    check_expected,
    current_values,
    described,
    stamped,
    with_item_metadata,
)
from .statuses import checked
from .todos import Outcome, checked_dependencies

CONTAINER = "plan"


def plan_of(data: Any) -> dict[str, Any]:
    """The document's plan (Refused when it has none)."""
    return it.container_of(data, CONTAINER)


def new_document(
    fields: dict[str, Any], stamp: Stamp, *, plan_id: str, uid: str, entropy: str
) -> Outcome:
    """A new plan document: title, status (default draft), narratives, items with fresh ids."""
    narratives = fields.get("narratives") or {}
    if not any(k.lower() == PROPOSAL and has_content(v) for k, v in narratives.items()):
        raise Refused(
            "missing-proposal",
            "a plan needs narratives.proposal, the proposed solution (vContext 0.4 requires "
            'it): give narratives: {"proposal": "what the plan will do"}',
        )
    data: dict[str, Any] = {"vContextInfo": {"version": "0.4", "created": stamp.now}}
    plan: dict[str, Any] = {"id": plan_id, "uid": uid, "title": fields["title"]}
    plan["status"] = checked(data, "plan", fields.get("status", "draft"))
    if fields.get("narratives"):
        plan["narratives"] = dict(fields["narratives"])
    plan["created"] = stamp.now
    given = [*fields.get("items", ()), *fields.get("phases", ())]
    plan["items"] = _new_items(data, given, set(), entropy)
    change = Change("create", (CONTAINER,), f"created plan {plan_id}: {plan['title']}")
    return Outcome({**data, CONTAINER: stamped(plan, stamp, change)}, change, plan_id, plan)


def update(
    data: Any, fields: dict[str, Any], stamp: Stamp, *, expected: int | None = None
) -> Outcome:
    """Set the plan's title or status; merge narratives (given keys replace, others stay).
    Unchanged when the plan already has every value given."""
    plan = plan_of(data)
    check_expected(plan, expected, "the plan")
    if not fields:
        raise Refused("nothing-to-do", "give at least one of title, status, narratives")
    new = dict(plan)
    if "title" in fields:
        new["title"] = fields["title"]
    if "status" in fields:
        new["status"] = checked(data, "plan", fields["status"])
    if "narratives" in fields:
        old = plan.get("narratives")
        new["narratives"] = {**(old if isinstance(old, dict) else {}), **fields["narratives"]}
    plan_id = str(plan.get("id", ""))
    if same(new, plan):
        what = f"plan {plan_id or 'plan'} already has {current_values(fields, plan)}"
        raise Unchanged(what, plan_id, None, plan)
    key = next(iter(fields)) if len(fields) == 1 else None
    what = described(fields, plan, new)
    change = Change("update", (CONTAINER, *((key,) if key else ())), f"updated {what}")
    new = stamped(new, stamp, change)
    return Outcome({**data, CONTAINER: new}, change, plan_id, new)


def add_item(
    data: Any,
    item: dict[str, Any],
    stamp: Stamp,
    *,
    entropy: str,
    position: int | None = None,
    parent_id: str | None = None,
    expected: int | None = None,
) -> Outcome:
    """Insert a PlanItem into the plan's ``items``, or into the ``subItems`` of the item
    ``parent_id`` names (an id or a JSON Pointer), at ``position`` (default the end)."""
    plan = plan_of(data)
    check_expected(plan, expected, "the plan")
    array_path: it.Path = (*_locate(plan, parent_id), "subItems") if parent_id else ("items",)
    existing = it.get_at(plan, array_path[:-1]).get(array_path[-1])
    array = existing if isinstance(existing, list) else []
    at = len(array) if position is None else position
    if not 0 <= at <= len(array):
        holder = f"item {parent_id}" if parent_id else "the plan"
        raise Refused(
            "bad-position",
            f"position {at} is outside 0..{len(array)} ({holder} has {len(array)} items)",
        )
    (new_item,) = _new_items(data, [item], it.item_ids(plan), entropy)
    new_item = like_neighbours(new_item, array)
    plan = it.insert_at(plan, array_path, at, new_item)
    item_id = new_item["id"]
    where = (CONTAINER, *array_path, at)
    change = Change("create", where, f"added {item_id}: {new_item['title']}")
    return Outcome({**data, CONTAINER: stamped(plan, stamp, change)}, change, item_id, new_item)


def update_item(
    data: Any, item_id: str, fields: dict[str, Any], stamp: Stamp, *, expected: int | None = None
) -> Outcome:
    """Set the title, status, narrative (given keys replace, others stay, null removes one)
    or dependencies (ids of items of this plan, no cycle, [] removes them) of one plan item
    (nested items too; ``item_id`` may be a JSON Pointer). Unchanged when it already has
    every value given."""
    plan = plan_of(data)
    check_expected(plan, expected, "the plan")
    path = _locate(plan, item_id)
    if not fields:
        raise Refused("nothing-to-do", "give title, status, narrative or dependencies to change")
    old = it.get_at(plan, path)
    name = it.address_of(old, item_id)
    new_item = dict(old)
    if "title" in fields:
        new_item["title"] = fields["title"]
    if "status" in fields:
        new_item["status"] = checked(data, "planItem", fields["status"])
    if "narrative" in fields:  # a block given as null is removed; no block left: no narrative
        narrative = old.get("narrative")
        blocks = {**(narrative if isinstance(narrative, dict) else {}), **fields["narrative"]}
        removed = {k for k, v in fields["narrative"].items() if v is None}
        kept = {k: v for k, v in blocks.items() if k not in removed}
        if kept:
            new_item["narrative"] = kept
        else:
            new_item.pop("narrative", None)
    if "dependencies" in fields:
        new_item["dependencies"] = list(dict.fromkeys(fields["dependencies"]))
        own = old.get("id") if isinstance(old.get("id"), str) else name
        new_item = checked_dependencies(plan, own, new_item, of="this plan")
    if same(new_item, old):
        what = f"plan item {name} already has {current_values(fields, old)}"
        raise Unchanged(what, name, old, plan)
    new_item = with_item_metadata(new_item, stamp, plan)
    plan = it.replace_at(plan, path, new_item)
    key = next(iter(fields)) if len(fields) == 1 else None
    where = (CONTAINER, *path, *((key,) if key else ()))
    what = described(fields, old, new_item)
    change = Change("update", where, f"updated {name}: {what}")
    return Outcome({**data, CONTAINER: stamped(plan, stamp, change)}, change, name, new_item)


def delete_item(data: Any, item_id: str, stamp: Stamp, *, expected: int | None = None) -> Outcome:
    """Remove one plan item with its sub-items (``item_id`` may be a JSON Pointer); what
    still depends on it is refused by validation, naming the dependency."""
    plan = plan_of(data)
    check_expected(plan, expected, "the plan")
    path = _locate(plan, item_id)
    old = it.get_at(plan, path)
    name = it.address_of(old, item_id)
    plan = it.remove_at(plan, path)
    change = Change("delete", (CONTAINER, *path), f"deleted {name}: {old.get('title')}")
    return Outcome({**data, CONTAINER: stamped(plan, stamp, change)}, change, name, None)


def _locate(plan: dict[str, Any], item_id: str) -> it.Path:
    """The path of the plan item an id or JSON Pointer names (Refused, with the ids there
    are, when none)."""
    path = it.find_address(plan, item_id, CONTAINER)
    if path is None:
        if item_id.startswith("/"):
            raise Refused(
                "unknown-id",
                f"{item_id} points at no plan item of this plan (a JSON Pointer such as "
                "/plan/items/0 names an item by its place)",
            )
        known = sorted(it.item_ids(plan))
        raise Refused(
            "unknown-id",
            f"no plan item with id {item_id!r} in this plan"
            + (
                f" (ids: {', '.join(known[:8])}{', ...' if len(known) > 8 else ''})"
                if known
                else ""
            ),
        )
    return path


def _new_items(
    data: Any, given: list[Any], taken: set[str], entropy: str, *, _shared: set[str] | None = None
) -> list[dict[str, Any]]:
    """PlanItems from the client: title required, status default pending, fresh unique ids;
    nested ``subItems`` alike, at every depth (PRODUCT.md, "Where agents' platforms run
    it": sub-items get the documented defaults), ids unique across the whole plan."""
    out: list[dict[str, Any]] = []
    taken = _shared if _shared is not None else set(taken)
    for n, raw in enumerate(given):
        if not isinstance(raw, dict) or not isinstance(raw.get("title"), str):
            raise Refused("bad-argument", f"plan item {n + 1} needs a string 'title'")
        if "id" in raw:
            item_id = it.client_id(raw["id"], taken, "plan item")
        else:
            item_id = it.fresh_id("item", taken, f"{entropy}/{n}")
        taken.add(item_id)
        status = checked(data, "planItem", raw.get("status", "pending"))
        item = {"id": item_id, **raw, "title": raw["title"], "status": status}
        subs = raw.get("subItems")
        if isinstance(subs, list):
            item["subItems"] = _new_items(data, subs, taken, f"{entropy}/{n}", _shared=taken)
        out.append(item)
    return out
