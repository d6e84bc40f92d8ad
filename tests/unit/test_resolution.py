"""Conflicts as data and choices applied to them (PRODUCT.md "Resolving conflicts"), without git."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from git_vcontext.codecs import dumps, parse
from git_vcontext.errors import NotData
from git_vcontext.merging.conflict_record import jsonpath_parts
from git_vcontext.merging.result import MISSING
from git_vcontext.merging.textmerge import Markers
from git_vcontext.resolution.core import from_marked, from_versions, recovered_now
from git_vcontext.resolution.markers import split_markers
from git_vcontext.resolution.model import Choice, Style
from git_vcontext.resolution.structured import StructuredFile
from helpers.conflict_repos import todo
from helpers.merging import merge_files

PATH = "todo.vcontext.json"
MARKERS = Style(False, Markers(7, "main", "base", "feat"))


def text(data: Any) -> bytes:
    return (json.dumps(data, indent=2) + "\n").encode()


def conflicted(base: Any, ours: Any, theirs: Any, path: str = PATH, fmt: str = "json") -> Any:
    raw = [dumps(x, fmt).encode() if fmt != "json" else text(x) for x in (base, ours, theirs)]  # type: ignore[arg-type]
    return from_versions(*raw, path=path, now="2026-01-01T00:00:00Z")


def two_conflicts() -> Any:
    ours = todo(t1="blocked", t2=None)
    theirs = todo(t1="completed", t2={"title": "Docs"})
    theirs["todoList"]["items"].append({"id": "t4", "title": "New", "status": "pending"})
    return conflicted(todo(), ours, theirs)


def test_each_conflict_has_a_pointer_an_id_anchored_place_kind_and_absent_sides() -> None:
    listed = [c.to_json() for c in two_conflicts().conflicts]
    assert [(c["pointer"], c["where"], c["kind"]) for c in listed] == [
        ("/todoList/items/0/status", "todoList.items[t1].status", "status"),
        ("/todoList/items/1", "todoList.items[t2]", "delete/modify"),
    ]
    assert listed[0]["absent"] == []
    assert listed[0]["ours"] == "blocked"
    assert listed[1]["ours"] is None
    assert listed[1]["absent"] == ["ours"]
    assert listed[1]["theirs"]["title"] == "Docs"


def test_conflict_ids_are_stable_for_the_same_inputs_and_differ_for_others() -> None:
    first = [c.id for c in two_conflicts().conflicts]
    assert first == [c.id for c in two_conflicts().conflicts]
    assert len(set(first)) == 2
    other = conflicted(todo(), todo(t1="blocked"), todo(t1="cancelled")).conflicts[0].id
    assert other not in first


def test_resolving_one_conflict_leaves_the_other_as_it_was_written() -> None:
    r = two_conflicts()
    status, item = r.conflicts
    before = r.settle({}, MARKERS).text
    after = r.settle({status.id: Choice("theirs")}, MARKERS)
    assert [c.id for c in after.remaining] == [item.id]  # the id does not change
    assert after.text.count("<<<<<<< main") == 1 == before.count("<<<<<<< main") - 1
    assert '"status": "completed"' in after.text
    # the block left is byte for byte the one the merge wrote
    assert before[before.index("<<<<<<< main", before.index(">>>>>>> feat")) :] in after.text


def test_all_resolved_is_ours_style_without_markers_with_every_clean_change_kept() -> None:
    r = two_conflicts()
    status, item = r.conflicts
    done = r.settle({status.id: Choice("ours"), item.id: Choice("theirs")}, MARKERS)
    assert done.done
    assert "<<<<<<<" not in done.text
    data = json.loads(done.text)
    assert [i["id"] for i in data["todoList"]["items"]] == ["t1", "t2", "t3", "t4"]  # t4: theirs
    assert data["todoList"]["items"][0]["status"] == "blocked"
    assert data["todoList"]["items"][1]["title"] == "Docs"
    assert done.text == json.dumps(data, indent=2) + "\n"  # ours' style


def test_taking_a_side_that_has_no_value_there_deletes_it() -> None:
    r = two_conflicts()
    status, item = r.conflicts
    done = r.settle({status.id: Choice("base"), item.id: Choice("ours")}, MARKERS)
    items = json.loads(done.text)["todoList"]["items"]
    assert [i["id"] for i in items] == ["t1", "t3", "t4"]
    assert items[0]["status"] == "pending"


def test_a_value_given_is_written_at_the_conflict_in_tron_keeping_ours_classes() -> None:
    r = conflicted(todo(), todo(t1="blocked"), todo(t1="completed"), "todo.vcontext.tron", "tron")
    [c] = r.conflicts
    assert c.where == "todoList.items[t1].status"
    done = r.settle({c.id: Choice(None, "inProgress")}, MARKERS)
    assert 'TodoItem("t1", "Task 1", "inProgress")' in done.text
    assert done.text.startswith("class vContextInfo")
    assert parse(done.text.encode(), path="todo.vcontext.tron").data == todo(t1="inProgress")


def test_jsonl_records_resolve_by_record_and_stay_one_per_line() -> None:
    def log(status: str) -> bytes:
        rows = [{"id": "w1", "status": status}, {"id": "w2", "status": "open"}]
        return "".join(json.dumps(r) + "\n" for r in rows).encode()

    r = from_versions(
        log("open"), log("done"), log("failed"), path=".work/work_orders.jsonl", now=None
    )
    [c] = r.conflicts
    assert (c.pointer, c.where) == ("/0/status", "[w1].status")
    done = r.settle({c.id: Choice("theirs")}, MARKERS)
    assert done.text == '{"id": "w1", "status": "failed"}\n{"id": "w2", "status": "open"}\n'


def test_structured_style_lists_resolved_and_unresolved_then_records_who_and_when() -> None:
    r = two_conflicts()
    status, item = r.conflicts
    structured = Style(True)
    partial = json.loads(r.settle({status.id: Choice("theirs")}, structured).text)
    record = partial["vContextInfo"]["metadata"]["conflictResolution"]
    assert [c["status"] for c in record["conflicts"]] == ["resolved", "unresolved"]
    assert record["conflicts"][0]["resolution"] == "completed"
    who = {"id": "dev@example.com", "type": "human", "name": "Dev"}
    final = r.settle(
        {status.id: Choice("theirs"), item.id: Choice("theirs")},
        structured,
        resolved_by=who,
        now="2026-02-01T00:00:00Z",
    )
    record = json.loads(final.text)["vContextInfo"]["metadata"]["conflictResolution"]
    assert {c["status"] for c in record["conflicts"]} == {"resolved"}
    assert record["resolvedBy"] == who
    assert record["resolvedAt"] == "2026-02-01T00:00:00Z"


def test_structured_conflict_of_a_fork_gets_its_merge_status_back_when_resolved() -> None:
    fork = {"parentUid": "u1", "parentSequence": 1, "forkedAt": "2026-01-01T00:00:00Z",
            "mergeStatus": "unmerged"}  # fmt: skip
    sides = [todo(), todo(t1="blocked"), todo(t1="completed")]
    for side in sides:
        side["todoList"] = {"uid": "u1", "fork": dict(fork), **side["todoList"]}
    r = conflicted(sides[0], sides[1], sides[2])
    [c] = r.conflicts
    partial = json.loads(r.settle({}, Style(True)).text)
    assert partial["todoList"]["fork"]["mergeStatus"] == "conflict"
    final = json.loads(r.settle({c.id: Choice("ours")}, Style(True)).text)
    assert final["todoList"]["fork"]["mergeStatus"] == "unmerged"
    assert final["todoList"]["fork"]["conflictResolution"]["conflicts"][0]["status"] == "resolved"


def test_a_side_that_does_not_parse_cannot_be_resolved_as_data() -> None:
    with pytest.raises(NotData):
        from_versions(text(todo()), b"{not json", text(todo(t1="x")), path=PATH, now=None)


def test_a_file_deleted_on_one_side_is_one_conflict_at_the_root() -> None:
    r = from_versions(text(todo()), None, text(todo(t1="completed")), path=PATH, now=None)
    [c] = r.conflicts
    assert (c.pointer, c.where, c.kind, c.ours) == ("", "(root)", "delete/modify", MISSING)
    assert r.settle({c.id: Choice("ours")}, MARKERS).text is None  # the file goes
    kept = r.settle({c.id: Choice("theirs")}, MARKERS).text
    assert kept is not None
    assert json.loads(kept) == todo(t1="completed")


# -- markers read back ---------------------------------------------------------------


def test_markers_read_back_give_the_sides_labels_size_and_base() -> None:
    base, ours, theirs = text(todo()), text(todo(t1="blocked")), text(todo(t1="completed"))
    out = merge_files(
        base, ours, theirs, path=PATH, markers=Markers(9, "main", "anc", "feat", True)
    )
    marked = split_markers(out.output.decode())
    assert marked is not None
    assert marked.blocks == 1
    assert (marked.markers.size, marked.markers.ours_label, marked.markers.theirs_label) == (
        9,
        "main",
        "feat",
    )
    assert marked.markers.diff3
    assert marked.markers.base_label == "anc"
    assert json.loads(marked.ours) == todo(t1="blocked")
    assert json.loads(marked.theirs) == todo(t1="completed")
    assert json.loads(marked.base or "") == todo()


@pytest.mark.parametrize(
    "broken",
    [
        "<<<<<<< a\nx\n=======\ny\n",
        "no markers at all\n",
        "<<<<<<<< eight\nx\n=======\ny\n>>>>>>>> b\n",
    ],
    ids=["unterminated", "none", "eight-long-then-seven-long-lines-missing"],
)
def test_text_without_a_complete_block_has_no_markers(broken: str) -> None:
    marked = split_markers(broken)
    assert marked is None or marked.blocks == 1  # eight-long markers are markers of size 8


def test_markers_without_a_base_section_make_every_difference_a_conflict() -> None:
    out = merge_files(text(todo()), text(todo(t1="blocked", t2=None)),
                      text(todo(t1="completed", t2="blocked")), path=PATH)  # fmt: skip
    r = from_marked(split_markers(out.output.decode()), PATH)  # type: ignore[arg-type]
    got = [(c.where, c.kind, c.base, c.ours) for c in r.conflicts]
    assert got == [
        ("todoList.items[t1].status", "status", MISSING, "blocked"),
        ("todoList.items[t2]", "delete/modify", MISSING, MISSING),
    ]
    done = r.settle({c.id: Choice("theirs") for c in r.conflicts}, MARKERS)
    assert done.text is not None
    assert json.loads(done.text) == todo(t1="completed", t2="blocked")


def test_minified_markers_read_back_and_resolve_to_one_line_json() -> None:
    def mini(d: Any) -> bytes:
        return (json.dumps(d, separators=(",", ":")) + "\n").encode()

    out = merge_files(mini(todo()), mini(todo(t1="blocked")), mini(todo(t1="completed")), path=PATH)
    written = out.output.decode()
    lines = written.splitlines()
    assert lines[1:6] == ["<<<<<<< ours", '"blocked"', "=======", '"completed"', ">>>>>>> theirs"]
    assert len(lines) == 7
    assert lines[0].endswith('"status":')
    assert lines[6].startswith("},")
    r = from_marked(split_markers(written), PATH)  # type: ignore[arg-type]
    [c] = r.conflicts
    assert r.settle({c.id: Choice("ours")}, MARKERS).text == mini(todo(t1="blocked")).decode()


# -- structured files outside a merge --------------------------------------------------


def test_a_structured_file_is_resolved_in_place_and_its_conflicts_marked() -> None:
    out = merge_files(text(todo()), text(todo(t1="blocked")), text(todo(t1="completed")),
                      path=PATH, structured=True)  # fmt: skip
    f = StructuredFile(parse(out.output, path=PATH))
    [c] = f.conflicts
    assert (c.where, c.ours, c.theirs) == ("todoList.items[t1].status", "blocked", "completed")
    done = f.settle({c.id: Choice("theirs")}, resolved_by={"id": "a", "type": "aiAgent"}, now="N")
    data = json.loads(done.text or "")
    assert data["todoList"]["items"][0]["status"] == "completed"
    record = data["vContextInfo"]["metadata"]["conflictResolution"]
    assert record["conflicts"][0]["status"] == "resolved"
    assert record["resolvedAt"] == "N"


def test_jsonpath_of_the_spec_reads_back_into_keys_and_indexes() -> None:
    assert jsonpath_parts("$.todoList.items[2]['odd key'].x") == [
        "todoList",
        "items",
        2,
        "odd key",
        "x",
    ]
    assert jsonpath_parts("$['it\\'s']") == ["it's"]
    assert jsonpath_parts("todoList") is None
    assert jsonpath_parts("$.a[") is None


# -- merging the stages again gives what the driver wrote -------------------------------


def test_the_time_of_the_merge_is_read_back_from_its_m8_changelog_entry() -> None:
    def seq(n: int, status: str) -> Any:
        data = todo(t1=status)
        data["todoList"] = {"sequence": n, "changeLog": [], **data["todoList"]}
        return data

    base, ours, theirs = text(seq(1, "pending")), text(seq(2, "blocked")), text(seq(2, "completed"))
    out = merge_files(base, ours, theirs, path=PATH, options=_at("2026-03-04T05:06:07Z"))
    assert recovered_now(out.output.decode(), ours, PATH) == "2026-03-04T05:06:07Z"
    again = from_versions(base, ours, theirs, path=PATH, now="2026-03-04T05:06:07Z")
    assert again.settle({}, Style(False, Markers())).text == out.output.decode()
    assert recovered_now(text(seq(2, "blocked")).decode(), ours, PATH) is None


def test_the_time_of_the_merge_is_not_read_from_a_merge_entry_theirs_brought() -> None:
    """M16/M17 (what resolve merges again is what the driver wrote): theirs holds a merge
    entry of its own (the remote's base, merged by another agent a second earlier), which is
    not in ours either. Read back as this merge's time, the stages merged again differed
    from the file in one timestamp, and ``conflicts``/``resolve`` said "changed since the
    merge stopped" of a file nobody had touched (trial12, after sync --checkout)."""

    def seq(n: int, status: str, log: list[Any]) -> Any:
        data = todo(t1=status)
        data["todoList"] = {"sequence": n, "changeLog": log, **data["todoList"]}
        return data

    earlier = {
        "sequence": 2,
        "timestamp": "2026-03-04T05:06:06Z",
        "agent": {"id": "git-vcontext", "type": "system", "name": "git-vcontext"},
        "operation": "merge",
        "reason": "git-vcontext merged concurrent edits at sequence 1 (ours) and 1 (theirs)",
    }
    base = text(seq(1, "pending", []))
    ours = text(seq(2, "blocked", []))
    theirs = text(seq(2, "completed", [earlier]))
    out = merge_files(base, ours, theirs, path=PATH, options=_at("2026-03-04T05:06:07Z"))

    assert recovered_now(out.output.decode(), ours, PATH, theirs) == "2026-03-04T05:06:07Z"
    again = from_versions(base, ours, theirs, path=PATH, now="2026-03-04T05:06:07Z")
    assert again.settle({}, Style(False, Markers())).text == out.output.decode()


def _at(now: str) -> Any:
    from git_vcontext.merging.result import MergeOptions

    return MergeOptions(now=now)


def test_m15_pointers_count_only_the_elements_ours_has() -> None:
    """A conflict after an element ours deleted points into ours' data, where it is."""
    ours = todo(t2=None, t3={"title": "Ours"})
    theirs = todo(t2="completed", t3={"title": "Theirs"})
    out = merge_files(text(todo()), text(ours), text(theirs), path=PATH)
    assert out.result is not None
    assert [c.path for c in out.result.conflicts] == [
        "/todoList/items/1",
        "/todoList/items/1/title",
    ]
    assert copy.deepcopy(ours)["todoList"]["items"][1]["title"] == "Ours"
