"""M18 in the diff: an element moved to another array is one ``move`` change, then its edits."""

from __future__ import annotations

import copy
from typing import Any

from git_vcontext.diffing import diff
from git_vcontext.diffing.render import render_text


def task(ident: str, **fields: Any) -> dict[str, Any]:
    return {"id": ident, "title": f"Task {ident}", "status": "pending", **fields}


OLD: dict[str, Any] = {
    "vContextInfo": {"version": "0.4"},
    "todoList": {"items": [task("t1"), task("t2"), task("t3")]},
}


def test_m18_diff_reports_a_reparented_item_as_one_move_then_its_edit() -> None:
    new = copy.deepcopy(OLD)
    t3 = new["todoList"]["items"].pop(2)
    t3["status"] = "completed"
    new["todoList"]["items"][0]["subItems"] = [t3]
    result = diff(OLD, new)
    first, second = (c.to_json() for c in result.changes)
    assert {k: first[k] for k in ("op", "path", "to", "id")} == {
        "op": "move",
        "path": "/todoList/items/2",
        "to": "/todoList/items/0/subItems/0",
        "id": "t3",
    }
    assert (second["op"], second["path"], second["new"]) == (
        "change",
        "/todoList/items/0/subItems/0/status",
        "completed",
    )
    assert render_text(result).splitlines() == [
        "todoList.items[t3]: moved into items[t1].subItems",
        "todoList.items[t1].subItems[t3].status: pending → completed",
    ]


def test_m18_diff_of_a_move_out_of_a_nested_list_and_back_to_the_top() -> None:
    old = copy.deepcopy(OLD)
    old["todoList"]["items"][0]["subItems"] = [task("t4")]
    new = copy.deepcopy(OLD)
    new["todoList"]["items"].append(task("t4"))
    changes = [c.to_json() for c in diff(old, new).changes]
    assert [(c["op"], c["path"], c.get("to")) for c in changes] == [
        ("move", "/todoList/items/0/subItems/0", "/todoList/items/3")
    ]
    assert render_text(diff(old, new)) == "todoList.items[t1].subItems[t4]: moved into items\n"


def test_m18_a_reorder_within_one_list_is_still_reported_as_before() -> None:
    new = copy.deepcopy(OLD)
    items = new["todoList"]["items"]
    items.insert(0, items.pop(2))
    [change] = diff(OLD, new).changes
    assert (change.op, change.to, change.from_path) == ("move", None, "/todoList/items/2")
    assert render_text(diff(OLD, new)) == "todoList.items[t3]: moved to the start\n"


def test_m18_an_id_that_repeats_is_not_shown_as_a_move() -> None:
    old = copy.deepcopy(OLD)
    old["todoList"]["items"].append({"id": "t3", "title": "twin"})
    new = copy.deepcopy(old)
    t3 = new["todoList"]["items"].pop(2)
    new["todoList"]["items"][0]["subItems"] = [t3]
    assert "move" not in [c.op for c in diff(old, new).changes]
