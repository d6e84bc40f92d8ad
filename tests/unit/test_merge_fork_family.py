"""M11 when both sides carry a fork of one parent: the same fork edited twice, or siblings.

Neither side is then the other's parent: ``parentSequence`` is left alone and ours' fork
is kept as it is, without fork notes (``fork-parent-sequence``, ``parallel-edits``).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.codecs import parse
from git_vcontext.merging import merge3
from helpers.merging import merge_files

FORK_NOTES = {"fork-parent-sequence", "parallel-edits"}
A2 = "corpus/spec-embedded/history/Appendix-A-Complete-Examples-All-Extensions-A2-Plan-Coordina"


def plan(seq: int, fork: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"uid": "u-1", "title": "P", "status": "draft", "sequence": seq}
    if fork is not None:
        body["fork"] = fork
    return {"vContextInfo": {"version": "0.4"}, "plan": {**body, **extra}}


def fork(at: str, parent_seq: int = 3, **extra: Any) -> dict[str, Any]:
    return {"parentUid": "u-1", "parentSequence": parent_seq, "forkedAt": at, **extra}


def kinds(result: Any) -> set[str]:
    return {n.kind for n in result.notes}


def test_m11_two_edits_of_one_fork_leave_parent_sequence_alone() -> None:
    f = fork("2025-01-01T00:00:00Z")
    r = merge3(plan(4, f), plan(5, f, status="approved"), plan(5, f, title="Q"))
    assert r.clean
    assert r.data["plan"]["fork"] == f
    assert r.data["plan"]["sequence"] == 6  # M8 as usual
    assert not kinds(r) & FORK_NOTES


def test_m11_the_same_fork_edited_on_one_side_only_is_not_rewritten_either() -> None:
    f = fork("2025-01-01T00:00:00Z")
    r = merge3(plan(4, f), plan(4, f), plan(5, f, title="Q"))
    assert r.data == plan(5, f, title="Q")
    assert not kinds(r) & FORK_NOTES


def test_m11_sibling_forks_keep_ours_fork_unchanged_and_note_nothing() -> None:
    mine, sibling = fork("2025-01-01T00:00:00Z"), fork("2025-01-02T00:00:00Z", 4, forkReason="b")
    for base in (plan(3), plan(3, mine)):
        r = merge3(base, plan(5, mine, status="approved"), plan(6, sibling, title="Q"))
        assert r.clean
        assert r.data["plan"]["fork"] == mine
        assert r.data["plan"]["uid"] == "u-1"
        assert not kinds(r) & FORK_NOTES


def test_m11_a_fork_still_learns_its_parents_sequence() -> None:
    f = fork("2025-01-01T00:00:00Z")
    r = merge3(plan(3, f), plan(4, f, status="approved"), plan(7, title="Q"))
    assert r.data["plan"]["fork"]["parentSequence"] == 7
    assert "fork-parent-sequence" in kinds(r)


@pytest.mark.parametrize("name", ["json/11-855d335.json", "tron/09-855d335.tron"])
def test_m11_spec_a2_example_edited_twice_keeps_its_parent_sequence(
    shared_dir: Path, name: str
) -> None:
    """The spec's A2 plan is a fork of its own uid (forks keep the parent's uid)."""
    folder, file = name.split("/")
    path = shared_dir / f"{A2}-{folder}" / file
    raw = path.read_bytes()
    document = parse(raw, path=path.name)
    data = document.data
    assert data["plan"]["fork"]["parentUid"] == data["plan"]["uid"]
    ours, theirs = copy.deepcopy(data), copy.deepcopy(data)
    ours["plan"]["items"][0]["status"] = "blocked"
    ours["plan"]["sequence"] += 1
    theirs["plan"]["title"] += " (revised)"
    theirs["plan"]["sequence"] += 1
    out = merge_files(
        raw,
        document.render(ours).encode(),
        document.render(theirs).encode(),
        path=path.name,
    )
    assert out.clean
    assert out.result is not None
    merged = out.result.data["plan"]
    assert merged["fork"] == data["plan"]["fork"]  # parentSequence 5, as written
    assert merged["items"][0]["status"] == "blocked"
    assert merged["title"].endswith("(revised)")
    assert not kinds(out.result) & FORK_NOTES
