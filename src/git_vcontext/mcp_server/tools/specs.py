"""The tools' names, descriptions and input schemas: seed 003's, plus the engine's ``vcontext_*``.

Every schema closes its object (``additionalProperties: false``), so an argument the
tool does not know is refused instead of silently ignored; every write tool takes the
seed's optional ``expectedSequence``.
"""

from __future__ import annotations

from typing import Any

from ...edits.learnings import CATEGORIES, KINDS
from ...edits.statuses import ITEM_STATUSES, PLAN_STATUSES
from ...record import record


@record
class ToolSpec:
    """One tool: ``kind`` is what ``--allow`` governs (None: not a document write)."""

    name: str
    description: str
    properties: dict[str, Any]
    required: tuple[str, ...] = ()
    writes: bool = False
    kind: str | None = None
    destructive: bool = False

    def schema(self) -> dict[str, Any]:
        """The tool's JSON Schema (2020-12) for ``tools/list`` and argument checks."""
        out: dict[str, Any] = {"type": "object", "properties": self.properties}
        if self.required:
            out["required"] = list(self.required)
        out["additionalProperties"] = False
        return out


def _s(description: str, **more: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **more}


def _strings(description: str) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "description": description}


EXPECTED = {
    "expectedSequence": {
        "type": "integer",
        "minimum": 0,
        "description": "Optimistic locking: write only if the document's sequence (a "
        "playbook's version) is still this number",
    }
}
JSON_TYPES = ("string", "number", "boolean", "object", "array", "null")
"""Any JSON value, spelled as typed branches (strict clients refuse a schema without a type)."""
TEXT_MAP = {"type": "object", "additionalProperties": {"type": "string"}}
ITEM_STATUS = _s("Status", enum=list(ITEM_STATUSES))
PLAN_STATUS = _s("Plan status", enum=list(PLAN_STATUSES))
KIND = _s("Kind of playbook entry", enum=list(KINDS))
LIST_ID = _s("ID of the target TodoList (default: the current one)")
PLAN_ID = _s("ID of the plan ('current' = the current plan)")
PLAN_ITEM = {
    "type": "object",
    "description": "A PlanItem: title required; status (default pending), id (default: a "
    "fresh one), narrative and other vContext fields as in the spec",
    "properties": {"title": {"type": "string", "minLength": 1}, "status": ITEM_STATUS},
    "required": ["title"],
}

NEW_FORMAT_NOTE = (
    "<format>: json, or tron when the environment variable VCONTEXT_FORMAT or git config "
    "vcontext.format says so"
)
"""How a tool that creates a document says which format it takes (issue 37: the
descriptions named .json under VCONTEXT_FORMAT=tron too)."""

SEED = (
    ToolSpec(
        "vbrief_create_todo",
        "Create a new todo item in the current or specified TodoList (a fresh unique id "
        "unless 'id' is given). Creates .vcontext/todo.<format> when there is no todo list "
        f"({NEW_FORMAT_NOTE}).",
        {
            "title": _s("Title of the todo item", minLength=1),
            "description": _s("What needs to be done (stored as narrative.Overview)"),
            "status": {**ITEM_STATUS, "default": "pending"},
            "assignee": _s("Person or agent assigned to this task"),
            "dependencies": _strings("IDs of todos that must be completed first"),
            "todoListId": LIST_ID,
            "id": _s("ID for the new item (default: a fresh unique one)"),
            "parentId": _s("ID of the todo item this one is a sub-item of (default: top level)"),
            **EXPECTED,
        },
        ("title",),
        writes=True,
        kind="todoList",
    ),
    ToolSpec(
        "vbrief_update_todo",
        "Update an existing todo item (nested items too)",
        {
            "id": _s("ID of the todo item to update"),
            "title": _s("New title", minLength=1),
            "description": _s("New description (narrative.Overview)"),
            "status": ITEM_STATUS,
            "assignee": _s("New assignee"),
            "dependencies": _strings(
                "The IDs of todos this one waits for, replacing the list ([] removes them)"
            ),
            "todoListId": _s("ID of the TodoList (default: the one holding the item)"),
            **EXPECTED,
        },
        ("id",),
        writes=True,
        kind="todoList",
    ),
    ToolSpec(
        "vbrief_delete_todo",
        "Delete a todo item (and its sub-items)",
        {
            "id": _s("ID of the todo item to delete"),
            "todoListId": _s("ID of the TodoList (default: the one holding the item)"),
            **EXPECTED,
        },
        ("id",),
        writes=True,
        kind="todoList",
        destructive=True,
    ),
    ToolSpec(
        "vbrief_create_plan",
        "Create a new implementation plan in its own document, .vcontext/plan-<id>.<format> "
        f"({NEW_FORMAT_NOTE})",
        {
            "title": _s("Title of the plan", minLength=1),
            "status": {**PLAN_STATUS, "default": "draft"},
            "narratives": {
                **TEXT_MAP,
                "description": "Named narratives as keyed markdown strings; 'proposal' "
                "(the proposed solution) is required by vContext 0.4, others are free "
                "('problem', 'risk', ...)",
            },
            "items": {"type": "array", "items": PLAN_ITEM, "description": "PlanItems"},
            "phases": {
                "type": "array",
                "items": PLAN_ITEM,
                "description": "Implementation phases (the older name of items)",
            },
            "id": _s("ID for the plan (default: a fresh unique one)"),
            **EXPECTED,
        },
        ("title",),
        writes=True,
        kind="plan",
    ),
    ToolSpec(
        "vbrief_update_plan",
        "Update a plan's title or status; merge narratives (given keys replace)",
        {
            "id": PLAN_ID,
            "title": _s("New title", minLength=1),
            "status": PLAN_STATUS,
            "narratives": {**TEXT_MAP, "description": "Narratives to set"},
            **EXPECTED,
        },
        ("id",),
        writes=True,
        kind="plan",
    ),
    ToolSpec(
        "vbrief_delete_plan",
        "Delete a plan's whole document (committed on an agent branch, marked as meant)",
        {
            "id": _s(
                "The plan's own id ('current' is refused: the answer names the current plan's id)",
                minLength=1,
            ),
            **EXPECTED,
        },
        ("id",),
        writes=True,
        kind="plan",
        destructive=True,
    ),
    ToolSpec(
        "vbrief_add_plan_item",
        "Add a PlanItem to a plan",
        {
            "planId": PLAN_ID,
            "item": PLAN_ITEM,
            "position": {
                "type": "integer",
                "minimum": 0,
                "description": "Insert at this position (default: the end)",
            },
            "parentId": _s("ID of the plan item this one is a sub-item of (default: top level)"),
            **EXPECTED,
        },
        ("planId", "item"),
        writes=True,
        kind="plan",
    ),
    ToolSpec(
        "vbrief_update_plan_item",
        "Update a PlanItem (nested items too): title, status, narrative (given keys "
        "replace, others stay, null removes one), dependencies",
        {
            "planId": PLAN_ID,
            "itemId": _s("ID of the plan item"),
            "title": _s("New title", minLength=1),
            "status": ITEM_STATUS,
            "narrative": {
                "type": "object",
                "additionalProperties": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "description": "Narrative blocks to set, keyed markdown strings "
                "('Approach', 'Risks', ...); null removes a block",
            },
            "dependencies": _strings(
                "The IDs of plan items this one waits for, replacing the list ([] removes them)"
            ),
            **EXPECTED,
        },
        ("planId", "itemId"),
        writes=True,
        kind="plan",
    ),
    ToolSpec(
        "vbrief_delete_plan_item",
        "Delete a PlanItem (and its sub-items)",
        {
            "planId": PLAN_ID,
            "itemId": _s("ID of the plan item to delete"),
            **EXPECTED,
        },
        ("planId", "itemId"),
        writes=True,
        kind="plan",
        destructive=True,
    ),
    ToolSpec(
        "vbrief_add_learning",
        "Add a learning to the playbook (append-only): a new targetId appends an entry, a "
        "known one appends an update chained to the entry's current head, keeping the "
        "narrative blocks not given. Seed 003's call works too: category, title, content "
        "(the targetId then a slug of the title)",
        {
            "targetId": _s(
                "Stable ID for this learning (default: a new one, a slug of the title or content)",
                minLength=1,
            ),
            "kind": KIND,
            "category": _s(
                "Seed 003's learning category, instead of kind: strategies (strategy), "
                "decisions (rule), patterns (learning), gotchas (warning), notes (note)",
                enum=list(CATEGORIES),
            ),
            "title": _s("Optional title"),
            "content": _s(
                "The learning's text (seed 003): the entry's Overview block (its text, "
                "for an entry written as text)",
                minLength=1,
            ),
            "narrative": {
                **TEXT_MAP,
                "minProperties": 1,
                "description": "Named narrative blocks as keyed markdown strings (on a "
                "known targetId, these blocks replace or add to the entry's; the others stay)",
            },
            "tags": _strings("Tags"),
            "evidence": _strings("Supporting references (PRs, incidents, links)"),
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "playbookId": _s("ID of the playbook document (default: the current one)"),
            **EXPECTED,
        },
        (),
        writes=True,
        kind="playbook",
    ),
    ToolSpec(
        "vbrief_rate_learning",
        "Count how often a learning helped or hurt (as 'playbook update --delta "
        "helpfulCount=+N'): an update event with the delta, chained to the entry's head",
        {
            "targetId": _s("The learning's targetId", minLength=1),
            "helpful": {"type": "integer", "minimum": 0, "description": "Times it helped"},
            "harmful": {"type": "integer", "minimum": 0, "description": "Times it hurt"},
            "playbookId": _s("ID of the playbook document (default: the current one)"),
            **EXPECTED,
        },
        ("targetId",),
        writes=True,
        kind="playbook",
    ),
    ToolSpec(
        "vbrief_deprecate_learning",
        "Deprecate a learning (as 'playbook deprecate'): a deprecate event; the entry leaves "
        "the current view, its history stays",
        {
            "targetId": _s("The learning's targetId", minLength=1),
            "reason": _s("Why it no longer applies (kept as deprecatedReason)"),
            "playbookId": _s("ID of the playbook document (default: the current one)"),
            **EXPECTED,
        },
        ("targetId",),
        writes=True,
        kind="playbook",
    ),
    ToolSpec(
        "vbrief_create_fork",
        "Fork the branch checked out here for this agent (as 'git vcontext fork'): "
        "agents/NAME with fork metadata in every document that has a uid and its base "
        "recorded; this work tree stays where it is",
        {
            "documentId": _s("The document the fork is for (reported: has it fork metadata)"),
            "reason": _s("Why the agent forks (kept in the fork metadata and the commit)"),
        },
        writes=True,
    ),
    ToolSpec(
        "vbrief_merge_fork",
        "Merge this agent's fork and its base, both ways (as 'git vcontext sync'); run in "
        "the agent's work tree, a conflict leaves the merge stopped there and comes back as "
        "data, with 'next': the vcontext_resolve calls to make, then vbrief_merge_fork again",
        {
            "push": _s("Remote to push the results to, retrying when rejected"),
            "dryRun": {"type": "boolean", "description": "Report what would happen only"},
        },
        writes=True,
    ),
    ToolSpec(
        "vbrief_query_playbook",
        "Search the playbook's current entries (most recently updated first)",
        {
            "kind": KIND,
            "tags": _strings("Filter by tags (AND logic)"),
            "searchText": _s("Text the entry must contain (case-insensitive)"),
            "limit": {
                "type": "integer",
                "minimum": 1,
                "default": 10,
                "description": "Maximum number of results",
            },
            "playbookId": _s("ID of the playbook document (default: the current one)"),
        },
    ),
)

URI = _s(
    "A document's resource URI (vbrief://todos/ID, vbrief://plans/ID, "
    "vbrief://playbooks/ID) or 'current' forms; default: every served document"
)

ENGINE = (
    ToolSpec(
        "vcontext_view",
        "The playbook's current view: one entry per targetId, heads resolved, counters, "
        "anomalies (as 'git vcontext view --format json')",
        {
            "playbookId": _s("ID of the playbook document (default: the current one)"),
            "status": _s("active (default) or all", enum=["active", "all"]),
            "kind": KIND,
            "tags": _strings("Only entries with one of these tags"),
            "search": _s("Only entries whose text contains this"),
        },
    ),
    ToolSpec(
        "vcontext_diff",
        "Structural diff of served documents: what changed since a git revision (default "
        "HEAD), or between two revisions",
        {
            "uri": URI,
            "from": _s("Old side: a git revision (default HEAD)"),
            "to": _s("New side: a git revision (default: the files on disk)"),
        },
    ),
    ToolSpec(
        "vcontext_validate",
        "Schema and semantic validation of served documents, with line:column findings",
        {"uri": URI},
    ),
    ToolSpec(
        "vcontext_status",
        "Agent branches: ahead/behind, documents changed, sequence divergence, predicted "
        "conflicts (as 'git vcontext status --format json'); in an agent's work tree the "
        "other agents only a remote has are left out ('unlisted')",
        {"all": {"type": "boolean", "description": "Also list the agents left out"}},
    ),
    ToolSpec(
        "vcontext_sync",
        "Merge agent branches and their base both ways (as 'git vcontext sync'); default: "
        "the agent whose branch is checked out here. When this agent's pair conflicts, the "
        "merge is left stopped here and the conflicts come back as data, with 'next': the "
        "vcontext_resolve calls to make, then vcontext_sync again",
        {
            "agents": _strings("Agent names (default: this work tree's agent)"),
            "all": {"type": "boolean", "description": "Every agent branch"},
            "into": _s("Base branch (default: the recorded base)"),
            "push": _s("Remote to push the results to, retrying when rejected"),
            "dryRun": {"type": "boolean", "description": "Report what would happen only"},
        },
        writes=True,
    ),
    ToolSpec(
        "vcontext_conflicts",
        "The conflicts a stopped merge, rebase or cherry-pick left in the documents, as data "
        "(as 'git vcontext conflicts --format json'): each with a stable id, a JSON Pointer, "
        "an id-anchored place, its kind and the base/ours/theirs values",
        {"paths": _strings("Files or folders (default: the whole repository)")},
    ),
    ToolSpec(
        "vcontext_resolve",
        "Settle conflicts of one document (as 'git vcontext resolve'): take a side or put a "
        "value, for one conflict or all that remain; the last one writes a valid document "
        "and stages it (and commits the merge vcontext_sync left stopped, once none is left)",
        {
            "path": _s("The conflicted file, relative to the repository"),
            "conflict": _s("A conflict's id, pointer or place (default: all that remain)"),
            "take": _s("Take this side's value", enum=["ours", "theirs", "base"]),
            "value": {
                "description": "Put this JSON value there instead (any JSON value)",
                "anyOf": [{"type": t} for t in JSON_TYPES],
            },
            "add": {"type": "boolean", "description": "Stage the file when none is left"},
            "dryRun": {"type": "boolean", "description": "Report the result; change nothing"},
        },
        required=("path",),
        writes=True,
    ),
)

ALL = SEED + ENGINE
BY_NAME = {spec.name: spec for spec in ALL}
