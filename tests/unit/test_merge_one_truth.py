"""Issue 26, the merge engine's half of "one truth" (M6, M8, M13, M19), on parsed data."""

from __future__ import annotations

import copy
from typing import Any

from git_vcontext.merging import MISSING, MergeOptions, merge3

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
    """ "Wherever it is, even when the two sides' objects around it end up equal": the same
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


# -- M6: a branch merged again never reorders what ours holds (point 6) ----------------


def event(eid: str, day: int, target: str = "x", **fields: Any) -> dict[str, Any]:
    op = "update" if "prevEventId" in fields else "append"
    return {"eventId": eid, "targetId": target, "operation": op,
            "createdAt": f"2025-01-{day:02d}T00:00:00Z", **fields}  # fmt: skip


def playbook(*events: dict[str, Any]) -> Any:
    return {"vContextInfo": {"version": "0.4"}, "playbook": {"items": list(events)}}


def test_m6_a_branch_merged_again_never_reorders_what_ours_holds() -> None:
    """main [r0, ra, rb] (ra came in by an earlier merge, placed by its key), bob from
    the commit that had [r0, rb] appends rc: ours' order stays, rc goes after rb."""
    r0, ra, rb, rc = (
        event(name, day, name) for day, name in enumerate(["r0", "ra", "rb", "rc"], 1)
    )
    base, ours, theirs = playbook(r0, rb), playbook(r0, ra, rb), playbook(r0, rb, rc)
    ids = [e["eventId"] for e in merge3(base, ours, theirs).data["playbook"]["items"]]
    assert ids == ["r0", "ra", "rb", "rc"]  # was [r0, rb, ra, rc]: O's order, then new sorted
    swapped = [e["eventId"] for e in merge3(base, theirs, ours).data["playbook"]["items"]]
    assert sorted(swapped) == sorted(ids)  # the same set either way (M17)


def test_m6_theirs_only_elements_go_after_ours_last_element_not_later_than_them() -> None:
    """Ours out of key order (an agent appended late-dated events): ours' order is kept,
    each of theirs' new events goes after the last of ours' whose key is not later."""
    base = playbook(event("e1", 1))
    ours = playbook(event("e1", 1), event("o9", 9), event("o3", 3))
    theirs = playbook(event("e1", 1), event("t5", 5), event("t2", 2), event("t10", 10))
    ids = [e["eventId"] for e in merge3(base, ours, theirs).data["playbook"]["items"]]
    assert ids == ["e1", "t2", "o9", "o3", "t5", "t10"]


def test_m6_changelog_stays_in_sequence_order_and_ours_entries_stay_put() -> None:
    def change(seq: int, who: str) -> dict[str, Any]:
        return {"sequence": seq, "timestamp": f"2025-01-0{seq}T00:00:00Z", "reason": who}

    base = todo(item("t1"), sequence=2, changeLog=[change(1, "a"), change(2, "b")])
    first = [change(1, "a"), change(2, "b")]
    ours = todo(
        item("t1", title="T"), sequence=4, changeLog=[*first, change(3, "o"), change(4, "o")]
    )
    theirs = todo(item("t1"), item("t2"), sequence=3, changeLog=[*first, change(3, "t")])
    log = merge3(base, ours, theirs).data["todoList"]["changeLog"]
    assert [(c["sequence"], c["reason"]) for c in log[:5]] == [
        (1, "a"),
        (2, "b"),
        (3, "o"),
        (3, "t"),
        (4, "o"),
    ]


# -- M13: ACE reactivation and status fields (points 3, 4) ------------------------------


def ace(status: str, updated: str, **fields: Any) -> Any:
    entry = {"id": "e1", "kind": "rule", "text": "x", "status": status, "updatedAt": updated}
    plan = {"id": "p", "title": "P", "status": "inProgress"}
    return {
        "vAgendaInfo": {"version": "0.3"},
        "plan": {**plan, "playbook": {"entries": [{**entry, **fields}]}},
    }


def _entry(r: Any) -> dict[str, Any]:
    entry: dict[str, Any] = r.data["plan"]["playbook"]["entries"][0]
    return entry


def test_m13_ace_a_later_explicit_reactivation_wins_over_an_earlier_quarantine() -> None:
    """Deprecated in the base; ours sets active at 12:00, theirs quarantined at 11:00: the
    seeds' "unless explicitly reactivated by a later change" -> active (was quarantined)."""
    base = ace("deprecated", "2026-01-01T09:00:00Z", deprecatedReason="flaky")
    ours = ace("active", "2026-01-01T12:00:00Z")
    theirs = ace("quarantined", "2026-01-01T11:00:00Z", deprecatedReason="harmful")
    for o, t in ((ours, theirs), (theirs, ours)):
        r = merge3(base, o, t)
        assert r.clean
        assert _entry(r)["status"] == "active"
        assert _entry(r)["updatedAt"] == "2026-01-01T12:00:00Z"
        assert "deprecatedReason" not in _entry(r)  # the reactivating side's status fields
        assert [n.kind for n in r.notes] == ["ace-status"]


def test_m13_ace_an_earlier_reactivation_loses_to_a_later_quarantine() -> None:
    base = ace("deprecated", "2026-01-01T09:00:00Z")
    ours = ace("active", "2026-01-01T10:00:00Z")
    theirs = ace("quarantined", "2026-01-01T11:00:00Z", quarantinedReason="harmful")
    for o, t in ((ours, theirs), (theirs, ours)):
        entry = _entry(merge3(base, o, t))
        assert (entry["status"], entry["quarantinedReason"]) == ("quarantined", "harmful")


def test_m13_ace_without_instants_deprecation_wins() -> None:
    def bare(status: str) -> Any:
        data = ace(status, "x")
        del data["plan"]["playbook"]["entries"][0]["updatedAt"]
        return data

    assert _entry(merge3(bare("active"), bare("deprecated"), bare("active"))) == _entry(
        merge3(bare("active"), bare("active"), bare("deprecated"))
    )
    r = merge3(bare("deprecated"), bare("active"), bare("quarantined"))
    assert _entry(r)["status"] == "quarantined"


def test_m13_status_conflict_carries_the_status_fields_each_side_changed() -> None:
    base = todo(item("t3"), item("t4"))
    ours = todo(item("t3", status="cancelled", cancelledAt="2026-01-01T11:00:00Z"), item("t4"))
    theirs = todo(item("t3", status="completed", completed="2026-01-01T10:00:00Z"), item("t4"))
    r = merge3(base, ours, theirs)
    [c] = r.conflicts
    assert (c.path, c.kind) == ("/todoList/items/0/status", "status")
    assert c.to_json()["statusFields"] == {
        "cancelledAt": {"ours": "2026-01-01T11:00:00Z"},
        "completed": {"theirs": "2026-01-01T10:00:00Z"},
    }
    assert r.data["todoList"]["items"][0] == ours["todoList"]["items"][0]  # ours' data


def test_m13_a_status_field_both_sides_changed_is_one_conflict_with_the_status() -> None:
    """Ours unblocks t3 (drops blockedReason), theirs cancels it and rewrites the reason:
    one status conflict that holds blockedReason, not a second delete/modify conflict."""
    base = todo(item("t3", status="blocked", blockedReason="waiting"))
    ours = todo(item("t3", status="inProgress"))
    theirs = todo(item("t3", status="cancelled", blockedReason="gone"))
    r = merge3(base, ours, theirs)
    assert [c.kind for c in r.conflicts] == ["status"]
    assert r.conflicts[0].bound == (("blockedReason", "waiting", MISSING, "gone"),)
    assert r.data["todoList"]["items"][0] == ours["todoList"]["items"][0]


# -- M19: what two valid sides cannot make valid together is a conflict (point 1) --------


def test_m19_delete_vs_a_new_dependency_is_a_delete_reference_conflict() -> None:
    base = todo(item("t1"), item("t2"), item("t3"))
    ours = todo(item("t1"), item("t2"))  # deletes t3
    theirs = todo(item("t1", dependencies=["t3"]), item("t2"), item("t3"))
    for o, t in ((ours, theirs), (theirs, ours)):
        r = merge3(base, o, t)
        [c] = r.conflicts
        assert (c.kind, c.base) == ("delete/reference", item("t3"))
        assert {c.ours is MISSING, c.theirs is MISSING} == {True, False}


def test_m19_a_deletion_nobody_names_is_still_a_plain_delete() -> None:
    base = todo(item("t1"), item("t2", dependencies=["t1"]), item("t3"))
    ours = todo(item("t1"), item("t2", dependencies=["t1"]))  # deletes t3, named by nobody
    theirs = todo(item("t1", title="T"), item("t2", dependencies=["t1"]), item("t3"))
    r = merge3(base, ours, theirs)
    assert r.clean
    assert [i["id"] for i in r.data["todoList"]["items"]] == ["t1", "t2"]


def test_m19_ace_entry_deleted_while_the_other_side_supersedes_it() -> None:
    def entries(*es: dict[str, Any]) -> Any:
        return {"vAgendaInfo": {"version": "0.3"}, "plan": {"id": "p", "title": "P",
                "status": "inProgress", "playbook": {"entries": list(es)}}}  # fmt: skip

    e1, e2 = {"id": "e1", "text": "old"}, {"id": "e2", "text": "x"}
    r = merge3(entries(e1, e2), entries(e2), entries(e1, e2, {"id": "e3", "supersedes": ["e1"]}))
    assert [c.kind for c in r.conflicts] == ["delete/reference"]


def test_m19_two_sides_each_adding_one_edge_of_a_cycle_conflict_on_each_edge() -> None:
    base = todo(item("t1"), item("t2"), item("t3"))
    ours = todo(item("t1", dependencies=["t2"]), item("t2"), item("t3"))
    theirs = todo(item("t1"), item("t2", dependencies=["t1"]), item("t3", title="T"))
    r = merge3(base, ours, theirs)
    found = [(c.path, c.kind, c.ours, c.theirs) for c in r.conflicts]
    assert found == [
        ("/todoList/items/0/dependencies", "dependency-cycle", ["t2"], MISSING),
        ("/todoList/items/1/dependencies", "dependency-cycle", MISSING, ["t1"]),
    ]
    assert r.data["todoList"]["items"][2]["title"] == "T"  # the rest merged
    # a cycle one side already had is that side's, not the merge's: no conflict for it
    cyclic = todo(item("t1", dependencies=["t2"]), item("t2", dependencies=["t1"]), item("t3"))
    assert merge3(base, cyclic, theirs).conflicts == ()


def test_m19_one_id_added_by_both_sides_in_two_places_conflicts_at_each() -> None:
    base = todo(item("t1"), item("t2"))
    ours = todo(item("t1"), item("t2"), item("n1"))
    theirs = todo(item("t1", subItems=[item("n1", title="Sub")]), item("t2"))
    r = merge3(base, ours, theirs)
    found = sorted((c.path, c.kind, c.ours is MISSING, c.theirs is MISSING) for c in r.conflicts)
    assert found == [
        ("/todoList/items/0/subItems/0", "add/add", True, False),
        ("/todoList/items/2", "add/add", False, True),
    ]
    # both at the same place: one element (M3), merged against {}
    same_place = todo(item("t1"), item("t2"), item("n1", priority="high"))
    assert merge3(base, ours, same_place).clean


# -- M6, M8 in a replay (point 5) -----------------------------------------------------------


def change(seq: int, what: str) -> dict[str, Any]:
    return {"sequence": seq, "timestamp": f"2026-01-01T10:{seq:02d}:00Z", "description": what}


REPLAY = MergeOptions(replay=True, now=NOW)


def test_m8_replay_applies_theirs_sequence_change_on_ours_and_renumbers_its_entries() -> None:
    """Cherry-pick of alice's second commit onto bob: O is alice's first commit."""
    c1 = change(1, "seed")
    base = todo(item("t1", status="inProgress"), item("t2"), sequence=2,
                changeLog=[c1, change(2, "alice t1")])  # fmt: skip
    ours = todo(item("t1"), item("t2"), item("t3"), sequence=3,
                changeLog=[c1, change(2, "bob a"), change(3, "bob t3")])  # fmt: skip
    theirs = todo(item("t1", status="inProgress"), item("t2", status="completed"), sequence=3,
                  changeLog=[c1, change(2, "alice t1"), change(3, "alice t2")])  # fmt: skip
    r = merge3(base, ours, theirs, REPLAY)
    assert r.clean
    assert not r.notes
    merged = r.data["todoList"]
    assert [(c["sequence"], c["description"]) for c in merged["changeLog"]] == [
        (1, "seed"), (2, "bob a"), (3, "bob t3"), (4, "alice t2"),
    ]  # fmt: skip
    assert merged["sequence"] == 4  # A + |B - O|
    assert [i["status"] for i in merged["items"]] == ["pending", "completed", "pending"]
    # the same three documents merged as a merge: O's entry comes back, max + 1, an entry
    as_merge = merge3(base, ours, theirs, MergeOptions(now=NOW)).data["todoList"]
    assert "alice t1" in [c.get("description") for c in as_merge["changeLog"]]
    assert as_merge["changeLog"][-1]["operation"] == "merge"


def test_m8_replay_logs_a_merge_entry_only_when_it_met_a_concurrent_edit() -> None:
    base = todo(item("t1", title="Old"), sequence=1, changeLog=[change(1, "seed")])
    ours = todo(item("t1", title="Ours"), sequence=2, changeLog=[change(1, "seed"), change(2, "o")])
    theirs = todo(item("t1", title="Old\nmore"), sequence=2,
                  changeLog=[change(1, "seed"), change(2, "t")])  # fmt: skip
    r = merge3(base, ours, theirs, REPLAY)
    assert [c.kind for c in r.conflicts] == ["modify/modify"]
    merged = r.data["todoList"]
    assert merged["changeLog"][-1]["operation"] == "merge"
    assert merged["sequence"] == merged["changeLog"][-1]["sequence"] == 4
    assert [n.kind for n in r.notes] == ["sequence-conflict"]


def test_m8_a_replayed_revert_advances_the_sequence_where_ours_left_it() -> None:
    base = todo(item("t1", status="completed", sequence=4), item("t2"), sequence=4)
    ours = todo(item("t1", status="completed", sequence=4), item("t2", title="T"), sequence=5)
    theirs = todo(item("t1", sequence=3), item("t2"), sequence=3)  # the revert
    merged = merge3(base, ours, theirs, REPLAY).data["todoList"]
    assert merged["sequence"] == 6
    assert merged["items"][0] == item("t1", sequence=5)  # reverted, its sequence advanced
    assert merged["items"][1]["title"] == "T"
    # as a merge, theirs' decrease loses to max (noted) and the item's goes down
    as_merge = merge3(base, ours, theirs).data["todoList"]
    assert as_merge["items"][0]["sequence"] == 3


def test_m6_replay_leaves_out_what_ours_never_had_in_event_logs_too() -> None:
    e0, a1, a2, b1 = (event(n, d, n) for n, d in (("e0", 1), ("a1", 2), ("a2", 3), ("b1", 2)))
    r = merge3(playbook(e0, a1), playbook(e0, b1), playbook(e0, a1, a2), REPLAY)
    assert [e["eventId"] for e in r.data["playbook"]["items"]] == ["e0", "b1", "a2"]
    assert not r.notes  # not ours' removal: no append-only note either


def test_replay_signal_reads_git_state_and_the_environment(tmp_path: Any) -> None:
    from git_vcontext.gitio.replay import signal

    assert signal(str(tmp_path), {}) is None  # a single cherry-pick or revert: ask history
    assert signal(str(tmp_path), {"GIT_REFLOG_ACTION": "merge alice"}) is False
    assert signal(str(tmp_path), {"GITHEAD_0123": "alice"}) is False
    for state in ("rebase-merge", "rebase-apply", "sequencer"):
        (tmp_path / state).mkdir()
        assert signal(str(tmp_path), {"GIT_REFLOG_ACTION": "pull --rebase"}) is True
        (tmp_path / state).rmdir()


def test_m19_a_cycle_closed_by_an_edge_and_a_dependency_conflicts_on_both() -> None:
    """vBRIEF ``edges`` order work as ``dependencies`` do (validation reads both)."""

    def plan(*items: dict[str, Any], edges: list[Any]) -> Any:
        body = {"id": "p", "title": "P", "status": "draft", "items": list(items), "edges": edges}
        return {"vBRIEFInfo": {"version": "0.5"}, "plan": body}

    base = plan(item("a"), item("b"), edges=[])
    ours = plan(item("a"), item("b"), edges=[{"from": "a", "to": "b"}])
    theirs = plan(item("a", dependencies=["b"]), item("b"), edges=[])
    r = merge3(base, ours, theirs)
    assert [(c.path, c.kind) for c in r.conflicts] == [
        ("/plan/items/0/dependencies", "dependency-cycle"),
        ("/plan/edges", "dependency-cycle"),
    ]


# -- Playbook view: concurrent heads settled by one update after the winner (point 2) ------


def _view_entry(*events: dict[str, Any]) -> Any:
    from git_vcontext.playbook import playbook_view

    entry = playbook_view(playbook(*events)).entry("x")
    assert entry is not None
    return entry


def test_playbook_view_heads_right_after_a_merge_are_not_settled() -> None:
    e = _view_entry(
        event("e0", 1), event("a1", 2, prevEventId="e0"), event("b1", 3, prevEventId="e0")
    )
    assert (e.heads, e.winner, e.settled, e.multi_head) == (("a1", "b1"), "b1", (), True)


def test_playbook_view_an_update_after_the_winner_settles_the_older_heads() -> None:
    e = _view_entry(
        event("e0", 1),
        event("a1", 2, prevEventId="e0"),
        event("b1", 3, prevEventId="e0"),
        event("s1", 4, prevEventId="b1"),
    )
    assert (e.heads, e.winner, e.settled, e.multi_head) == (("a1", "s1"), "s1", ("a1",), False)
    assert e.to_json()["settled"] == ["a1"]
    assert e.conflicts == ()


def test_playbook_view_an_update_after_a_loser_settles_nothing() -> None:
    e = _view_entry(
        event("e0", 1),
        event("a1", 2, prevEventId="e0"),
        event("b1", 3, prevEventId="e0"),
        event("s1", 4, prevEventId="a1"),
    )
    assert (e.winner, e.settled, e.multi_head) == ("s1", (), True)


def test_playbook_update_settles_even_under_a_fixed_clock() -> None:
    """SOURCE_DATE_EPOCH gives every event one instant: the settling update is dated one
    second after the heads, so it is the winner and settles them."""
    from git_vcontext.playbook import playbook_view
    from git_vcontext.playbook.edit import Edit, append_event

    at = "2026-01-01T00:00:00Z"
    a1 = {"eventId": "zz-a1", "targetId": "x", "operation": "append", "kind": "rule"}
    a1 |= {"text": "a", "createdAt": at}
    b1 = {**a1, "eventId": "zz-b1", "text": "b"}
    out = append_event(playbook(a1, b1), Edit("update", "x", {"text": "both"}), now=at)
    assert out.event["createdAt"] == "2026-01-01T00:00:01Z"
    assert "settles them" in out.notes[0]
    entry = playbook_view(out.data).entry("x")
    assert entry is not None
    assert entry.winner == out.event["eventId"]
    assert (entry.settled, entry.multi_head) == (("zz-a1",), False)
