"""The warning for a local base whose own commits are an agent's work names that agent's
sync as ``sync`` prints it (``sync.advice.sync_command``): each word shell-quoted.

PRODUCT.md: "Every conflict message of ``sync`` ends with the exact next command(s)" (the
way out of conflicts). An agent branch may be named ``agents/a$(touch x)`` (git takes
``$``, ``(``, ``;``, a quote in a ref name); pasted, the command the warning printed ran
what the name held, or split it.
"""

from __future__ import annotations

import shlex
from types import SimpleNamespace
from typing import Any

import pytest

from git_vcontext.branches import agents
from git_vcontext.gitio import refs
from git_vcontext.remote import divergence
from git_vcontext.sync.syncer import CONFLICT, PairResult


@pytest.mark.parametrize("agent", ["bo", "a$(touch x)", "it's;rm"])
def test_the_agents_sync_named_by_a_diverged_base_is_one_word_per_argument(
    agent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(refs, "target", lambda _repo, name: f"tip of {name}")
    monkeypatch.setattr(divergence, "new_commits", lambda *_a: iter(["c"]))
    monkeypatch.setattr(divergence, "shown", lambda _repo, remote, base: f"{remote}/{base}")
    monkeypatch.setattr(agents, "list_agents", lambda _repo: [agent])
    monkeypatch.setattr(agents, "agent_branch", lambda _repo, a: f"agents/{a}")
    monkeypatch.setattr(divergence, "contains", lambda *_a: True)
    syncer: Any = SimpleNamespace(repo=None, diverged=[])
    merged = PairResult("bo", "agents/bo", "main", CONFLICT)

    divergence.diverged_base(syncer, "my remote", "main", merged)

    [found] = syncer.diverged
    assert found.agent == agent
    [command] = found.commands
    assert shlex.split(command) == ["git", "vcontext", "sync", agent, "--push", "my remote"]
    assert found.warning.endswith(f"\n  next: {command}")
