"""Favor (merge.vcontext.favor) and the report's notes: multi-head targets, sequence conflicts."""

from __future__ import annotations

import json
from typing import Any

from conftest import run_cli
from git_vcontext.merge.files import merge_files

PATH = "playbook.vcontext.json"


def event(eid: str, prev: str | None, day: int) -> dict[str, Any]:
    e: dict[str, Any] = {
        "eventId": eid,
        "targetId": "entry-retry",
        "createdAt": f"2025-01-0{day}T00:00:00Z",
    }
    if prev:
        e.update(operation="update", prevEventId=prev, text=f"text {eid}")
    else:
        e.update(operation="append", kind="rule", text="Retry once")
    return e


def playbook(*events: dict[str, Any], version: int = 1) -> bytes:
    data = {
        "vContextInfo": {"version": "0.4"},
        "playbook": {"version": version, "items": list(events)},
    }
    return (json.dumps(data, indent=2) + "\n").encode()


def test_report_notes_each_target_left_with_several_heads_in_the_documented_shape() -> None:
    e1 = event("e1", None, 1)
    out = merge_files(
        playbook(e1),
        playbook(e1, event("e2", "e1", 2), version=2),
        playbook(e1, event("e3", "e1", 3), version=2),
        path=PATH,
    )
    notes = out.report()["notes"]
    [head] = [n for n in notes if n["kind"] == "multi-head"]
    assert head["path"] == "/playbook/items" and head["target"] == "entry-retry"
    assert head["heads"] == ["e2", "e3"] and "e3" in head["message"]
    assert any(n["kind"] == "sequence-conflict" and n["path"] == "/playbook/version" for n in notes)


def test_no_multi_head_note_when_the_merged_log_is_one_chain() -> None:
    e1, e2 = event("e1", None, 1), event("e2", "e1", 2)
    out = merge_files(
        playbook(e1),
        playbook(e1, e2, event("e3", "e2", 3)),
        playbook(e1, e2),
        path=PATH,
    )
    assert out.clean and not [n for n in out.report()["notes"] if n["kind"] == "multi-head"]


def test_favor_leaves_a_line_fallback_with_its_markers() -> None:
    """PRODUCT.md: favor settles structural conflicts; a line fallback (M16) keeps its markers."""
    out = merge_files(b'{"a": 1,\n', b'{"a": 2,\n', b'{"a": 3,\n', path="x.json", favor="theirs")
    assert out.status == "fallback" and not out.clean
    assert b"<<<<<<< ours" in out.output


def test_merge_command_favor_writes_the_favored_side_and_lists_conflicts_as_notes(
    tmp_path: Any,
) -> None:
    def todo(status: str) -> str:
        items = [{"id": "t1", "title": "T", "status": status}]
        return json.dumps({"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}})

    for name, status in (("base", "pending"), ("ours", "blocked"), ("theirs", "completed")):
        (tmp_path / f"{name}.json").write_text(todo(status))
    out = tmp_path / "out.json"
    proc = run_cli("merge", "base.json", "ours.json", "theirs.json", "-o", str(out), "--favor",
                   "theirs", "--report", "-", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["status"] == "clean" and report["conflicts"] == []
    [note] = report["notes"]
    assert note["kind"] == "favored" and note["favored"] == "theirs"
    assert note["path"] == "/todoList/items/0/status"
    assert note["conflict"] == {
        "kind": "status",
        "base": "pending",
        "ours": "blocked",
        "theirs": "completed",
    }
    assert json.loads(out.read_text())["todoList"]["items"][0]["status"] == "completed"


def test_favor_from_the_environment_and_a_bad_value_is_ignored_with_a_warning(
    tmp_path: Any,
) -> None:
    for name, value in (("base", 1), ("ours", 2), ("theirs", 3)):
        (tmp_path / f"{name}.json").write_text(json.dumps({"n": value}))
    args = ("merge", "base.json", "ours.json", "theirs.json")
    favored = run_cli(*args, cwd=tmp_path, env={"GIT_VCONTEXT_FAVOR": "ours"})
    assert favored.returncode == 0 and json.loads(favored.stdout) == {"n": 2}
    bad = run_cli(*args, cwd=tmp_path, env={"GIT_VCONTEXT_FAVOR": "mine"})
    assert bad.returncode == 1 and b"<<<<<<<" in bad.stdout
    assert b"ignoring favor 'mine'" in bad.stderr
