"""History rules over one (old, new) pair of a file: what a commit may not do to its past."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from git_vcontext.validation import history
from git_vcontext.validation.history import check_change, check_merge_arrival

PATH = "memory/playbook.vcontext.json"


def event(eid: str, target: str = "r1", **fields: Any) -> dict[str, Any]:
    return {"eventId": eid, "targetId": target, "operation": "append", "kind": "rule", **fields}


def playbook(*events: dict[str, Any], key: str = "items", **extra: Any) -> bytes:
    data = {"vContextInfo": {"version": "0.4"}, "playbook": {**extra, key: list(events)}}
    return (json.dumps(data, indent=2) + "\n").encode()


def todo(**container: Any) -> bytes:
    data = {"vContextInfo": {"version": "0.4"}, "todoList": {"items": [], **container}}
    return (json.dumps(data, indent=2) + "\n").encode()


def rules(findings: list[Any]) -> list[str]:
    return [f.rule for f in findings]


def test_appending_events_is_allowed() -> None:
    old = playbook(event("e1", text="a"))
    new = playbook(event("e1", text="a"), event("e2", text="b", prevEventId="e1"))
    assert check_change(old, new, PATH) == []


def test_history_event_removed_names_the_event() -> None:
    old = playbook(event("e1", text="a"), event("e2", text="b"))
    found = check_change(old, playbook(event("e1", text="a")), PATH)
    assert rules(found) == [history.EVENT_REMOVED]
    assert found[0].where == "playbook.items[e2]"
    assert "'e2'" in found[0].message


def test_history_event_modified_is_located_in_the_new_text() -> None:
    old = playbook(event("e1", text="a"), event("e2", text="b"))
    new = playbook(event("e1", text="a"), event("e2", text="changed"))
    found = check_change(old, new, PATH)
    assert rules(found) == [history.EVENT_MODIFIED]
    assert found[0].where == "playbook.items[e2]"
    assert "text" in found[0].message
    assert found[0].line is not None
    line = new.decode().splitlines()[found[0].line - 1]
    assert '"eventId": "e2"' in line


def test_history_event_reordering_is_not_a_modification() -> None:
    old = playbook(event("e1", text="a"), event("e2", text="b"))
    new = playbook(event("e2", text="b"), event("e1", text="a"))
    assert check_change(old, new, PATH) == []


def test_history_target_changed_has_its_own_rule() -> None:
    old = playbook(event("e1", "r1", text="a"))
    new = playbook(event("e1", "r2", text="a"))
    found = check_change(old, new, PATH)
    assert rules(found) == [history.TARGET_CHANGED]
    assert "'r2'" in found[0].message
    assert "'r1'" in found[0].message


def test_history_legacy_entries_spelling_is_checked_too() -> None:
    old = playbook(event("e1", text="a"), key="entries")
    new = playbook(event("e1", text="b"), key="entries")
    assert rules(check_change(old, new, PATH)) == [history.EVENT_MODIFIED]


def test_history_ace_entries_without_event_ids_may_change_counters() -> None:
    """ACE entries (seed 002) are keyed by id and carry counters that grow: not events."""
    old = playbook({"id": "a1", "helpfulCount": 1}, key="entries")
    new = playbook({"id": "a1", "helpfulCount": 2}, key="entries")
    assert check_change(old, new, PATH) == []


def test_history_embedded_playbook_events_are_checked() -> None:
    old = {"vContextInfo": {"version": "0.4"}, "plan": {"playbook": {"items": [event("e1")]}}}
    new = {"vContextInfo": {"version": "0.4"}, "plan": {"playbook": {"items": []}}}
    found = check_change(json.dumps(old).encode(), json.dumps(new).encode(), PATH)
    assert rules(found) == [history.EVENT_REMOVED]
    assert found[0].pointer == "/plan/playbook/items/0"


def test_history_deleting_a_playbook_file_removes_its_events() -> None:
    found = check_change(playbook(event("e1"), event("e2")), None, PATH)
    assert rules(found) == [history.EVENT_REMOVED]
    assert "2 event(s)" in found[0].message


def test_history_deleting_a_file_without_events_is_allowed() -> None:
    assert check_change(todo(sequence=3), None, "a.vcontext.json") == []


def test_history_changelog_append_is_allowed() -> None:
    log = [{"sequence": 1, "agent": "a"}]
    old = todo(sequence=1, changeLog=log)
    new = todo(sequence=2, changeLog=[*log, {"sequence": 2, "agent": "b"}])
    assert check_change(old, new, "t.vcontext.json") == []


def test_history_changelog_removed() -> None:
    old = todo(sequence=2, changeLog=[{"sequence": 1}, {"sequence": 2}])
    new = todo(sequence=2, changeLog=[{"sequence": 2}])
    found = check_change(old, new, "t.vcontext.json")
    assert rules(found) == [history.CHANGELOG_REMOVED]
    assert found[0].pointer == "/todoList/changeLog/0"


def test_history_changelog_modified_when_an_entry_with_its_sequence_remains() -> None:
    old = todo(sequence=1, changeLog=[{"sequence": 1, "summary": "a"}])
    new = todo(sequence=1, changeLog=[{"sequence": 1, "summary": "b"}])
    found = check_change(old, new, "t.vcontext.json")
    assert rules(found) == [history.CHANGELOG_MODIFIED]
    assert "summary" in found[0].message


def test_history_changelog_duplicate_entries_count() -> None:
    entry = {"sequence": 1, "summary": "same"}
    old = todo(changeLog=[entry, entry])
    new = todo(changeLog=[entry])
    assert rules(check_change(old, new, "t.vcontext.json")) == [history.CHANGELOG_MODIFIED]


def test_history_sequence_decreased_in_the_container() -> None:
    found = check_change(todo(sequence=5), todo(sequence=4), "t.vcontext.json")
    assert rules(found) == [history.SEQUENCE_DECREASED]
    assert found[0].where == "todoList.sequence"
    assert found[0].line is not None


def test_history_sequence_decreased_at_document_level() -> None:
    old = json.dumps({"vContextInfo": {"version": "0.4", "sequence": 3}, "todoList": {}})
    new = json.dumps({"vContextInfo": {"version": "0.4", "sequence": 1}, "todoList": {}})
    found = check_change(old.encode(), new.encode(), "t.vcontext.json")
    assert [f.pointer for f in found] == ["/vContextInfo/sequence"]


def test_history_playbook_version_is_a_sequence() -> None:
    found = check_change(playbook(version=4), playbook(version=2), PATH)
    assert rules(found) == [history.SEQUENCE_DECREASED]


def item(ident: str, sequence: int, **fields: Any) -> dict[str, Any]:
    return {"id": ident, "title": ident, "status": "pending", "sequence": sequence, **fields}


def test_history_sequence_decreased_on_an_item_by_its_id() -> None:
    """PRODUCT.md "Validation", history rules: every level, an item by its id too."""
    old = todo(sequence=4, items=[item("t1", 2), item("t2", 3)])
    new = todo(sequence=5, items=[item("t1", 2), item("t2", 1)])
    found = check_change(old, new, "t.vcontext.json")
    assert rules(found) == [history.SEQUENCE_DECREASED]
    assert found[0].where == "todoList.items[t2].sequence"
    assert found[0].pointer == "/todoList/items/1/sequence"
    assert "from 3 to 1" in found[0].message
    assert found[0].line is not None


def test_history_sequence_decreased_on_a_nested_sub_item_and_a_plan_items_own_list() -> None:
    nested = [item("t1", 1, subItems=[item("t1.1", 6)])]
    old = todo(items=nested)
    new = todo(items=[item("t1", 1, subItems=[item("t1.1", 5)])])
    found = check_change(old, new, "t.vcontext.json")
    assert [f.where for f in found] == ["todoList.items[t1].subItems[t1.1].sequence"]

    def plan(sequence: int) -> bytes:
        inner = {"items": [item("t1", sequence)]}
        data = {
            "vContextInfo": {"version": "0.4"},
            "plan": {"title": "p", "status": "draft", "items": [item("p1", 1, todoList=inner)]},
        }
        return json.dumps(data).encode()

    assert rules(check_change(plan(3), plan(2), "p.vcontext.json")) == [history.SEQUENCE_DECREASED]


def test_history_an_items_sequence_follows_it_when_it_moves_or_the_list_is_reordered() -> None:
    """Matched by id, not position: a reorder or a move into subItems (M18) is no decrease,
    and an item moved while its sequence went down is still found."""
    old = todo(items=[item("t1", 5), item("t2", 1)])
    assert check_change(old, todo(items=[item("t2", 1), item("t1", 5)]), "t.vcontext.json") == []
    moved = todo(items=[item("t2", 1, subItems=[item("t1", 6)])])
    assert check_change(old, moved, "t.vcontext.json") == []
    moved_down = todo(items=[item("t2", 1, subItems=[item("t1", 4)])])
    found = check_change(old, moved_down, "t.vcontext.json")
    assert [f.where for f in found] == ["todoList.items[t2].subItems[t1].sequence"]


def test_history_item_sequences_of_new_removed_or_repeated_ids_are_not_compared() -> None:
    old = todo(items=[item("t1", 5), item("t2", 9), item("t2", 1)])
    new = todo(items=[item("t3", 1), item("t2", 2), item("t2", 8)])
    assert check_change(old, new, "t.vcontext.json") == []


def test_history_info_sequence_of_a_vbrief_document_is_checked() -> None:
    """Seed 003 keeps its optimistic lock on vBRIEFInfo.sequence."""
    old = json.dumps({"vBRIEFInfo": {"version": "0.5", "sequence": 3}, "plan": {}})
    new = json.dumps({"vBRIEFInfo": {"version": "0.5", "sequence": 2}, "plan": {}})
    found = check_change(old.encode(), new.encode(), "p.vbrief.json")
    assert [f.pointer for f in found] == ["/vBRIEFInfo/sequence"]


def test_history_changelog_and_event_sequences_are_not_item_sequences() -> None:
    """changeLog entries and events are judged by their own (append-only) rules, once."""
    old = todo(changeLog=[{"sequence": 3, "id": "c1"}])
    new = todo(changeLog=[{"sequence": 1, "id": "c1"}])
    assert rules(check_change(old, new, "t.vcontext.json")) == [history.CHANGELOG_REMOVED]


def test_history_sequence_growing_or_appearing_is_allowed() -> None:
    assert check_change(todo(sequence=1), todo(sequence=2), "t.vcontext.json") == []
    assert check_change(todo(), todo(sequence=1), "t.vcontext.json") == []


FORK = {"parentUid": "u1", "parentSequence": 3, "mergeStatus": "unmerged"}


def test_history_unmerged_fork_brought_in_by_a_merge_from_a_parent_that_had_it() -> None:
    """PRODUCT.md "Validation", history rules: a merge commit whose first parent (the
    branch's own) lacks the fork block another parent (the agent's) has."""
    old = todo(uid="u1", sequence=3)
    agent = todo(uid="u1", sequence=4, fork=FORK)
    found = check_merge_arrival(old, agent, [agent], "t.vcontext.json")
    assert rules(found) == [history.UNMERGED_FORK]
    assert found[0].where == "todoList.fork"
    assert "sync" in found[0].message


def test_history_unmerged_fork_in_a_file_the_merge_adds_from_the_agent() -> None:
    agent = todo(fork=FORK)
    found = check_merge_arrival(None, agent, [agent], "t.vcontext.json")
    assert rules(found) == [history.UNMERGED_FORK]


def test_history_a_fork_block_no_other_parent_had_is_not_brought_in() -> None:
    """Written in the merge itself (or imported): not copied from an agent branch."""
    assert check_merge_arrival(todo(), todo(fork=FORK), [todo()], "t.vcontext.json") == []
    assert check_merge_arrival(todo(), todo(fork=FORK), [None], "t.vcontext.json") == []


def test_history_unmerged_fork_is_not_a_per_commit_rule() -> None:
    """Agent branches carry unmerged forks, and a forked document committed directly (the
    spec's A2 example, imported) is accepted: only merge commits are judged."""
    assert check_change(todo(), todo(fork=FORK), "t.vcontext.json") == []


def test_history_unmerged_fork_already_there_is_not_arriving() -> None:
    old = todo(fork=FORK, sequence=1)
    new = todo(fork=FORK, sequence=2)
    assert check_merge_arrival(old, new, [new], "t.vcontext.json") == []


def test_history_merged_fork_may_arrive() -> None:
    merged = todo(fork={**FORK, "mergeStatus": "merged"})
    assert check_merge_arrival(todo(), merged, [merged], "t.vcontext.json") == []


JSONL = ".work/events.jsonl"


def jsonl(*records: dict[str, Any]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def test_history_jsonl_events_appended_is_allowed() -> None:
    a, b = {"event_id": "a", "type": "x"}, {"event_id": "b", "type": "y"}
    assert check_change(jsonl(a), jsonl(a, b), JSONL) == []


def test_history_jsonl_event_removed() -> None:
    a, b = {"event_id": "a", "type": "x"}, {"event_id": "b", "type": "y"}
    found = check_change(jsonl(a, b), jsonl(b), JSONL)
    assert rules(found) == [history.EVENT_REMOVED]
    assert found[0].where == "[a]"


def test_history_jsonl_event_modified_points_at_its_line() -> None:
    a, b = {"event_id": "a", "type": "x"}, {"event_id": "b", "type": "y"}
    new = b"\n" + jsonl(a, {**b, "type": "z"})
    found = check_change(jsonl(a, b), new, JSONL)
    assert rules(found) == [history.EVENT_MODIFIED]
    assert found[0].line == 3


def test_history_unparseable_side_is_left_to_the_parse_rule() -> None:
    assert check_change(playbook(event("e1")), b"{not json", PATH) == []
    assert check_change(b"{not json", playbook(), PATH) == []


def test_history_tron_documents_are_compared_by_meaning() -> None:
    from git_vcontext import dumps

    old = json.loads(playbook(event("e1", text="a"), event("e2", text="b")))
    new = json.loads(playbook(event("e1", text="a")))
    found = check_change(
        dumps(old, "tron").encode(), dumps(new, "tron").encode(), "p.vcontext.tron"
    )
    assert rules(found) == [history.EVENT_REMOVED]


def test_history_real_edit_histories_from_the_corpus_break_no_rule(shared_dir: Path) -> None:
    """Consecutive versions of real documents: agents and people only appended."""
    corpus = shared_dir / "corpus"
    folders = [p for p in (corpus / "history").iterdir() if p.is_dir()]
    folders += [p for p in (corpus / "external").glob("*/history/*") if p.is_dir()]
    pairs = with_events = 0
    for folder in sorted(folders):
        versions = sorted(folder.glob("*.json"))
        for old, new in itertools.pairwise(versions):
            raw_old, raw_new = old.read_bytes(), new.read_bytes()
            pairs += 1
            with_events += b'"eventId"' in raw_old
            assert check_change(raw_old, raw_new, new.name) == [], f"{old} -> {new}"
    assert pairs > 50
    assert with_events >= 1


def _line(text: bytes | str, number: int | None) -> str:
    assert number is not None, "the finding has no line"
    source = text.decode() if isinstance(text, bytes) else text
    return source.splitlines()[number - 1]


def test_history_sequence_decreased_is_located_even_when_the_value_repeats() -> None:
    """The container's sequence is found by its path, not by searching "sequence": 1,
    which the change log holds too."""
    log = [{"sequence": 1, "agent": "a"}]
    old = todo(sequence=3, changeLog=log)
    new = todo(sequence=1, changeLog=log)
    (found,) = check_change(old, new, "t.vcontext.json")
    assert found.rule == history.SEQUENCE_DECREASED
    assert found.column is not None
    assert _line(new, found.line).strip().startswith('"sequence": 1,')
    assert _line(new, found.line).startswith('    "sequence"')  # the container's, not the log's


def test_history_removed_event_and_changelog_entry_point_at_the_log_they_were_in() -> None:
    old = playbook(event("e1", text="a"), event("e2", text="b"), event("e3", text="c"))
    left = playbook(event("e2", text="b"), event("e3", text="c"))  # the first one removed
    (found,) = check_change(old, left, PATH)
    assert '"items": [' in _line(left, found.line)  # not the event now at its index
    new = todo(sequence=2, changeLog=[{"sequence": 2}])
    removed = check_change(
        todo(sequence=2, changeLog=[{"sequence": 1}, {"sequence": 2}]), new, PATH
    )
    assert rules(removed) == [history.CHANGELOG_REMOVED]
    assert '"changeLog": [' in _line(new, removed[0].line)


def test_history_findings_are_located_in_tron_documents() -> None:
    old = (
        "class Info: version\n\n"
        'vContextInfo: Info("0.4")\n'
        'todoList: {sequence: 5, items: [{id: "t1", sequence: 5}]}\n'
    )
    new = old.replace("{sequence: 5,", "{sequence: 4,")
    (found,) = check_change(old.encode(), new.encode(), "t.vcontext.tron")
    assert found.rule == history.SEQUENCE_DECREASED
    assert found.line == 4
    assert found.column is not None
    assert new.splitlines()[3][found.column - 1 :].startswith("sequence: 4")


def test_history_duplicate_creation_refuses_only_a_non_merge_commit() -> None:
    """Issue 26 (PRODUCT.md "Playbook view"): a commit that adds a second creation for a
    target its parent had is refused (that agent should have written an update); a merge
    commit that brings two agents' creations together is not."""
    old = playbook(event("e1", "dlq", text="a"))
    new = playbook(event("e1", "dlq", text="a"), event("e2", "dlq", text="b"))
    [finding] = check_change(old, new, PATH)
    assert finding.rule == history.DUPLICATE_CREATION
    assert finding.pointer == "/playbook/items/1"
    assert "playbook update" in finding.message
    assert check_change(old, new, PATH, merge=True) == []
    other = playbook(event("e1", "dlq", text="a"), event("e3", "other", text="c"))
    assert check_change(old, other, PATH) == []  # a new target
    update = {"operation": "update", "prevEventId": "e1"}
    assert (
        check_change(
            old, playbook(event("e1", "dlq", text="a"), event("e4", "dlq", **update)), PATH
        )
        == []
    )


def test_history_changelog_removed_when_a_document_with_only_changelog_entries_is_deleted() -> None:
    entry = {"sequence": 1, "timestamp": "2026-01-01T00:00:00Z", "operation": "create"}
    old = todo(changeLog=[entry, {**entry, "sequence": 2}])
    found = check_change(old, None, "memory/todo.vcontext.json")
    assert rules(found) == ["history-changelog-removed"]
    assert "2 changeLog entries" in found[0].message
    assert check_change(todo(), None, "memory/todo.vcontext.json") == []


def test_history_a_moved_document_keeps_its_changelog_entries_as_records() -> None:
    entry = {"sequence": 1, "timestamp": "2026-01-01T00:00:00Z", "operation": "create"}
    before = history.event_ids(todo(changeLog=[entry]), "a.vcontext.json")
    after = history.event_ids(todo(changeLog=[entry, {**entry, "sequence": 2}]), "b.json")
    assert before
    assert before <= after
