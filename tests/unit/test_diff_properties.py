"""Algebra of the diff: identity is never confused, moves are minimal, changes replay old -> new."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from git_vcontext.diffing import ABSENT, diff
from git_vcontext.diffing.markdown import render_markdown
from git_vcontext.diffing.render import render_json, render_text
from git_vcontext.values import pointer_parts, same

IDS = [f"t{n}" for n in range(12)]

item_body = st.fixed_dictionaries(
    {
        "title": st.sampled_from(["Write", "Review", "Ship"]),
        "status": st.sampled_from(["pending", "inProgress", "completed"]),
    },
    optional={"priority": st.sampled_from(["low", "high"]), "note": st.text(max_size=3)},
)


@st.composite
def item_lists(draw: st.DrawFn) -> list[dict[str, Any]]:
    ids = draw(st.lists(st.sampled_from(IDS), unique=True, max_size=len(IDS)))
    return [{"id": i, **draw(item_body)} for i in ids]


def _doc(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}}


def _min_moves(old_ids: list[str], new_ids: list[str]) -> int:
    """n - LIS by quadratic dynamic programming (independent of the implementation)."""
    where = {k: n for n, k in enumerate(new_ids)}
    seq = [where[k] for k in old_ids if k in where]
    best = [1] * len(seq)
    for i in range(len(seq)):
        for j in range(i):
            if seq[j] < seq[i]:
                best[i] = max(best[i], best[j] + 1)
    return len(seq) - max(best, default=0)


def _set_in(target: Any, parts: list[str], value: Any) -> None:
    for part in parts[:-1]:
        target = target[part]
    if value is ABSENT:
        del target[parts[-1]]
    else:
        target[parts[-1]] = value


@settings(max_examples=300, deadline=None)
@given(item_lists(), item_lists())
def test_changes_replay_old_into_new_and_never_pair_different_ids(
    old: list[dict[str, Any]], new: list[dict[str, Any]]
) -> None:
    result = diff(_doc(old), _doc(new))
    by_id = {x["id"]: copy.deepcopy(x) for x in old}
    old_by_id = {x["id"]: x for x in old}
    moved = set()
    for change in result.changes:
        parts = pointer_parts(change.path)
        assert parts[:2] == ["todoList", "items"]
        side = old if change.op == "remove" else new
        assert side[int(parts[2])]["id"] == change.id  # the path names the element with that id
        rest = parts[3:]
        if change.op == "remove" and not rest:
            assert change.id not in {x["id"] for x in new}
            del by_id[change.id]
        elif change.op == "add" and not rest:
            assert change.id not in old_by_id
            by_id[change.id] = copy.deepcopy(change.new)
        elif change.op == "move":
            moved.add(change.id)
        else:
            assert rest, "an element is never replaced whole by another"
            was: Any = old_by_id[change.id]
            for part in rest:
                was = was.get(part, ABSENT)
            assert same(was, change.old) or (was is ABSENT and change.old is ABSENT)
            _set_in(by_id[change.id], rest, change.new)
    assert by_id == {x["id"]: x for x in new}
    old_ids, new_ids = [x["id"] for x in old], [x["id"] for x in new]
    assert len(moved) == _min_moves(old_ids, new_ids)
    stay = [k for k in old_ids if k in set(new_ids) and k not in moved]
    assert stay == [k for k in new_ids if k in set(old_ids) and k not in moved]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["a", "b", "x\ny"]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(["id", "a", "b", "title", "items"]), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(json_values, json_values)
def test_any_json_no_changes_exactly_when_equal_and_every_renderer_copes(a: Any, b: Any) -> None:
    result = diff(a, b)
    assert (not result.changes) == same(a, b)
    assert not diff(a, copy.deepcopy(a)).changes
    render_text(result, color=True)
    render_markdown(result)
    assert json.loads(render_json(result))["changes"] == [c.to_json() for c in result.changes]


@settings(max_examples=200, deadline=None)
@given(item_lists(), item_lists())
def test_diff_is_deterministic(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> None:
    assert diff(_doc(old), _doc(new)) == diff(copy.deepcopy(_doc(old)), copy.deepcopy(_doc(new)))
