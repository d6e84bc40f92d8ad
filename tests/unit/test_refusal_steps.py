"""A conflict sync could not leave stopped carries the person's steps apart from the sync
that goes on after them (``conflicts.checkout.Refusal``): the command line prints both, in
order; the MCP server gives the steps as the person's and its own ``vcontext_sync`` after
them, with no need to tell the CLI's command apart by its text.

PRODUCT.md, "Resolving conflicts (agents and people)": every conflict message ends with
the exact next commands; "MCP server": every ``next`` is a tool call or follows a
person's step said as such, never a shell command for the agent.
"""

from __future__ import annotations

from types import SimpleNamespace

from git_vcontext.conflicts.checkout import Refusal
from git_vcontext.mcp_server.tools.sync import _refused_steps


def test_a_refusal_keeps_the_persons_steps_apart_from_the_sync_after_them() -> None:
    refusal = Refusal(
        "bo",
        "agents/bo",
        "agents/bo is checked out in /w/bo with local changes (notes.txt)",
        ("git -C /w/bo commit -am 'work in progress'",),
        "git vcontext sync bo --push origin --checkout",
    )
    assert refusal.commands == (
        "git -C /w/bo commit -am 'work in progress'",
        "git vcontext sync bo --push origin --checkout",
    )
    whys, steps = _refused_steps(SimpleNamespace(refusals=[refusal]), [])  # type: ignore[arg-type]
    assert whys == [refusal.message]
    assert steps == ["git -C /w/bo commit -am 'work in progress'"]


def test_a_refusal_without_a_sync_after_it_is_its_steps() -> None:
    refusal = Refusal("bo", "agents/bo", "a merge is in progress there")
    assert refusal.commands == ()
    assert _refused_steps(SimpleNamespace(refusals=[refusal]), []) == (  # type: ignore[arg-type]
        [refusal.message],
        [],
    )
