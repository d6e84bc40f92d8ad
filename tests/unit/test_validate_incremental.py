"""``still_valid``: re-validating an edited document from what changed agrees with a full run.

PRODUCT.md, "MCP server (seed 003)": every write is validated before it is written; the
MCP server's writes use this shortcut when the document had no finding before.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from git_vcontext.edits import learnings, plans, todos
from git_vcontext.edits.items import replace_at
from git_vcontext.edits.stamp import Stamp
from git_vcontext.validation import validate
from git_vcontext.validation.incremental import still_valid

STAMP = Stamp("tester", "2026-01-01T00:00:00Z")
TODO: dict[str, Any] = {
    "vContextInfo": {"version": "0.4"},
    "todoList": {
        "id": "main",
        "sequence": 2,
        "items": [
            {"id": "t1", "title": "One", "status": "pending"},
            {
                "id": "t2",
                "title": "Two",
                "status": "pending",
                "dependencies": ["t1"],
                "subItems": [{"id": "t2.1", "title": "Sub", "status": "pending"}],
            },
        ],
    },
}
PLAN = {
    "vContextInfo": {"version": "0.4"},
    "plan": {
        "id": "p",
        "title": "P",
        "status": "draft",
        "narratives": {"proposal": "Do I."},
        "items": [{"id": "i1", "title": "I", "status": "pending"}],
    },
}
PLAYBOOK = {
    "vContextInfo": {"version": "0.4"},
    "playbook": {
        "version": 1,
        "items": [
            {
                "eventId": "e1",
                "targetId": "a",
                "operation": "append",
                "kind": "rule",
                "narrative": {"Overview": "x"},
                "createdAt": "2025-01-01T00:00:00Z",
            }
        ],
    },
}


def _agree(old: Any, new: Any) -> bool | None:
    assert validate(old).valid
    verdict = still_valid(old, new)
    if verdict is not None:
        assert verdict == validate(new).valid, validate(new).findings
    return verdict


def _set(data: Any, path: tuple[str | int, ...], value: Any) -> Any:
    return replace_at(data, path, value)


def test_incremental_validation_of_tool_edits_agrees_with_the_full_run() -> None:
    edits = [
        todos.create(TODO, {"title": "New"}, STAMP, entropy="e").data,
        todos.update(TODO, "t2.1", {"status": "completed"}, STAMP).data,
        todos.update(TODO, "t1", {"title": "Renamed", "description": "d"}, STAMP).data,
        plans.add_item(
            PLAN, {"title": "Next", "narrative": {"Overview": "o"}}, STAMP, entropy="e"
        ).data,
        plans.update(PLAN, {"status": "approved", "narratives": {"Proposal": "p"}}, STAMP).data,
        learnings.add_learning(
            PLAYBOOK,
            {"targetId": "a", "kind": "rule", "narrative": {"Overview": "y"}},
            STAMP,
            entropy="e",
        ).data,
    ]
    for new in edits:
        old = next(
            d
            for d in (TODO, PLAN, PLAYBOOK)
            if set(d) == set(new) and any(new[k] is not d[k] for k in d)
        )
        assert _agree(old, new) is True


@pytest.mark.parametrize(
    ("base", "path", "value"),
    [
        (TODO, ("todoList", "items", 0, "status"), "done"),  # schema, in an item
        (TODO, ("todoList", "items", 1, "subItems", 0, "title"), 5),  # schema, nested item
        (TODO, ("todoList", "items", 1, "dependencies"), ["t9"]),  # semantic: dependency
        (TODO, ("todoList", "items", 0, "title"), "<<<<<<< ours\nx\n=======\ny\n>>>>>>> b\n"),
        (TODO, ("todoList", "updated"), "yesterday"),  # semantic: datetime, container
        (TODO, ("todoList", "sequence"), -1),  # schema, the container itself
        (TODO, ("todoList", "items", 1, "id"), "t1"),  # semantic: repeated id
        (PLAN, ("plan", "items", 0, "dueDate"), 5),  # schema: a PlanItem's extension field
        (PLAN, ("plan", "status"), "active"),  # seed 003's plan status, not v0.4's
        (PLAYBOOK, ("playbook", "items", 0, "kind"), "idea"),
        (TODO, ("vContextInfo", "author"), 4),  # the info object
    ],
)
def test_incremental_validation_finds_what_the_full_run_finds(
    base: Any, path: tuple[str | int, ...], value: Any
) -> None:
    assert _agree(base, _set(base, path, value)) is False


def test_incremental_validation_declines_what_it_cannot_judge() -> None:
    assert _agree(TODO, {"todoList": TODO["todoList"]}) is None  # a key went away
    other = copy.deepcopy(TODO)
    other["vContextInfo"]["version"] = "0.3"
    assert still_valid(TODO, other) is None  # another version: another schema
    assert _agree(TODO, _set(TODO, ("vContextInfo", "version"), 4)) is None
    assert _agree(TODO, {**TODO, "extra": {"anything": 1}}) is None  # a key came
    unknown = {**TODO, "extra": 1}
    assert _agree(unknown, {**unknown, "extra": 2}) is True  # a key the schema leaves free


def _change(seq: Any, **fields: Any) -> dict[str, Any]:
    change = {
        "sequence": seq,
        "timestamp": "2026-01-01T00:00:00Z",
        "agent": {"id": "a", "type": "aiAgent"},
        "operation": "update",
        "description": f"change {seq}",
    }
    return {**change, **fields}


HISTORY: dict[str, Any] = {
    "vContextInfo": {"version": "0.4"},
    "todoList": {**TODO["todoList"], "sequence": 3, "changeLog": [_change(n) for n in (1, 2, 3)]},
}


def _appended(base: Any, *changes: Any, sequence: Any = 4) -> Any:
    container = base["todoList"]
    log = [*container["changeLog"], *changes]
    return {**base, "todoList": {**container, "sequence": sequence, "changeLog": log}}


def test_incremental_validation_judges_only_new_changelog_entries_and_agrees() -> None:
    """Issue 37 finding 6: a write's validation does not walk the old changeLog again."""
    base = HISTORY
    assert _agree(base, todos.update(base, "t1", {"status": "completed"}, STAMP).data) is True
    assert _agree(base, todos.create(base, {"title": "N"}, STAMP, entropy="e").data) is True
    assert _agree(base, _appended(base, _change(4))) is True
    assert _agree(base, _appended(base, _change(3))) is True  # equal sequences may repeat
    assert _agree(base, _appended(base, _change(2))) is False  # goes down after 3
    assert _agree(base, _appended(base, _change(5))) is False  # above the container's 4
    assert _agree(base, _appended(base, _change(4, timestamp="yesterday"))) is False
    assert _agree(base, _appended(base, _change(4, operation="rename"))) is False  # schema
    marked = "<<<<<<< ours\nx\n=======\ny\n>>>>>>> b\n"
    assert _agree(base, _appended(base, _change(4, description=marked))) is False
    # the container's sequence went down below the old changes: they are judged again
    assert _agree(base, _appended(base, sequence=2)) is False
    # an old change replaced (not the same object): judged as new
    edited = _appended(base, _change(4))
    edited["todoList"]["changeLog"][0] = _change(1, timestamp="2026-13-01T00:00:00Z")
    assert _agree(base, edited) is False


def test_incremental_changelog_order_goes_on_from_the_last_numeric_sequence() -> None:
    base = copy.deepcopy(TODO)
    base["todoList"]["sequence"] = 7
    base["todoList"]["changeLog"] = [_change(5), _change(7)]
    assert validate(base).valid
    assert _agree(base, _appended(base, _change(6), sequence=8)) is False
    assert _agree(base, _appended(base, _change(7), sequence=8)) is True
    unnumbered = copy.deepcopy(TODO)
    del unnumbered["todoList"]["sequence"]
    unnumbered["todoList"]["changeLog"] = [_change(9), _change(10)]
    assert validate(unnumbered).valid
    grown = _appended(unnumbered, _change(3), sequence=None)
    del grown["todoList"]["sequence"]
    assert _agree(unnumbered, grown) is False
    grown["todoList"]["changeLog"][-1] = _change(11)
    assert _agree(unnumbered, grown) is True


class _Watched(dict):  # type: ignore[type-arg]
    """A change that fails the test when read while ``armed``."""

    armed = False

    def _touched(self) -> None:
        if _Watched.armed:
            raise AssertionError("an old changeLog entry was judged again")

    def get(self, *args: Any) -> Any:
        self._touched()
        return super().get(*args)

    def items(self) -> Any:
        self._touched()
        return super().items()

    def __getitem__(self, key: Any) -> Any:
        self._touched()
        return super().__getitem__(key)


def test_incremental_validation_does_not_walk_the_old_changelog() -> None:
    """Issue 37 finding 6: the cost of a write's validation follows the new changes."""
    old_changes = [_Watched(_change(n)) for n in range(1, 50)]
    last = _change(50)
    base = {**HISTORY, "todoList": {**HISTORY["todoList"], "sequence": 50}}
    base["todoList"]["changeLog"] = [*old_changes, last]
    assert validate(base).valid
    new = todos.update(base, "t1", {"status": "completed"}, STAMP).data
    _Watched.armed = True
    try:
        assert still_valid(base, new) is True
    finally:
        _Watched.armed = False
    assert validate(new).valid
