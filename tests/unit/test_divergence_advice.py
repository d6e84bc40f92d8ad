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
from git_vcontext.gitio import refs, worktrees
from git_vcontext.gitio.operands import shown_branch
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


def test_a_persons_commands_for_a_diverged_base_quote_the_base_and_mask_a_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The commands that publish a person's own commits on the local base: the base one
    word (``main$(id)``: a branch may hold it), a ``--push`` URL's token masked as every
    line of sync masks it (PRODUCT.md "Sync at scale": credentials written nowhere)."""
    base = "ma$(id)n"
    url = "https://user:s3cr3tTOKEN@example.com/x.git"
    monkeypatch.setattr(refs, "target", lambda _repo, name: f"tip of {name}")
    monkeypatch.setattr(divergence, "new_commits", lambda *_a: iter(["c"]))
    monkeypatch.setattr(divergence, "shown", lambda _repo, r, b: shown_branch(r, b, named=False))
    monkeypatch.setattr(agents, "list_agents", lambda _repo: [])
    monkeypatch.setattr(worktrees, "checkouts", lambda _repo: {base: "/w t"})
    syncer: Any = SimpleNamespace(repo=None, diverged=[])
    merged = PairResult("bo", "agents/bo", base, CONFLICT)

    divergence.diverged_base(syncer, url, base, merged)

    [found] = syncer.diverged
    assert found.agent is None
    assert "s3cr3tTOKEN" not in found.warning
    masked = "https://user:***@example.com/x.git"
    words = [shlex.split(c) for c in found.commands]
    assert ["git", "-C", "/w t", "pull", "--no-rebase", masked, base] in words
    assert ["git", "-C", "/w t", "push", masked, base] in words
