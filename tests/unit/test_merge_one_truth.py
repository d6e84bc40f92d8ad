"""Issue 26, the merge engine's half of "one truth" (M6, M8, M13, M19), on parsed data."""

from __future__ import annotations

import copy
from typing import Any

from git_vcontext.merging import merge3

NOW = "2026-03-01T00:00:00Z"


def todo(*items: dict[str, Any], info: dict[str, Any] | None = None, **extra: Any) -> Any:
    head = {"version": "0.4", **(info or {})}
    return {"vContextInfo": head, "todoList": {**extra, "items": list(items)}}


def item(i: str, **fields: Any) -> dict[str, Any]:
    return {"id": i, "title": i.upper(), "status": "pending", **fields}


# -- M8: sequence on the info object (point 7) -------------------------------------------


def test_m8_info_object_sequence_advanced_on_both_sides_is_a_sequence_conflict() -> None:
    """Both sides set vContextInfo.sequence 3 -> 4 and changed different items: the info
    objects end up equal, the sequence still conflicts (max + 1, noted) as on a container."""
    base = todo(item("a"), item("b"), info={"sequence": 3})
    ours = todo(item("a", status="completed"), item("b"), info={"sequence": 4})
    theirs = todo(item("a"), item("b", status="completed"), info={"sequence": 4})
    for o, t in ((ours, theirs), (theirs, ours)):
        r = merge3(base, o, t)
        assert r.clean
        assert r.data["vContextInfo"]["sequence"] == 5
        assert [(n.kind, n.path) for n in r.notes] == [
            ("sequence-conflict", "/vContextInfo/sequence")
        ]
        assert [i["status"] for i in r.data["todoList"]["items"]] == ["completed"] * 2


def test_m8_vbrief_info_sequence_is_seed_003s_optimistic_lock() -> None:
    def brief(seq: int, *items: dict[str, Any]) -> Any:
        return {"vBRIEFInfo": {"version": "0.5", "sequence": seq}, "plan": {"items": list(items)}}

    base = brief(3, item("a"), item("b"))
    ours = brief(4, item("a", status="completed"), item("b"))
    theirs = brief(4, item("a"), item("b", status="blocked"))
    r = merge3(base, ours, theirs)
    assert r.data["vBRIEFInfo"]["sequence"] == 5
    assert [n.kind for n in r.notes] == ["sequence-conflict"]


def test_m8_an_item_changed_alike_on_both_sides_still_advances_its_sequence() -> None:
    """"Wherever it is, even when the two sides' objects around it end up equal": the same
    edit of t1 on both sides (sequence 3 -> 4) is two concurrent edits."""
    base = todo(item("t1", sequence=3), item("t2"))
    done = item("t1", sequence=4, status="completed")
    ours = todo(done, item("t2", title="Two"))
    theirs = todo(copy.deepcopy(done), item("t2"), item("t3"))
    r = merge3(base, ours, theirs)
    assert r.data["todoList"]["items"][0] == {**done, "sequence": 5}
    assert [n.path for n in r.notes] == ["/todoList/items/0/sequence"]


def test_m8_equal_sides_stay_equal_and_unadvanced_sequences_are_left_alone() -> None:
    """M1 first: equal documents are ours; an equal object whose sequence did not move
    (both removed a log entry, both changed a title) is taken as it is."""
    base = todo(item("t1", sequence=3), info={"sequence": 3})
    same_change = todo(item("t1", sequence=3, title="New"), info={"sequence": 3})
    assert merge3(base, same_change, copy.deepcopy(same_change)).data == same_change
    theirs = todo(item("t1", sequence=3, title="New"), item("t2"), info={"sequence": 3})
    r = merge3(base, same_change, theirs)
    assert r.data["todoList"]["items"][0]["sequence"] == 3
    assert r.data["vContextInfo"]["sequence"] == 3
    assert not r.notes
