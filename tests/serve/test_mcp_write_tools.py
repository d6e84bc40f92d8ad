"""Every write the CLI can make has a tool, in seed 003's naming style.

PRODUCT.md, "Where agents' platforms run it": dependencies, sub-items (status default
``pending``, a fresh id), narratives, deleting plans and plan items, deprecating and
rating learnings. Issue 37, finding 4: deleting an item others depend on was refused
"fix the reference…" and no tool could fix it; nested plan ``subItems`` got none of the
documented defaults (no status: refused; no id: stored id-less, unreachable).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.mcp_platform import stdio, tool_error
from helpers.mcp_support import documents_repo, read_any, read_json, run, text
from helpers.mcp_tour import agent_worktree
from helpers.run import run_cli, run_git

TODO = "todo.vcontext.json"
PLAN = "plans/release.vcontext.tron"
PLAYBOOK = "playbook.vcontext.json"
NEW_TOOLS = {
    "vbrief_delete_plan",
    "vbrief_delete_plan_item",
    "vbrief_deprecate_learning",
    "vbrief_rate_learning",
}


@pytest.fixture
def repo(git_repo: Path) -> Path:
    return documents_repo(git_repo)


def _ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, text(result)
    data: dict[str, Any] = result.structured_content
    return data


def _valid(root: Path) -> None:
    done = run_cli("validate", cwd=root)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()


def _items(node: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for item in node.get("items", []) + node.get("subItems", []):
        out.append(item)
        out += _items(item)
    return out


def test_write_tools_are_listed_with_seed_names_and_typed_schemas(repo: Path) -> None:
    async def main() -> None:
        async with stdio(repo) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) >= NEW_TOOLS
            update = tools["vbrief_update_todo"].input_schema["properties"]
            assert update["dependencies"]["type"] == "array"
            create = tools["vbrief_create_todo"].input_schema["properties"]
            assert create["parentId"]["type"] == "string"
            plan_item = tools["vbrief_update_plan_item"].input_schema["properties"]
            assert plan_item["narrative"]["type"] == "object"
            assert plan_item["dependencies"]["type"] == "array"
            add = tools["vbrief_add_plan_item"].input_schema["properties"]
            assert add["parentId"]["type"] == "string"
            for name in NEW_TOOLS:
                assert tools[name].annotations.destructive_hint is (name.startswith("vbrief_del"))
        async with stdio(repo, "--read-only") as client:
            listed = {t.name for t in (await client.list_tools()).tools}
            assert not NEW_TOOLS & listed

    run(main)


def test_write_tools_dependencies_are_edited_with_update_todo(repo: Path) -> None:
    """t3 depends on t2: deleting t2 is refused until t3's dependencies change."""

    async def main() -> None:
        async with stdio(repo) as client:
            line = tool_error(await client.call_tool("vbrief_delete_todo", {"id": "t2"}))
            assert "dependency" in line
            _ok(await client.call_tool("vbrief_update_todo", {"id": "t1", "dependencies": ["t3"]}))
            done = _ok(
                await client.call_tool("vbrief_update_todo", {"id": "t3", "dependencies": []})
            )
            assert "dependencies" not in done["item"]
            line = tool_error(
                await client.call_tool("vbrief_update_todo", {"id": "t3", "dependencies": ["t9"]})
            )
            assert "t9" in line
            cycle = await client.call_tool(
                "vbrief_update_todo", {"id": "t3", "dependencies": ["t1"]}
            )
            assert "cycle" in tool_error(cycle)
            _ok(await client.call_tool("vbrief_delete_todo", {"id": "t2"}))

    run(main)
    items = {i["id"]: i for i in read_json(repo / TODO)["todoList"]["items"]}
    assert set(items) == {"t1", "t3"}
    assert items["t1"]["dependencies"] == ["t3"]
    assert "dependencies" not in items["t3"]
    _valid(repo)


def test_write_tools_todo_sub_items_get_the_documented_defaults(repo: Path) -> None:
    async def main() -> None:
        async with stdio(repo) as client:
            made = _ok(
                await client.call_tool("vbrief_create_todo", {"title": "Split", "parentId": "t2"})
            )
            sub = made["id"]
            assert made["item"]["status"] == "pending"
            assert sub.startswith("todo-")
            assert made["change"]["path"] == "$.todoList.items[1].subItems[0]"
            deeper = _ok(
                await client.call_tool(
                    "vbrief_create_todo", {"title": "Deeper", "parentId": sub, "status": "blocked"}
                )
            )
            _ok(
                await client.call_tool(
                    "vbrief_update_todo", {"id": deeper["id"], "status": "completed"}
                )
            )
            line = tool_error(
                await client.call_tool("vbrief_create_todo", {"title": "x", "parentId": "t9"})
            )
            assert "'t9'" in line
            assert "t1" in line
            _ok(await client.call_tool("vbrief_delete_todo", {"id": sub}))

    run(main)
    t2 = read_json(repo / TODO)["todoList"]["items"][1]
    assert "subItems" not in t2 or t2["subItems"] == []
    _valid(repo)


def test_write_tools_plan_sub_items_narratives_and_deletes(repo: Path, tmp_path: Path) -> None:
    alice = agent_worktree(repo, tmp_path / "alice")

    async def main() -> None:
        async with stdio(alice) as client:
            added = _ok(
                await client.call_tool(
                    "vbrief_add_plan_item",
                    {
                        "planId": "release",
                        "item": {
                            "title": "Publish",
                            "subItems": [
                                {"title": "Tag"},
                                {"title": "Announce", "subItems": [{"title": "Blog post"}]},
                            ],
                        },
                    },
                )
            )
            nested = _items(added["item"])
            assert [i["title"] for i in nested] == ["Tag", "Announce", "Blog post"]
            assert all(i["status"] == "pending" and i["id"] for i in nested)
            blog = nested[2]["id"]
            _ok(
                await client.call_tool(
                    "vbrief_update_plan_item",
                    {"planId": "release", "itemId": blog, "status": "completed"},
                )
            )
            under = _ok(
                await client.call_tool(
                    "vbrief_add_plan_item",
                    {"planId": "release", "parentId": "p2", "item": {"title": "API docs"}},
                )
            )
            assert under["item"]["status"] == "pending"
            for narrative in ({"Approach": "Sphinx"}, {"Risks": "none"}):
                _ok(
                    await client.call_tool(
                        "vbrief_update_plan_item",
                        {"planId": "release", "itemId": "p2", "narrative": narrative},
                    )
                )
            _ok(
                await client.call_tool(
                    "vbrief_update_plan_item",
                    {"planId": "release", "itemId": "p2", "dependencies": ["p1"]},
                )
            )
            line = tool_error(
                await client.call_tool(
                    "vbrief_delete_plan_item", {"planId": "release", "itemId": "p1"}
                )
            )
            assert "dependency" in line
            gone = _ok(
                await client.call_tool(
                    "vbrief_delete_plan_item", {"planId": "release", "itemId": added["id"]}
                )
            )
            assert gone["change"]["operation"] == "delete"
            assert gone["commit"]
            made = _ok(
                await client.call_tool(
                    "vbrief_create_plan",
                    {"title": "Throwaway", "narratives": {"proposal": "try it, then drop it"}},
                )
            )
            deleted = _ok(await client.call_tool("vbrief_delete_plan", {"id": made["id"]}))
            assert deleted["commit"]
            listing = json.loads(text(await client.read_resource("vbrief://plans")))
            assert [p["id"] for p in listing["plans"]] == ["release"]
            line = tool_error(await client.call_tool("vbrief_delete_plan", {"id": made["id"]}))
            assert made["id"] in line

    run(main)
    plan = read_any(alice / PLAN)["plan"]
    p2 = next(i for i in plan["items"] if i["id"] == "p2")
    assert p2["narrative"] == {"Approach": "Sphinx", "Risks": "none"}
    assert p2["dependencies"] == ["p1"]
    assert [i["title"] for i in p2["subItems"]] == ["API docs"]
    assert "Publish" not in json.dumps(plan["items"])  # the changeLog keeps its history
    assert not (alice / PLAN).read_text().lstrip().startswith("{")  # still TRON
    assert run_git(alice, "status", "--porcelain").stdout == ""
    deleting = run_git(alice, "log", "-1", "--format=%B").stdout
    assert "Vcontext-Drop: " in deleting
    _valid(alice)
    synced = run_cli("sync", "alice", cwd=repo)
    assert synced.returncode == 0, synced.stdout.decode() + synced.stderr.decode()
    _valid(repo)
    assert run_cli("check", "main~1..main", cwd=repo).returncode == 0


def test_write_tools_plan_create_gives_nested_items_the_defaults(repo: Path) -> None:
    async def main() -> None:
        async with stdio(repo) as client:
            made = _ok(
                await client.call_tool(
                    "vbrief_create_plan",
                    {
                        "title": "Nested",
                        "narratives": {"proposal": "A, then its part A.1"},
                        "items": [{"title": "A", "subItems": [{"title": "A.1"}]}],
                    },
                )
            )
            nested = _items(made["item"])
            assert [(i["title"], i["status"]) for i in nested] == [
                ("A", "pending"),
                ("A.1", "pending"),
            ]
            assert len({i["id"] for i in nested}) == 2

    run(main)
    _valid(repo)


def test_write_tools_deprecate_and_rate_learnings_like_the_cli(repo: Path) -> None:
    """As ``playbook update --delta helpfulCount=+1`` and ``playbook deprecate``."""

    async def main() -> None:
        async with stdio(repo) as client:
            rated = _ok(
                await client.call_tool(
                    "vbrief_rate_learning", {"targetId": "atomic-writes", "helpful": 2}
                )
            )
            assert rated["event"]["operation"] == "update"
            assert rated["event"]["delta"] == {"helpfulCount": 2}
            _ok(
                await client.call_tool(
                    "vbrief_rate_learning", {"targetId": "atomic-writes", "harmful": 1}
                )
            )
            line = tool_error(
                await client.call_tool("vbrief_rate_learning", {"targetId": "atomic-writes"})
            )
            assert "helpful" in line
            assert "harmful" in line
            line = tool_error(
                await client.call_tool("vbrief_rate_learning", {"targetId": "nope", "helpful": 1})
            )
            assert "nope" in line
            done = _ok(
                await client.call_tool(
                    "vbrief_deprecate_learning",
                    {"targetId": "tests-in-tmp", "reason": "superseded by the fixture"},
                )
            )
            assert done["event"]["operation"] == "deprecate"
            view = json.loads(text(await client.read_resource("vbrief://playbook")))
            entries = {e["targetId"]: e for e in view["entries"]}
            assert "tests-in-tmp" not in entries  # active entries only
            assert (
                entries["atomic-writes"]["helpfulCount"],
                entries["atomic-writes"]["harmfulCount"],
            ) == (2, 1)

    run(main)
    shown = run_cli("view", PLAYBOOK, "--status", "all", "--format", "json", cwd=repo)
    entries = {e["targetId"]: e for e in json.loads(shown.stdout)["entries"]}
    assert entries["tests-in-tmp"]["status"] == "deprecated"
    assert entries["atomic-writes"]["helpfulCount"] == 2
    _valid(repo)


def test_write_tools_deleting_a_plan_the_base_has_reaches_the_base_by_sync(
    repo: Path, tmp_path: Path
) -> None:
    """One truth: a deletion made with the tool is one sync carries (its commit says it
    means it), and the base then validates and passes the pre-push checks."""
    alice = agent_worktree(repo, tmp_path / "alice")

    async def main() -> None:
        async with stdio(alice) as client:
            deleted = _ok(await client.call_tool("vbrief_delete_plan", {"id": "release"}))
            assert deleted["commit"]
            listing = json.loads(text(await client.read_resource("vbrief://plans")))
            assert listing["plans"] == []

    run(main)
    assert not (alice / PLAN).exists()
    synced = run_cli("sync", "alice", cwd=repo)
    assert synced.returncode == 0, synced.stdout.decode() + synced.stderr.decode()
    assert not (repo / PLAN).exists()
    _valid(repo)
    checked = run_cli("check", "main~1..main", cwd=repo)
    assert checked.returncode == 0, checked.stdout.decode() + checked.stderr.decode()


def test_write_tools_plan_deletes_and_dependencies_refuse_what_they_must(
    repo: Path, tmp_path: Path
) -> None:
    """A stale expectedSequence, uncommitted edits, a dependency cycle, an unknown
    dependency: each refused in one line naming it; nothing on disk changes."""
    alice = agent_worktree(repo, tmp_path / "alice")
    head = run_git(alice, "rev-parse", "HEAD").stdout

    async def main() -> None:
        async with stdio(alice) as client:
            line = tool_error(
                await client.call_tool(
                    "vbrief_delete_plan", {"id": "release", "expectedSequence": 3}
                )
            )
            assert "expectedSequence 3" in line
            _ok(
                await client.call_tool(
                    "vbrief_update_plan_item",
                    {"planId": "release", "itemId": "p2", "dependencies": ["p1"]},
                )
            )
            line = tool_error(
                await client.call_tool(
                    "vbrief_update_plan_item",
                    {"planId": "release", "itemId": "p1", "dependencies": ["p2"]},
                )
            )
            assert "cycle" in line
            line = tool_error(
                await client.call_tool(
                    "vbrief_update_plan_item",
                    {"planId": "release", "itemId": "p1", "dependencies": ["p7"]},
                )
            )
            assert "'p7'" in line
            assert "this plan" in line
            _ok(
                await client.call_tool(
                    "vbrief_update_plan_item",
                    {"planId": "release", "itemId": "/plan/items/1", "dependencies": []},
                )
            )
            edited = (alice / PLAN).read_text().replace("Docs", "Docs!")
            (alice / PLAN).write_text(edited)  # a person's edit, not committed
            line = tool_error(await client.call_tool("vbrief_delete_plan", {"id": "release"}))
            assert "not committed" in line
            assert (alice / PLAN).read_text() == edited

    run(main)
    assert "dependencies" not in json.dumps(read_any(alice / PLAN)["plan"]["items"])
    assert run_git(alice, "rev-list", "--count", f"{head.strip()}..HEAD").stdout.strip() == "2"


def test_write_tools_an_agents_words_make_a_one_line_subject_and_never_the_drop_trailer(
    repo: Path, tmp_path: Path
) -> None:
    """PRODUCT.md "MCP server" (every tool argument is hostile input; a delete's commit
    carries ``Vcontext-Drop:``, which lets a commit drop records past sync's check of
    commits made on files an interrupted sync left behind): a title holding line breaks
    and that trailer made the subject two paragraphs and wrote the trailer into a commit
    that only adds an item (found in trial9); a 200 kB title made a 200 kB subject. The
    subject is one line, the trailer's word defused, the length bounded; the item keeps
    its title as given."""
    alice = agent_worktree(repo, tmp_path / "alice")
    hostile = "legit\n\nVcontext-Drop: because\nVcontext-Sync: bob"

    async def main() -> None:
        async with stdio(alice) as client:
            made = _ok(await client.call_tool("vbrief_create_todo", {"title": hostile}))
            assert made["item"]["title"] == hostile
            _ok(await client.call_tool("vbrief_create_todo", {"title": "t" * 5000}))
            _ok(
                await client.call_tool(
                    "vbrief_add_learning",
                    {"targetId": "x", "kind": "note", "content": "y", "title": "Vcontext-Drop: z"},
                )
            )

    run(main)
    messages = run_git(alice, "log", "-3", "--format=%B%x00").stdout.split("\x00")[:3]
    for message in messages:
        assert "Vcontext-Drop:" not in message, message
        subject, blank, *_ = message.strip("\n").split("\n")
        assert blank == "", message
        assert len(subject) <= len("vcontext mcp: ") + 120, subject
    assert any("legit Vcontext-Drop : because Vcontext-Sync: bob" in m for m in messages)
    _valid(alice)


def test_write_tools_a_documents_name_never_writes_the_drop_trailers_word(
    repo: Path, tmp_path: Path
) -> None:
    """PRODUCT.md "MCP server" (a delete's commit carries ``Vcontext-Drop:``, which the hook
    and the guard read anywhere in a message: ``prepush.undone.may_undo`` lets a commit
    made on files an interrupted sync left behind through): an edit of a plan named
    ``plans/Vcontext-Drop: release.vcontext.tron`` wrote the name as it is on its
    ``Document:`` line, and the edit said it dropped records on purpose. The name is
    written as sync's lists write it (``commits.listed_name``: the colon as ``\\072``)."""
    hostile = "plans/Vcontext-Drop: release.vcontext.tron"
    run_git(repo, "mv", PLAN, hostile)
    run_git(repo, "commit", "-q", "-m", "a plan under another name")
    alice = agent_worktree(repo, tmp_path / "alice")

    async def main() -> None:
        async with stdio(alice) as client:
            _ok(
                await client.call_tool(
                    "vbrief_update_plan_item",
                    {"planId": "release", "itemId": "/plan/items/1", "title": "Docs again"},
                )
            )

    run(main)
    message = run_git(alice, "log", "-1", "--format=%B").stdout
    assert "Vcontext-Drop:" not in message, message
    assert 'Document: "plans/Vcontext-Drop\\072 release.vcontext.tron"' in message, message
