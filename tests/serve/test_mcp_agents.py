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

from conftest import run_cli, run_git
from mcp_support import documents_repo, read_any, read_json, run, stdio_params, text

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
    assert by_id["t2"]["status"] == "blocked" and by_id["t3"]["status"] == "blocked"
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
