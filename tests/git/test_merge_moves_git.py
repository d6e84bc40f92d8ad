"""M18 through real ``git merge``: one agent nests a task, another ticks it (JSON and TRON)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.codecs import dumps, parse
from helpers.conflict_repos import diverge, installed
from helpers.run import run_cli, run_git


def todo(*items: dict[str, Any]) -> dict[str, Any]:
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"items": list(items)}}


def task(ident: str, **fields: Any) -> dict[str, Any]:
    return {"id": ident, "title": f"Task {ident}", "status": "pending", **fields}


BASE = todo(task("t1"), task("t3"))


def nested() -> dict[str, Any]:
    """Ours: t3 moved under t1 (Extension 4 subItems)."""
    out = copy.deepcopy(BASE)
    t3 = out["todoList"]["items"].pop(1)
    out["todoList"]["items"][0]["subItems"] = [t3]
    return out


def ticked() -> dict[str, Any]:
    """Theirs: t3 completed where it was."""
    out = copy.deepcopy(BASE)
    out["todoList"]["items"][1]["status"] = "completed"
    return out


def text(data: Any, fmt: str) -> str:
    return json.dumps(data, indent=2) + "\n" if fmt == "json" else dumps(data, "tron")


@pytest.mark.parametrize("fmt", ["json", "tron"])
def test_m18_git_merge_of_a_nested_task_and_its_tick_is_clean(git_repo: Path, fmt: str) -> None:
    repo = installed(git_repo)
    rel = f"memory/t.vcontext.{fmt}"
    diverge(repo, text(BASE, fmt), text(nested(), fmt), text(ticked(), fmt), rel)
    merge = run_git(repo, "merge", "--no-edit", "feat", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    data = parse((repo / rel).read_bytes(), format=fmt).data  # type: ignore[arg-type]
    assert data["todoList"]["items"] == [task("t1", subItems=[task("t3", status="completed")])]
    # and the diff of the merge against ours' parent shows t3's edit where it now is
    proc = run_cli("diff", "--format", "json", "HEAD~1", "HEAD", "--", rel, cwd=repo)
    changes = json.loads(proc.stdout)["changes"]
    assert [(c["op"], c["path"]) for c in changes] == [
        ("change", "/todoList/items/0/subItems/0/status")
    ]
    # the diff of ours' own commit shows the move as a move
    proc = run_cli("diff", "HEAD~2", "HEAD~1", "--", rel, cwd=repo)
    assert "todoList.items[t3]: moved into items[t1].subItems" in proc.stdout.decode()


def test_m18_git_merge_of_two_different_nestings_stops_with_one_conflict(git_repo: Path) -> None:
    repo = installed(git_repo)
    base = todo(task("t1"), task("t2"), task("t3"))
    ours, theirs = copy.deepcopy(base), copy.deepcopy(base)
    ours["todoList"]["items"][0]["subItems"] = [ours["todoList"]["items"].pop(2)]
    theirs["todoList"]["items"][1]["subItems"] = [theirs["todoList"]["items"].pop(2)]
    rel = "t.vcontext.json"
    diverge(repo, text(base, "json"), text(ours, "json"), text(theirs, "json"), rel)
    proc = run_git(repo, "merge", "--no-edit", "feat", check=False)
    assert proc.returncode == 1
    body = (repo / rel).read_text()
    assert body.count("<<<<<<<") == 1
    assert "(move/move)" in proc.stdout + proc.stderr
