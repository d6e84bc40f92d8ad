"""Diff renderers (text, markdown, json) and the library entry point ``git_vcontext.diff``."""

from __future__ import annotations

import json
import re
from typing import Any

import git_vcontext as gv
from git_vcontext.diffing import FORMAT_VERSION, diff
from git_vcontext.diffing.markdown import code, render_markdown
from git_vcontext.diffing.render import render_json, render_text, stat_line
from git_vcontext.diffing.show import value

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _todo(*items: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"vContextInfo": {"version": "0.4"}, "todoList": {**extra, "items": list(items)}}


OLD = _todo(
    {"id": "t1", "title": "A", "status": "pending"},
    {"id": "t2", "title": "B", "status": "inProgress", "narrative": {"Notes": "a\nb"}},
)
NEW = _todo(
    {"id": "t2", "title": "B", "status": "completed", "narrative": {"Notes": "a\nc"}},
    {"id": "t3", "title": "C", "status": "pending"},
)


def test_library_diff_is_the_function_after_the_package_was_imported() -> None:
    import git_vcontext.diffing  # binds the package attribute ``diffing``, not ``diff``

    assert gv.diff is git_vcontext.diffing.diff
    assert len(gv.diff(OLD, NEW)) > 0


def test_text_is_one_anchored_line_per_change_as_in_the_product_example() -> None:
    text = render_text(diff(OLD, NEW))
    assert "todoList.items[t2].status: inProgress → completed\n" in text
    assert 'todoList.items[t1]: − "A" [pending]\n' in text
    assert 'todoList.items[t3]: + "C" [pending]\n' in text
    assert not ANSI.search(text)


def test_colour_is_only_added_when_asked_and_strips_back_to_the_plain_text() -> None:
    result = diff(OLD, NEW)
    coloured = render_text(result, color=True)
    assert ANSI.search(coloured)
    assert ANSI.sub("", coloured) == render_text(result)


def test_multi_line_text_is_shown_as_a_line_diff() -> None:
    lines = render_text(diff(OLD, NEW)).splitlines()
    at = lines.index("todoList.items[t2].narrative.Notes: text changed (+1 −1 lines)")
    assert lines[at + 1 : at + 4] == ["      a", "    - b", "    + c"]


def test_json_has_version_and_pointer_paths_new_indexes_except_for_removals() -> None:
    data = json.loads(render_json(diff(OLD, NEW)))
    assert data["version"] == FORMAT_VERSION
    by_op = {c["op"]: c for c in data["changes"]}
    assert by_op["remove"]["path"] == "/todoList/items/0"
    assert by_op["remove"]["id"] == "t1"
    assert by_op["add"]["path"] == "/todoList/items/1"
    assert by_op["add"]["id"] == "t3"
    status = next(c for c in data["changes"] if c["anchor"].endswith(".status"))
    assert status == {
        "op": "change", "path": "/todoList/items/0/status", "anchor": "todoList.items[t2].status",
        "id": "t2", "old": "inProgress", "new": "completed", "kind": "value", "itemTitle": "B",
    }  # fmt: skip


def test_json_keeps_null_values_and_leaves_out_absent_ones() -> None:
    changes = json.loads(render_json(diff({"a": None}, {"a": 1, "b": None})))["changes"]
    assert changes[0]["old"] is None
    assert changes[0]["new"] == 1
    assert changes[1] == {"op": "add", "path": "/b", "anchor": "b", "new": None, "kind": "value"}


def test_markdown_groups_by_item_and_folds_text_diffs() -> None:
    md = render_markdown(diff(OLD, NEW), title="todo.vcontext.json")
    assert md.startswith("### `todo.vcontext.json`\n")
    assert "**`todoList.items[t2]`** — B\n- `status`: `inProgress` → `completed`" in md
    assert "<details><summary>line diff</summary>" in md
    assert "```diff\n   a\n  -b\n  +c\n" in md


def test_markdown_code_spans_survive_backticks_and_empty_diffs_say_so() -> None:
    assert code("a`b") == "``a`b``"
    assert code("`x`") == "`` `x` ``"
    assert "_No changes._" in render_markdown(diff(OLD, OLD))


def test_values_that_would_read_as_other_types_are_quoted() -> None:
    assert value("completed") == "completed"
    assert value("12") == '"12"'
    assert value("true") == '"true"'
    assert value("") == '""'
    assert value(12) == "12"
    assert value(None) == "null"
    assert value("x" * 500).endswith("…")
    assert len(value("x" * 500)) == 120


def test_stat_line_counts_each_kind_of_change() -> None:
    assert stat_line(diff(OLD, NEW)) == "4 changes: 1 added, 1 removed, 2 changed"


def test_deep_nesting_is_compared_whole_below_the_walk_limit() -> None:
    old: Any = "x"
    new: Any = "y"
    for _ in range(250):
        old, new = {"k": old}, {"k": new}
    (change,) = diff(old, new).changes
    assert change.op == "change"
    assert change.path.count("/k") == 200
