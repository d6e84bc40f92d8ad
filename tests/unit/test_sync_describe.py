"""How ``sync`` says what happened to a pair (PRODUCT.md, "Branch-per-agent workflow":
sync merges both ways, always as real merge commits)."""

from __future__ import annotations

from git_vcontext.conflicts.stopped import Stopped
from git_vcontext.record import replace
from git_vcontext.sync.syncer import MERGED, PairResult
from git_vcontext.workflow.sync import describe, stopped_commands


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


def _merged(**fields: object) -> PairResult:
    return replace(PairResult("al", "agents/al", "main", MERGED), **fields)


def test_the_documents_an_agent_branch_gets_are_named_under_its_update() -> None:
    """PRODUCT.md: advice that leads nowhere is a defect; a count with nothing under it
    ("update 3 documents on agents/al") named no file: each list is named, as git quotes
    paths, the agent branch's under a line of its own when it differs from the base's."""
    only = _merged(agent_moves=True, agent_documents=("b.vcontext.json", "a\tb.vcontext.json"))
    assert describe(only, dry_run=True) == [
        "agents/al <-> main: would update 2 documents on agents/al",
        "  b.vcontext.json",
        '  "a\\tb.vcontext.json"',
    ]
    both = replace(only, base_moves=True, documents=("todo.vcontext.json",), base_commit="a" * 40)
    assert describe(both)[1:] == [
        "  todo.vcontext.json",
        "  on agents/al:",
        "    b.vcontext.json",
        '    "a\\tb.vcontext.json"',
    ]
    same = replace(both, agent_documents=("todo.vcontext.json",))
    assert describe(same)[1:] == ["  todo.vcontext.json"]


def test_a_long_list_of_documents_ends_with_how_many_more() -> None:
    many = tuple(f"d{i:02}.vcontext.json" for i in range(13))
    lines = describe(_merged(agent_moves=True, agent_documents=many))
    assert lines[1:] == [*(f"  {d}" for d in many[:10]), "  and 3 more"]


def test_a_merge_left_stopped_with_nothing_conflicted_is_committed_without_a_resolve_line() -> None:
    """PRODUCT.md, "Resolving conflicts": every conflict message ends with the exact next
    commands. ``--checkout`` can leave a merge with every file merged (``conflicted: none``):
    its block said ``git vcontext resolve FILE --take <ours|theirs>``, a file that is not
    there (exit 3 when pasted)."""
    left = Stopped("/w/al", "agents/al", "origin/main", ())
    assert stopped_commands(left, "al", "origin") == [
        "cd /w/al",
        "git commit --no-edit",
        "git vcontext sync al --push origin",
    ]
    one = Stopped("/w/al", "agents/al", "origin/main", ("todo.vcontext.json",))
    assert stopped_commands(one, "al", None) == [
        "cd /w/al",
        "git vcontext conflicts",
        "git vcontext resolve todo.vcontext.json --take <ours|theirs>",
        "git commit --no-edit",
        "git vcontext sync al",
    ]
