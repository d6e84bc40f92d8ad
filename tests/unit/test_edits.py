"""The MCP server's edits as pure functions (PRODUCT.md, "MCP server (seed 003)": every write).

A fresh unique id unless the client gave a free one, the container's ``sequence`` + 1, a
``changeLog`` Change, ``updated``/``lastModifiedBy``; playbook events chained to the
winning head; the old data is never changed (copy on write).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from git_vcontext.edits import learnings, plans, todos
from git_vcontext.edits.stamp import Stamp, json_path
from git_vcontext.errors import Refused
from git_vcontext.playbook.view import playbook_view
from helpers.playbook import doc, ev

STAMP = Stamp("bob", "2026-02-03T04:05:06Z")
NESTED = {
    "vContextInfo": {"version": "0.4"},
    "todoList": {
        "items": [
            {
                "id": "a",
                "title": "A",
                "status": "pending",
                "subItems": [{"id": "a.1", "title": "A1", "status": "pending"}],
            },
        ],
    },
}


def test_edit_never_changes_the_old_data_and_shares_what_it_did_not_touch() -> None:
    before = copy.deepcopy(NESTED)
    out = todos.update(NESTED, "a.1", {"status": "completed"}, STAMP)
    assert before == NESTED
    new_list = out.data["todoList"]
    assert new_list["items"][0]["subItems"][0]["status"] == "completed"
    assert new_list["items"][0]["subItems"][0]["completed"] == STAMP.now
    assert out.data["vContextInfo"] is NESTED["vContextInfo"]
    assert out.change.path == ("todoList", "items", 0, "subItems", 0, "status")


def test_edit_starts_extension_10_fields_on_a_bare_container() -> None:
    out = todos.create(NESTED, {"title": "B"}, STAMP, entropy="x")
    container = out.data["todoList"]
    assert container["sequence"] == 1
    assert container["updated"] == STAMP.now
    assert container["lastModifiedBy"] == {"id": "bob", "type": "aiAgent"}
    assert container["changeLog"] == [
        {
            "sequence": 1,
            "timestamp": STAMP.now,
            "agent": {"id": "bob", "type": "aiAgent"},
            "operation": "create",
            "path": "$.todoList.items[1]",
            "description": f"created {out.item_id}: B",
        }
    ]
    assert list(container) == ["items", "sequence", "updated", "lastModifiedBy", "changeLog"]


def test_edit_fresh_ids_are_unique_and_client_ids_must_be_free_and_plain() -> None:
    data: Any = NESTED
    made = set()
    for n in range(50):
        out = todos.create(data, {"title": f"t{n}"}, STAMP, entropy="same entropy")
        made.add(out.item_id)
        data = out.data
    assert len(made) == 50
    assert all(i.startswith("todo-") for i in made)
    assert todos.create(NESTED, {"title": "x", "id": "mine"}, STAMP, entropy="e").item_id == "mine"
    for bad, why in (
        ("a.1", "taken"),
        ("../x", "plain"),
        ("a/b", "plain"),
        ("", "plain"),
        ("/etc/passwd", "plain"),
    ):
        with pytest.raises(Refused, match=why):
            todos.create(NESTED, {"title": "x", "id": bad}, STAMP, entropy="e")


def test_edit_refusals_say_what_and_what_is_allowed() -> None:
    with pytest.raises(Refused, match=r"no todo item with id 'zz'.*ids: a, a\.1"):
        todos.update(NESTED, "zz", {"status": "blocked"}, STAMP)
    with pytest.raises(Refused, match="allowed: pending, inProgress, completed, blocked"):
        todos.update(NESTED, "a", {"status": "done"}, STAMP)
    with pytest.raises(Refused, match="sequence 0, not the expectedSequence 4"):
        todos.delete(NESTED, "a", STAMP, expected=4)
    with pytest.raises(Refused, match="holds no plan"):
        plans.update(NESTED, {"status": "draft"}, STAMP)
    v05 = {"vBRIEFInfo": {"version": "0.5"}, "plan": {"title": "P", "status": "draft", "items": []}}
    assert plans.update(v05, {"status": "running"}, STAMP).data["plan"]["status"] == "running"


def test_edit_delete_takes_the_sub_items_along() -> None:
    out = todos.delete(NESTED, "a", STAMP)
    assert out.data["todoList"]["items"] == []
    assert out.change.operation == "delete"
    assert out.item is None


def test_edit_plan_items_fresh_ids_position_and_narratives_merged() -> None:
    made = plans.new_document(
        {
            "title": "P",
            "narratives": {"Proposal": "x"},
            "items": [{"title": "one"}, {"title": "two", "id": "two"}],
        },
        STAMP,
        plan_id="p1",
        uid="u",
        entropy="e",
    )
    plan = made.data["plan"]
    assert plan["status"] == "draft"
    assert plan["sequence"] == 1
    assert [i["id"] for i in plan["items"]][1] == "two"
    assert plan["items"][0]["id"] != "two"
    added = plans.add_item(made.data, {"title": "zero"}, STAMP, entropy="f", position=0)
    assert [i["title"] for i in added.data["plan"]["items"]] == ["zero", "one", "two"]
    with pytest.raises(Refused, match=r"position 4 is outside 0\.\.3"):
        plans.add_item(added.data, {"title": "far"}, STAMP, entropy="g", position=4)
    merged = plans.update(added.data, {"narratives": {"Risk": "y"}}, STAMP)
    assert merged.data["plan"]["narratives"] == {"Proposal": "x", "Risk": "y"}
    assert merged.data["plan"]["sequence"] == 3


def test_edit_plan_sub_items_item_narratives_dependencies_and_deletes() -> None:
    made = plans.new_document(
        {"title": "P", "narratives": {"Proposal": "x"}, "items": [{"title": "a", "id": "a"}]},
        STAMP,
        plan_id="p1",
        uid="u",
        entropy="e",
    )
    under = plans.add_item(made.data, {"title": "a.1"}, STAMP, entropy="f", parent_id="a")
    sub = under.data["plan"]["items"][0]["subItems"][0]
    assert sub["status"] == "pending"
    assert under.change.path == ("plan", "items", 0, "subItems", 0)
    with pytest.raises(Refused, match=r"no plan item with id 'zz'.*ids: a"):
        plans.add_item(made.data, {"title": "x"}, STAMP, entropy="g", parent_id="zz")
    top = plans.add_item(under.data, {"title": "b", "id": "b"}, STAMP, entropy="h")
    once = plans.update_item(top.data, "b", {"narrative": {"Approach": "A"}}, STAMP)
    twice = plans.update_item(once.data, "b", {"narrative": {"Risks": "R"}}, STAMP)
    b = twice.data["plan"]["items"][1]
    assert b["narrative"] == {"Approach": "A", "Risks": "R"}
    waits = plans.update_item(twice.data, "b", {"dependencies": ["a", "a"]}, STAMP)
    assert waits.data["plan"]["items"][1]["dependencies"] == ["a"]
    with pytest.raises(Refused, match="cycle"):
        plans.update_item(waits.data, "a", {"dependencies": ["b"]}, STAMP)
    with pytest.raises(Refused, match="no item of this plan"):
        plans.update_item(waits.data, "a", {"dependencies": ["nope"]}, STAMP)
    # the pure edit deletes; b's dangling link is what the writer's validation refuses
    gone = plans.delete_item(waits.data, "a", STAMP)
    assert [i["id"] for i in gone.data["plan"]["items"]] == ["b"]
    assert gone.change.operation == "delete"
    assert gone.item is None
    freed = plans.update_item(waits.data, "/plan/items/1", {"dependencies": []}, STAMP)
    assert "dependencies" not in freed.data["plan"]["items"][1]


def test_edit_learning_on_a_multi_head_entry_chains_to_the_winner() -> None:
    log = [
        ev("e1", "x", "append", at=1),
        ev("e2", "x", prev="e1", at=2),
        ev("e3", "x", prev="e1", at=3, text="later head"),
    ]
    data = doc(log)
    out = learnings.add_learning(
        data,
        {"targetId": "x", "kind": "rule", "narrative": {"Overview": "merged view"}},
        STAMP,
        entropy="r",
    )
    assert out.event["operation"] == "update"
    assert out.event["prevEventId"] == "e3"
    assert out.notes
    assert "2 heads" in out.notes[0]
    assert out.data["playbook"]["version"] == 2
    with pytest.raises(Refused, match="version 1, not the expectedSequence 0"):
        learnings.add_learning(
            data,
            {"targetId": "y", "kind": "note", "narrative": {"A": "b"}},
            STAMP,
            entropy="r",
            expected=0,
        )


def test_edit_query_all_tags_kind_text_newest_first_and_limit() -> None:
    log = [
        ev("e1", "old", "append", at=1, tags=["a", "b"]),
        ev("e2", "new", "append", at=5, tags=["a"]),
        ev("e3", "mid", "append", at=3, tags=["a", "b"], kind="warning"),
        ev("e4", "old", "deprecate", prev="e1", at=9),
    ]
    view = playbook_view(doc(log))
    ids = [e.target_id for e in learnings.query(view, tags=["a"])[0]]
    assert ids == ["new", "mid"]  # 'old' was deprecated (active only), newest first
    found, matched = learnings.query(view, tags=["a", "b"], limit=1)
    assert [e.target_id for e in found] == ["mid"]
    assert matched == 1
    assert [e.target_id for e in learnings.query(view, kind="warning")[0]] == ["mid"]
    assert [e.target_id for e in learnings.query(view, search="TEXT OF NEW")[0]] == ["new"]


def test_edit_change_path_is_jsonpath_with_index_notation() -> None:
    assert json_path(("todoList", "items", 2, "status")) == "$.todoList.items[2].status"
    assert json_path(("plan", "narratives", "Odd key's")) == "$.plan.narratives['Odd key\\'s']"
