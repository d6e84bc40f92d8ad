"""The MCP server passes its own agent to everything it runs: README ("AGENT is
``--agent``, else ``GIT_VCONTEXT_AGENT`` …; the same agent is the ``mergedBy`` of the
server's syncs"), PRODUCT.md ("``mergedBy``" of the agent branch's fork). A server
started with ``--agent`` never reads ``GIT_VCONTEXT_AGENT`` again behind its back: an
invalid value in its environment does not stop its sync, and another agent's name does
not become the sync's ``mergedBy``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.mcp_support import run, stdio_params, text
from helpers.team import TASKS, setup


@pytest.mark.parametrize("env_agent", ["a..b", "intruder"])
def test_a_server_with_agent_syncs_as_its_agent_whatever_the_environment_says(
    tmp_path: Path, env_agent: str
) -> None:
    from mcp import Client

    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    env = {"GIT_VCONTEXT_AGENT": env_agent}

    async def main() -> None:
        async with Client(stdio_params(bo, "--agent", "bo", env=env)) as client:
            r = await client.call_tool("vbrief_update_todo", {"id": "t2", "status": "completed"})
            assert not r.is_error, text(r)
            synced = await client.call_tool("vcontext_sync", {"push": "origin"})
            assert not synced.is_error, text(synced)  # (before: "GIT_VCONTEXT_AGENT: not …")

    run(main)
    fork = json.loads((bo / TASKS).read_text())["todoList"]["fork"]
    assert fork["mergedBy"] == {"id": "bo", "type": "aiAgent"}  # (before: "intruder")
