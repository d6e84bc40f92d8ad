"""Every tool of ``git vcontext mcp`` through the SDK's own client, on real files in a repo.

PRODUCT.md, "MCP server (seed 003)": seed 003's tools with its parameters, optional
``expectedSequence`` on every write, every write correct by construction, refusals as
``isError`` results of one line, nothing touched when refused.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from helpers.mcp_support import documents_repo, in_process, read_any, read_json, run, text
from helpers.run import run_git

SEED_TOOLS = {
    "vbrief_create_todo",
    "vbrief_update_todo",
    "vbrief_delete_todo",
    "vbrief_create_plan",
    "vbrief_update_plan",
    "vbrief_add_plan_item",
    "vbrief_update_plan_item",
    "vbrief_delete_plan",
    "vbrief_delete_plan_item",
    "vbrief_add_learning",
    "vbrief_rate_learning",
    "vbrief_deprecate_learning",
    "vbrief_query_playbook",
    "vbrief_create_fork",
    "vbrief_merge_fork",
}
ENGINE_TOOLS = {
    "vcontext_view",
    "vcontext_diff",
    "vcontext_validate",
    "vcontext_status",
    "vcontext_sync",
    "vcontext_conflicts",
    "vcontext_resolve",
}
WRITE_TOOLS = SEED_TOOLS - {"vbrief_query_playbook"} | {"vcontext_sync", "vcontext_resolve"}
FORK_TOOLS = {"vbrief_create_fork", "vbrief_merge_fork"}


@pytest.fixture
def repo(git_repo: Path) -> Path:
    return documents_repo(git_repo)


async def _call(client: Any, name: str, **args: Any) -> Any:
    return await client.call_tool(name, args)


def _ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, text(result)
    data: dict[str, Any] = result.structured_content
    return data


def _refused(result: Any, *words: str) -> str:
    assert result.is_error, text(result)
    line = text(result)
    assert "\n" not in line, line
    assert "Traceback" not in line, line
    for word in words:
        assert word.lower() in line.lower(), line
    return line


def test_mcp_lists_seed_tools_with_their_parameters_and_expected_sequence(repo: Path) -> None:
    async def main() -> None:
        async with in_process(repo) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == SEED_TOOLS | ENGINE_TOOLS
            create = tools["vbrief_create_todo"].input_schema
            assert create["required"] == ["title"]
            assert {
                "title",
                "description",
                "status",
                "assignee",
                "dependencies",
                "todoListId",
            } <= set(create["properties"])
            assert create["properties"]["status"]["enum"] == [
                "pending",
                "inProgress",
                "completed",
                "blocked",
                "cancelled",
            ]
            learning = tools["vbrief_add_learning"].input_schema
            # seed 003's own call (category, title, content) and refining a known entry
            # need none of targetId, kind, narrative: what a new entry lacks is refused
            assert "required" not in learning
            assert learning["properties"]["category"]["enum"][:4] == [
                "strategies",
                "decisions",
                "patterns",
                "gotchas",
            ]
            branch_tools = {"vcontext_sync", "vcontext_resolve", *FORK_TOOLS}
            for name in WRITE_TOOLS - branch_tools:  # document writes
                assert "expectedSequence" in tools[name].input_schema["properties"], name
                assert tools[name].input_schema["additionalProperties"] is False
            assert tools["vbrief_query_playbook"].annotations.read_only_hint is True
            assert tools["vbrief_delete_todo"].annotations.destructive_hint is True

    run(main)


def test_mcp_create_todo_fresh_id_sequence_changelog_updated_last_modified_by(
    repo: Path,
) -> None:
    async def main() -> None:
        async with in_process(repo, agent="alice") as client:
            first = _ok(
                await _call(
                    client,
                    "vbrief_create_todo",
                    title="Ship it",
                    description="Cut the release",
                    assignee="alice",
                )
            )
            second = _ok(await _call(client, "vbrief_create_todo", title="Ship it"))
            assert first["id"] != second["id"]
            assert first["sequence"] == 4
            assert second["sequence"] == 5

    run(main)
    todo = read_json(repo / "todo.vcontext.json")["todoList"]
    ids = [i["id"] for i in todo["items"]]
    assert len(ids) == len(set(ids)) == 5
    new = todo["items"][3]
    assert new["title"] == "Ship it"
    assert new["status"] == "pending"
    assert new["narrative"] == {"Overview": "Cut the release"}
    assert new["assignee"] == "alice"
    assert todo["sequence"] == 5
    assert todo["lastModifiedBy"] == {"id": "alice", "type": "aiAgent"}
    assert todo["updated"].endswith("Z")
    change = todo["changeLog"][0]
    assert change["sequence"] == 4
    assert change["operation"] == "create"
    assert change["agent"] == {"id": "alice", "type": "aiAgent"}
    assert change["path"] == "$.todoList.items[3]"
    assert new["id"] in change["description"]


def test_mcp_update_and_delete_todo(repo: Path) -> None:
    async def main() -> None:
        async with in_process(repo) as client:
            done = _ok(
                await _call(
                    client, "vbrief_update_todo", id="t2", status="completed", expectedSequence=3
                )
            )
            assert done["item"]["status"] == "completed"
            assert "completed" in done["item"]
            assert done["change"]["path"] == "$.todoList.items[1].status"
            gone = _ok(await _call(client, "vbrief_delete_todo", id="t1"))
            assert gone["change"]["operation"] == "delete"

    run(main)
    todo = read_json(repo / "todo.vcontext.json")["todoList"]
    assert [i["id"] for i in todo["items"]] == ["t2", "t3"]
    assert todo["sequence"] == 5
    assert len(todo["changeLog"]) == 2


def test_mcp_plan_tools_keep_the_tron_format(repo: Path) -> None:
    async def main() -> None:
        async with in_process(repo) as client:
            made = _ok(
                await _call(
                    client,
                    "vbrief_create_plan",
                    title="Next",
                    id="next",
                    narratives={"Proposal": "Do it"},
                    phases=[{"title": "One"}, {"title": "Two", "status": "inProgress"}],
                )
            )
            assert made["document"]["path"] == ".vcontext/plan-next.json"
            _ok(
                await _call(
                    client,
                    "vbrief_update_plan",
                    id="release",
                    status="completed",
                    narratives={"Result": "Shipped"},
                )
            )
            added = _ok(
                await _call(
                    client,
                    "vbrief_add_plan_item",
                    planId="release",
                    item={"title": "Announce"},
                    position=1,
                )
            )
            _ok(
                await _call(
                    client,
                    "vbrief_update_plan_item",
                    planId="release",
                    itemId=added["id"],
                    status="inProgress",
                )
            )

    run(main)
    tron = (repo / "plans/release.vcontext.tron").read_text()
    assert not tron.lstrip().startswith("{")  # still TRON, written by its own codec
    plan = read_any(repo / "plans/release.vcontext.tron")["plan"]
    assert plan["status"] == "completed"
    assert plan["sequence"] == 10
    assert plan["narratives"] == {"Proposal": "Ship the parser first.", "Result": "Shipped"}
    assert [i["title"] for i in plan["items"]] == ["Parser", "Announce", "Docs"]
    assert plan["items"][1]["status"] == "inProgress"
    new = read_json(repo / ".vcontext/plan-next.json")["plan"]
    assert new["id"] == "next"
    assert new["status"] == "draft"
    assert new["sequence"] == 1
    assert [i["title"] for i in new["items"]] == ["One", "Two"]
    assert len({i["id"] for i in new["items"]}) == 2


def test_mcp_add_learning_appends_then_chains_to_the_winning_head(repo: Path) -> None:
    async def main() -> None:
        async with in_process(repo) as client:
            new = _ok(
                await _call(
                    client,
                    "vbrief_add_learning",
                    targetId="small-commits",
                    kind="strategy",
                    title="Small commits",
                    narrative={"Overview": "One change per commit."},
                    tags=["git"],
                    confidence=0.8,
                )
            )
            assert new["operation"] == "append"
            assert "prevEventId" not in new
            update = _ok(
                await _call(
                    client,
                    "vbrief_add_learning",
                    targetId="tests-in-tmp",
                    kind="rule",
                    narrative={"Overview": "Also isolate HOME."},
                    expectedSequence=3,
                )
            )
            assert update["operation"] == "update"
            assert update["prevEventId"] == "e1"
            found = _ok(await _call(client, "vbrief_query_playbook", tags=["git"]))
            assert [e["targetId"] for e in found["entries"]] == ["tests-in-tmp", "small-commits"]
            assert found["entries"][0]["narrative"] == {"Overview": "Also isolate HOME."}
            both = _ok(await _call(client, "vbrief_query_playbook", tags=["git", "testing"]))
            assert [e["targetId"] for e in both["entries"]] == ["tests-in-tmp"]
            one = _ok(
                await _call(client, "vbrief_query_playbook", searchText="ATOMICALLY", limit=1)
            )
            assert [e["targetId"] for e in one["entries"]] == ["atomic-writes"]
            view = _ok(await _call(client, "vcontext_view", kind="rule"))
            assert [e["targetId"] for e in view["entries"]] == ["tests-in-tmp"]

    run(main)
    playbook = read_json(repo / "playbook.vcontext.json")["playbook"]
    assert playbook["version"] == 4
    events = playbook["items"]
    assert [e["operation"] for e in events] == ["append", "append", "append", "update"]
    assert events[3]["prevEventId"] == "e1"
    assert events[3]["eventId"] not in {"e1", "e2"}


def test_mcp_engine_tools_view_diff_validate_status(repo: Path) -> None:
    async def main() -> None:
        async with in_process(repo) as client:
            _ok(await _call(client, "vbrief_update_todo", id="t3", status="inProgress"))
            diff = _ok(await _call(client, "vcontext_diff", uri="vbrief://todos/main"))
            changes = [c for c in diff["changes"] if c.get("id") == "t3"]
            assert changes
            assert changes[0]["new"] == "inProgress"
            assert "inProgress" in text(await _call(client, "vcontext_diff"))
            valid = _ok(await _call(client, "vcontext_validate"))
            assert valid["valid"] is True
            assert len(valid["files"]) == 3
            status = _ok(await _call(client, "vcontext_status"))
            assert status == {"agents": [], "bases": [], "unlisted": []}  # as status --format json

    run(main)


def test_mcp_refusals_are_one_line_errors_and_touch_nothing(repo: Path) -> None:
    before = {
        p: (repo / p).read_bytes()
        for p in ("todo.vcontext.json", "plans/release.vcontext.tron", "playbook.vcontext.json")
    }

    async def main() -> None:
        async with in_process(repo) as client:
            _refused(
                await _call(client, "vbrief_update_todo", id="t9", status="completed"), "t9", "t1"
            )
            _refused(
                await _call(client, "vbrief_update_plan", id="nope", status="draft"),
                "nope",
                "release",
            )
            _refused(
                await _call(client, "vbrief_update_todo", id="t1", status="done"),
                "'done'",
                "pending, inProgress, completed, blocked, cancelled",
            )
            _refused(
                await _call(
                    client, "vbrief_update_todo", id="t1", status="pending", expectedSequence=2
                ),
                "sequence 3",
                "expectedSequence 2",
            )
            _refused(
                await _call(client, "vbrief_delete_todo", id="t2"),
                "would not be valid",
                "dependency-missing",
            )
            _refused(
                await _call(client, "vbrief_create_todo", title="x", colour="red"),
                "unknown argument 'colour'",
            )
            missing = _refused(await _call(client, "vbrief_create_todo"))
            assert missing == "vbrief_create_todo: missing argument 'title'"
            _refused(
                await _call(client, "vbrief_add_plan_item", planId="release", item={}),
                "missing argument 'title' of item",
            )
            _refused(
                await _call(client, "vbrief_update_todo", id="t1", todoListId="../etc"),
                "never paths",
            )
            _refused(
                await _call(
                    client,
                    "vbrief_add_plan_item",
                    planId="release",
                    item={"title": "x", "id": "p1"},
                ),
                "'p1'",
                "taken",
            )
            _refused(
                await _call(
                    client, "vbrief_add_learning", targetId="x", kind="idea", narrative={"A": "b"}
                ),
                "'idea'",
                "strategy",
            )
            _refused(
                await _call(client, "vbrief_create_plan", title="x", id="../../x"), "not a plain id"
            )
            _refused(
                await _call(
                    client,
                    "vbrief_add_plan_item",
                    planId="release",
                    item={"title": "x"},
                    position=9,
                ),
                "position 9",
            )
            _refused(await _call(client, "no_such_tool"), "unknown tool")
            # the server still serves after every refusal
            _ok(await _call(client, "vbrief_query_playbook"))

    run(main)
    assert {p: (repo / p).read_bytes() for p in before} == before
    assert not (repo / ".vcontext").exists()


def test_mcp_document_that_no_longer_parses_is_named_with_its_position(repo: Path) -> None:
    broken = (repo / "todo.vcontext.json").read_text().replace('"t2",', '"t2"', 1)
    (repo / "todo.vcontext.json").write_text(broken)

    async def main() -> None:
        async with in_process(repo) as client:
            line = _refused(
                await _call(client, "vbrief_update_todo", id="t1", status="completed"),
                "todo.vcontext.json:",
            )
            assert "does not parse" in line
            read = await client.read_resource("vbrief://todos/current")
            served = json.loads(text(read))  # still JSON: the error named, the text as it is
            assert served["path"] == "todo.vcontext.json"
            assert "todo.vcontext.json:" in served["error"]
            assert served["text"] == broken

    run(main)
    assert (repo / "todo.vcontext.json").read_text() == broken


def test_mcp_read_only_lists_no_write_tools_and_allow_limits_kinds(repo: Path) -> None:
    async def main() -> None:
        async with in_process(repo, read_only=True) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert names == (SEED_TOOLS | ENGINE_TOOLS) - WRITE_TOOLS
            _refused(await _call(client, "vbrief_create_todo", title="x"), "unknown tool")
        async with in_process(repo, allow=frozenset({"playbook"})) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert "vbrief_add_learning" in names
            assert "vbrief_create_todo" not in names
            assert "vbrief_update_plan" not in names

    run(main)


def test_mcp_create_makes_the_first_documents(git_repo: Path) -> None:
    async def main() -> None:
        async with in_process(git_repo) as client:
            assert "no todo list" in text(await _call(client, "vbrief_update_todo", id="x"))
            made = _ok(await _call(client, "vbrief_create_todo", title="First"))
            assert made["created"] is True
            _ok(
                await _call(
                    client,
                    "vbrief_add_learning",
                    targetId="a",
                    kind="note",
                    narrative={"Overview": "first"},
                )
            )

    run(main)
    todo = read_json(git_repo / ".vcontext/todo.json")
    assert [i["title"] for i in todo["todoList"]["items"]] == ["First"]
    playbook = read_json(git_repo / ".vcontext/playbook.json")["playbook"]
    assert playbook["version"] == 1
    assert playbook["items"][0]["operation"] == "append"
    assert run_git(git_repo, "status", "--short").stdout.count("??") == 1  # .vcontext/


def test_mcp_create_plan_file_is_named_after_a_readable_id_and_deep_values_refused(
    repo: Path,
) -> None:
    from git_vcontext.mcp_server import startup as setup
    from git_vcontext.mcp_server.service import Options
    from git_vcontext.mcp_server.tools.dispatch import call

    async def main() -> None:
        async with in_process(repo) as client:
            proposal = {"proposal": "P."}
            made = _ok(
                await _call(client, "vbrief_create_plan", title="Fresh", narratives=proposal)
            )
            assert made["id"] == "plan-fresh"  # PRODUCT.md: plan-<slug of the title>
            assert made["document"]["path"] == ".vcontext/plan-fresh.json"
            made = _ok(
                await _call(client, "vbrief_create_plan", title="計画", narratives=proposal)
            )  # no slug
            assert re.fullmatch(r"plan-[0-9a-f]{8}", made["id"])
            assert made["document"]["path"] == f".vcontext/{made['id']}.json"

    run(main)
    deep: list[Any] = []
    node = deep
    for _ in range(300):  # deeper than any client sends (pydantic stops at ~250)
        node.append([])
        node = node[0]
    where, git = setup.find_root(str(repo))
    svc = setup.service(Options(root=where), git)
    refused = call(
        svc,
        "vbrief_create_plan",
        {
            "title": "Deep",
            "narratives": {"proposal": "Deep."},
            "items": [{"title": "x", "extra": deep}],
        },
    )
    _refused_answer = refused.text
    assert refused.error
    assert "would not read back" in _refused_answer
    assert "nesting" in _refused_answer
    assert "\n" not in _refused_answer
    assert len(list((repo / ".vcontext").iterdir())) == 2  # the two plans above, no more
