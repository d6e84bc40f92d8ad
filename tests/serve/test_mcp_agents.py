"""Two agents in two work trees, two servers writing at once, then ``sync``: nothing lost.

PRODUCT.md, "MCP server (seed 003)" with "Branch-per-agent workflow": on an agent
branch each write is a commit of that document, so a sync can move the branch; fresh
ids never collide across agents and ``sequence``/``changeLog``/playbook events merge.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio

from helpers.mcp_support import (
    documents_repo,
    in_process,
    read_any,
    read_json,
    run,
    stdio_params,
    text,
)
from helpers.run import run_cli, run_git

WRITES = 4


async def _agent(root: Path, name: str, ids: dict[str, list[str]]) -> None:
    from mcp import Client

    async with Client(stdio_params(root)) as client:
        made = []
        for n in range(WRITES):
            r = await client.call_tool("vbrief_create_todo", {"title": f"{name} task {n}"})
            assert not r.is_error, text(r)
            assert r.structured_content["commit"], r.structured_content
            made.append(r.structured_content["id"])
            r = await client.call_tool(
                "vbrief_add_learning",
                {
                    "targetId": f"{name}-lesson-{n}",
                    "kind": "learning",
                    "narrative": {"Overview": f"what {name} learned ({n})"},
                },
            )
            assert not r.is_error, text(r)
        item = "t2" if name == "alice" else "t3"
        r = await client.call_tool("vbrief_update_todo", {"id": item, "status": "blocked"})
        assert not r.is_error, text(r)
        r = await client.call_tool(
            "vbrief_add_learning",
            {
                "targetId": "tests-in-tmp",
                "kind": "rule",
                "narrative": {"Overview": f"{name}: also isolate the environment"},
            },
        )
        assert not r.is_error, text(r)
        ids[name] = made


def test_mcp_two_agents_write_concurrently_then_sync_keeps_everything(
    git_repo: Path, tmp_path: Path
) -> None:
    repo = documents_repo(git_repo)
    for agent in ("alice", "bob"):
        done = run_cli("fork", agent, "--worktree", str(tmp_path / agent), cwd=repo)
        assert done.returncode == 0, done.stderr.decode()
    ids: dict[str, list[str]] = {}

    async def main() -> None:
        async with anyio.create_task_group() as tasks:
            for agent in ("alice", "bob"):
                tasks.start_soon(_agent, tmp_path / agent, agent, ids)

    run(main)
    for agent in ("alice", "bob"):
        assert run_git(tmp_path / agent, "status", "--porcelain").stdout == ""
        subjects = run_git(repo, "log", "--format=%s", f"main..agents/{agent}").stdout
        assert subjects.count("vcontext mcp: ") == 2 * WRITES + 2
    done = run_cli("sync", "--all", cwd=repo)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
    assert "CONFLICT" not in done.stdout.decode()

    todo = read_json(repo / "todo.vcontext.json")["todoList"]
    by_id = {i["id"]: i for i in todo["items"]}
    assert set(ids["alice"]) | set(ids["bob"]) <= set(by_id)
    assert len(by_id) == 3 + 2 * WRITES
    assert by_id["t2"]["status"] == "blocked"
    assert by_id["t3"]["status"] == "blocked"
    assert "fork" not in todo  # M11: the base never gets a fork block
    playbook: Any = read_json(repo / "playbook.vcontext.json")["playbook"]
    targets = {e["targetId"] for e in playbook["items"]}
    expected = {f"{a}-lesson-{n}" for a in ("alice", "bob") for n in range(WRITES)}
    assert expected | {"tests-in-tmp", "atomic-writes"} == targets
    assert len(playbook["items"]) == 2 + 2 * (WRITES + 1)
    assert run_cli("validate", cwd=repo).returncode == 0
    view = run_cli("view", "playbook.vcontext.json", "--format", "json", cwd=repo)
    entries = {e["targetId"]: e for e in json.loads(view.stdout)["entries"]}
    assert len(entries["tests-in-tmp"]["heads"]) == 2  # both updates kept, as concurrent heads
    assert read_any(tmp_path / "bob" / "todo.vcontext.json")["todoList"]["fork"]


def test_mcp_sync_tool_merges_this_work_trees_agent_and_says_when_it_stops(
    git_repo: Path, tmp_path: Path
) -> None:
    repo = documents_repo(git_repo)
    assert run_cli("fork", "alice", "--worktree", str(tmp_path / "alice"), cwd=repo).returncode == 0

    async def main() -> None:
        async with in_process(repo) as client:  # main is not an agent branch
            refused = await client.call_tool("vcontext_sync", {})
            assert refused.is_error
            assert "agents: [...]" in text(refused)
        async with in_process(tmp_path / "alice") as client:
            made = await client.call_tool("vbrief_create_todo", {"title": "from alice"})
            assert not made.is_error, text(made)
            dry = await client.call_tool("vcontext_sync", {"dryRun": True})
            assert not dry.is_error
            assert "would merge" in text(dry)
            done = await client.call_tool("vcontext_sync", {})
            assert not done.is_error, text(done)
            assert done.structured_content["ok"] is True
            status = await client.call_tool("vcontext_status", {})
            assert status.structured_content["agents"][0]["agent"] == "alice"
            diff = await client.call_tool(
                "vcontext_diff", {"from": "main~1", "to": "main", "uri": "vbrief://todos/main"}
            )
            assert "from alice" in text(diff)
            bad = await client.call_tool("vcontext_diff", {"from": "no-such-rev"})
            assert bad.is_error
            assert "unknown revision: no-such-rev" in text(bad)

    run(main)
    titles = [i["title"] for i in read_json(repo / "todo.vcontext.json")["todoList"]["items"]]
    assert "from alice" in titles
    data = read_json(repo / "todo.vcontext.json")
    data["todoList"]["items"][0]["title"] = "main's title"
    (repo / "todo.vcontext.json").write_text(json.dumps(data, indent=2) + "\n")
    run_git(repo, "commit", "-q", "-am", "main edits t1")

    async def conflict() -> None:
        async with in_process(tmp_path / "alice") as client:
            edit = await client.call_tool("vbrief_update_todo", {"id": "t1", "title": "alice's"})
            assert not edit.is_error, text(edit)
            stopped = await client.call_tool("vcontext_sync", {})
            assert stopped.is_error
            assert "CONFLICT" in text(stopped)
            assert stopped.structured_content["ok"] is False

    run(conflict)


def test_mcp_agent_name_from_the_command_line_is_checked_before_serving(tmp_path: Path) -> None:
    """``--agent`` names the author of the agent's commits, a trailer and a config key: a
    value that could not name an agent branch is refused in one line (exit 2), nothing
    served."""
    run_git(tmp_path, "init", "-q")
    for bad in ("-x", "a..b", "two words", "x\nVcontext-Drop: all"):
        proc = run_cli("mcp", "--agent", bad, cwd=tmp_path, input=b"")
        assert proc.returncode == 2, (bad, proc.stderr)
        assert b"not a valid agent name" in proc.stderr
        assert b"Traceback" not in proc.stderr
        assert proc.stdout == b""
