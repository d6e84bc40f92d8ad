"""Issue 20's reproduction as a user runs it: ``git vcontext merge`` of a nested and a
ticked task is clean, and ``--report`` notes the move (M18)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.run import run_cli

BASE = {
    "vContextInfo": {"version": "0.4"},
    "todoList": {
        "items": [
            {"id": "t1", "title": "Auth", "status": "pending"},
            {"id": "t3", "title": "Tests", "status": "pending"},
        ]
    },
}


def test_m18_merge_cli_nests_and_ticks_and_reports_the_move(tmp_path: Path) -> None:
    ours = json.loads(json.dumps(BASE))
    ours["todoList"]["items"][0]["subItems"] = [ours["todoList"]["items"].pop(1)]
    theirs = json.loads(json.dumps(BASE))
    theirs["todoList"]["items"][1]["status"] = "completed"
    files = []
    for name, data in (("base", BASE), ("ours", ours), ("theirs", theirs)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data, indent=2) + "\n")
        files.append(str(path))
    report = tmp_path / "report.json"
    proc = run_cli("merge", *files, "--path", "t.vcontext.json", "--report", str(report))
    assert proc.returncode == 0, proc.stderr
    merged = json.loads(proc.stdout)
    assert merged["todoList"]["items"] == [
        {
            "id": "t1",
            "title": "Auth",
            "status": "pending",
            "subItems": [{"id": "t3", "title": "Tests", "status": "completed"}],
        }
    ]
    [note] = [n for n in json.loads(report.read_text())["notes"] if n["kind"] == "move"]
    assert (note["id"], note["from"], note["to"]) == (
        "t3",
        "/todoList/items/1",
        "/todoList/items/0/subItems/0",
    )
    assert b"<<<<<<<" not in proc.stdout
