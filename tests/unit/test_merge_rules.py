"""Merge rules M1-M17 on parsed data (no git): one test per behaviour, rule number in the name."""

from __future__ import annotations

import copy
from typing import Any

from git_vcontext.merging import MISSING, MergeOptions, merge3
from git_vcontext.merging.textmerge import Markers, merge_lines
from git_vcontext.values import canonical
from helpers.merging import merge_files


def todo(*items: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"vContextInfo": {"version": "0.4"}, "todoList": {**extra, "items": list(items)}}


def item(i: str, **fields: Any) -> dict[str, Any]:
    return {"id": i, "title": i.upper(), "status": "pending", **fields}


def test_m1_identities_on_data() -> None:
    o = todo(item("t1"))
    a = todo(item("t1", status="completed"))
    assert merge3(o, o, a).data == a
    assert merge3(o, a, o).data == a
    assert merge3(o, a, copy.deepcopy(a)).data == a


def test_m1_add_add_merges_against_the_empty_document() -> None:
    r = merge3(MISSING, todo(item("t1")), todo(item("t2")))
    assert [i["id"] for i in r.data["todoList"]["items"]] == ["t1", "t2"]


def test_m1_two_different_containers_added_conflict_as_a_whole() -> None:
    plan = {"vContextInfo": {"version": "0.4"}, "plan": {"title": "x", "status": "draft"}}
    r = merge3(MISSING, todo(item("t1")), plan)
    assert [(c.path, c.kind) for c in r.conflicts] == [("", "add/add")]


def test_m2_delete_vs_unchanged_deletes_and_delete_vs_modify_conflicts() -> None:
    o = todo(item("t1", priority="low"))
    gone = todo(item("t1"))
    assert merge3(o, gone, o).data == gone
    r = merge3(o, gone, todo(item("t1", priority="high")))
    assert [(c.path, c.kind, c.ours, c.theirs) for c in r.conflicts] == [
        ("/todoList/items/0/priority", "delete/modify", MISSING, "high")
    ]


def test_m2_keys_added_on_both_sides_merge_against_empty() -> None:
    o = todo(item("t1"))
    a = todo(item("t1", meta={"a": 1}))
    b = todo(item("t1", meta={"b": 2}))
    assert merge3(o, a, b).data["todoList"]["items"][0]["meta"] == {"a": 1, "b": 2}


def test_m3_elements_without_the_key_merge_by_position_among_themselves() -> None:
    o = todo(item("t1"), {"title": "loose", "status": "pending"})
    a = todo(item("t1", status="completed"), {"title": "loose", "status": "pending"})
    b = todo(item("t1"), {"title": "loose", "status": "blocked"})
    items = merge3(o, a, b).data["todoList"]["items"]
    assert items == [item("t1", status="completed"), {"title": "loose", "status": "blocked"}]


def test_m3_both_sides_add_the_same_id_merge_against_empty() -> None:
    o = todo(item("t1"))
    a = todo(item("t1"), item("t9", priority="high"))
    b = todo(item("t1"), item("t9", tags=["x"]))
    assert merge3(o, a, b).data["todoList"]["items"][1] == item("t9", priority="high", tags=["x"])


def test_m3_concurrent_insertions_at_the_same_place_ours_first_in_both_orders() -> None:
    o = todo(item("t1"), item("t2"))
    a = todo(item("t1"), item("a"), item("t2"))
    b = todo(item("t1"), item("b"), item("t2"))
    ids = [i["id"] for i in merge3(o, a, b).data["todoList"]["items"]]
    assert ids == ["t1", "a", "b", "t2"]
    ids = [i["id"] for i in merge3(o, b, a).data["todoList"]["items"]]
    assert ids == ["t1", "b", "a", "t2"]


def test_m4_deletion_vs_change_of_the_same_element_conflicts() -> None:
    o = {"list": ["a", "b", "c"]}
    r = merge3(o, {"list": ["a", "c"]}, {"list": ["a", "B", "c"]})
    assert [(c.kind, c.base, c.ours, c.theirs) for c in r.conflicts] == [
        ("delete/modify", "b", MISSING, "B")
    ]


def test_m5_missing_set_field_is_the_empty_set() -> None:
    o = todo(item("t1", tags=["a"]))
    a = todo(item("t1"))  # ours removed the whole field: removes "a"
    b = todo(item("t1", tags=["a", "b"]))
    assert merge3(o, a, b).data["todoList"]["items"][0]["tags"] == ["b"]


def test_m6_event_logs_union_in_both_orders() -> None:
    def pb(*events: dict[str, Any]) -> dict[str, Any]:
        return {"playbook": {"items": list(events)}}

    e1 = {"eventId": "e1", "targetId": "x", "createdAt": "2025-01-01T00:00:00Z"}
    ea = {"eventId": "ea", "targetId": "x", "createdAt": "2025-01-03T00:00:00Z"}
    eb = {"eventId": "eb", "targetId": "y", "createdAt": "2025-01-02T00:00:00+05:00"}
    one = merge3(pb(e1), pb(e1, ea), pb(e1, eb)).data
    two = merge3(pb(e1), pb(e1, eb), pb(e1, ea)).data
    assert one == two
    assert [e["eventId"] for e in one["playbook"]["items"]] == ["e1", "eb", "ea"]


def test_m6_event_modified_on_both_sides_differently_conflicts() -> None:
    e1 = {"eventId": "e1", "targetId": "x", "reason": "a"}
    r = merge3(
        {"playbook": {"items": [e1]}},
        {"playbook": {"items": [{**e1, "reason": "b"}]}},
        {"playbook": {"items": [{**e1, "reason": "c"}]}},
    )
    assert [c.path for c in r.conflicts] == ["/playbook/items/0"]


def test_m7_text_lines_changed_on_both_sides_conflict() -> None:
    assert merge_lines("a\nb\n", "a\nB1\n", "a\nB2\n", Markers())[1] == 1
    o = todo(item("t1", note="a\nb\n"))
    r = merge3(o, todo(item("t1", note="a\nB1\n")), todo(item("t1", note="a\nB2\n")))
    assert [c.path for c in r.conflicts] == ["/todoList/items/0/note"]


def test_m7_and_m16_one_line_merge_by_line_or_by_region() -> None:
    """One line merge: by line (M4 over lines, M7) neighbouring edits and insertions at one
    place merge; by region (git merge-file, the M16 fallback) they conflict."""
    base, ours, theirs = "a\nb\nc\n", "a\nB\nc\n", "a\nb\nC\n"
    assert merge_lines(base, ours, theirs, by="line") == ("a\nB\nC\n", 0)
    assert merge_lines(base, ours, theirs)[1] == 1
    inserted = merge_lines("a\nb\n", "a\nx\nb\n", "a\ny\nb\n", by="line")
    assert inserted == ("a\nx\ny\nb\n", 0)
    assert merge_lines("a\nb\n", "a\nx\nb\n", "a\ny\nb\n")[1] == 1


def test_m7_a_run_of_conflicting_lines_is_one_block_with_the_base_lines() -> None:
    merged, blocks = merge_lines(
        "a\nb\nc\nd\n", "a\nB1\nC1\nd\n", "a\nB2\nC2\nd\n", Markers(diff3=True), by="line"
    )
    assert blocks == 1
    block = "<<<<<<< ours\nB1\nC1\n||||||| base\nb\nc\n=======\nB2\nC2\n>>>>>>> theirs\n"
    assert merged == "a\n" + block + "d\n"
    kept = merge_lines("a\nb\n", "a\nB1\n", "a\nB2\n", Markers(take_base=True), by="line")
    assert kept == ("a\nb\n", 0)


def test_m7_a_line_changed_alike_on_both_sides_merges() -> None:
    """Both sides made the same edit to one line, one of them more besides: no conflict
    (as in git merge-file and M2), the text holds both sides' edits."""
    o = todo(item("t1", note="a\nb\nc\n"))
    r = merge3(o, todo(item("t1", note="a\nX\nc\n")), todo(item("t1", note="a\nX\nc\nd\n")))
    assert not r.conflicts
    assert r.data["todoList"]["items"][0]["note"] == "a\nX\nc\nd\n"


def test_m8_decreased_sequence_is_a_violation_and_max_wins() -> None:
    o = todo(item("t1"), sequence=5)
    r = merge3(o, todo(item("t1"), sequence=3), todo(item("t1", status="completed"), sequence=5))
    assert r.data["todoList"]["sequence"] == 5
    assert [n.kind for n in r.notes] == ["sequence-decrease"]
    # M1 comes first: when theirs changed nothing at all, ours is the result as it is
    assert merge3(o, todo(item("t1"), sequence=3), o).data["todoList"]["sequence"] == 3


def test_m8_missing_sequence_counts_as_zero_and_item_sequences_follow_too() -> None:
    o = todo(item("t1"))
    a = todo(item("t1", sequence=1, status="completed"))
    b = todo(item("t1", sequence=1, title="New"))
    merged = merge3(o, a, b).data["todoList"]["items"][0]
    assert merged["sequence"] == 2
    assert merged["status"] == "completed"


def test_m8_changelog_merge_entry_uses_the_given_time() -> None:
    o = todo(item("t1"), sequence=1, changeLog=[])
    a = todo(item("t1", status="completed"), sequence=2, changeLog=[])
    b = todo(item("t2"), sequence=2, changeLog=[])
    r = merge3(o, a, b, MergeOptions(now="2026-02-03T04:05:06Z"))
    entry = r.data["todoList"]["changeLog"][-1]
    assert entry["operation"] == "merge"
    assert entry["sequence"] == 3
    assert entry["timestamp"] == "2026-02-03T04:05:06Z"
    assert entry["agent"]["type"] == "system"
    assert "2 (ours) and 2 (theirs)" in entry["reason"]


def _update(sequence: int, reason: str) -> dict[str, Any]:
    agent = {"id": reason, "type": "aiAgent"}
    stamp = "2026-01-01T00:00:00Z"
    return {"sequence": sequence, "timestamp": stamp, "agent": agent, "reason": reason}


def _logged(notes: Any) -> frozenset[str]:
    """The M8 merge Changes a merge logged, as sync passes them to the integration's next."""
    details = [dict(n.details) for n in notes if n.kind == "sequence-conflict"]
    return frozenset(canonical(d["logged"]) for d in details if "logged" in d)


def _integrate(base: dict[str, Any], agents: list[dict[str, Any]], now: str) -> list[Any]:
    """Merge each agent into the base in turn, as sync's integration does: each merge is
    told the M8 entries the earlier ones logged (``integration``)."""
    ours, logged, results = base, frozenset[str](), []
    for theirs in agents:
        r = merge3(base, ours, theirs, MergeOptions(now=now, integration=logged))
        logged |= _logged(r.notes)
        ours = r.data
        results.append(r)
    return results


def test_m8_an_integration_of_many_agents_adds_one_merge_entry() -> None:
    """Sync at scale: one integration (several agents' rounds merged into one commit) adds
    at most one M8 ``merge`` entry, whose sequence is the highest of every side plus one."""
    now = "2026-02-03T04:05:06Z"
    seed = _update(10, "seed")
    base = todo(item("t0"), sequence=10, changeLog=[seed])
    agents = [
        todo(item("t0"), item(name), sequence=seq, changeLog=[seed, _update(seq, name)])
        for name, seq in (("a", 11), ("b", 12), ("c", 11), ("d", 13))
    ]
    results = _integrate(base, agents, now)
    merged = results[-1].data["todoList"]
    merges = [c for c in merged["changeLog"] if c.get("operation") == "merge"]
    assert len(merges) == 1
    assert merges[0]["sequence"] == merged["sequence"] == 14  # max(11, 12, 11, 13) + 1
    assert merges[0]["reason"].endswith("at sequence 11 (ours) and 12, 11, 13 (theirs)")
    assert merged["changeLog"][-1] == merges[0]  # after the merged log (M8)
    # every agent's entry kept, placed by sequence (M6), the merge entry last
    assert [c["reason"] for c in merged["changeLog"][:-1]] == ["seed", "a", "c", "b", "d"]
    sequences = [c["sequence"] for c in merged["changeLog"]]
    assert sequences == sorted(sequences)  # Validation: non-decreasing
    assert [i["id"] for i in merged["items"]] == ["t0", "a", "b", "c", "d"]
    notes = [n.message for r in results[2:] for n in r.notes if n.kind == "sequence-conflict"]
    assert all(m.endswith("(one entry for the integration)") for m in notes), notes


def _unsequenced(reason: str) -> dict[str, Any]:
    return {k: v for k, v in _update(0, reason).items() if k != "sequence"}


def test_m8_an_integration_folds_even_after_an_agent_logged_without_advancing() -> None:
    """An agent that logged a change without advancing the sequence (no M8 conflict of its
    own) puts its entry after the integration's: the next conflict still folds into it."""
    now = "2026-02-03T04:05:06Z"
    seed = _update(10, "seed")
    base = todo(item("t0"), sequence=10, changeLog=[seed])
    agents = [
        todo(item("t0"), item("a"), sequence=11, changeLog=[seed, _update(11, "a")]),
        todo(item("t0"), item("b"), sequence=11, changeLog=[seed, _update(11, "b")]),
        todo(item("t0"), item("c"), sequence=10, changeLog=[seed, _unsequenced("c")]),
        todo(item("t0"), item("d"), sequence=11, changeLog=[seed, _update(11, "d")]),
    ]
    merged = _integrate(base, agents, now)[-1].data["todoList"]
    merges = [c for c in merged["changeLog"] if c.get("operation") == "merge"]
    assert [m["sequence"] for m in merges] == [merged["sequence"]] == [12]
    assert merged["changeLog"][-1] == merges[0]


def test_m8_without_integration_every_merge_logs_its_own_entry() -> None:
    """Merges that are not one integration (the driver, one sync per agent) each log M8."""
    now = "2026-02-03T04:05:06Z"
    seed = _update(1, "seed")
    base = todo(item("t0"), sequence=1, changeLog=[seed])
    a = todo(item("t0"), sequence=2, changeLog=[seed, _update(2, "a")])
    b = todo(item("t0"), sequence=2, changeLog=[seed, _update(2, "b")])
    c = todo(item("t0"), sequence=2, changeLog=[seed, _update(2, "c")])
    first = merge3(base, a, b, MergeOptions(now=now)).data
    second = merge3(base, first, c, MergeOptions(now=now)).data["todoList"]
    assert [e["sequence"] for e in second["changeLog"] if e.get("operation") == "merge"] == [3, 4]


def _tool_merge(sequence: int, at: str, reason: str) -> dict[str, Any]:
    agent = {"id": "git-vcontext", "type": "system", "name": "git-vcontext"}
    return {"sequence": sequence, "timestamp": at, "agent": agent, "operation": "merge",
            "reason": f"git-vcontext merged concurrent edits at sequence {reason}"}  # fmt: skip


def test_m8_integration_never_folds_an_entry_an_earlier_integration_published() -> None:
    """Only a merge entry this integration itself logged is folded: one an earlier
    integration published, at the same time (SOURCE_DATE_EPOCH) and ours' sequence, is
    left alone and the merge logs its own entry at max + 1 (it was rewritten, and the
    pre-push hook refused the commit, when entries were recognised by time and sequence)."""
    now = "2026-02-03T04:05:06Z"
    seed = _update(3, "seed")
    published = _tool_merge(5, now, "4 (ours) and 4 (theirs)")
    base = todo(item("t0"), sequence=3, changeLog=[seed])  # where this agent forked
    ours = todo(item("t0"), sequence=5, changeLog=[seed, published])
    theirs = todo(item("t0"), sequence=4, changeLog=[seed, _update(4, "c")])
    mine = frozenset({canonical(_tool_merge(4, now, "3 (ours) and 3 (theirs)"))})
    r = merge3(base, ours, theirs, MergeOptions(now=now, integration=mine)).data["todoList"]
    assert r["sequence"] == 6
    merges = [e for e in r["changeLog"] if e.get("operation") == "merge"]
    assert merges[0] == published
    assert [e["sequence"] for e in merges] == [5, 6]


def test_m8_integration_never_folds_an_entry_the_base_already_has() -> None:
    """An entry the integration logged that the base holds too is no longer its own."""
    now = "2026-02-03T04:05:06Z"
    seed = _update(1, "seed")
    earlier = _tool_merge(3, now, "2 (ours) and 2 (theirs)")
    base = todo(item("t0"), sequence=3, changeLog=[seed, earlier])
    ours = todo(item("t0"), sequence=4, changeLog=[seed, earlier, _update(4, "o")])
    theirs = todo(item("t0"), sequence=4, changeLog=[seed, earlier, _update(4, "t")])
    options = MergeOptions(now=now, integration=frozenset({canonical(earlier)}))
    r = merge3(base, ours, theirs, options).data["todoList"]
    assert [e["sequence"] for e in r["changeLog"] if e.get("operation") == "merge"] == [3, 5]


def test_m8_the_note_names_the_entry_it_logged() -> None:
    """``merge --report``: a sequence conflict's note carries the Change it appended."""
    now = "2026-02-03T04:05:06Z"
    seed = _update(1, "seed")
    a = todo(item("t0"), sequence=2, changeLog=[seed, _update(2, "a")])
    b = todo(item("t0"), sequence=2, changeLog=[seed, _update(2, "b")])
    r = merge3(todo(item("t0"), sequence=1, changeLog=[seed]), a, b, MergeOptions(now=now))
    [note] = [n.to_json() for n in r.notes if n.kind == "sequence-conflict"]
    assert note["logged"] == r.data["todoList"]["changeLog"][-1]
    assert note["logged"]["sequence"] == 3


def test_m9_equal_instants_keep_ours_spelling() -> None:
    o = todo(item("t1", updated="2025-01-01T00:00:00Z"))
    a = todo(item("t1", updated="2025-01-02T01:00:00+01:00"))
    b = todo(item("t1", updated="2025-01-02T00:00:00Z"))
    assert merge3(o, a, b).data["todoList"]["items"][0]["updated"] == "2025-01-02T01:00:00+01:00"


def test_m10_counters_with_missing_base_add_up() -> None:
    entry = {"id": "e", "kind": "rule", "text": "x"}

    def ace(**counts: int) -> dict[str, Any]:
        return {"playbook": {"entries": [{**entry, **counts}]}}

    r = merge3(ace(), ace(helpfulCount=2), ace(helpfulCount=3))
    assert r.data["playbook"]["entries"][0]["helpfulCount"] == 5


def test_m11_a_fork_block_is_never_taken_from_theirs_even_if_ours_is_unchanged() -> None:
    o: dict[str, Any] = {
        "vContextInfo": {"version": "0.4"},
        "plan": {"uid": "u", "sequence": 1, "items": []},
    }
    b = copy.deepcopy(o)
    b["plan"]["fork"] = {"parentUid": "u", "parentSequence": 1, "mergeStatus": "unmerged"}
    b["plan"]["items"].append(item("p1"))
    raw = [__import__("json").dumps(x).encode() for x in (o, o, b)]
    out = merge_files(raw[0], raw[1], raw[2], path="p.vcontext.json")
    merged = __import__("json").loads(out.output)
    assert "fork" not in merged["plan"]
    assert merged["plan"]["items"] == [item("p1")]


def test_m12_released_lock_vs_unchanged_is_released_and_vs_changed_keeps_the_change() -> None:
    lock = {"agent": {"id": "a"}, "acquiredAt": "2025-01-01T00:00:00Z"}
    o = todo(item("t1", lockedBy=lock))
    released = todo(item("t1"))
    assert merge3(o, released, o).data == released
    moved = todo(item("t1", lockedBy={**lock, "expiresAt": "2025-01-02T00:00:00Z"}))
    r = merge3(o, released, moved)
    assert r.clean
    assert r.data == moved
    assert [n.kind for n in r.notes] == ["lock"]


def test_m13_deprecated_vs_quarantined_ace_status_conflicts() -> None:
    e = {"id": "e", "kind": "rule", "text": "x", "status": "active"}

    def ace(status: str) -> dict[str, Any]:
        return {"playbook": {"entries": [{**e, "status": status}]}}

    r = merge3(ace("active"), ace("deprecated"), ace("quarantined"))
    assert [c.kind for c in r.conflicts] == ["status"]


def test_m15_conflict_data_holds_ours_value_and_pointer() -> None:
    o = todo(item("t1"))
    r = merge3(o, todo(item("t1", title="A")), todo(item("t1", title="B")))
    assert r.data == todo(item("t1", title="A"))
    assert r.conflicts[0].to_json() == {
        "path": "/todoList/items/0/title",
        "kind": "modify/modify",
        "base": "T1",
        "ours": "A",
        "theirs": "B",
    }


def test_m15_report_names_the_side_that_deleted_instead_of_leaving_its_key_out() -> None:
    o = {"a": 1, "b": 2}
    r = merge3(o, {"a": 1}, {"a": 1, "b": 3})
    assert r.conflicts[0].to_json() == {
        "path": "/b",
        "kind": "delete/modify",
        "base": 2,
        "ours": None,
        "theirs": 3,
        "absent": ["ours"],
    }
    added = merge3({}, {"c": None}, {"c": 1}).conflicts[0].to_json()
    assert (added["base"], added["ours"], added["absent"]) == (None, None, ["base"])


def test_m15_structured_style_goes_into_the_fork_when_there_is_one() -> None:
    import json

    fork = {"parentUid": "u", "parentSequence": 1, "mergeStatus": "unmerged"}

    def plan(title: str) -> bytes:
        doc = {
            "vContextInfo": {"version": "0.4"},
            "plan": {"uid": "u2", "title": title, "status": "draft", "fork": fork},
        }
        return json.dumps(doc, indent=2).encode()

    out = merge_files(plan("a"), plan("b"), plan("c"), path="p.vcontext.json", structured=True)
    merged = json.loads(out.output)
    assert not out.clean
    assert out.status == "conflict"
    assert merged["plan"]["fork"]["mergeStatus"] == "conflict"
    assert merged["plan"]["fork"]["conflictResolution"]["conflicts"][0]["path"] == "$.plan.title"


def test_m16_binary_input_keeps_ours_and_reports_a_conflict() -> None:
    out = merge_files(b"{}", b'{"a": 1}', b"\x00\x01binary")
    assert out.output == b'{"a": 1}'
    assert not out.clean
    assert out.status == "fallback"


def test_m16_clean_line_merge_of_unparsable_input_is_still_not_trusted_unless_it_parses() -> None:
    base = b'{\n  "a": 1,\n  "b": 2\n}\n'
    ours = b'{\n  "a": 1,\n  "b": 2,\n}\n'  # trailing comma: not JSON
    out = merge_files(base, ours, base.replace(b'"a": 1', b'"a": 3'), path="x.json")
    assert out.status == "fallback"
    assert not out.clean


def test_m17_deterministic_output() -> None:
    o = todo(item("t1"), sequence=1, changeLog=[])
    a = todo(item("t1", status="completed"), sequence=2, changeLog=[])
    b = todo(item("t2"), sequence=2, changeLog=[])
    raw = [__import__("json").dumps(x, indent=2).encode() for x in (o, a, b)]
    opts = MergeOptions(now="2026-01-01T00:00:00Z")
    first = merge_files(*raw, path="t.vcontext.json", options=opts).output
    assert all(
        merge_files(*raw, path="t.vcontext.json", options=opts).output == first for _ in range(3)
    )


def test_m15_many_conflicts_still_give_whole_line_blocks_and_data() -> None:
    import json

    n = 260  # above the per-conflict rendering limit: blocks come from one line diff

    def side(status: str) -> bytes:
        items = [item(f"t{i}", status=status) for i in range(n)]
        return json.dumps(todo(*items), indent=2).encode()

    out = merge_files(side("pending"), side("completed"), side("blocked"), path="t.vcontext.json")
    text = out.output.decode()
    assert out.status == "conflict"
    assert len(out.result.conflicts) == n  # type: ignore[union-attr]
    assert text.count("<<<<<<< ours\n") == n
    assert text.count(">>>>>>> theirs\n") == n
    resolved = "\n".join(
        ln
        for ln in text.splitlines()
        if not ln.startswith(("<<<<<<<", "=======", ">>>>>>>")) and '"blocked"' not in ln
    )
    assert [i["status"] for i in json.loads(resolved)["todoList"]["items"]] == ["completed"] * n


def test_m10_playbook_metrics_are_recomputed_from_the_merged_log() -> None:
    def event(eid: str, target: str, day: int, conf: float) -> dict[str, Any]:
        return {
            "eventId": eid,
            "targetId": target,
            "operation": "append",
            "kind": "rule",
            "text": eid,
            "confidence": conf,
            "createdAt": f"2025-01-{day:02d}T00:00:00Z",
        }

    def pb(*events: dict[str, Any], total: int, avg: float, last: str) -> dict[str, Any]:
        return {
            "vContextInfo": {"version": "0.4"},
            "playbook": {
                "version": 1,
                "items": list(events),
                "metrics": {"totalEntries": total, "averageConfidence": avg, "lastUpdated": last},
            },
        }

    e1 = event("e1", "x", 1, 0.5)
    base = pb(e1, total=1, avg=0.5, last="2025-01-01T00:00:00Z")
    ours = pb(e1, event("e2", "y", 2, 1.0), total=2, avg=0.75, last="2025-01-02T00:00:00Z")
    theirs = pb(e1, event("e3", "z", 3, 0.0), total=2, avg=0.25, last="2025-01-03T00:00:00Z")
    r = merge3(base, ours, theirs)
    assert r.data["playbook"]["metrics"] == {
        "totalEntries": 3,
        "averageConfidence": 0.5,
        "lastUpdated": "2025-01-03T00:00:00Z",
    }
    assert "metrics-recomputed" in {n.kind for n in r.notes}


def _change(seq: int, who: str, at: str) -> dict[str, Any]:
    return {"sequence": seq, "timestamp": at, "agent": {"id": who}, "operation": "update"}


def test_m6_changelog_entry_older_than_the_base_tail_is_placed_by_sequence() -> None:
    # A late merge (push retried after fetch): ours logged b1 at 5 before the base
    # (O) moved on to 5 and 6; appending b1 after 6 would break "non-decreasing".
    a1 = _change(5, "a", "2026-01-01T10:00:00Z")
    merge_entry = _change(6, "sync", "2026-01-01T10:05:00Z")
    b1 = _change(5, "b", "2026-01-01T10:01:00Z")
    c1 = _change(7, "c", "2026-01-01T10:09:00Z")
    o = todo(changeLog=[_change(4, "x", "2026-01-01T09:00:00Z"), a1, merge_entry])
    ours = todo(changeLog=[o["todoList"]["changeLog"][0], a1, b1, merge_entry])
    theirs = todo(changeLog=[*o["todoList"]["changeLog"], c1])
    for left, right in ((ours, theirs), (theirs, ours)):
        log = merge3(o, left, right).data["todoList"]["changeLog"]
        assert [(e["sequence"], e["agent"]["id"]) for e in log] == [
            (4, "x"),
            (5, "a"),
            (5, "b"),
            (6, "sync"),
            (7, "c"),
        ]


def test_m6_changelog_new_entries_after_the_base_keep_the_base_untouched() -> None:
    o = todo(
        changeLog=[_change(2, "x", "2026-01-01T09:00:00Z"), _change(1, "y", "2026-01-01T08:00:00Z")]
    )
    ours = todo(changeLog=[*o["todoList"]["changeLog"], _change(3, "a", "2026-01-01T10:00:00Z")])
    theirs = todo(changeLog=[*o["todoList"]["changeLog"], _change(4, "b", "2026-01-01T11:00:00Z")])
    log = merge3(o, ours, theirs).data["todoList"]["changeLog"]
    assert [e["sequence"] for e in log] == [2, 1, 3, 4]  # O's order kept as it was
