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
from helpers.next_steps import follow
from helpers.team import (
    TASKS,
    Team,
    git,
    person_deletes_t1,
    person_diverges_local_base,
    remote_show,
    setup,
    vcx,
    works_on_t1,
)


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


def _t1_kept_in_progress(team: Team, clean: Path | None = None) -> None:
    """The remote's tasks once the agent's side landed: t1 in progress, t2 as it was (and
    the work tree ``clean`` left with nothing uncommitted)."""
    items = remote_show(team.remote, "main", TASKS)["todoList"]["items"]
    assert [(i["id"], i["status"]) for i in items] == [("t1", "inProgress"), ("t2", "pending")]
    if clean is not None:
        assert git(clean, "status", "--porcelain").stdout == ""


def _cy_puts_t1_in_progress(forks_at: Path, checks_out_at: Path, cy: Path) -> None:
    """Agent cy forked (``fork`` in ``forks_at``), its branch checked out at ``cy`` (a work
    tree of ``checks_out_at``), where it commits t1 in progress."""
    assert vcx(forks_at, "fork", "cy", "--reason", "agent cy").returncode == 0
    git(checks_out_at, "worktree", "add", "-q", str(cy), "agents/cy")
    works_on_t1(cy)


def test_another_agents_conflict_names_the_call_that_agent_makes_in_its_own_work_tree(
    tmp_path: Path,
) -> None:
    """A person's server syncs agent cy, which conflicts: ``next`` is the ``vcontext_sync``
    agent cy makes through the MCP server of its own work tree (named), not the CLI's
    ``git vcontext sync cy --checkout``; following it, then the calls it gives back, lands."""
    from mcp import Client

    team = setup(tmp_path, [])
    cy = tmp_path / "person-cy"
    _cy_puts_t1_in_progress(team.person, team.person, cy)
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
    _t1_kept_in_progress(team, cy)


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
    _t1_kept_in_progress(team, bo)


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


def test_a_local_base_diverged_by_a_persons_commit_is_the_persons_to_publish(
    tmp_path: Path,
) -> None:
    """The agent's round lands over a local base whose own commit (a person's) conflicts
    with the remote's: the warning over MCP drops the command line's ``next:`` block and
    gives the publishing as a person's steps (``person.steps``, said as such); run as
    given, they publish it, and the next ``vcontext_sync`` warns no more."""
    from mcp import Client

    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    at_main = person_diverges_local_base(team, "bo", tmp_path)

    async def main() -> None:
        async with Client(stdio_params(bo)) as client:
            r = await client.call_tool("vbrief_update_todo", {"id": "t1", "status": "inProgress"})
            assert not r.is_error, text(r)
            synced = await client.call_tool("vcontext_sync", {"push": "origin"})
            assert not synced.is_error, text(synced)  # the agent's round landed
            said = text(synced)
            assert "next:" not in said, said
            assert "A PERSON MUST DO THIS (no MCP tool can): main here has 1 commit" in said
            data = synced.structured_content
            warning = data["warnings"][0]  # (then: main was not moved)
            assert warning.startswith("main here has 1 commit origin/main lacks"), warning
            assert warning.endswith("left out of this sync, main not moved"), warning
            steps = data["person"]["steps"]
            assert steps[0] == f"git -C {at_main} pull --no-rebase origin main"
            assert "next" not in data  # the agent has nothing more to do
            follow(steps, bo, take="ours")  # the person's steps, as given
            quiet = await client.call_tool("vcontext_sync", {"push": "origin"})
            assert not quiet.is_error, text(quiet)
            assert quiet.structured_content["warnings"] == [], text(quiet)

    run(main)
    items = remote_show(team.remote, "main", TASKS)["todoList"]["items"]
    assert items[1]["title"] == "the person's title, here"
    assert items[0]["status"] == "inProgress"


def test_a_local_base_diverged_by_an_agents_work_names_that_agents_vcontext_sync(
    tmp_path: Path,
) -> None:
    """The local base holds agent cy's work (a local sync), which conflicts with the
    remote's: bo's round lands, and ``next`` is the ``vcontext_sync`` of cy that publishes
    it (not ``git vcontext sync cy --push origin``); following it, and the calls its
    conflict gives back in cy's own work tree, lands cy's work."""
    from mcp import Client

    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    at_main = tmp_path / "bo-main"
    cy = tmp_path / "bo-cy"
    git(bo, "worktree", "add", "-q", str(at_main), "main")
    _cy_puts_t1_in_progress(at_main, bo, cy)
    local = vcx(bo, "sync", "cy")  # cy's work reaches main here, not the remote
    assert local.returncode == 0, local.stdout + local.stderr
    person_deletes_t1(team)

    async def main() -> None:
        async with Client(stdio_params(bo)) as client:
            synced = await client.call_tool("vcontext_sync", {"push": "origin"})
            assert not synced.is_error, text(synced)
            assert "next:" not in text(synced), text(synced)
            data = synced.structured_content
            assert data["next"] == [
                {"tool": "vcontext_sync", "arguments": {"agents": ["cy"], "push": "origin"}}
            ]
            assert text(synced).endswith(
                'next, to publish them: vcontext_sync {"agents": ["cy"], "push": "origin"}'
            )
            step = data["next"][0]
            theirs = await client.call_tool(step["tool"], step["arguments"])
            assert theirs.is_error, text(theirs)
            [call] = theirs.structured_content["next"]
            assert call["agent"] == "cy"
            assert call["workTree"] == str(cy)
        async with Client(stdio_params(cy)) as client:
            landed = await _follow(client, theirs)
            assert landed.structured_content["ok"] is True, text(landed)

    run(main)
    _t1_kept_in_progress(team)


def test_another_agents_conflict_with_its_branch_checked_out_nowhere_is_a_persons_step_first(
    tmp_path: Path,
) -> None:
    """PRODUCT.md, "Resolving conflicts (agents and people)" (a way out of every conflict
    sync reports) and "MCP server" (an agent with MCP tools alone has no shell): agent
    cy's conflict, its branch checked out in no work tree, is first a person's steps (a
    work tree for the branch, cy's MCP server there), said as such, then the
    ``vcontext_sync`` cy makes there; followed, it lands."""
    from mcp import Client

    team = setup(tmp_path, [])
    cy = tmp_path / "person-cy"
    _cy_puts_t1_in_progress(team.person, team.person, cy)
    git(team.person, "worktree", "remove", str(cy))
    person_deletes_t1(team)

    async def main() -> None:
        async with Client(stdio_params(team.person)) as client:
            stopped = await client.call_tool("vcontext_sync", {"agents": ["cy"], "push": "origin"})
        assert stopped.is_error, text(stopped)
        data = stopped.structured_content
        assert data["person"] == {
            "why": "agents/cy is checked out in no work tree",
            "steps": [
                "check agents/cy out in a work tree of its own (git worktree add PATH agents/cy)",
                "start agent cy's MCP server in that work tree (git vcontext mcp)",
            ],
        }
        call = {"tool": "vcontext_sync", "arguments": {"push": "origin"}, "agent": "cy"}
        assert data["next"] == [{**call, "after": "person"}]
        said = text(stopped)
        assert "A PERSON MUST DO THIS (no MCP tool can): agents/cy is checked out in no" in said
        assert said.endswith(
            "next, once the person has done it, by agent cy through the MCP server of its "
            'work tree: vcontext_sync {"push": "origin"}'
        )
        git(team.person, "worktree", "add", "-q", str(cy), "agents/cy")  # the person's steps
        async with Client(stdio_params(cy)) as theirs:
            landed = await _follow(theirs, stopped)
            assert landed.structured_content["ok"] is True, text(landed)

    run(main)
    _t1_kept_in_progress(team, cy)


def test_merge_fork_names_another_work_trees_call_as_vcontext_sync(tmp_path: Path) -> None:
    """PRODUCT.md, "Forks over MCP" (``vbrief_merge_fork``: as ``sync``) and "MCP server"
    (every ``next`` a tool call): a person's server started ``--agent cy`` merges cy's
    fork, which conflicts in the work tree cy's branch is checked out in. ``next`` is the
    ``vcontext_sync`` made through the MCP server of that work tree (``agent``,
    ``workTree``), as ``vcontext_sync`` names it; before, ``vbrief_merge_fork`` renamed
    every ``vcontext_sync`` of its answer, this call and its line included. Following it
    there lands."""
    from mcp import Client

    team = setup(tmp_path, [])
    cy = tmp_path / "person-cy"
    _cy_puts_t1_in_progress(team.person, team.person, cy)
    person_deletes_t1(team)

    async def main() -> None:
        async with Client(stdio_params(team.person, "--agent", "cy")) as client:
            stopped = await client.call_tool("vbrief_merge_fork", {"push": "origin"})
        assert stopped.is_error, text(stopped)
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
        assert "vbrief_merge_fork" not in text(stopped)
        assert text(stopped).endswith(
            f'next, by agent cy through the MCP server of {cy}: vcontext_sync {{"push": "origin"}}'
        )
        async with Client(stdio_params(cy)) as theirs:
            landed = await _follow(theirs, stopped)
            assert landed.structured_content["ok"] is True, text(landed)

    run(main)
    _t1_kept_in_progress(team, cy)
