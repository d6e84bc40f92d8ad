"""Issue 34, step 4: an agent that reaches its memory only through MCP gets out of every
conflict ``vcontext_sync`` reports with tool calls alone.

PRODUCT.md, "Resolving conflicts (agents and people)" and "MCP server": ``vcontext_sync``
returns the conflicts as data (path, conflict ids, both sides) and leaves them resolvable
by ``vcontext_conflicts``/``vcontext_resolve`` on the agent's branch (the server runs in
the agent's work tree); the next ``vcontext_sync`` lands. Through a bare remote, the
pre-push hook and the SDK's own stdio client; the agent calls exactly the tools the
answers name (``next``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.mcp_support import run, stdio_params, text
from helpers.team import TASKS, Team, git, person_deletes_t1, remote_show, setup, vcx


def _t1_deleted(tmp_path: Path) -> tuple[Team, Path]:
    """A team with agent bo, whose person has deleted task t1 on the remote's main: (the
    team, bo's work tree)."""
    team = setup(tmp_path, ["bo"])
    person_deletes_t1(team)
    return team, team.agents["bo"]


async def _sync_stops_on_t1(client: Any, status: str) -> Any:
    """The agent sets t1's ``status`` (which the person deleted meanwhile) and syncs: the
    sync stops on that conflict; its answer."""
    r = await client.call_tool("vbrief_update_todo", {"id": "t1", "status": status})
    assert not r.is_error, text(r)
    stopped = await client.call_tool("vcontext_sync", {"push": "origin"})
    assert stopped.is_error, text(stopped)
    return stopped


async def _follow_next(client: Any, answer: Any, take: str) -> Any:
    """Call the tools ``answer`` names next, in order (``take`` for each resolve)."""
    last = answer
    for step in answer.structured_content["next"]:
        args = dict(step["arguments"])
        if step["tool"] == "vcontext_resolve":
            args["take"] = take
        last = await client.call_tool(step["tool"], args)
        assert not last.is_error or step["tool"] == "vcontext_sync", text(last)
    return last


def test_issue_34_step_4_an_mcp_agent_gets_out_of_a_sync_conflict_with_tool_calls(
    tmp_path: Path,
) -> None:
    from mcp import Client

    team, bo = _t1_deleted(tmp_path)

    async def main() -> None:
        async with Client(stdio_params(bo)) as client:
            stopped = await _sync_stops_on_t1(client, "inProgress")
            data = stopped.structured_content
            assert data["ok"] is False
            assert data["stopped"] == {"worktree": str(bo), "merging": "origin/main"}
            [f] = data["conflicts"]
            assert f["path"] == TASKS
            assert f["labels"] == {"ours": "agents/bo", "theirs": "origin/main"}
            [c] = f["conflicts"]
            assert c["where"] == "todoList.items[t1]"
            assert c["ours"]["status"] == "inProgress"
            assert c["theirs"] is None
            assert [s["tool"] for s in data["next"]] == ["vcontext_resolve", "vcontext_sync"]
            assert data["next"][0]["arguments"]["conflict"] == c["id"]
            assert data["next"][-1]["arguments"] == {"push": "origin"}
            assert text(stopped).splitlines()[-2:] == [
                f'  vcontext_resolve {{"path": "{TASKS}", "conflict": "{c["id"]}", '
                '"take": "ours"} (or "take": "theirs", or "value": …)',
                '  vcontext_sync {"push": "origin"}',
            ]
            listed = await client.call_tool("vcontext_conflicts", {})
            assert listed.structured_content["files"][0]["conflicts"][0]["id"] == c["id"]
            # a write to the conflicted document waits for the resolution
            refused = await client.call_tool(
                "vbrief_update_todo", {"id": "t2", "status": "blocked"}
            )
            assert refused.is_error

            landed = await _follow_next(client, stopped, take="ours")
            assert not landed.is_error, text(landed)
            assert landed.structured_content["ok"] is True
            assert "committed the merge" not in text(landed)  # vcontext_resolve committed it
            again = await client.call_tool("vcontext_sync", {"push": "origin"})
            assert not again.is_error, text(again)

    run(main)
    items = remote_show(team.remote, "main", TASKS)["todoList"]["items"]
    assert [(i["id"], i["status"]) for i in items] == [("t1", "inProgress"), ("t2", "pending")]
    assert git(bo, "status", "--porcelain").stdout == ""
    assert team.local_only(bo) == []
    assert git(team.remote, "fsck", "--no-progress").returncode == 0
    assert git(bo, "fsck", "--no-progress").returncode == 0


def test_vcontext_sync_gives_back_the_conflicts_left_and_commits_a_merge_settled_elsewhere(
    tmp_path: Path,
) -> None:
    """While conflicts are left, vcontext_sync returns them again (nothing moves); once a
    person settled them with the command line (staged, not committed), vcontext_sync
    commits sync's merge and lands."""
    from mcp import Client

    team, bo = _t1_deleted(tmp_path)

    async def main() -> None:
        async with Client(stdio_params(bo)) as client:
            first = await _sync_stops_on_t1(client, "blocked")
            second = await client.call_tool("vcontext_sync", {"push": "origin"})
            assert second.is_error
            assert "a merge is in progress here" in text(second)
            assert second.structured_content["conflicts"] == first.structured_content["conflicts"]
            assert vcx(bo, "resolve", TASKS, "--take", "theirs").returncode == 0
            landed = await client.call_tool("vcontext_sync", {"push": "origin"})
            assert not landed.is_error, text(landed)
            assert text(landed).startswith("committed the merge (")

    run(main)
    items = remote_show(team.remote, "main", TASKS)["todoList"]["items"]
    assert [i["id"] for i in items] == ["t2"]
    assert team.local_only(bo) == []


def test_the_next_vcontext_sync_names_a_url_upstream_without_its_credentials(
    tmp_path: Path,
) -> None:
    """An agent whose base tracks a URL holding a token (``branch.main.remote``): the
    ``next`` calls the server suggests name that URL with the token masked (the client, a
    model's context, never sees it), and the suggested call still lands (command-line
    contract: credentials never printed; "Resolving conflicts": the way out works)."""
    from mcp import Client

    team, bo = _t1_deleted(tmp_path)
    token = "s3cr3tTOKEN"
    url = f"file://user:{token}@localhost{team.remote}"
    git(bo, "config", "branch.main.remote", url)
    git(bo, "config", "branch.main.merge", "refs/heads/main")

    async def main() -> None:
        async with Client(stdio_params(bo)) as client:
            stopped = await _sync_stops_on_t1(client, "inProgress")
            resolve = stopped.structured_content["next"][0]
            assert resolve["tool"] == "vcontext_resolve"
            resolved = await client.call_tool("vcontext_resolve", resolve["arguments"])
            assert not resolved.is_error, text(resolved)
            assert token not in text(resolved) + repr(resolved.structured_content)
            assert resolved.structured_content["next"] == [
                {
                    "tool": "vcontext_sync",
                    "arguments": {"push": f"file://user:***@localhost{team.remote}"},
                }
            ]
            landed = await _follow_next(client, resolved, take="ours")
            assert not landed.is_error, text(landed)
            assert token not in text(landed) + repr(landed.structured_content)

    run(main)
    items = remote_show(team.remote, "main", TASKS)["todoList"]["items"]
    assert [(i["id"], i["status"]) for i in items] == [("t1", "inProgress"), ("t2", "pending")]
