"""Which added document continues which removed one (PRODUCT.md "Branch-per-agent workflow":
the same container uid, else the same container id and kind with most data equal)."""

from __future__ import annotations

import json
from typing import Any

import git_vcontext as gv
from git_vcontext.branches.renames import pair_documents, restyle, similarity


def todo(uid: str | None = "u1", ident: str | None = "todo-1", items: int = 4) -> dict[str, Any]:
    container: dict[str, Any] = {
        "items": [{"id": f"t{i}", "title": f"Task {i}", "status": "pending"} for i in range(items)]
    }
    if uid is not None:
        container["uid"] = uid
    if ident is not None:
        container["id"] = ident
    return {"vContextInfo": {"version": "0.4"}, "todoList": container}


def plan(uid: str = "u1") -> dict[str, Any]:
    return {
        "vContextInfo": {"version": "0.4"},
        "plan": {"uid": uid, "title": "p", "status": "draft", "items": []},
    }


def test_the_same_container_uid_pairs_whatever_else_changed() -> None:
    edited = todo(items=1)
    assert pair_documents({"a.json": todo()}, {"b.tron": edited}) == {"a.json": "b.tron"}


def test_different_uids_or_kinds_never_pair() -> None:
    assert pair_documents({"a.json": todo(uid="u1")}, {"b.json": todo(uid="u2")}) == {}
    assert pair_documents({"a.json": todo(uid="u1")}, {"b.json": plan(uid="u1")}) == {}


def test_without_uid_the_same_id_pairs_only_when_most_data_is_equal() -> None:
    old = todo(uid=None, items=4)
    assert pair_documents({"a.json": old}, {"b.json": todo(uid=None, items=4)}) == {
        "a.json": "b.json"
    }
    rewritten = todo(uid=None, items=4)
    for item in rewritten["todoList"]["items"]:
        item["title"] = "something else"
        item["status"] = "completed"
    assert pair_documents({"a.json": old}, {"b.json": rewritten}) == {}
    assert pair_documents({"a.json": old}, {"b.json": todo(uid=None, ident="todo-2")}) == {}


def test_without_uid_or_id_most_data_equal_pairs_as_git_pairs_similar_files() -> None:
    """The seeds' playbooks carry neither: their data decides, as bytes do for git."""
    bare = todo(uid=None, ident=None)
    assert pair_documents({"a.json": bare}, {"b.tron": bare}) == {"a.json": "b.tron"}
    other = todo(uid=None, ident=None, items=1)
    for item in other["todoList"]["items"]:
        item["title"] = "unrelated"
    assert pair_documents({"a.json": bare}, {"b.tron": other}) == {}


def test_what_is_not_a_document_is_never_paired() -> None:
    assert pair_documents({"a.json": {"x": 1}}, {"b.json": {"x": 1}}) == {}


def test_each_document_pairs_once_the_best_match_first() -> None:
    old = {"a.json": todo(uid=None), "b.json": todo(uid=None, items=2)}
    new = {"c.tron": todo(uid=None, items=2)}
    assert pair_documents(old, new) == {"b.json": "c.tron"}


def test_similarity_matches_items_by_id_not_position() -> None:
    data = todo(items=4)
    moved = json.loads(json.dumps(data))
    moved["todoList"]["items"].insert(0, moved["todoList"]["items"].pop())
    assert similarity(data, moved) == 1.0
    assert similarity(data, todo(items=2)) < 1.0


def test_restyle_writes_the_data_in_the_new_files_format_and_style() -> None:
    raw = (json.dumps(todo(items=2), indent=2) + "\n").encode()
    template = gv.dumps(todo(items=3), "tron").encode()
    out = restyle(raw, "todo.vcontext.json", template, "todo.vcontext.tron")
    assert out is not None
    assert gv.loads(out, path="todo.vcontext.tron").data == todo(items=2)
    assert not out.lstrip().startswith(b"{")  # TRON, in the template's classes
    assert restyle(raw, "a/todo.vcontext.json", b"{}", "b/todo.vcontext.json") == raw
    assert restyle(b"{not json", "todo.vcontext.json", template, "todo.vcontext.tron") is None
