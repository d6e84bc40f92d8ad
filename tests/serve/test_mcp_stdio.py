"""``git vcontext mcp`` over stdio, as an agent tool starts it: resources, prompts, notifications.

PRODUCT.md, "MCP server (seed 003)": resources with seed 003's URIs, served as JSON
whatever the file's format (a TRON document's own text as a second content);
subscriptions notified within a second when a document changes on disk by anyone;
prompts filled from the documents; ids never paths.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from helpers.mcp_support import documents_repo, prompt_text, read_json, run, stdio_params, text
from helpers.mcp_tour import agent_worktree, tour
from helpers.run import run_git


@pytest.fixture
def repo(git_repo: Path) -> Path:
    return documents_repo(git_repo)


def test_mcp_stdio_reads_every_resource_with_its_mime_type(repo: Path, tmp_path: Path) -> None:
    from mcp import Client, MCPError
    from mcp.client.stdio import stdio_client

    errors = (tmp_path / "stderr.txt").open("w+")

    async def main() -> None:
        async with Client(stdio_client(stdio_params(repo), errlog=errors)) as client:
            listed = {r.uri: r.mime_type for r in (await client.list_resources()).resources}
            assert listed["vbrief://todos/current"] == "application/json"
            assert listed["vbrief://plans/current"] == "application/json"  # a TRON file
            assert listed["vbrief://plans/release"] == "application/json"
            assert {
                "vbrief://todos",
                "vbrief://plans",
                "vbrief://playbook",
                "vbrief://playbooks",
                "vbrief://todos/main",
                "vbrief://playbooks/playbook",
            } <= set(listed)
            templates = {
                t.uri_template for t in (await client.list_resource_templates()).resource_templates
            }
            assert "vbrief://playbook/{category}" in templates
            assert "vbrief://todos/{id}" in templates
            for uri in listed:
                read = await client.read_resource(uri)
                assert read.contents[0].mime_type == listed[uri], uri
            todos = json.loads(text(await client.read_resource("vbrief://todos")))
            assert todos["current"] == "main"
            assert todos["todoLists"][0]["sequence"] == 3
            current = text(await client.read_resource("vbrief://todos/current"))
            assert current == (repo / "todo.vcontext.json").read_text()
            plan = (await client.read_resource("vbrief://plans/current")).contents
            assert json.loads(getattr(plan[0], "text", ""))["plan"]["id"]
            assert plan[1].mime_type == "text/x-tron"
            assert (
                getattr(plan[1], "text", "") == (repo / "plans/release.vcontext.tron").read_text()
            )
            view = json.loads(text(await client.read_resource("vbrief://playbook")))
            assert {e["targetId"] for e in view["entries"]} == {"tests-in-tmp", "atomic-writes"}
            rules = json.loads(text(await client.read_resource("vbrief://playbook/rules")))
            assert [e["targetId"] for e in rules["entries"]] == ["tests-in-tmp"]
            for bad in (
                "vbrief://todos/../../etc/passwd",
                "vbrief://todos/%2e%2e%2fx",
                "vbrief://todos//etc/passwd",
                "vbrief://todos/nope",
                "vbrief://elsewhere",
                "file:///etc/passwd",
                "vbrief://playbook/ideas",
            ):
                with pytest.raises(MCPError):
                    await client.read_resource(bad)
            # after the refusals the server still answers
            assert (await client.list_tools()).tools

    run(main)
    errors.seek(0)
    assert "Traceback" not in errors.read()


def test_mcp_stdio_every_tool_resource_and_refusal_on_real_files(
    repo: Path, tmp_path: Path
) -> None:
    """Issue 14, Done when: the SDK's client over stdio reads every resource and calls every
    tool, and each "Bad input" is an isError result of one line that touches no file."""
    from mcp import Client
    from mcp.client.stdio import stdio_client

    alice = agent_worktree(repo, tmp_path / "alice")
    errors = (tmp_path / "stderr.txt").open("w+")

    async def main() -> None:
        async with Client(stdio_client(stdio_params(alice), errlog=errors)) as client:
            await tour(client, alice)

    run(main)
    errors.seek(0)
    assert errors.read() == ""  # not a traceback, not a warning
    items = read_json(repo / "todo.vcontext.json")["todoList"]["items"]  # synced to main
    assert [i["status"] for i in items] == ["completed", "inProgress", "inProgress"]
    assert "Over the wire" not in {i["title"] for i in items}  # created, then deleted
    assert "Announce" in (repo / "plans/release.vcontext.tron").read_text()  # synced to main


def test_mcp_stdio_prompts_are_filled_from_the_documents(repo: Path) -> None:
    from mcp import Client

    async def main() -> None:
        async with Client(stdio_params(repo)) as client:
            prompts = {p.name: p for p in (await client.list_prompts()).prompts}
            assert set(prompts) == {
                "vbrief_session_start",
                "vbrief_session_end",
                "vbrief_plan_review",
                "vbrief_add_learning",
            }
            assert [
                (a.name, a.required) for a in prompts["vbrief_session_end"].arguments or []
            ] == [("summary", True)]
            start = prompt_text(await client.get_prompt("vbrief_session_start"))
            assert "t2: Test the parser" in start
            assert "Release 1.0" in start
            assert "tests-in-tmp" in start
            end = await client.get_prompt("vbrief_session_end", {"summary": "Parser tested"})
            body = prompt_text(end)
            assert "Parser tested" in body
            assert "t1" not in body  # completed items left out
            review = prompt_text(await client.get_prompt("vbrief_plan_review"))
            assert "p2: Docs" in review
            assert "Ship the parser first." in review
            learn = await client.get_prompt("vbrief_add_learning", {"category": "gotchas"})
            assert "category 'gotchas'" in prompt_text(learn)  # as vbrief_add_learning takes it
            assert "Existing warning entries" in prompt_text(learn)  # the entry kind it becomes

    run(main)


def _touch_todo(repo: Path) -> None:
    """Someone else (a checkout, another agent) changes the document on disk."""
    data = read_json(repo / "todo.vcontext.json")
    data["todoList"]["items"][2]["status"] = "blocked"
    (repo / "todo.vcontext.json").write_text(json.dumps(data, indent=2) + "\n")


def test_mcp_listen_subscription_is_notified_within_a_second_of_a_change(repo: Path) -> None:
    from mcp import Client

    async def main() -> float:
        async with Client(stdio_params(repo)) as client:
            uris = ["vbrief://todos/current", "vbrief://todos/main"]
            async with client.listen(
                resource_subscriptions=uris, resources_list_changed=True
            ) as sub:
                await anyio.sleep(0.6)  # the watcher has looked once
                start = time.monotonic()
                _touch_todo(repo)
                with anyio.fail_after(5):
                    seen: set[str] = set()
                    async for event in sub:
                        seen.add(getattr(event, "uri", ""))
                        if set(uris) <= seen:
                            return time.monotonic() - start
        raise AssertionError("no notification")

    assert run(main) < 1.0


@pytest.mark.filterwarnings("ignore:resources/subscribe is removed")  # a 2025-era client
def test_mcp_legacy_subscribe_is_notified_of_changes_and_new_documents(repo: Path) -> None:
    from mcp import Client

    got: list[tuple[float, str]] = []

    async def handler(message: Any) -> None:
        method = getattr(message, "method", "")
        uri = getattr(getattr(message, "params", None), "uri", "")
        got.append((time.monotonic(), f"{method} {uri}".strip()))

    async def main() -> float:
        async with Client(stdio_params(repo), mode="legacy", message_handler=handler) as client:
            caps = client.server_capabilities.resources
            assert caps is not None
            assert caps.subscribe
            assert caps.list_changed
            await client.session.subscribe_resource("vbrief://todos/current")
            await anyio.sleep(0.6)
            start = time.monotonic()
            _touch_todo(repo)
            with anyio.fail_after(5):
                while not any("vbrief://todos/current" in g for _, g in got):
                    await anyio.sleep(0.02)
            took = next(t for t, g in got if "vbrief://todos/current" in g) - start
            (repo / ".vcontext").mkdir()
            (repo / ".vcontext/todo-2.json").write_text(
                json.dumps({"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}})
            )
            with anyio.fail_after(5):
                while not any("list_changed" in g for _, g in got):
                    await anyio.sleep(0.02)
            return took

    assert run(main) < 1.0


def test_mcp_stdio_agent_branch_commits_each_write_and_keeps_the_index(repo: Path) -> None:
    from mcp import Client

    run_git(repo, "checkout", "-q", "-b", "agents/alice")
    (repo / "notes.txt").write_text("staged by the user\n")
    run_git(repo, "add", "notes.txt")
    (repo / "README").write_text("unstaged change\n")

    async def main() -> None:
        async with Client(stdio_params(repo)) as client:
            r = await client.call_tool("vbrief_update_todo", {"id": "t3", "status": "inProgress"})
            assert not r.is_error, text(r)
            assert r.structured_content["commit"]
            assert r.structured_content["change"]["agent"]["id"] == "alice"

    run(main)
    log = run_git(repo, "log", "-1", "--format=%s%n%b", "--name-only").stdout
    assert log.startswith("vcontext mcp: updated t3: status pending → inProgress")
    assert "Agent: alice" in log
    assert log.strip().endswith("todo.vcontext.json")
    status = run_git(repo, "status", "--porcelain").stdout.splitlines()
    assert sorted(status) == ["?? README", "A  notes.txt"]


def test_mcp_lone_surrogate_escape_in_a_document_goes_out_as_its_escape(
    git_repo: Path, tmp_path: Path
) -> None:
    """JSON allows ``"\\ud800"``; UTF-8 cannot carry it: the server must not die on it."""
    from mcp import Client
    from mcp.client.stdio import stdio_client

    doc = (
        '{"vContextInfo": {"version": "0.4"}, "todoList": {"items": [\n'
        '  {"id": "t1", "title": "odd \\ud800 title", "status": "pending"}]}}\n'
    )
    (git_repo / "todo.vcontext.json").write_text(doc)
    errors = (tmp_path / "stderr.txt").open("w+")

    async def main() -> None:
        async with Client(stdio_client(stdio_params(git_repo), errlog=errors)) as client:
            done = await client.call_tool("vbrief_update_todo", {"id": "t1", "status": "blocked"})
            assert not done.is_error, text(done)
            assert done.structured_content["item"]["title"] == "odd \\ud800 title"
            start = await client.get_prompt("vbrief_session_start")
            assert "odd \\ud800 title" in prompt_text(start)
            listed = {r.name for r in (await client.list_resources()).resources}
            assert "todo list todo" in listed
            assert "\\ud800" in text(await client.read_resource("vbrief://todos/current"))

    run(main)
    errors.seek(0)
    assert "error" not in errors.read()
    assert "odd \\ud800 title" in (git_repo / "todo.vcontext.json").read_text()
