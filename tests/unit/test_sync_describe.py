"""How ``sync`` says what happened to a pair (PRODUCT.md, "Branch-per-agent workflow":
sync merges both ways, always as real merge commits)."""

from __future__ import annotations

from git_vcontext.record import replace
from git_vcontext.sync.syncer import MERGED, PairResult
from git_vcontext.workflow.sync import describe


def test_a_merge_back_that_changes_no_document_is_not_called_an_update_of_0_documents() -> None:
    """The agent's work reached the base and the base holds nothing else: the merge commit
    on the agent branch joins the histories only; it said "update 0 documents"."""
    r = PairResult(
        "alice",
        "agents/alice",
        "main",
        MERGED,
        base_commit="a" * 40,
        agent_commit="b" * 40,
        documents=("todo.vcontext.json",),
        base_moves=True,
        agent_moves=True,
    )
    (line, *_) = describe(r)
    assert "update 0 documents" not in line
    assert line.endswith(
        "merge main into agents/alice (its documents hold the base's already) (bbbbbbbbbbbb)"
    )
    (line, *_) = describe(replace(r, agent_documents=("todo.vcontext.json",)))
    assert "update 1 document on agents/alice (bbbbbbbbbbbb)" in line
