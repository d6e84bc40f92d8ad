"""``FILE#ID`` arguments and what a document offers to trace (ids, entries, repeated ids)."""

from __future__ import annotations

import pytest

from git_vcontext.errors import UsageError
from git_vcontext.lineage.items import Index
from git_vcontext.lineage.slots import ELEMENT, ENTRY, EVENT, ITEM, RECORD
from git_vcontext.lineage.spec import Target, parse_ids, show_id, split_target


def _files(*names: str) -> object:
    return lambda name: name in names


@pytest.mark.parametrize(
    ("arg", "target"),
    [
        ("todo.json", Target("todo.json")),
        ("todo.json#t1", Target("todo.json", ("t1",))),
        ("todo.json#t1#t3", Target("todo.json", ("t1", "t3"))),
        ('todo.json#t1#"step #2"', Target("todo.json", ("t1", "step #2"))),
        ('todo.json#"say \\"hi\\""', Target("todo.json", ('say "hi"',))),
        ('todo.json#""', Target("todo.json", ("",))),
        ("todo.json#t1#t1", Target("todo.json", ("t1",))),
        ("odd#name.json#t1", Target("odd#name.json", ("t1",))),  # the file exists
        ("odd#name.json", Target("odd#name.json")),
        ("missing.json#t1", Target("missing.json", ("t1",))),  # no file: first '#'
    ],
)
def test_file_and_ids_are_split_at_hashes_quoted_ids_keep_theirs(arg: str, target: Target) -> None:
    assert split_target(arg, _files("todo.json", "odd#name.json")) == target  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "arg", ["todo.json#", "todo.json#t1#", "todo.json##t2", 'todo.json#"open', 'a#"x"y', "#t1"]
)
def test_malformed_ids_are_usage_errors(arg: str) -> None:
    with pytest.raises(UsageError):
        split_target(arg, _files("todo.json"))  # type: ignore[arg-type]


@pytest.mark.parametrize("ident", ["t1", "step #2", "", '"quoted', "tab\there", "naïve"])
def test_an_id_is_shown_the_way_file_hash_id_takes_it_back(ident: str) -> None:
    assert parse_ids(show_id(ident)) == (ident,)


def test_the_index_finds_items_nested_items_events_and_other_keyed_elements() -> None:
    data = {
        "vContextInfo": {"version": "0.4"},
        "plan": {
            "id": "p",
            "items": [
                {"id": "t1", "subItems": [{"id": "t1.1", "title": "Inner"}]},
                {"title": "no id"},
                {"id": 7, "references": [{"id": "r1", "uri": "x"}]},
            ],
            "changeLog": [{"newValue": {"items": [{"id": "t1"}]}}],  # a copy, not the item
        },
    }
    index = Index(data)
    found = {s.anchor: (s.kind, s.pointer, s.prev) for s in index.slots}
    assert found == {
        "plan.items[t1]": (ITEM, "/plan/items/0", None),
        "plan.items[t1].subItems[t1.1]": (ITEM, "/plan/items/0/subItems/0", None),
        "plan.items[id=7]": (ITEM, "/plan/items/2", None),
        "plan.items[id=7].references[r1]": (ELEMENT, "/plan/items/2/references/0", None),
    }
    assert [s.pointer for s in index.find("7")] == ["/plan/items/2"]
    assert index.keys() == ["t1", "t1.1", "7", "r1"]


def test_repeated_ids_are_all_kept_in_document_order() -> None:
    data = {"todoList": {"items": [{"id": "a", "n": 1}, {"id": "b"}, {"id": "a", "n": 2}]}}
    assert [(s.value["n"], s.prev) for s in Index(data).find("a")] == [(1, None), (2, "b")]


def test_playbook_entries_are_found_by_target_with_their_events() -> None:
    from helpers.playbook import ev

    e1 = ev("e1", "x", "append", at=1, text="Retry once")
    e2 = ev("e2", "x", "update", prev="e1", at=2, delta={"helpfulCount": 1})
    index = Index({"vContextInfo": {"version": "0.4"}, "playbook": {"items": [e1, e2]}})
    kinds = [(s.kind, s.anchor) for s in index.find("x")]
    assert kinds == [
        (ENTRY, "playbook[x]"),
        (EVENT, "playbook.items[e1]"),
        (EVENT, "playbook.items[e2]"),
    ]
    assert index.entries["x"].value["helpfulCount"] == 1
    assert index.winners["x"] == "e2"
    assert [s.kind for s in index.find("e2")] == [EVENT]


def test_jsonl_records_are_items_of_a_file_that_is_a_list() -> None:
    index = Index([{"event_id": "a"}, {"event_id": "b"}])
    assert [(s.kind, s.anchor) for s in index.slots] == [(RECORD, "[a]"), (RECORD, "[b]")]
