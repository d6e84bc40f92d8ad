"""One pass over everything ``git vcontext mcp`` serves, through a connected SDK client.

Used over each real transport (stdio, streamable HTTP): every listed resource read,
every refusal of issue 14's "Bad input" (an ``isError`` result of one line, no file
touched), then every listed tool called once on real files. The server runs in an
agent's work tree (``git vcontext fork``), so its writes are commits and
``vcontext_sync`` has something to merge.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.mcp_support import read_any, text
from helpers.run import run_cli

TODO = "todo.vcontext.json"
PLAN = "plans/release.vcontext.tron"


def agent_worktree(repo: Path, where: Path, agent: str = "alice") -> Path:
    """``git vcontext fork AGENT --worktree WHERE`` from the documents repository."""
    done = run_cli("fork", agent, "--worktree", str(where), cwd=repo)
    assert done.returncode == 0, done.stderr.decode()
    return where


def files_of(root: Path) -> dict[str, bytes]:
    """Every file of the work tree (not ``.git``), by path."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def _refused(result: Any, *words: str) -> str:
    assert result.is_error, text(result)
    line = text(result)
    assert line.strip(), "an empty refusal"
    assert "\n" not in line, line
    assert "Traceback" not in line, line
    for word in words:
        assert word.lower() in line.lower(), line
    return line


def _ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, text(result)
    assert text(result).strip()  # readable text ...
    data: dict[str, Any] = result.structured_content
    assert isinstance(data, dict)  # ... and structured content
    return data


async def read_every_resource(client: Any) -> dict[str, str]:
    """Read each listed resource; its first content's mime type is the listed one, JSON
    whatever the file's format (the release plan is TRON), and it parses as JSON."""
    listed = {r.uri: r.mime_type for r in (await client.list_resources()).resources}
    for uri in ("vbrief://todos/current", "vbrief://plans/current", "vbrief://playbook"):
        assert uri in listed, sorted(listed)
    assert listed["vbrief://plans/release"] == "application/json"
    assert listed["vbrief://todos/current"] == "application/json"
    read: dict[str, str] = {}
    for uri, mime in listed.items():
        contents = (await client.read_resource(uri)).contents[0]
        assert contents.mime_type == mime, uri
        json.loads(contents.text)
        read[uri] = contents.text
    for kind in ("rule", "rules", "learning", "strategies", "warning", "note"):
        view = json.loads(text(await client.read_resource(f"vbrief://playbook/{kind}")))
        assert isinstance(view["entries"], list), kind
    return read


async def refuse_every_bad_input(client: Any, root: Path) -> set[str]:
    """Each refusal of issue 14's "Bad input", over this client; nothing on disk changes.

    Returns the tools called.
    """
    before = files_of(root)
    todo_seq = read_any(root / TODO)["todoList"]["sequence"]
    plan_seq = read_any(root / PLAN)["plan"]["sequence"]
    cases: list[tuple[str, dict[str, Any], tuple[str, ...]]] = [
        # unknown id (and which ids there are)
        ("vbrief_update_todo", {"id": "t9", "status": "completed"}, ("'t9'", "t1")),
        ("vbrief_delete_todo", {"id": "t9"}, ("'t9'",)),
        ("vbrief_update_plan_item", {"planId": "release", "itemId": "p9"}, ("'p9'", "p1")),
        ("vbrief_delete_plan_item", {"planId": "release", "itemId": "p9"}, ("'p9'", "p1")),
        (
            "vbrief_add_plan_item",
            {"planId": "release", "parentId": "p9", "item": {"title": "x"}},
            ("'p9'", "p1"),
        ),
        (
            "vbrief_update_plan_item",
            {"planId": "release", "itemId": "p2", "dependencies": ["p2"]},
            ("'p2'", "itself"),
        ),
        # unknown plan
        ("vbrief_update_plan", {"id": "nope", "status": "draft"}, ("'nope'", "release")),
        ("vbrief_add_plan_item", {"planId": "nope", "item": {"title": "x"}}, ("'nope'",)),
        ("vbrief_delete_plan", {"id": "nope"}, ("'nope'", "release")),
        # a status the schema does not allow, with the allowed ones
        (
            "vbrief_update_todo",
            {"id": "t1", "status": "done"},
            ("'done'", "pending, inProgress, completed, blocked, cancelled"),
        ),
        (
            "vbrief_update_plan",
            {"id": "release", "status": "active"},
            ("'active'", "draft, proposed, approved, inProgress, completed, cancelled"),
        ),
        # a stale expectedSequence: both numbers
        (
            "vbrief_create_todo",
            {"title": "late", "expectedSequence": todo_seq - 1},
            (f"sequence {todo_seq}", f"expectedSequence {todo_seq - 1}"),
        ),
        (
            "vbrief_update_plan_item",
            {"planId": "release", "itemId": "p2", "title": "x", "expectedSequence": plan_seq + 1},
            (f"sequence {plan_seq}", f"expectedSequence {plan_seq + 1}"),
        ),
        # a write that would make the document invalid: its findings
        ("vbrief_delete_todo", {"id": "t2"}, ("would not be valid", "dependency-missing")),
        # an unknown tool argument
        ("vbrief_create_todo", {"title": "x", "colour": "red"}, ("unknown argument 'colour'",)),
        ("vbrief_query_playbook", {"colour": "red"}, ("unknown argument 'colour'",)),
        # ids are never paths
        ("vbrief_update_todo", {"id": "t1", "todoListId": "../../etc"}, ("never paths",)),
        ("vbrief_create_plan", {"title": "x", "id": "../x"}, ("not a plain id",)),
        # a plan without the proposal vContext 0.4 requires (issue 28): asked for, not written
        ("vbrief_create_plan", {"title": "x"}, ("narratives.proposal",)),
        ("vcontext_resolve", {"path": "../outside.json", "take": "ours"}, ("outside",)),
        # the engine's own refusals
        ("vcontext_diff", {"from": "no-such-rev"}, ("unknown revision: no-such-rev",)),
        ("vcontext_resolve", {"path": TODO, "take": "ours"}, ("no conflict",)),
        # the served agent's fork is there already: sync it instead
        (
            "vbrief_create_fork",
            {"reason": "again"},
            ("already exists", 'vcontext_sync {"agents": ["alice"]}'),
        ),
        ("vbrief_create_fork", {"documentId": "nope"}, ("'nope'",)),
    ]
    called = set()
    for name, args, words in cases:
        _refused(await client.call_tool(name, args), *words)
        called.add(name)
    _refused(await client.call_tool("no_such_tool", {}), "unknown tool")
    assert files_of(root) == before

    # a document that no longer parses on disk: which file, and where
    broken = (root / TODO).read_text().replace('"t2",', '"t2"', 1)
    (root / TODO).write_text(broken)
    line = _refused(
        await client.call_tool("vbrief_update_todo", {"id": "t1", "status": "blocked"}),
        "does not parse",
    )
    assert f"{TODO}:" in line
    assert (root / TODO).read_text() == broken
    (root / TODO).write_bytes(before[TODO])
    return called


async def call_every_tool(client: Any, root: Path) -> set[str]:
    """Each tool once, succeeding on real files; returns the tools called."""
    steps: list[tuple[str, dict[str, Any]]] = [
        ("vbrief_create_todo", {"title": "Over the wire", "description": "made by the tour"}),
        ("vbrief_update_todo", {"id": "t3", "status": "inProgress"}),
        (
            "vbrief_create_plan",
            {
                "title": "Tour plan",
                "narratives": {"proposal": "One phase."},
                "phases": [{"title": "One"}],
            },
        ),
        ("vbrief_update_plan", {"id": "release", "narratives": {"Result": "toured"}}),
        ("vbrief_add_plan_item", {"planId": "release", "item": {"title": "Announce"}}),
        ("vbrief_update_plan_item", {"planId": "release", "itemId": "p2", "status": "blocked"}),
        (
            "vbrief_add_learning",
            {"targetId": "tour-lesson", "kind": "learning", "narrative": {"Overview": "toured"}},
        ),
        ("vbrief_query_playbook", {"searchText": "toured"}),
        ("vcontext_view", {"kind": "learning"}),
        ("vcontext_diff", {"from": "main"}),
        ("vcontext_validate", {}),
        ("vcontext_conflicts", {}),
        ("vbrief_rate_learning", {"targetId": "tour-lesson", "helpful": 1}),
        ("vbrief_deprecate_learning", {"targetId": "tour-lesson", "reason": "toured"}),
    ]
    done: dict[str, dict[str, Any]] = {}
    for name, args in steps:
        done[name] = _ok(await client.call_tool(name, args))
    scratch = _ok(
        await client.call_tool(
            "vbrief_add_plan_item",
            {"planId": "release", "parentId": "p2", "item": {"title": "Scratch"}},
        )
    )
    gone = _ok(
        await client.call_tool(
            "vbrief_delete_plan_item", {"planId": "release", "itemId": scratch["id"]}
        )
    )
    assert gone["change"]["operation"] == "delete"
    spare = {"title": "Spare plan", "narratives": {"proposal": "made to be deleted"}}
    spare_id = _ok(await client.call_tool("vbrief_create_plan", spare))["id"]
    assert _ok(await client.call_tool("vbrief_delete_plan", {"id": spare_id}))["commit"]
    made = done["vbrief_create_todo"]["id"]
    assert done["vbrief_create_todo"]["commit"]  # an agent branch: each write is a commit
    deleted = _ok(await client.call_tool("vbrief_delete_todo", {"id": made}))
    assert deleted["change"]["operation"] == "delete"
    found = done["vbrief_query_playbook"]["entries"]
    assert [e["targetId"] for e in found] == ["tour-lesson"]
    assert done["vcontext_validate"]["valid"] is True
    assert "Over the wire" in text(await client.read_resource("vbrief://todos/current"))
    status = _ok(await client.call_tool("vcontext_status", {}))
    assert [a["agent"] for a in status["agents"]] == ["alice"]
    synced = _ok(await client.call_tool("vcontext_sync", {}))
    assert synced["ok"] is True
    merged = _ok(await client.call_tool("vbrief_merge_fork", {}))  # nothing left to merge
    assert merged["ok"] is True
    todo = read_any(root / TODO)["todoList"]
    assert made not in {i["id"] for i in todo["items"]}
    assert todo["items"][2]["status"] == "inProgress"
    plan = read_any(root / PLAN)["plan"]
    assert [i["title"] for i in plan["items"]] == ["Parser", "Docs", "Announce"]
    assert not (root / PLAN).read_text().lstrip().startswith("{")  # still TRON
    return {
        *done,
        "vbrief_delete_todo",
        "vbrief_delete_plan_item",
        "vbrief_delete_plan",
        "vcontext_status",
        "vcontext_sync",
        "vbrief_merge_fork",
    }


async def tour(client: Any, root: Path) -> None:
    """Resources, refusals, tools: every listed tool is among those exercised."""
    await read_every_resource(client)
    called = await refuse_every_bad_input(client, root)
    called |= await call_every_tool(client, root)
    listed = {t.name for t in (await client.list_tools()).tools}
    assert listed - called == set()
    after = await read_every_resource(client)
    assert "Tour plan" in after["vbrief://plans"]  # the new plan is served too
