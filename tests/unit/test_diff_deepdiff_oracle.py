"""deepdiff as an independent oracle of the diff engine: both name the same changed leaves."""

from __future__ import annotations

from typing import Any

from deepdiff import DeepDiff
from hypothesis import given, settings
from hypothesis import strategies as st

from git_vcontext.diffing import diff
from git_vcontext.values import pointer_parts

IDS = [f"t{n}" for n in range(8)]
TEXT = st.sampled_from(["", "a", "b", "two\nlines", "two\nlines!"])

item_body = st.fixed_dictionaries(
    {"title": st.sampled_from(["Write", "Review"]), "status": st.sampled_from(["pending", "done"])},
    optional={
        "priority": st.sampled_from(["low", "high", 3, None]),
        "note": TEXT,
        "tags": st.lists(st.sampled_from(["x", "y", "z"]), unique=True, max_size=3),
        "meta": st.dictionaries(st.sampled_from(["owner", "size"]), TEXT | st.integers(0, 2)),
    },
)


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    ids = draw(st.lists(st.sampled_from(IDS), unique=True, max_size=len(IDS)))
    items = [{"id": i, **draw(item_body)} for i in ids]
    todo: dict[str, Any] = {"items": items}
    todo.update(draw(st.dictionaries(st.sampled_from(["title", "owner"]), TEXT, max_size=2)))
    return {"vContextInfo": {"version": draw(st.sampled_from(["0.4", "0.5"]))}, "todoList": todo}


def _keyed(document: dict[str, Any]) -> dict[str, Any]:
    """The document with its items keyed by id: what identity matching means, order aside."""
    todo = document["todoList"]
    rest = {k: v for k, v in todo.items() if k != "items"}
    items = {item["id"]: {k: _as_set(k, v) for k, v in item.items()} for item in todo["items"]}
    return {"info": document["vContextInfo"], "todoList": rest, "items": items}


def _as_set(key: str, value: Any) -> Any:
    return frozenset(value) if key == "tags" else value  # a set-like field (PRODUCT.md)


def _leaf(parts: list[Any]) -> tuple[Any, ...]:
    """A place cut at a set member: a set-like field is one leaf."""
    cut = parts.index("tags") + 1 if "tags" in parts else len(parts)
    return tuple(parts[:cut])


def _ours(old: dict[str, Any], new: dict[str, Any]) -> set[tuple[Any, ...]]:
    places = set()
    for change in diff(old, new).changes:
        if change.op == "move":  # order: the keyed view below has none
            continue
        parts = pointer_parts(change.path)
        if parts[:2] == ["todoList", "items"]:
            places.add(("items", change.id, *parts[3:]))
        elif parts[:1] == ["vContextInfo"]:
            places.add(("info", *parts[1:]))
        else:
            places.add(tuple(parts))
    return places


def _theirs(old: dict[str, Any], new: dict[str, Any]) -> set[tuple[Any, ...]]:
    # threshold 0: name every changed leaf, never a whole dict that "changed too much"
    report = DeepDiff(_keyed(old), _keyed(new), view="tree", threshold_to_diff_deeper=0)
    return {
        _leaf(level.path(output_format="list")) for levels in report.values() for level in levels
    }


@settings(max_examples=300, deadline=None)
@given(documents(), documents())
def test_diff_names_the_changed_leaves_deepdiff_names(
    old: dict[str, Any], new: dict[str, Any]
) -> None:
    assert _ours(old, new) == _theirs(old, new)


@settings(max_examples=100, deadline=None)
@given(documents())
def test_diff_and_deepdiff_agree_a_document_equals_itself(document: dict[str, Any]) -> None:
    assert _ours(document, document) == set()
    assert _theirs(document, document) == set()


def _todo(*items: tuple[str, str, str]) -> dict[str, Any]:
    listed = [{"id": i, "title": title, "status": status} for i, title, status in items]
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"items": listed}}


def test_the_oracle_sees_a_field_change_inside_an_item_matched_by_id() -> None:
    old = _todo(("t1", "a", "pending"), ("t2", "b", "x"))
    new = _todo(("t2", "b", "done"), ("t1", "a", "pending"))  # moved, and t2 edited
    assert _theirs(old, new) == {("items", "t2", "status")}
    assert _ours(old, new) == {("items", "t2", "status")}
