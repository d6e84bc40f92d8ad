"""Fork blocks after a sync (M11, Ext 11): carried to the agent side, marked merged, kept out."""

from __future__ import annotations

import json
from typing import Any

from git_vcontext.branches.forkstate import agent_document, carried_fork, mark_merged, marked_merged
from git_vcontext.branches.treemerge import only_fork_changed, without_fork

BY = {"id": "sync@example.com", "type": "system", "name": "Sync"}
WHEN = "2026-01-01T00:00:00Z"


def _doc(sequence: int, fork: dict[str, Any] | None = None, items: int = 2) -> dict[str, Any]:
    todo: dict[str, Any] = {"id": "todo-1", "uid": "u-1", "sequence": sequence}
    if fork is not None:
        todo["fork"] = fork
    todo["items"] = [{"id": f"t{i}", "status": "pending"} for i in range(items)]
    return {"vContextInfo": {"version": "0.4"}, "todoList": todo}


FORK = {"parentUid": "u-1", "parentSequence": 3, "forkedAt": WHEN, "mergeStatus": "unmerged"}


def _raw(data: Any) -> bytes:
    return (json.dumps(data, indent=2) + "\n").encode()


def test_carried_fork_takes_theirs_data_and_sets_parent_sequence_m11() -> None:
    ours, theirs = _doc(3, FORK), _doc(7, items=3)
    new = carried_fork(ours, theirs)
    assert new["todoList"]["items"] == theirs["todoList"]["items"]
    assert new["todoList"]["fork"] == {**FORK, "parentSequence": 7}
    assert list(new["todoList"]) == ["id", "uid", "sequence", "fork", "items"]  # ours' place
    assert "fork" not in theirs["todoList"]  # inputs are left alone


def test_carried_fork_of_another_parent_keeps_its_parent_sequence_m11() -> None:
    foreign = {**FORK, "parentUid": "someone-else"}
    new = carried_fork(_doc(3, foreign), _doc(9))
    assert new["todoList"]["fork"]["parentSequence"] == 3


def test_carried_fork_without_fork_is_theirs() -> None:
    theirs = _doc(9)
    assert carried_fork(_doc(3), theirs) is theirs


def test_marking_merged_sets_status_time_and_agent_ext11() -> None:
    marked = marked_merged(_doc(3, FORK), when=WHEN, by=BY, refresh=False)
    assert marked is not None
    fork = marked["todoList"]["fork"]
    assert (fork["mergeStatus"], fork["mergedAt"], fork["mergedBy"]) == ("merged", WHEN, BY)


def test_marking_an_already_merged_fork_only_when_refreshed() -> None:
    merged = {**FORK, "mergeStatus": "merged", "mergedAt": "2025-01-01T00:00:00Z", "mergedBy": BY}
    assert marked_merged(_doc(3, merged), when=WHEN, by=BY, refresh=False) is None
    again = marked_merged(_doc(3, merged), when=WHEN, by=BY, refresh=True)
    assert again is not None
    assert again["todoList"]["fork"]["mergedAt"] == WHEN


def test_mark_merged_keeps_the_text_style_and_bytes_without_forks() -> None:
    raw = json.dumps(_doc(3, FORK), indent=4).encode()
    out = mark_merged(raw, "a.vcontext.json", when=WHEN, by=BY, refresh=False)
    assert b'\n    "vContextInfo"' in out  # four-space indent kept
    assert json.loads(out)["todoList"]["fork"]["mergeStatus"] == "merged"
    plain = _raw(_doc(3))
    assert mark_merged(plain, "a.vcontext.json", when=WHEN, by=BY, refresh=True) is plain


def test_agent_document_differs_from_the_base_text_only_by_the_fork_block() -> None:
    theirs = _raw(_doc(7, items=3))
    out = agent_document(_raw(_doc(3, FORK)), theirs, "a.vcontext.json", mark=(WHEN, BY, True))
    assert out is not None
    data = json.loads(out)
    assert without_fork(out, "a.vcontext.json") == theirs
    assert data["todoList"]["fork"]["parentSequence"] == 7
    assert data["todoList"]["fork"]["mergeStatus"] == "merged"


def test_agent_document_keeps_a_long_number_of_the_base_text() -> None:
    """PRODUCT.md Formats (number spelling): the read-back check must not take
    3.141592653589793238462643383279 for the double it rounds to and give up."""
    long = "3.141592653589793238462643383279"
    theirs = _raw(_doc(7, items=3)).replace(
        b'"sequence": 7', b'"estimate": %s, "sequence": 7' % long.encode()
    )
    out = agent_document(_raw(_doc(3, FORK)), theirs, "a.vcontext.json", mark=(WHEN, BY, True))
    assert out is not None
    assert long.encode() in out
    assert without_fork(out, "a.vcontext.json") == theirs


def test_agent_document_of_unreadable_input_is_left_to_the_merge() -> None:
    assert agent_document(b"{oops", _raw(_doc(7)), "a.vcontext.json", mark=None) is None


def test_only_fork_changed_recognises_a_fork_only_edit_m11() -> None:
    base, ours = _raw(_doc(3)), _raw(_doc(4, items=3))
    assert only_fork_changed(base, ours, _raw(_doc(3, FORK)), "a.vcontext.json")
    assert not only_fork_changed(base, ours, _raw(_doc(5, FORK)), "a.vcontext.json")
    # ours with a fork of its own: M11 must still adjust it, no shortcut
    assert not only_fork_changed(base, _raw(_doc(3, FORK)), _raw(_doc(3, FORK)), "a.vcontext.json")


def test_without_fork_leaves_documents_without_one_byte_for_byte() -> None:
    raw = b'{"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}'
    assert without_fork(raw, "a.vcontext.json") is raw
    forked = _raw(_doc(3, FORK))
    assert json.loads(without_fork(forked, "a.vcontext.json")) == _doc(3)


def test_m11_only_fork_changed_reads_an_escaped_fork_key_as_a_fork() -> None:
    """M11 (a fork block never comes from theirs): sync's shortcut for an agent that only
    forked a document reads ``"\\u0066ork"`` as the key ``fork`` on either side, as the
    parse does (document.may_hold_fork), not only the bytes ``fork``."""
    from git_vcontext.branches.treemerge import only_fork_changed

    base = b'{"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}'
    block = b', "\\u0066ork": {"parentUid": "u1", "parentSequence": 1}'
    forked = base[:-2] + block + b"}}"
    assert b"fork" not in forked
    assert only_fork_changed(base, base, forked, "todo.vcontext.json")
    assert not only_fork_changed(base, forked, forked, "todo.vcontext.json")  # ours has one
