"""``vcontext_status`` lists the agents ``git vcontext status --format json`` lists in the
same clone (PRODUCT.md, "One truth"; the tool's description: "as 'git vcontext status
--format json'"): the agents only a remote has are left out in an agent's clone alone, the
one an agent's branch (or ``--agent``) makes. The server's stamp name when it names no
agent (``mcp``) is no agent's clone: a person's server in a team with an agent named
``mcp`` still lists every agent, as the command line does there.

Real git: a bare remote, a person's clone, each agent's clone (``helpers.team``); the SDK's
client to a server in this process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.mcp_support import in_process, run, text
from helpers.team import TASKS, Team, edit, git, setup, vcx

AGENTS = ["a1", "mcp"]


def _team(root: Path) -> Team:
    """Each agent adds an item and lands it (its branch pushed); the person fetches: the
    agents' branches are on origin only in the person's clone."""
    team = setup(root, AGENTS)
    for name, clone in team.agents.items():

        def add(data: Any, item: str = name) -> None:
            data["todoList"]["items"].append({"id": item, "title": item, "status": "pending"})

        edit(clone, TASKS, add)
        git(clone, "commit", "-qam", f"work {name}")
        done = vcx(clone, "sync", name, "--push", "origin")
        assert done.returncode == 0, done.stdout + done.stderr
    git(team.person, "pull", "-q")
    return team


def _listed(
    clone: Path, *, agent: str | None = None, everyone: bool = False
) -> tuple[list[str], list[str]]:
    """The agents ``vcontext_status`` (``everyone``: ``{"all": true}``) lists and leaves out,
    served in ``clone``."""

    async def main() -> Any:
        options = {} if agent is None else {"agent": agent}
        async with in_process(clone, **options) as client:
            return await client.call_tool("vcontext_status", {"all": True} if everyone else {})

    answer = run(main)
    assert not answer.is_error, text(answer)
    data = answer.structured_content
    return [r["agent"] for r in data["agents"]], data["unlisted"]


def _cli_listed(
    clone: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[list[str], list[str]]:
    done = vcx(clone, "status", "--format", "json", *args, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(done.stdout)
    return [r["agent"] for r in data["agents"]], data["unlisted"]


def test_a_persons_server_lists_every_agent_as_status_does_even_one_named_mcp(
    tmp_path: Path,
) -> None:
    team = _team(tmp_path)

    assert _cli_listed(team.person) == (AGENTS, [])
    assert _listed(team.person) == (AGENTS, [])  # not ("mcp" only, ["a1"] left out)
    # --agent names the clone's agent, as an agent's branch does: the others left out
    assert _listed(team.person, agent="mcp") == (["mcp"], ["a1"])


def test_an_agents_server_leaves_out_the_others_as_status_does_and_all_lists_them(
    tmp_path: Path,
) -> None:
    """In agent a1's clone (its branch checked out), the agents only the remote has are
    left out (``unlisted``) by the tool as by the command line; ``{"all": true}`` lists
    them, as ``status --all``."""
    team = _team(tmp_path)
    a1 = team.agents["a1"]
    git(a1, "fetch", "-q", "origin")

    assert _cli_listed(a1) == (["a1"], ["mcp"])
    assert _listed(a1) == (["a1"], ["mcp"])
    assert _cli_listed(a1, "--all") == (AGENTS, [])
    assert _listed(a1, everyone=True) == (AGENTS, [])


def test_a_server_started_with_git_vcontext_agent_serves_as_that_agent_as_the_cli_does(
    tmp_path: Path,
) -> None:
    """README: an agent's clone is one with ``agents/NAME`` checked out "or
    ``GIT_VCONTEXT_AGENT`` set by its harness". ``git vcontext mcp`` started with it (no
    ``--agent``) is that agent's server, as ``status`` is that agent's there: its own row,
    the others counted in ``unlisted``; and it writes as that agent. A value that could
    name no agent branch is refused in one line (exit 2), as ``--agent``'s is."""
    from mcp import Client

    from helpers.mcp_support import stdio_params

    team = _team(tmp_path)
    env = {"GIT_VCONTEXT_AGENT": "a1"}
    assert _cli_listed(team.person, env=env) == (["a1"], ["mcp"])

    async def main() -> tuple[Any, Any]:
        async with Client(stdio_params(team.person, env=env)) as client:
            status = await client.call_tool("vcontext_status", {})
            written = await client.call_tool("vbrief_create_todo", {"title": "from a1"})
            return status, written

    status, written = run(main)
    assert not status.is_error, text(status)
    data = status.structured_content
    assert ([r["agent"] for r in data["agents"]], data["unlisted"]) == (["a1"], ["mcp"])
    assert not written.is_error, text(written)
    document = json.loads((team.person / TASKS).read_text())
    assert document["todoList"]["lastModifiedBy"] == {"id": "a1", "type": "aiAgent"}

    refused = vcx(team.person, "mcp", env={"GIT_VCONTEXT_AGENT": "a..b"})
    assert refused.returncode == 2, refused.stderr
    assert "GIT_VCONTEXT_AGENT: not a valid agent name: 'a..b'" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert refused.stdout == ""


def test_the_command_line_refuses_a_bad_agent_name_from_the_environment_as_mcp_does(
    tmp_path: Path,
) -> None:
    """README: ``GIT_VCONTEXT_AGENT`` names the agent running a command; ``mcp`` refuses a
    value that could name no agent branch (one line, exit 2), and so do the commands that
    read it (``agents.running_agent``: status, sync's ``mergedBy``, resolve's
    ``resolvedBy``), which took it unchecked: ``status`` listed as for an agent 'a..b'
    (exit 0) and sync would write it into the documents as an ``aiAgent``'s id."""
    team = _team(tmp_path)
    for bad in ("a..b", "bad name", "-x"):
        done = vcx(team.person, "status", env={"GIT_VCONTEXT_AGENT": bad})
        assert done.returncode == 2, done.stdout
        assert f"GIT_VCONTEXT_AGENT: not a valid agent name: {bad!r}" in done.stderr
        assert done.stderr.count("\n") == 1, done.stderr
        assert done.stdout == ""
    assert vcx(team.person, "status", env={"GIT_VCONTEXT_AGENT": " "}).returncode == 0
