"""The call an MCP sync answer names to publish a diverged local base's commits (PRODUCT.md,
"Resolving conflicts (agents and people)": a way out of every conflict sync reports;
"MCP server": every ``next`` is a tool call the agent can make). Pure logic: the answer's
``next`` for each tool, each work tree."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from git_vcontext.mcp_server.tools.sync import MERGE_FORK, SYNC, _diverged, _json
from git_vcontext.sync.syncer import Diverged


def _next(own: str | None, args: dict[str, Any], tool: str) -> dict[str, Any]:
    warning = "main here has 1 commit origin/main lacks: left out of this sync"
    held = Diverged("main", warning, warning, "cy", ())
    git_side: Any = SimpleNamespace(agent_branch=lambda: own)
    outcome: Any = SimpleNamespace(diverged=(held,))
    data: dict[str, Any] = {"warnings": [warning]}
    said = _diverged(git_side, args, outcome, data, tool)
    [call] = data["next"]
    assert said == [f"next, to publish them: {call['tool']} " + _json(call["arguments"])]
    return dict(call)


@pytest.mark.parametrize("own", [None, "bo"])
def test_a_vcontext_sync_naming_another_agent_names_that_agents_sync_again(
    own: str | None,
) -> None:
    """``vcontext_sync {"agents": ["cy"]}`` from a work tree that is not cy's (the
    person's, none; agent bo's): the call that publishes cy's commits names cy. Without
    its agents, the same server refuses it (no agent branch here) or syncs bo."""
    call = _next(own, {"agents": ["cy"], "push": "origin"}, SYNC)
    assert call == {"tool": SYNC, "arguments": {"agents": ["cy"], "push": "origin"}}


def test_the_agents_own_sync_and_merge_fork_name_their_own_call() -> None:
    """In cy's own work tree the call is its own ``vcontext_sync`` (no agents: cy's);
    ``vbrief_merge_fork`` (which names the served agent itself) names itself, its remote
    alone."""
    assert _next("cy", {"push": "origin"}, SYNC) == {"tool": SYNC, "arguments": {"push": "origin"}}
    forked = {"agents": ["cy"], "push": "origin"}
    assert _next(None, forked, MERGE_FORK) == {"tool": MERGE_FORK, "arguments": {"push": "origin"}}
