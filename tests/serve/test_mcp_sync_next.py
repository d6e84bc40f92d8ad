"""Every ``next`` a ``vcontext_sync`` answer gives is an MCP tool call the agent (or the
agent it names) can make, or a person's step said as such; never a shell command for the
agent (PRODUCT.md, "Resolving conflicts (agents and people)": a way out of every conflict
sync reports; "MCP server": an agent with MCP tools alone has no shell).

Through a bare remote and the SDK's own stdio client; the tests follow the ``next`` given
until the work lands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.mcp_support import run, stdio_params, text
from helpers.team import TASKS, edit, git, person_deletes_t1, remote_show, setup, vcx


async def _follow(client: Any, answer: Any) -> Any:
    """Call the tools ``answer`` names next, in order (``take: ours`` for each resolve),
    until one names none: the last answer."""
    while True:
        steps = answer.structured_content.get("next") or []
        assert steps, text(answer)
        for step in steps:
            assert set(step) <= {"tool", "arguments", "or", "after", "agent", "workTree"}, step
        last = answer
        for step in steps:
            last = await client.call_tool(step["tool"], dict(step["arguments"]))
        if not last.is_error:
            return last
        answer = last


def _status(item: str) -> Any:
    def change(data: Any) -> None:
        for i in data["todoList"]["items"]:
            if i["id"] == item:
                i["status"] = "inProgress"

    return change


def test_another_agents_conflict_names_the_call_that_agent_makes_in_its_own_work_tree(
    tmp_path: Path,
) -> None:
    """A person's server syncs agent cy, which conflicts: ``next`` is the ``vcontext_sync``
    agent cy makes through the MCP server of its own work tree (named), not the CLI's
    ``git vcontext sync cy --checkout``; following it, then the calls it gives back, lands."""
    from mcp import Client

    team = setup(tmp_path, [])
    cy = tmp_path / "person-cy"
    assert vcx(team.person, "fork", "cy", "--reason", "agent cy").returncode == 0
    git(team.person, "worktree", "add", "-q", str(cy), "agents/cy")
    edit(cy, TASKS, _status("t1"))
    git(cy, "commit", "-q", "-am", "cy: t1 in progress")
    person_deletes_t1(team)

    async def main() -> None:
        async with Client(stdio_params(team.person)) as client:
            stopped = await client.call_tool("vcontext_sync", {"agents": ["cy"], "push": "origin"})
        assert stopped.is_error, text(stopped)
        assert "git vcontext" not in text(stopped)
        data = stopped.structured_content
        assert [c["agent"] for c in data["conflicted"]] == ["cy"]
        assert data["next"] == [
            {
                "tool": "vcontext_sync",
                "arguments": {"push": "origin"},
                "agent": "cy",
                "workTree": str(cy),
            }
        ]
        assert text(stopped).endswith(
            f'next, by agent cy through the MCP server of {cy}: vcontext_sync {{"push": "origin"}}'
        )
        async with Client(stdio_params(Path(data["next"][0]["workTree"]))) as theirs:
            landed = await _follow(theirs, stopped)
            assert landed.structured_content["ok"] is True, text(landed)

    run(main)
    items = remote_show(team.remote, "main", TASKS)["todoList"]["items"]
    assert [(i["id"], i["status"]) for i in items] == [("t1", "inProgress"), ("t2", "pending")]
    assert git(cy, "status", "--porcelain").stdout == ""


def test_a_refused_pair_is_a_persons_step_then_the_same_vcontext_sync(
    tmp_path: Path,
) -> None:
    """The agent's own branch cannot move (its work tree has a person's uncommitted
    change): the answer gives the person's step (said as such) and then the same
    ``vcontext_sync`` (before: no ``next`` at all); once the person has committed,
    following ``next`` gets the conflict's ``vcontext_resolve`` calls, and lands."""
    from mcp import Client

    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    person_deletes_t1(team)
    (bo / "notes.txt").write_text("draft\n")
    git(bo, "add", "notes.txt")
    git(bo, "commit", "-q", "-m", "notes")
    (bo / "notes.txt").write_text("draft, edited by the person\n")

    async def main() -> None:
        async with Client(stdio_params(bo)) as client:
            r = await client.call_tool("vbrief_update_todo", {"id": "t1", "status": "inProgress"})
            assert not r.is_error, text(r)
            stopped = await client.call_tool("vcontext_sync", {"push": "origin"})
            assert stopped.is_error, text(stopped)
            data = stopped.structured_content
            assert data.get("next") == [
                {"tool": "vcontext_sync", "arguments": {"push": "origin"}, "after": "person"}
            ]
            assert data["person"]["why"] == "sync could not move agents/bo"
            assert data["person"]["steps"] == [
                f"agents/bo is checked out in {bo} with local changes (notes.txt): "
                "commit or stash them, then sync again"
            ]
            assert "A PERSON MUST DO THIS (no MCP tool can)" in text(stopped)
            assert "git vcontext" not in text(stopped)
            git(bo, "commit", "-q", "-am", "work in progress")  # the person's step
            landed = await _follow(client, stopped)
            assert landed.structured_content["ok"] is True, text(landed)

    run(main)
    items = remote_show(team.remote, "main", TASKS)["todoList"]["items"]
    assert [(i["id"], i["status"]) for i in items] == [("t1", "inProgress"), ("t2", "pending")]
    assert git(bo, "status", "--porcelain").stdout == ""


def test_a_persons_merge_in_progress_is_the_persons_to_finish_then_vcontext_sync(
    tmp_path: Path,
) -> None:
    """A merge the person started in the agent's work tree (not one sync left): the
    refusal says finishing or aborting it is the person's step, said as such (no MCP tool
    commits or aborts it), then ``vcontext_sync``, which lands once the person has."""
    from mcp import Client

    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    (bo / "notes.txt").write_text("draft\n")
    git(bo, "add", "notes.txt")
    git(bo, "commit", "-q", "-m", "notes")
    git(bo, "switch", "-q", "-c", "side")
    (bo / "notes.txt").write_text("side\n")
    git(bo, "commit", "-q", "-am", "side")
    git(bo, "switch", "-q", "agents/bo")
    (bo / "notes.txt").write_text("bo\n")
    git(bo, "commit", "-q", "-am", "bo")
    assert git(bo, "merge", "-q", "side", check=False).returncode != 0  # stopped

    async def main() -> None:
        async with Client(stdio_params(bo)) as client:
            refused = await client.call_tool("vcontext_sync", {"push": "origin"})
            assert refused.is_error
            assert (
                "A PERSON MUST DO THIS (no MCP tool can): finish it (git commit --no-edit) "
                "or abort it (git merge --abort); then vcontext_sync"
            ) in text(refused), text(refused)
            git(bo, "merge", "--abort")  # the person's step
            landed = await client.call_tool("vcontext_sync", {"push": "origin"})
            assert not landed.is_error, text(landed)

    run(main)
    assert team.local_only(bo) == []
