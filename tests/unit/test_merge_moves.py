"""M18 moves: an element one side moved keeps the other side's edits (JSON and TRON twins)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from git_vcontext.codecs import dumps, parse
from git_vcontext.merging import MergeOptions, merge3
from git_vcontext.merging.files import FileMerge
from helpers.merging import merge_files

FORMATS = ["json", "tron"]
NOW = MergeOptions(now="2026-01-01T00:00:00Z")


def text(data: Any, fmt: str) -> bytes:
    return (json.dumps(data, indent=2) + "\n" if fmt == "json" else dumps(data, "tron")).encode()


def merged(base: Any, ours: Any, theirs: Any, fmt: str) -> FileMerge:
    raw = [text(x, fmt) for x in (base, ours, theirs)]
    return merge_files(*raw, path=f"t.vcontext.{fmt}", options=NOW)


def data_of(out: FileMerge, fmt: str) -> Any:
    return parse(out.output, format=fmt).data  # type: ignore[arg-type]


def task(ident: str, **fields: Any) -> dict[str, Any]:
    return {"id": ident, "title": f"Task {ident}", "status": "pending", **fields}


def todo(*items: dict[str, Any]) -> dict[str, Any]:
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"items": list(items)}}


BASE = todo(task("t1"), task("t2"), task("t3"))


def nested(parent: str, child: str, doc: dict[str, Any] = BASE, **edit: Any) -> dict[str, Any]:
    """``doc`` with ``child`` moved into ``parent``'s subItems (and edited)."""
    out = copy.deepcopy(doc)
    items = out["todoList"]["items"]
    moved = next(i for i in items if i["id"] == child)
    items.remove(moved)
    moved.update(edit)
    next(i for i in items if i["id"] == parent).setdefault("subItems", []).append(moved)
    return out


def edited(ident: str, doc: dict[str, Any] = BASE, **edit: Any) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    next(i for i in out["todoList"]["items"] if i["id"] == ident).update(edit)
    return out


def deleted(ident: str) -> dict[str, Any]:
    out = copy.deepcopy(BASE)
    out["todoList"]["items"] = [i for i in out["todoList"]["items"] if i["id"] != ident]
    return out


def moves_in(out: FileMerge) -> list[dict[str, Any]]:
    return [n for n in out.report()["notes"] if n["kind"] == "move"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_m18_reparented_item_keeps_the_other_sides_edit(fmt: str) -> None:
    ours = nested("t1", "t3")
    theirs = edited("t3", status="completed", tags=["done"])
    for a, b in ((ours, theirs), (theirs, ours)):  # either side may be the one that moved
        out = merged(BASE, a, b, fmt)
        assert out.status == "clean", out.report()
        items = data_of(out, fmt)["todoList"]["items"]
        assert [i["id"] for i in items] == ["t1", "t2"]
        assert items[0]["subItems"] == [task("t3", status="completed", tags=["done"])]
        [note] = moves_in(out)
        assert note["id"] == "t3"
        assert note["from"] == "/todoList/items/2"
        assert note["to"] == "/todoList/items/0/subItems/0"
        assert note["path"] == "/todoList/items/0/subItems/0"


@pytest.mark.parametrize("fmt", FORMATS)
def test_m18_a_moved_item_whose_number_became_a_boolean_moves_and_keeps_the_boolean(
    fmt: str,
) -> None:
    """Python's ``1 == True``: the move search skips subtrees equal by ``==`` (nothing was
    added or removed under them); the edit from 1 to true is still the other side's edit."""
    base = edited("t3", estimate=1)
    ours = nested("t1", "t3", base)
    theirs = edited("t3", base, estimate=True)
    for a, b in ((ours, theirs), (theirs, ours)):
        out = merged(base, a, b, fmt)
        assert out.status == "clean", out.report()
        items = data_of(out, fmt)["todoList"]["items"]
        assert [i["id"] for i in items] == ["t1", "t2"]
        [moved] = items[0]["subItems"]
        assert moved["estimate"] is True
        assert [n["id"] for n in moves_in(out)] == ["t3"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_m18_item_moved_between_lists_keeps_edits_of_both_sides(fmt: str) -> None:
    base: dict[str, Any] = {
        "vContextInfo": {"version": "0.4"},
        "plan": {
            "title": "P",
            "items": [
                {"id": "p1", "title": "Phase 1", "subItems": [task("a"), task("b")]},
                {"id": "p2", "title": "Phase 2", "subItems": [task("c")]},
            ],
        },
    }
    ours = copy.deepcopy(base)
    a = ours["plan"]["items"][0]["subItems"].pop(0)
    a["title"] = "Task a, renamed by ours"
    ours["plan"]["items"][1]["subItems"].append(a)
    theirs = copy.deepcopy(base)
    theirs["plan"]["items"][0]["subItems"][0]["status"] = "completed"
    theirs["plan"]["items"][1]["subItems"][0]["status"] = "inProgress"
    out = merged(base, ours, theirs, fmt)
    assert out.status == "clean", out.report()
    phases = data_of(out, fmt)["plan"]["items"]
    assert phases[0]["subItems"] == [task("b")]
    assert phases[1]["subItems"] == [
        task("c", status="inProgress"),
        task("a", title="Task a, renamed by ours", status="completed"),
    ]
    assert [n["id"] for n in moves_in(out)] == ["a"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_m18_both_sides_moving_to_the_same_place_merge_clean(fmt: str) -> None:
    ours = nested("t1", "t3", title="Ours' title")
    theirs = nested("t1", "t3", status="completed")
    out = merged(BASE, ours, theirs, fmt)
    assert out.status == "clean", out.report()
    items = data_of(out, fmt)["todoList"]["items"]
    assert items[0]["subItems"] == [task("t3", title="Ours' title", status="completed")]
    assert [i["id"] for i in items] == ["t1", "t2"]
    [note] = moves_in(out)
    assert note["by"] == "ours+theirs"


@pytest.mark.parametrize("fmt", FORMATS)
def test_m18_moves_to_different_places_are_one_conflict_at_ours_destination(fmt: str) -> None:
    ours = nested("t1", "t3")
    theirs = nested("t2", "t3", status="completed")
    out = merged(BASE, ours, theirs, fmt)
    assert out.status == "conflict"
    [conflict] = out.result.conflicts if out.result else []
    assert conflict.kind == "move/move"
    assert conflict.path == "/todoList/items/0/subItems/0"
    assert conflict.theirs == task("t3", status="completed")
    [note] = moves_in(out)
    assert note["to"] == "/todoList/items/0/subItems/0"
    assert note["theirsTo"] == "/todoList/items/1/subItems/0"
    assert "/todoList/items/0/subItems/0" in note["message"]
    assert "/todoList/items/1/subItems/0" in note["message"]
    assert out.output.decode().count("<<<<<<<") == 1
    items = out.result.data["todoList"]["items"] if out.result else []
    assert [i.get("subItems") for i in items] == [[task("t3")], None]  # t3 once, at ours' place
    # no edit on either side: the block still shows the element (both sides the same)
    out = merged(BASE, ours, nested("t2", "t3"), fmt)
    body = out.output.decode()
    block = body[body.index("<<<<<<<") : body.index(">>>>>>>")]
    assert block.count('"t3"') == 2


def _ids_in(items: list[Any]) -> list[str]:
    out: list[str] = []
    for item in items:
        out.append(item["id"])
        out += _ids_in(item.get("subItems", []))
    return out


@pytest.mark.parametrize("fmt", FORMATS)
def test_m18_m19_each_side_nesting_the_others_moved_item_is_a_conflict_never_an_item_twice(
    fmt: str,
) -> None:
    """Ours puts t2 under t1 and t0 under t2; theirs puts t0 under a new item and t2 under
    t0. Neither move can be followed to one place, and the merge once fell back to keeping
    both trees, t0 and t2 each twice, reported clean (found by hypothesis). Now: a
    move/move conflict at the outermost places, and taking either side whole is coherent."""
    base = todo(task("t0"), task("t1"), task("t2"))
    ours = todo(task("t1", subItems=[task("t2", subItems=[task("t0", note="ours")])]))
    theirs = todo(
        task("new", subItems=[task("t0", note="theirs", subItems=[task("t2")])]), task("t1")
    )
    out = merged(base, ours, theirs, fmt)
    assert out.status == "conflict"
    assert out.result is not None
    kinds = sorted(c.kind for c in out.result.conflicts)
    assert kinds == ["move/move", "move/move"]
    for side in ("ours", "theirs"):
        resolved = _take(out.result.tree, side)
        ids = _ids_in(resolved["todoList"]["items"])
        assert sorted(ids) == sorted(set(ids))  # each id once
        assert {"t0", "t1", "t2"} <= set(ids)


def _take(tree: Any, side: str) -> Any:
    """The merged tree with every conflict resolved by taking ``side`` (absent: gone)."""
    from git_vcontext.merging.result import MISSING, ConflictNode

    if isinstance(tree, ConflictNode):
        return getattr(tree, side)
    if isinstance(tree, dict):
        kept = {k: _take(v, side) for k, v in tree.items()}
        return {k: v for k, v in kept.items() if v is not MISSING}
    if isinstance(tree, list):
        return [v for v in (_take(x, side) for x in tree) if v is not MISSING]
    return tree


@pytest.mark.parametrize("fmt", FORMATS)
def test_m18_move_vs_delete_deletes_an_unedited_element(fmt: str) -> None:
    for a, b in ((nested("t1", "t3"), deleted("t3")), (deleted("t3"), nested("t1", "t3"))):
        out = merged(BASE, a, b, fmt)
        assert out.status == "clean", out.report()
        ids = json.dumps(data_of(out, fmt))
        assert '"t3"' not in ids


@pytest.mark.parametrize("fmt", FORMATS)
def test_m18_move_of_an_edited_element_vs_delete_conflicts(fmt: str) -> None:
    out = merged(BASE, nested("t1", "t3", status="completed"), deleted("t3"), fmt)
    assert out.status == "conflict"
    [conflict] = out.result.conflicts if out.result else []
    assert (conflict.kind, conflict.path) == ("delete/modify", "/todoList/items/0/subItems/0")
    # an edit in place on one side, a move and delete on the other: the same rule
    out = merged(BASE, edited("t3", status="completed"), deleted("t3"), fmt)
    assert out.status == "conflict"


def test_m18_move_vs_edit_of_a_parent_the_other_side_deleted_is_still_a_conflict() -> None:
    """Ours nests t3 under t1; theirs deletes t1 and edits t3: nothing is lost."""
    theirs = edited("t3", status="completed")
    theirs["todoList"]["items"] = [i for i in theirs["todoList"]["items"] if i["id"] != "t1"]
    r = merge3(BASE, nested("t1", "t3"), theirs)
    assert not r.clean
    values = json.dumps([c.to_json() for c in r.conflicts])
    assert '"completed"' in values


ANON_BASE: dict[str, Any] = {
    "vContextInfo": {"version": "0.4"},
    "plan": {"title": "P", "metadata": {"owner": {"name": "ann", "team": "core"}}},
}


@pytest.mark.parametrize("fmt", FORMATS)
def test_m18_subtree_without_identity_moved_to_a_new_key_keeps_the_other_sides_edit(
    fmt: str,
) -> None:
    ours = copy.deepcopy(ANON_BASE)
    ours["plan"]["metadata"]["lead"] = ours["plan"]["metadata"].pop("owner")
    theirs = copy.deepcopy(ANON_BASE)
    theirs["plan"]["metadata"]["owner"]["team"] = "platform"
    theirs["plan"]["title"] = "Plan"
    for a, b in ((ours, theirs), (theirs, ours)):
        out = merged(ANON_BASE, a, b, fmt)
        assert out.status == "clean", out.report()
        plan = data_of(out, fmt)["plan"]
        assert plan == {"title": "Plan", "metadata": {"lead": {"name": "ann", "team": "platform"}}}
        [note] = moves_in(out)
        assert (note["from"], note["to"]) == ("/plan/metadata/owner", "/plan/metadata/lead")


def test_m18_subtree_without_identity_is_matched_only_when_its_content_is_unique() -> None:
    base = copy.deepcopy(ANON_BASE)
    base["plan"]["metadata"]["reviewer"] = {"name": "ann", "team": "core"}  # an equal twin
    ours = copy.deepcopy(base)
    ours["plan"]["metadata"]["lead"] = ours["plan"]["metadata"].pop("owner")
    theirs = copy.deepcopy(base)
    theirs["plan"]["metadata"]["owner"]["team"] = "platform"
    r = merge3(base, ours, theirs)
    assert [(c.path, c.kind) for c in r.conflicts] == [("/plan/metadata/owner", "delete/modify")]
    assert not [n for n in r.notes if n.kind == "move"]


def test_m18_an_empty_object_is_never_matched_by_content() -> None:
    base = {"a": {"x": {}}, "b": 1}
    ours = {"a": {"y": {}}, "b": 1}
    theirs = {"a": {"x": {"k": 1}}, "b": 2}
    r = merge3(base, ours, theirs)
    assert [c.kind for c in r.conflicts] == ["delete/modify"]


def test_m18_an_id_repeated_in_the_container_is_not_a_move() -> None:
    """Ids unique per container: a twin (here a reference object with the same id)
    leaves the element alone, so the old delete/modify rule decides."""
    base = todo(task("t1"), task("t3"), {"id": "t3", "title": "ref"})
    ours = copy.deepcopy(base)
    moved = ours["todoList"]["items"].pop(1)
    ours["todoList"]["items"][0]["subItems"] = [moved]
    theirs = copy.deepcopy(base)
    theirs["todoList"]["items"][1]["status"] = "completed"
    r = merge3(base, ours, theirs)
    assert not [n for n in r.notes if n.kind == "move"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_m18_nested_move_into_a_new_parent_and_a_sibling_reorder(fmt: str) -> None:
    """Ours makes a new group t9 holding t3 (and t2 keeps its place); theirs edits t3 and
    t2: both edits land, t3 only once."""
    ours = copy.deepcopy(BASE)
    t3 = ours["todoList"]["items"].pop(2)
    ours["todoList"]["items"].insert(0, {"id": "t9", "title": "Group", "subItems": [t3]})
    theirs = edited("t3", edited("t2", status="blocked"), status="completed")
    out = merged(BASE, ours, theirs, fmt)
    assert out.status == "clean", out.report()
    items = data_of(out, fmt)["todoList"]["items"]
    assert [i["id"] for i in items] == ["t9", "t1", "t2"]
    assert items[0]["subItems"] == [task("t3", status="completed")]
    assert items[2]["status"] == "blocked"


@pytest.mark.parametrize("fmt", FORMATS)
def test_m17_moves_merge_to_the_same_bytes_every_time(fmt: str) -> None:
    cases = [
        (nested("t1", "t3"), edited("t3", status="completed")),
        (nested("t1", "t3"), nested("t2", "t3")),
        (nested("t1", "t3", title="x"), deleted("t3")),
    ]
    for ours, theirs in cases:
        first = merged(BASE, ours, theirs, fmt)
        again = merged(BASE, ours, theirs, fmt)
        assert (first.output, first.status) == (again.output, again.status)
        assert first.report() == again.report()
        swapped = merged(BASE, theirs, ours, fmt)
        assert swapped.status == first.status
        if first.status == "clean":
            assert data_of(swapped, fmt) == data_of(first, fmt)


# -- repeated keys ------------------------------------------------------------------------

DUP_JSON = """{
  "vContextInfo": {"version": "0.4"},
  "todoList": {
    "items": [
      {"id": "t1", "title": "one", "status": "pending", "note": "first", "note": "second"},
      {"id": "t2", "title": "two", "status": "pending"}
    ]
  }
}
"""

DUP_TRON = """class vContextInfo: version
class TodoItem: id, title, status

vContextInfo: vContextInfo("0.4")

todoList: {
  items: [
    {id: "t1", title: "one", status: "pending", note: "first", note: "second"},
    TodoItem("t2", "two", "pending")
  ]
}
"""

DUP_EDITS = {  # (ours' edit, theirs' edit) as text replacements
    "json": (
        ('"title": "one"', '"title": "ONE"'),
        ('"two", "status": "pending"', '"two", "status": "completed"'),
    ),
    "tron": (('title: "one"', 'title: "ONE"'), ('"two", "pending"', '"two", "completed"')),
}


@pytest.mark.parametrize("fmt", FORMATS)
def test_m18_repeated_keys_left_alone_merge_structurally_and_stay_as_written(fmt: str) -> None:
    base = DUP_JSON if fmt == "json" else DUP_TRON
    (o_old, o_new), (t_old, t_new) = DUP_EDITS[fmt]
    ours, theirs = base.replace(o_old, o_new), base.replace(t_old, t_new)
    out = merge_files(base.encode(), ours.encode(), theirs.encode(), path=f"d.vcontext.{fmt}")
    assert (out.status, out.clean) == ("clean", True), out.report()
    assert out.output.decode() == base.replace(o_old, o_new).replace(t_old, t_new)
    assert "duplicate-key" in [n["kind"] for n in out.report()["notes"]]


@pytest.mark.parametrize("fmt", FORMATS)
def test_m18_a_change_to_a_repeated_key_falls_back_to_lines(fmt: str) -> None:
    base = DUP_JSON if fmt == "json" else DUP_TRON
    (o_old, o_new), _ = DUP_EDITS[fmt]
    ours = base.replace(o_old, o_new)
    theirs = base.replace('"second"', '"SECOND"')
    out = merge_files(base.encode(), ours.encode(), theirs.encode(), path=f"d.vcontext.{fmt}")
    assert out.status == "fallback"
    assert any("repeated key" in r and '"note"' in r for r in out.reasons)
    assert "<<<<<<<" in out.output.decode()  # both sides edited the one line of t1
    assert not out.clean


def test_m18_a_side_unchanged_takes_the_other_byte_for_byte_even_with_repeated_keys() -> None:
    theirs = DUP_JSON.replace('"second"', '"SECOND"')
    out = merge_files(DUP_JSON.encode(), DUP_JSON.encode(), theirs.encode(), path="d.vcontext.json")
    assert (out.status, out.output) == ("clean", theirs.encode())


def test_m18_uid_keyed_elements_move_too_and_sets_merge_as_usual() -> None:
    base: dict[str, Any] = {
        "plan": {
            "title": "P",
            "phases": [
                {"uid": "ph1", "subPhases": [{"uid": "s1", "tags": ["a"]}, {"uid": "s2"}]},
                {"uid": "ph2", "subPhases": []},
            ],
        }
    }
    ours = copy.deepcopy(base)
    s1 = ours["plan"]["phases"][0]["subPhases"].pop(0)
    s1["tags"].append("ours")
    ours["plan"]["phases"][1]["subPhases"].append(s1)
    theirs = copy.deepcopy(base)
    theirs["plan"]["phases"][0]["subPhases"][0]["tags"] = ["theirs"]  # removes a, adds theirs
    r = merge3(base, ours, theirs)
    assert r.clean, r.conflicts
    phases = r.data["plan"]["phases"]
    assert phases[0]["subPhases"] == [{"uid": "s2"}]
    assert phases[1]["subPhases"] == [{"uid": "s1", "tags": ["ours", "theirs"]}]
    [note] = [n for n in r.notes if n.kind == "move"]
    assert dict(note.details)["id"] == "s1"
