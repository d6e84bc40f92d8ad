"""``vbrief_create_plan``, ``vbrief_update_plan``, ``vbrief_delete_plan``,
``vbrief_add_plan_item``, ``vbrief_update_plan_item``, ``vbrief_delete_plan_item``."""

from __future__ import annotations

import os
import uuid
from typing import Any

from ...edits import plans
from ...edits.items import client_id, fresh_id, slug_id
from ...edits.stamp import check_expected
from ...errors import Refused
from ..catalog import Entry
from ..service import Answer, Service, committed_text, sequenced

KIND = "plan"


def create_plan(svc: Service, args: dict[str, Any]) -> Answer:
    svc.may_write(KIND)
    if args.get("expectedSequence") not in (None, 0):
        raise Refused(
            "stale-sequence",
            f"a new plan starts at sequence 0, not the expectedSequence {args['expectedSequence']}",
        )
    stamp, entropy = svc.stamp(), svc.entropy()
    plan_id = _new_plan_id(svc, args.get("id"), args.get("title"), entropy)
    name = plan_id if plan_id.startswith("plan-") else f"plan-{plan_id}"
    target = svc.new_target(KIND, f".vcontext/{name}.{svc.new_format()}", dict)
    fields: dict[str, Any] = {
        k: args[k] for k in ("title", "status", "narratives", "items", "phases") if k in args
    }
    uid = str(uuid.uuid4())
    outcome, out = svc.apply(
        "vbrief_create_plan",
        target,
        lambda _data, _strict: plans.new_document(
            fields, stamp, plan_id=plan_id, uid=uid, entropy=entropy
        ),
    )
    return Answer(
        f"Created plan with ID: {plan_id} in {target.rel} ({len(outcome.item['items'])} items)"
        f"{committed_text(out)}",
        out,
    )


def _new_plan_id(svc: Service, given: str | None, title: Any, entropy: str) -> str:
    """The id given (a plain id, free), else ``plan-<slug of the title>`` (made unique),
    else a fresh one; the file is ``.vcontext/plan-<id>`` (``.vcontext/<id>`` when the id
    starts with ``plan-``): no id may name a file that is there already."""
    taken = {e.id for e in svc.catalog.entries(KIND)}
    folder = os.path.join(svc.catalog.root, ".vcontext")
    for name in _names(folder):
        stem, dot, ext = name.rpartition(".")
        if dot and ext in ("json", "tron") and stem.startswith("plan-"):
            taken |= {stem, stem[5:]}
    if given is not None:
        return client_id(given, taken, "plan")
    readable = slug_id(title, taken, prefix="plan") if isinstance(title, str) else None
    return readable or fresh_id("plan", taken, entropy)


def _names(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def update_plan(svc: Service, args: dict[str, Any]) -> Answer:
    svc.may_write(KIND)
    entry = svc.document(KIND, args["id"])
    fields: dict[str, Any] = {k: args[k] for k in ("title", "status", "narratives") if k in args}
    outcome, out = svc.edit("vbrief_update_plan", entry, args, plans.update, fields)
    what = outcome.change.description.removeprefix("updated ")
    return sequenced(f"Updated plan {entry.id}: {what}", out)


def add_plan_item(svc: Service, args: dict[str, Any]) -> Answer:
    svc.may_write(KIND)
    entropy = svc.entropy()
    entry = svc.document(KIND, args["planId"])
    position = args.get("position")
    at = None if position is None else int(position)
    outcome, out = svc.edit(
        "vbrief_add_plan_item",
        entry,
        args,
        plans.add_item,
        args["item"],
        entropy=entropy,
        position=at,
        parent_id=args.get("parentId"),
    )
    under = f" under {args['parentId']}" if args.get("parentId") else ""
    where = f"to plan {entry.id}{under} at position {outcome.change.path[-1]}"
    return sequenced(f"Added plan item with ID: {outcome.item_id} {where}", out)


def update_plan_item(svc: Service, args: dict[str, Any]) -> Answer:
    svc.may_write(KIND)
    entry = svc.document(KIND, args["planId"])
    keys = ("title", "status", "narrative", "dependencies")
    fields: dict[str, Any] = {k: args[k] for k in keys if k in args}
    tool = "vbrief_update_plan_item"
    outcome, out = svc.edit(tool, entry, args, plans.update_item, args["itemId"], fields)
    what = outcome.change.description.split(": ", 1)[-1]
    return sequenced(f"Updated plan item {outcome.item_id} of plan {entry.id}: {what}", out)


def delete_plan_item(svc: Service, args: dict[str, Any]) -> Answer:
    svc.may_write(KIND)
    entry = svc.document(KIND, args["planId"])
    tool = "vbrief_delete_plan_item"
    outcome, out = svc.edit(tool, entry, args, plans.delete_item, args["itemId"])
    return sequenced(f"Deleted plan item {outcome.item_id} from plan {entry.id}", out)


def _named_plan(svc: Service, plan_id: str) -> Entry:
    """The plan a delete names by its own id: "current" is refused (a whole document goes,
    and which plan is current can change under an agent's feet), with the current plan's
    id to call again with; a plan whose id really is "current" is that plan."""
    if plan_id == "current" and svc.catalog.find(KIND, plan_id) is None:
        found = svc.catalog.current(KIND)
        if found is None:
            raise Refused("no-document", "there is no plan here to delete")
        raise Refused(
            "bad-argument",
            f"vbrief_delete_plan takes the plan's own id, not 'current' (a whole document "
            f"goes): the current plan is {found.id!r} ({found.rel}); call it again with id "
            f"{found.id!r}",
        )
    return svc.document(KIND, plan_id)


def delete_plan(svc: Service, args: dict[str, Any]) -> Answer:
    """Delete a plan's whole document; on an agent branch the removal is its own commit,
    with the ``Vcontext-Drop:`` trailer that says it is meant (sync and the checks carry it)."""
    svc.may_write(KIND)
    entry = _named_plan(svc, args["id"])
    expected = args.get("expectedSequence")
    title: list[str] = []

    def check(data: Any) -> None:
        plan = plans.plan_of(data)
        check_expected(plan, expected, "the plan")
        _refuse_undroppable(entry.rel, data)
        if isinstance(plan.get("title"), str):
            title.append(plan["title"])

    out = svc.remove(
        "vbrief_delete_plan",
        entry,
        check,
        lambda: f"deleted plan {entry.id}" + (f": {title[0]}" if title else ""),
    )
    return Answer(f"Deleted plan {entry.id} ({entry.rel}){committed_text(out)}", out)


def _refuse_undroppable(rel: str, data: Any) -> None:
    """A plan whose deletion ``check`` rejects even with the ``Vcontext-Drop:`` trailer
    the deletion's commit carries (the playbook events it holds: event logs are
    append-only) is refused, nothing deleted: what the server deletes, the checks accept."""
    from ...validation.history import undroppable

    for finding in undroppable(data):
        raise Refused(
            "append-only",
            f"{rel}: nothing deleted: it holds playbook events, and event logs are "
            f"append-only: no commit may delete them, not even one saying Vcontext-Drop "
            f"[{finding.rule}]; to retire the plan, set its status instead "
            f"(vbrief_update_plan, status cancelled or completed)",
        )
