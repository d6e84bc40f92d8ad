"""Seed 003's prompts, filled from the current documents."""

from __future__ import annotations

import os
from typing import Any

from ..codecs.text import holds_markers
from ..edits.items import ITEM_ARRAYS
from ..edits.learnings import CATEGORIES, KINDS, query
from ..playbook.render import concurrent_heads
from ..playbook.view import playbook_view
from .catalog import Entry
from .service import Service

CATEGORY_KINDS = CATEGORIES

READ_ONLY = "This server is read-only: it takes no writes, so nothing can be saved here."


def _writes(svc: Service) -> frozenset[str]:
    """The write tools this server offers (none when read-only; ``--allow`` limits them):
    prompts name no tool the agent cannot call."""
    from .tools.dispatch import offered  # lazy: the tools import the service as we do

    return frozenset(spec.name for spec in offered(svc) if spec.writes)


def _named(svc: Service, phrases: list[tuple[str, str]]) -> list[str]:
    """The phrases whose tool this server offers."""
    writes = _writes(svc)
    return [phrase for tool, phrase in phrases if tool in writes]


def _tools_hint(svc: Service) -> str:
    named = _named(
        svc,
        [
            ("vbrief_update_todo", "vbrief_update_todo (status as you go)"),
            ("vbrief_create_todo", "vbrief_create_todo"),
            ("vbrief_update_plan_item", "vbrief_update_plan_item"),
            ("vbrief_add_plan_item", "vbrief_add_plan_item"),
            ("vbrief_add_learning", "vbrief_add_learning"),
        ],
    )
    if not _writes(svc):
        return READ_ONLY
    if not named:
        return "This server takes writes of other kinds only (--allow)."
    return f"Keep them current with the tools: {', '.join(named)}."


def session_start(svc: Service) -> str:
    parts = [
        "You are starting a new coding session. Here is the current vBRIEF context "
        f"(agent {svc.agent()}):",
        "## Current Tasks (TodoList)\n" + _todos(svc),
        "## Current Plan\n" + _plan(svc),
        "## Recent Learnings\n" + _learnings(svc, None, 10),
        "The full documents are the resources vbrief://todos/current, vbrief://plans/current "
        f"and vbrief://playbook. {_tools_hint(svc)}",
        "Based on this context, what would you like to work on?",
    ]
    return "\n\n".join(parts)


def session_end(svc: Service, summary: str) -> str:
    return "\n\n".join(
        [
            "The coding session is ending. Save the current work state to vBRIEF.",
            f"## Summary of the work\n{summary}",
            "## Open tasks\n" + _todos(svc, open_only=True),
            "## Current Plan\n" + _plan(svc),
            _saving(svc),
        ]
    )


def _saving(svc: Service) -> str:
    steps = _named(
        svc,
        [
            (
                "vbrief_update_todo",
                "set the status of every task you worked on (vbrief_update_todo; completed, "
                "blocked or inProgress)",
            ),
            ("vbrief_create_todo", "add tasks that are left (vbrief_create_todo)"),
            (
                "vbrief_update_plan_item",
                "update the plan items you advanced (vbrief_update_plan_item)",
            ),
            (
                "vbrief_add_learning",
                "record what you learned that applies to future work (vbrief_add_learning)",
            ),
        ],
    )
    if not steps:
        return f"{READ_ONLY if not _writes(svc) else 'This server takes none of these writes.'}"
    return (
        f"Now: {'; '.join(steps)}. Use expectedSequence from the documents you read so a "
        "concurrent change is not overwritten."
    )


def plan_review(svc: Service) -> str:
    return "\n\n".join(
        [
            "Review the current plan and suggest the next steps.",
            "## Plan\n" + _plan(svc, with_narratives=True),
            "## Current Tasks\n" + _todos(svc, open_only=True),
            "## Relevant Learnings\n" + _learnings(svc, None, 5),
            "Say which plan items are done, which are blocked and why, and what to do next"
            + _record(svc),
        ]
    )


def _record(svc: Service) -> str:
    named = _named(
        svc,
        [
            (
                "vbrief_update_plan_item",
                "vbrief_update_plan_item (status, narrative blocks, dependencies)",
            ),
            ("vbrief_add_plan_item", "vbrief_add_plan_item (new items; parentId: sub-items)"),
            ("vbrief_delete_plan_item", "vbrief_delete_plan_item (items no longer meant)"),
            ("vbrief_update_plan", "vbrief_update_plan (the plan's status and narratives)"),
        ],
    )
    if not named:
        return "."
    listed = ", ".join(named[:-1]) + (" and " if len(named) > 1 else "") + named[-1]
    return f"; record changes with {listed}."


def add_learning(svc: Service, category: str) -> str:
    kind = CATEGORY_KINDS.get(category.strip().lower()) or (
        category if category in KINDS else "learning"
    )
    return "\n\n".join(
        [
            f"Extract one learning about {category} from the recent work and add it to the "
            "playbook.",
            f"## Existing {kind} entries (refine one by reusing its targetId: the narrative "
            "blocks you give replace those, the others stay; do not duplicate)\n"
            + _learnings(svc, kind, 20),
            f"Call vbrief_add_learning with {_which(category, kind)}, content (the learning "
            "in a few sentences: the entry's Overview), a title, and a short stable targetId "
            "(a slug such as 'tests-run-git-in-tmp'); more narrative blocks go in a narrative "
            "map with Title-Case keys (e.g. Problem, Action, Result); add tags and evidence "
            "(PRs, incidents) when you have them, and a confidence between 0 and 1."
            if "vbrief_add_learning" in _writes(svc)
            else "This server takes no learnings (read-only or --allow): give the learning "
            "in your reply instead.",
        ]
    )


def _which(category: str, kind: str) -> str:
    """How the add_learning call names the learning's kind: seed 003's ``category`` when
    the prompt was asked for one of its categories, else the entry ``kind``."""
    name = category.strip().lower()
    return f"category {name!r}" if name in CATEGORY_KINDS else f"kind {kind!r}"


def _broken(svc: Service, kind: str, entry: Entry | None) -> str | None:
    """The line naming the kind's current document when it does not parse (a conflict left
    in it, a half-saved file), with the tools that fix it; None when it parses or is absent.
    Never "no list yet": a create would be refused on it."""
    from .service import NEW_DOCUMENTS, NEW_FORMATS  # the paths a create would write

    if entry is not None:
        places = [entry.rel]
    elif kind in NEW_DOCUMENTS:
        places = [f"{NEW_DOCUMENTS[kind]}.{fmt}" for fmt in NEW_FORMATS]
    else:
        return None
    from .files import inside

    for rel in places:
        real = inside(svc.catalog.root, os.path.join(svc.catalog.root, *rel.split("/")))
        if real is None or not os.path.isfile(real):  # never read through a link out
            continue
        loaded = svc.catalog.store.load(rel, real)
        if loaded is None or loaded.doc is not None:
            continue
        if holds_markers(loaded.raw):
            fix = "it holds conflict markers: vcontext_conflicts lists them, vcontext_resolve"
            fix += " settles them"
        else:
            fix = "fix it (vcontext_validate shows where; if a merge left it so, "
            fix += "vcontext_conflicts and vcontext_resolve settle it)"
        return f"{rel} does not parse ({loaded.error or 'not JSON or TRON'}): {fix}."
    return None


def _todos(svc: Service, *, open_only: bool = False) -> str:
    entry = svc.catalog.current("todoList")
    container = _container(svc, entry)
    broken = _broken(svc, "todoList", entry) if container is None else None
    if broken is not None:
        return broken
    if entry is None or container is None:
        return "No todo list yet" + (
            ": add tasks with vbrief_create_todo."
            if _named(svc, [("vbrief_create_todo", "")])
            else "."
        )
    lines = _capped(_item_lines(container, open_only), "vbrief://todos/current")
    head = f"{entry.id} ({entry.rel}, sequence {entry.sequence})"
    return head + "\n" + ("\n".join(lines) if lines else "(no open tasks)")


def _plan(svc: Service, *, with_narratives: bool = False) -> str:
    entry = svc.catalog.current("plan")
    plan = _container(svc, entry)
    if entry is None or plan is None:
        return "No plan yet" + (
            " (vbrief_create_plan makes one)." if _named(svc, [("vbrief_create_plan", "")]) else "."
        )
    lines = [
        f"{plan.get('title', entry.id)} [{plan.get('status', '?')}] (id {entry.id}, "
        f"{entry.rel}, sequence {entry.sequence})"
    ]
    narratives = plan.get("narratives")
    if with_narratives and isinstance(narratives, dict):
        lines += [f"{key}: {value}" for key, value in narratives.items()]
    lines += _capped(_item_lines(plan, False), "vbrief://plans/current")
    return "\n".join(lines)


def _learnings(svc: Service, kind: str | None, limit: int) -> str:
    entry = svc.catalog.current("playbook")
    loaded = _loaded(svc, entry)
    broken = _broken(svc, "playbook", entry) if loaded is None else None
    if broken is not None:
        return broken
    if loaded is None:
        return "No playbook yet" + (
            ": vbrief_add_learning starts one."
            if _named(svc, [("vbrief_add_learning", "")])
            else "."
        )
    found, _ = query(playbook_view(loaded), kind=kind, limit=limit)
    if not found:
        return "(none yet)"
    lines = []
    for e in found:
        text = e.title or e.text or next(iter((e.narrative or {}).values()), "")
        line = f"- [{e.kind}] {e.target_id}: {' '.join(str(text).split())[:200]}"
        lines.append(line + concurrent_heads(e))
    return "\n".join(lines)


def _loaded(svc: Service, entry: Entry | None) -> Any:
    if entry is None:
        return None
    loaded = svc.catalog.store.load(entry.rel, entry.real)
    return loaded.data if loaded is not None and loaded.doc is not None else None


def _container(svc: Service, entry: Entry | None) -> dict[str, Any] | None:
    data = _loaded(svc, entry)
    container = data.get(entry.kind) if entry is not None and isinstance(data, dict) else None
    return container if isinstance(container, dict) else None


PROMPT_ITEMS = 40
"""Items a prompt lists per document; the rest are counted, with the resource to read."""


def _capped(lines: list[str], resource: str) -> list[str]:
    """At most PROMPT_ITEMS lines, those in progress first chosen (in document order),
    then "N more" naming the resource that holds them all."""
    if len(lines) <= PROMPT_ITEMS:
        return lines
    busy = [n for n, line in enumerate(lines) if "[inProgress]" in line][:PROMPT_ITEMS]
    chosen = set(busy)
    rest = [n for n in range(len(lines)) if n not in chosen]
    kept = sorted(busy + rest[: PROMPT_ITEMS - len(busy)])
    more = len(lines) - len(kept)
    return [lines[n] for n in kept] + [f"... {more:,} more: read {resource} for all of them"]


def _item_lines(node: dict[str, Any], open_only: bool, depth: int = 0) -> list[str]:
    lines: list[str] = []
    for key in ITEM_ARRAYS:
        for item in node.get(key) or []:
            if not isinstance(item, dict):
                continue
            status = item.get("status", "?")
            if not (open_only and status in ("completed", "cancelled")):
                ident = f"{item['id']}: " if isinstance(item.get("id"), str) else ""
                lines.append(f"{'  ' * depth}- [{status}] {ident}{item.get('title', '')}")
            lines += _item_lines(item, open_only, depth + 1)
    return lines
