"""The log and blame walks on in-memory histories: what they show, skip and where they stop."""

from __future__ import annotations

import json

from git_vcontext.diffing.model import Change
from helpers.lineage import FakeHistory, blame, log, shown, todo

F = "todo.vcontext.json"


def _linear() -> FakeHistory:
    h = FakeHistory()
    h.commit("c1", {F: todo(t1="pending", t2="pending")})
    h.commit("c2", {F: todo(t1="pending", t2="completed")}, ("c1",))
    h.commit("c3", {F: todo(t1="completed", t2="completed")}, ("c2",))
    return h


def test_log_shows_the_commits_that_changed_one_item_newest_first() -> None:
    entries, _ = log(_linear(), "c3", F, ["t1"])
    assert shown(entries) == [
        ("c3", ["todoList.items[t1].status change"]),
        ("c1", ["todoList.items[t1] add"]),
    ]
    change: Change = entries[0].sides[0].changes[0]
    assert (change.old, change.new, change.id) == ("pending", "completed", "t1")


def test_log_of_several_ids_shows_each_commit_once_with_both_items() -> None:
    entries, _ = log(_linear(), "c3", F, ["t1", "t2"])
    assert [c for c, _ in shown(entries)] == ["c3", "c2", "c1"]
    assert shown(entries)[2][1] == ["todoList.items[t1] add", "todoList.items[t2] add"]


def test_log_of_the_whole_document_shows_every_change() -> None:
    entries, _ = log(_linear(), "c3", F, [None])
    assert [c for c, _ in shown(entries)] == ["c3", "c2", "c1"]


def test_unchanged_blobs_are_skipped_by_id_and_each_version_parsed_once() -> None:
    h = FakeHistory()
    h.commit("c1", {F: todo(t1="pending"), "other.txt": b"1"})
    for n in range(2, 12):  # commits that touch only another file
        h.commit(f"c{n}", {F: todo(t1="pending"), "other.txt": str(n).encode()}, (f"c{n - 1}",))
    h.commit("c12", {F: todo(t1="completed")}, ("c11",))
    entries, walk = log(h, "c12", F, ["t1"])
    assert [c for c, _ in shown(entries)] == ["c12", "c1"]
    assert walk.versions.parsed + walk.versions.derived == 2
    assert h.reads == 2


def _merge(t1_a: str, t1_b: str, t1_m: str) -> FakeHistory:
    h = FakeHistory()
    h.commit("base", {F: todo(t1="pending", t2="pending")})
    h.commit("a", {F: todo(t1=t1_a, t2="pending")}, ("base",))
    h.commit("b", {F: todo(t1=t1_b, t2="blocked")}, ("base",))
    h.commit("m", {F: todo(t1=t1_m, t2="blocked")}, ("a", "b"))
    return h


def test_a_merge_that_took_one_side_is_not_shown_and_only_that_side_is_followed() -> None:
    h = _merge("completed", "pending", "completed")
    assert [c for c, _ in shown(log(h, "m", F, ["t1"])[0])] == ["a", "base"]
    assert [c for c, _ in shown(log(h, "m", F, ["t2"])[0])] == ["b", "base"]


def test_a_merge_that_combined_both_sides_is_shown_once_with_what_each_side_brought() -> None:
    h = FakeHistory()
    base = {"id": "t1", "title": "T", "status": "pending"}
    doc = {"vContextInfo": {"version": "0.4"}, "todoList": {"items": [base]}}

    def version(**fields: str) -> bytes:
        item = {**base, **fields}
        return json.dumps({**doc, "todoList": {"items": [item]}}).encode()

    h.commit("base", {F: version()})
    h.commit("a", {F: version(status="completed")}, ("base",))
    h.commit("b", {F: version(title="New")}, ("base",))
    h.commit("m", {F: version(status="completed", title="New")}, ("a", "b"))
    entries, _ = log(h, "m", F, ["t1"])
    assert [c for c, _ in shown(entries)] == ["m", "b", "a", "base"]
    merge = entries[0]
    by_parent = {s.parent: [(c.anchor, c.new) for c in s.changes] for s in merge.sides}
    assert by_parent == {
        "a": [("todoList.items[t1].title", "New")],  # what b's side brought
        "b": [("todoList.items[t1].status", "completed")],  # what a's side brought
    }


def test_a_deleted_and_re_added_item_shows_both_lives() -> None:
    h = FakeHistory()
    h.commit("c1", {F: todo(t1="pending", t2="pending")})
    h.commit("c2", {F: todo(t2="pending")}, ("c1",))
    h.commit("c3", {F: todo(t2="pending", t1="blocked")}, ("c2",))
    entries, _ = log(h, "c3", F, ["t1"])
    assert shown(entries) == [
        ("c3", ["todoList.items[t1] add"]),
        ("c2", ["todoList.items[t1] remove"]),
        ("c1", ["todoList.items[t1] add"]),
    ]


def test_a_version_that_does_not_parse_is_shown_and_the_walk_goes_on() -> None:
    h = FakeHistory()
    h.commit("c1", {F: todo(t1="pending")})
    h.commit("c2", {F: b"<<<<<<< HEAD\n{\n"}, ("c1",))
    h.commit("c3", {F: todo(t1="completed")}, ("c2",))
    entries, _ = log(h, "c3", F, ["t1"])
    assert shown(entries) == [
        ("c3", ["todoList.items[t1].status change"]),
        ("c2", ["unreadable"]),
        ("c1", ["todoList.items[t1] add"]),
    ]
    side = entries[0].sides[0]
    assert (side.parent, side.base) == ("c2", "c1")  # compared with the last version that parses
    assert "conflict markers" in (entries[1].unreadable or "")


def test_a_first_version_that_does_not_parse_leaves_the_next_one_compared_with_nothing() -> None:
    h = FakeHistory()
    h.commit("c1", {F: b"{ broken"})
    h.commit("c2", {F: todo(t1="pending")}, ("c1",))
    entries, _ = log(h, "c2", F, ["t1"])
    assert shown(entries) == [("c2", ["todoList.items[t1] add"]), ("c1", ["unreadable"])]
    assert (entries[0].sides[0].parent, entries[0].sides[0].base) == ("c1", None)


def test_max_count_stops_the_walk_once_the_newest_commits_are_known() -> None:
    h = FakeHistory()
    h.commit("c0", {F: todo(t1="s0")})
    for n in range(1, 30):
        h.commit(f"c{n}", {F: todo(t1=f"s{n}")}, (f"c{n - 1}",))
    entries, walk = log(h, "c29", F, ["t1"], limit=2)
    assert [c for c, _ in shown(entries)] == ["c29", "c28"]
    assert walk.stopped
    assert h.reads < 6


def test_follow_goes_through_a_json_to_tron_conversion() -> None:
    from git_vcontext.codecs import dumps, parse

    h = FakeHistory()
    h.commit("c1", {F: todo(t1="pending", t2="pending")})
    data = parse(todo(t1="completed", t2="pending"), path=F).data
    h.commit("c2", {"todo.vcontext.tron": dumps(data, "tron").encode()}, ("c1",))
    followed, _ = log(h, "c2", "todo.vcontext.tron", ["t1"], follow=True)
    assert shown(followed) == [
        ("c2", ["todoList.items[t1].status change"]),
        ("c1", ["todoList.items[t1] add"]),
    ]
    assert followed[0].sides[0].base_path == F
    alone, _ = log(h, "c2", "todo.vcontext.tron", ["t1"])
    assert shown(alone) == [("c2", ["todoList.items[t1] add"])]


def test_a_pure_rename_is_shown_in_the_whole_document_log_only() -> None:
    h = FakeHistory()
    h.commit("c1", {F: todo(t1="pending")})
    h.commit("c2", {"memory/" + F: todo(t1="pending")}, ("c1",))
    whole, _ = log(h, "c2", "memory/" + F, [None], follow=True)
    assert [(e.commit, e.renamed_from) for e in whole] == [("c2", F), ("c1", None)]
    item, _ = log(h, "c2", "memory/" + F, ["t1"], follow=True)
    assert [e.commit for e in item] == ["c1"]


def test_an_id_in_no_version_is_reported_with_the_ids_the_document_has() -> None:
    _, walk = log(_linear(), "c3", F, ["t9"])
    assert "t9" not in walk.present
    assert walk.known[F] == ["t1", "t2"]


def test_blame_names_the_commit_that_gave_each_item_its_value() -> None:
    assert blame(_linear(), "c3", F) == {"todoList.items[t1]": "c3", "todoList.items[t2]": "c2"}


def test_blame_follows_the_merged_side_that_holds_the_value() -> None:
    h = _merge("completed", "pending", "completed")
    assert blame(h, "m", F) == {"todoList.items[t1]": "a", "todoList.items[t2]": "b"}


def test_blame_by_field() -> None:
    h = FakeHistory()
    h.commit("c1", {F: todo(t1="pending")})
    h.commit("c2", {F: todo(t1="done")}, ("c1",))
    lines = blame(h, "c2", F, fields=True)
    assert lines == {
        "todoList.items[t1].id": "c1",
        "todoList.items[t1].title": "c1",
        "todoList.items[t1].status": "c2",
    }


def test_blame_passes_through_a_version_that_does_not_parse() -> None:
    h = FakeHistory()
    h.commit("c1", {F: todo(t1="pending", t2="pending")})
    h.commit("c2", {F: b"{ broken"}, ("c1",))
    h.commit("c3", {F: todo(t1="pending", t2="completed")}, ("c2",))
    assert blame(h, "c3", F) == {"todoList.items[t1]": "c1", "todoList.items[t2]": "c3"}


def test_blame_stops_once_every_item_is_explained() -> None:
    h = FakeHistory()
    h.commit("c0", {F: todo(t1="s0")})
    for n in range(1, 40):
        h.commit(f"c{n}", {F: todo(t1=f"s{n}")}, (f"c{n - 1}",))
    assert blame(h, "c39", F) == {"todoList.items[t1]": "c39"}
    assert h.reads == 2  # the tip and its parent, nothing older


def test_blame_of_a_playbook_entry_is_the_commit_of_its_winning_head() -> None:
    from helpers.playbook import ev

    def book(*events: dict[str, object]) -> bytes:
        doc = {"vContextInfo": {"version": "0.4"}, "playbook": {"items": list(events)}}
        return json.dumps(doc).encode()

    e1 = ev("e1", "x", "append", at=1, text="Retry once")
    e2 = ev("e2", "x", "update", prev="e1", at=2, delta={"helpfulCount": 1})
    e3 = ev("e3", "x", "update", prev="e1", at=3, text="Retry twice")
    h = FakeHistory()
    h.commit("c1", {"p.vcontext.json": book(e1)})
    h.commit("c2", {"p.vcontext.json": book(e1, e3)}, ("c1",))
    h.commit("c3", {"p.vcontext.json": book(e1, e3, e2)}, ("c2",))  # e2 loses to e3
    assert blame(h, "c3", "p.vcontext.json") == {"playbook[x]": "c2"}
    assert blame(h, "c3", "p.vcontext.json", fields=True)["playbook[x].helpfulCount"] == "c3"


def test_walks_leave_no_reference_cycles_behind() -> None:
    """log and blame run with the cycle collector off: a cycle per version would keep
    every parsed version alive until the process ends."""
    import gc

    from helpers.playbook import ev

    def history() -> FakeHistory:  # json.dumps(indent=...) itself leaves cycles: made first
        h = _linear()
        h.commit("c4", {F: todo(t1="blocked", t2="completed")}, ("c3",))  # read from c3
        book = {"vContextInfo": {"version": "0.4"}, "playbook": {"items": [ev("e", "x", "append")]}}
        files = {F: todo(t1="done", t2="completed"), "p.json": json.dumps(book).encode()}
        h.commit("c5", files, ("c4",))
        return h

    def run(h: FakeHistory) -> None:
        log(h, "c5", F, ["t1", None])
        log(h, "c5", "p.json", ["x"])
        blame(h, "c5", F, fields=True)

    run(history())
    h = history()
    gc.collect()
    gc.disable()
    try:
        run(h)
        assert gc.collect() == 0
    finally:
        gc.enable()
