"""``status`` in an agent's clone (PRODUCT.md, command-line contract: ``status`` shows the
agent branches; "Branch-per-agent workflow": one branch, often one clone, per agent).

An agent's clone (its ``agents/NAME`` checked out) syncs only itself. ``status`` there listed
every other agent its last fetch brought as ``origin/agents/NAME``, each with "git vcontext
sync agent-N creates agents/agent-N from it", and the base's line advised syncing all of them
with ``--push``: other clones' work, which the agent must not touch. As ``git status`` shows
only what concerns this clone, an agent's table holds its own branch (and any other local
one) and one line counts the others with the command that lists them (``status --all``). The
person running the team (main checked out, or a fresh clone) still sees every agent.

Real git: a bare remote, a person's clone, each agent's clone (``helpers.team``); every
printed command is pasted as printed (``shlex``).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from helpers.team import TASKS, Team, edit, git, setup, vcx

AGENTS = ["a0", "a1", "a2"]


def _add(clone: Path, item: str) -> None:
    edit(
        clone,
        TASKS,
        lambda d: d["todoList"]["items"].append({"id": item, "title": item, "status": "pending"}),
    )
    git(clone, "commit", "-qam", f"work {item}")


def _team(root: Path) -> Team:
    """Each agent adds an item and lands it; a0's clone then fetches: the others' branches
    are on origin only."""
    team = setup(root, AGENTS)
    for name, clone in team.agents.items():
        _add(clone, name)
        done = vcx(clone, "sync", name, "--push", "origin")
        assert done.returncode == 0, done.stdout + done.stderr
    git(team.agents["a0"], "fetch", "-q", "origin")
    return team


def _json(clone: Path, *args: str) -> dict[str, Any]:
    done = vcx(clone, "status", "--format", "json", *args)
    assert done.returncode == 0, done.stdout + done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def _pasted(line: str, clone: Path) -> tuple[str, int, str]:
    """The ``git vcontext …`` command at the end of ``line``, run as a shell reads it."""
    command = line[line.rindex("git vcontext ") :]
    words = shlex.split(command.removesuffix(" lists them").removesuffix(" syncs with origin/main"))
    assert words[:2] == ["git", "vcontext"], line
    done = vcx(clone, *words[2:])
    return " ".join(words), done.returncode, done.stdout + done.stderr


def test_status_in_an_agents_clone_lists_its_own_branch_and_counts_the_others(
    tmp_path: Path,
) -> None:
    team = _team(tmp_path)
    a0 = team.agents["a0"]

    shown = vcx(a0, "status")

    assert shown.returncode == 0, shown.stdout + shown.stderr
    lines = shown.stdout.splitlines()
    rows = [ln.split()[0] for ln in lines[1:] if ln.split()[:1] in (["a0"], ["a1"], ["a2"])]
    assert rows == ["a0"]  # its own row, and no other
    assert "creates" not in shown.stdout  # no "sync a1 creates agents/a1 from it"
    assert "sync a0 a1" not in shown.stdout
    [base] = [ln for ln in lines if ln.startswith("main: ")]
    assert base.endswith("git vcontext sync a0 --push origin syncs with origin/main"), base
    assert lines[-1] == (
        "2 other agents only on the remote, not listed in this agent's clone (a1, a2):"
        " git vcontext status --all lists them"
    )
    data = _json(a0)
    assert [r["agent"] for r in data["agents"]] == ["a0"]
    assert data["unlisted"] == ["a1", "a2"]

    # the line's command, pasted: every agent, as before
    command, code, out = _pasted(lines[-1], a0)
    assert command == "git vcontext status --all"
    assert code == 0, out
    assert "only on the remote, as origin/agents/a1" in out
    assert "only on the remote, as origin/agents/a2" in out
    assert [r["agent"] for r in _json(a0, "--all")["agents"]] == AGENTS

    # the base's line, pasted: a0's own sync with the remote's main, which lands
    command, code, out = _pasted(base, a0)
    assert command == "git vcontext sync a0 --push origin"
    assert code == 0, out
    assert git(a0, "branch", "--list", "agents/a1", "agents/a2").stdout == ""


def test_the_person_running_the_team_still_sees_every_agent(tmp_path: Path) -> None:
    """main checked out (no agent's clone): every agent, local or only on the remote, each
    with the sync that creates it (README, "In a fresh clone …")."""
    team = _team(tmp_path)
    git(team.person, "pull", "-q")

    data = _json(team.person)
    assert [r["agent"] for r in data["agents"]] == AGENTS
    assert data["unlisted"] == []
    shown = vcx(team.person, "status")
    assert "not listed" not in shown.stdout
    for name in AGENTS:
        assert f"git vcontext sync {name} creates agents/{name} from it" in shown.stdout


def test_an_agent_named_by_its_harness_is_listed_even_before_its_branch_is_here(
    tmp_path: Path,
) -> None:
    """``GIT_VCONTEXT_AGENT`` names the agent a clone works as (as sync reads it): in a
    clone where its branch is only on the remote yet, its own row stays (with the sync that
    creates it), the others are counted."""
    team = _team(tmp_path)
    git(team.person, "fetch", "-q")

    done = vcx(team.person, "status", "--format", "json", env={"GIT_VCONTEXT_AGENT": "a1"})

    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(done.stdout)
    assert [r["agent"] for r in data["agents"]] == ["a1"]
    assert data["agents"][0]["remote"] == "origin/agents/a1"
    assert data["unlisted"] == ["a0", "a2"]


def test_mcp_status_in_an_agents_work_tree_is_the_command_lines(tmp_path: Path) -> None:
    """PRODUCT.md, "MCP server": ``vcontext_status`` answers as ``status --format json``
    (one truth): in the agent's work tree the same rows and ``unlisted``; ``all`` lists
    them, as ``--all``."""
    from helpers.mcp_support import in_process, run, text

    team = _team(tmp_path)
    a0 = team.agents["a0"]
    answers: dict[str, Any] = {}

    async def main() -> None:
        async with in_process(a0) as client:
            for key, args in (("mine", {}), ("all", {"all": True})):
                done = await client.call_tool("vcontext_status", args)
                assert not done.is_error
                answers[key] = done.structured_content
                answers[f"{key} text"] = text(done)

    run(main)
    for key, args in (("mine", ()), ("all", ("--all",))):
        cli = _json(a0, *args)
        assert [r["agent"] for r in answers[key]["agents"]] == [r["agent"] for r in cli["agents"]]
        assert answers[key]["unlisted"] == cli["unlisted"]
    assert answers["mine"]["unlisted"] == ["a1", "a2"]
    assert answers["all"]["unlisted"] == []
    # said to an agent with tools alone: the tool call, not a shell command (advice.for_tools)
    assert answers["mine text"].endswith('(a1, a2): vcontext_status {"all": true} lists them')


def test_mcp_status_in_a_persons_clone_lists_every_agent_even_one_named_mcp(
    tmp_path: Path,
) -> None:
    """One truth with ``status`` (``agents.running_agent``: ``GIT_VCONTEXT_AGENT``, else the
    agent branch checked out): the server's own judgement of "an agent's work tree" is
    ``--agent``, else the agent branch checked out, never the name its writes fall back to
    (``mcp``). With main checked out and an agent named ``mcp`` on the remote, the command
    line lists every agent; the server listed ``mcp`` alone and counted the others."""
    from helpers.mcp_support import in_process, run

    team = setup(tmp_path, ["mcp", "a1"])
    for name, clone in team.agents.items():
        _add(clone, name)
        done = vcx(clone, "sync", name, "--push", "origin")
        assert done.returncode == 0, done.stdout + done.stderr
    git(team.person, "pull", "-q")
    answers: list[dict[str, Any]] = []

    async def main() -> None:
        async with in_process(team.person) as client:
            done = await client.call_tool("vcontext_status", {})
            assert not done.is_error
            answers.append(done.structured_content)

    run(main)
    cli = _json(team.person)
    assert [r["agent"] for r in cli["agents"]] == ["a1", "mcp"]
    assert cli["unlisted"] == []
    assert [r["agent"] for r in answers[0]["agents"]] == ["a1", "mcp"]
    assert answers[0]["unlisted"] == []


def test_an_agents_clone_still_says_its_clash_with_an_agent_only_on_the_remote(
    tmp_path: Path,
) -> None:
    """PRODUCT.md command-line contract (``status``: predicted conflicts; exit 1 for "found
    something") and ``status --help`` ("exits 1 when a sync would stop on a conflict, alone
    or after another agent's"): a1's work is on the remote as its branch only (not landed
    yet) and changes the title a0 changes. a0's clone leaves a1 out of its table, but not
    the clash: a0's own row says it, with a0's own sync as the next step, and status exits
    1, as in the person's clone. Before, a0's status said nothing of it and exited 0; a1
    landed first, and a0's sync then stopped on the conflict."""

    def retitle(clone: Path, title: str) -> None:
        def change(d: Any) -> None:
            d["todoList"]["items"][0]["title"] = title

        edit(clone, TASKS, change)
        git(clone, "commit", "-qam", f"title {title}")

    team = setup(tmp_path, ["a0", "a1"])
    a0, a1 = team.agents["a0"], team.agents["a1"]
    retitle(a0, "zero")
    retitle(a1, "one")
    git(a1, "push", "-q", "origin", "agents/a1")  # its branch only: main is as it was
    git(a0, "fetch", "-q", "origin")

    shown = vcx(a0, "status")

    assert shown.returncode == 1, shown.stdout + shown.stderr
    lines = shown.stdout.splitlines()
    assert [ln.split()[0] for ln in lines[1:] if ln.split()[:1] in (["a0"], ["a1"])] == ["a0"]
    mine = lines[lines.index("agents/a0:") :]
    assert any(ln.startswith("  clashes with agents/a1: each syncs alone") for ln in mine), mine
    assert "  next: git vcontext sync a0 --push origin" in mine
    assert lines[-1].startswith("1 other agent only on the remote, not listed")
    as_json = vcx(a0, "status", "--format", "json")
    assert as_json.returncode == 1, as_json.stdout + as_json.stderr
    data = json.loads(as_json.stdout)
    assert [r["agent"] for r in data["agents"]] == ["a0"]
    assert [c["with"] for c in data["agents"][0]["clashes"]] == ["agents/a1"]
    assert data["unlisted"] == ["a1"]
    drawn = vcx(a0, "status", "--format", "dot", "--exit-code")
    assert drawn.returncode == 1, drawn.stdout + drawn.stderr  # a picture of a0 alone, exit 1

    # what it predicts: a1 lands first, and a0's sync stops on the title
    assert vcx(a1, "sync", "a1", "--push", "origin").returncode == 0
    stopped = vcx(a0, "sync", "a0", "--push", "origin")
    assert stopped.returncode == 1, stopped.stdout + stopped.stderr
    assert "/todoList/items/0/title" in stopped.stdout
