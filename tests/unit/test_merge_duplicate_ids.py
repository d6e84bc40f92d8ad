"""M3 and M6 with repeated ids: arrays whose key values repeat merge by alignment (M4), never
into the wrong twin; the report notes ``duplicate-id``. The diff pairs twins the same way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from git_vcontext.diffing import diff
from git_vcontext.merging import MergeOptions, merge3
from helpers.merging import merge_files

NOW = "2026-01-01T00:00:00Z"


def todo(*items: dict[str, Any]) -> dict[str, Any]:
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"items": list(items)}}


def it(i: str, title: str, status: str = "pending", **more: Any) -> dict[str, Any]:
    return {"id": i, "title": title, "status": status, **more}


def items(result: Any) -> list[tuple[str, str, str]]:
    return [(e["id"], e["title"], e["status"]) for e in result.data["todoList"]["items"]]


def notes(result: Any) -> list[str]:
    return [n.kind for n in result.notes]


def test_m3_the_issue_reproduction_keeps_ours_completion_on_its_twin() -> None:
    o = todo(it("t1", "first"), it("t1", "second"), it("t2", "other"))
    a = todo(it("t1", "first", "completed"), it("t1", "second"), it("t2", "other"))
    b = todo(it("t1", "first"), it("t2", "other"))
    for ours, theirs in ((a, b), (b, a)):
        r = merge3(o, ours, theirs)
        assert r.clean
        assert items(r) == [("t1", "first", "completed"), ("t2", "other", "pending")]
        assert notes(r) == ["duplicate-id"]
        assert r.notes[0].path == "/todoList/items"
        assert "id 't1' repeats in base" in r.notes[0].message


def test_m3_a_twin_deleted_on_one_side_and_edited_on_the_other_conflicts_on_that_twin() -> None:
    o = todo(it("t1", "first"), it("t1", "second"))
    a = todo(it("t1", "second", "completed"))  # ours drops the first, completes the second
    b = todo(it("t1", "first", "blocked"), it("t1", "second"))  # theirs blocks the first
    r = merge3(o, a, b)
    [c] = r.conflicts
    assert c.kind == "delete/modify"
    assert c.theirs == it("t1", "first", "blocked")
    assert c.base == it("t1", "first")
    # the second twin carries ours' completion only, nothing of the first
    assert items(r) == [("t1", "second", "completed")]


def test_m3_twins_edited_on_different_sides_keep_each_edit_on_its_own_twin() -> None:
    o = todo(it("t1", "first"), it("t1", "second"))
    a = todo(it("t1", "first", "completed"), it("t1", "second"))
    b = todo(it("t1", "first"), it("t1", "second", "blocked", priority="high"))
    r = merge3(o, a, b)
    assert r.clean
    assert r.data["todoList"]["items"] == [
        it("t1", "first", "completed"),
        it("t1", "second", "blocked", priority="high"),
    ]


def test_m3_an_id_repeated_only_in_one_side_also_unkeys_the_array() -> None:
    o = todo(it("t1", "first"), it("t2", "other"))
    a = todo(it("t1", "first", "completed"), it("t2", "other"), it("t1", "copy"))
    b = todo(it("t1", "renamed"), it("t2", "other"))
    r = merge3(o, a, b)
    assert r.clean
    assert notes(r) == ["duplicate-id"]
    assert "repeats in ours" in r.notes[0].message
    assert items(r) == [
        ("t1", "renamed", "completed"),
        ("t2", "other", "pending"),
        ("t1", "copy", "pending"),
    ]


def test_m3_an_id_and_a_uid_sharing_a_value_merge_by_alignment() -> None:
    o = todo(it("x", "by id"), {"uid": "x", "title": "by uid", "status": "pending"})
    a = todo(it("x", "by id", "completed"), {"uid": "x", "title": "by uid", "status": "pending"})
    b = todo(it("x", "by id"), {"uid": "x", "title": "by uid", "status": "blocked"})
    r = merge3(o, a, b)
    assert r.clean
    assert notes(r) == ["duplicate-id"]
    assert "uid 'x' is also an id" in r.notes[0].message
    assert [e["status"] for e in r.data["todoList"]["items"]] == ["completed", "blocked"]


def test_m4_elements_aligned_by_a_unique_id_but_changed_are_merged_not_taken_whole() -> None:
    # a mixed array is never keyed; its objects still align by id, and an edit on each
    # side of the same object merges field by field (it used to keep ours' object whole)
    o = {"xs": [{"id": "a", "v": 1, "w": 1}, "loose"]}
    a = {"xs": [{"id": "a", "v": 2, "w": 1}, "loose"]}
    b = {"xs": [{"id": "a", "v": 1, "w": 3}, "loose"]}
    assert merge3(o, a, b).data == {"xs": [{"id": "a", "v": 2, "w": 3}, "loose"]}
    # deleted on one side, edited on the other: a conflict, not a silent delete
    r = merge3(o, {"xs": ["loose"]}, a)
    assert [c.kind for c in r.conflicts] == ["delete/modify"]


def test_m4_objects_align_by_depends_on_id_like_any_identity_key() -> None:
    """``depends_on_id`` is an identity key (keys.IDENTITY_KEYS) also where M4 aligns a
    mixed array: ours inserts before an object and edits it, theirs edits another field of
    it: one object merged field by field (it used to be a delete/modify conflict)."""
    x = {"depends_on_id": "x", "type": "blocks"}
    o = {"xs": ["loose", x]}
    a = {"xs": ["loose", {"depends_on_id": "w", "type": "blocks"}, {**x, "type": "related"}]}
    b = {"xs": ["loose", {**x, "note": "n"}]}
    r = merge3(o, a, b)
    assert r.clean
    merged = {"depends_on_id": "x", "type": "related", "note": "n"}
    assert r.data == {"xs": ["loose", {"depends_on_id": "w", "type": "blocks"}, merged]}


def test_m4_insertions_with_one_id_but_different_content_keep_both() -> None:
    o: dict[str, Any] = {"xs": ["loose"]}
    a = {"xs": ["loose", {"id": "n", "v": 1}]}
    b = {"xs": ["loose", {"id": "n", "v": 2}]}
    r = merge3(o, a, b)
    assert r.data == {"xs": ["loose", {"id": "n", "v": 1}, {"id": "n", "v": 2}]}


def _events(*specs: tuple[str, str, str]) -> dict[str, Any]:
    log = [
        {"eventId": e, "targetId": t, "operation": "append", "createdAt": at, "kind": "rule"}
        for e, t, at in specs
    ]
    return {"vContextInfo": {"version": "0.4"}, "playbook": {"version": 1, "items": log}}


def test_m6_a_repeated_event_id_merges_the_log_by_alignment_keeping_every_event() -> None:
    base = [("e1", "x", "2025-01-01T00:00:00Z"), ("e1", "y", "2025-01-02T00:00:00Z")]
    o = _events(*base)
    a = _events(*base, ("a1", "x", "2025-01-03T00:00:00Z"))
    b = _events(*base, ("b1", "y", "2025-01-04T00:00:00Z"))
    r = merge3(o, a, b)
    assert r.clean
    assert "duplicate-id" in notes(r)
    got = [(e["eventId"], e["targetId"]) for e in r.data["playbook"]["items"]]
    assert got == [("e1", "x"), ("e1", "y"), ("a1", "x"), ("b1", "y")]


def test_m6_jsonl_events_with_a_repeated_event_id_merge_by_lines_of_records() -> None:
    def line(eid: str, ts: str, what: str) -> str:
        return json.dumps({"event_id": eid, "timestamp": ts, "event_type": what})

    base = [line("e1", "2025-01-01T00:00:00Z", "a"), line("e1", "2025-01-01T00:00:01Z", "b")]
    ours = [*base, line("o1", "2025-01-02T00:00:00Z", "c")]
    theirs = [base[0], line("t1", "2025-01-03T00:00:00Z", "d"), base[1]]
    raw = ["\n".join(x).encode() + b"\n" for x in (base, ours, theirs)]
    out = merge_files(*raw, path=".work/events.jsonl", options=MergeOptions(now=NOW))
    assert out.clean
    assert out.result is not None
    assert "duplicate-id" in [n.kind for n in out.result.notes]
    types = [json.loads(x)["event_type"] for x in out.output.decode().splitlines()]
    assert types == ["a", "d", "b", "c"]


def test_m3_jsonl_records_with_a_repeated_id_are_not_merged_into_each_other() -> None:
    base = [{"id": "w1", "state": "open", "n": 1}, {"id": "w1", "state": "open", "n": 2}]
    ours = [{"id": "w1", "state": "done", "n": 1}, base[1]]
    theirs = [base[0], {"id": "w1", "state": "open", "n": 2, "owner": "bob"}]
    raw = ["".join(json.dumps(r) + "\n" for r in x).encode() for x in (base, ours, theirs)]
    out = merge_files(*raw, path=".work/work_orders.jsonl", options=MergeOptions(now=NOW))
    assert out.clean
    records = [json.loads(x) for x in out.output.decode().splitlines()]
    assert records == [ours[0], theirs[1]]


def test_m3_vermas_dependencies_with_a_repeated_depends_on_id_merge_by_alignment() -> None:
    def dep(i: str, kind: str) -> dict[str, str]:
        return {"depends_on_id": i, "type": kind}

    o = {"dependencies": [dep("w1", "blocks"), dep("w1", "related")]}
    a = {"dependencies": [dep("w1", "blocks"), dep("w1", "related"), dep("w2", "blocks")]}
    b = {"dependencies": [dep("w1", "parent")]}  # theirs replaced both with one
    r = merge3(o, a, b)
    assert "duplicate-id" in notes(r)
    # theirs changed the first twin and deleted the second; ours only appended
    assert r.clean
    assert r.data == {"dependencies": [dep("w1", "parent"), dep("w2", "blocks")]}


def test_m3_corpus_spec_with_t2_1_1_twice_keeps_each_edit_on_its_twin(shared_dir: Path) -> None:
    """The deftai spec document lists t2.1.1 twice in plan.items (corpus history 27)."""
    folder = shared_dir / "corpus/external/deftai+directive/history/vbrief_specification.vbrief"
    raw = (folder / "27-b429cf2.json").read_text(encoding="utf-8")
    data = json.loads(raw)
    twins = [i for i, e in enumerate(data["plan"]["items"]) if e["id"] == "t2.1.1"]
    assert len(twins) == 2
    first, second = (data["plan"]["items"][i] for i in twins)
    ours = _replace_once(raw, first["title"], first["title"] + " (ours)")
    theirs = _replace_once(raw, second["title"], second["title"] + " (theirs)")
    out = merge_files(
        raw.encode(), ours.encode(), theirs.encode(), path="specification.vbrief.json"
    )
    assert out.clean
    assert out.result is not None
    assert "duplicate-id" in [n.kind for n in out.result.notes]
    both = _replace_once(ours, second["title"], second["title"] + " (theirs)")
    assert out.output.decode() == both  # both edits, each on its twin, nothing else touched


def _replace_once(text: str, old: str, new: str) -> str:
    assert text.count(f'"{old}"') == 1
    return text.replace(f'"{old}"', json.dumps(new, ensure_ascii=False))


def test_diff_pairs_the_edited_twin_not_its_neighbour() -> None:
    old = todo(it("t1", "first"), it("t1", "second"), it("t2", "other"))
    new = todo(it("t1", "second", "completed"), it("t2", "other"))
    changes = [(c.op, c.path) for c in diff(old, new).changes]
    assert changes == [
        ("remove", "/todoList/items/0"),
        ("change", "/todoList/items/0/status"),  # the second twin, now at index 0
    ]
    [change] = [c for c in diff(old, new).changes if c.op == "change"]
    assert (change.old, change.new) == ("pending", "completed")
