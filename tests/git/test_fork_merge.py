"""A forked branch is a fork to the merge engine: real `git merge` through the driver (M11)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from git_vcontext.codecs import parse
from helpers.run import run_cli, run_git

TODO = "memory/todo.vcontext.json"
PLAN = "memory/plan.vcontext.tron"

PLAN_TRON = """\
class vContextInfo: version
class Plan: id, uid, title, sequence, items
class PlanItem: id, title, status

vContextInfo: vContextInfo("0.4")
plan: Plan("p1", "plan-uid-7", "Release", 2, [
  PlanItem("p1.1", "Cut branch", "completed")
])
"""


def todo(items: list[str], sequence: int) -> str:
    body = ",\n".join(
        f'      {{"id": "{i}", "title": "{i.upper()}", "status": "pending"}}' for i in items
    )
    return (
        '{\n  "vContextInfo": {"version": "0.4"},\n  "todoList": {\n'
        f'    "id": "tl",\n    "uid": "todo-uid-1",\n    "sequence": {sequence},\n'
        f'    "items": [\n{body}\n    ]\n  }}\n}}\n'
    )


T2_LINE = '{"id": "t2", "title": "T2", "status": "pending"}'


def read(where: Path, rel: str) -> Any:
    return parse((where / rel).read_bytes(), path=rel).data


def commit_all(where: Path, message: str) -> None:
    run_git(where, "add", "-A")
    run_git(where, "commit", "-q", "-m", message)


def edit(where: Path, rel: str, text: str, message: str) -> None:
    (where / rel).write_text(text)
    commit_all(where, message)


@pytest.fixture
def forked(git_repo: Path, tmp_path: Path) -> tuple[Path, Path]:
    """main (driver installed, attributes committed) and the worktree of agents/alice."""
    assert run_cli("install", cwd=git_repo).returncode == 0
    (git_repo / "memory").mkdir()
    (git_repo / TODO).write_text(todo(["t1", "t2"], 3))
    (git_repo / PLAN).write_text(PLAN_TRON)
    commit_all(git_repo, "base")
    agent = tmp_path / "alice tree"
    proc = run_cli("fork", "alice", "--worktree", str(agent), cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    return git_repo, agent


def test_m11_merging_the_base_into_the_fork_updates_parent_sequence(
    forked: tuple[Path, Path],
) -> None:
    main, agent = forked
    edit(main, TODO, todo(["t1", "t2", "m1"], 5), "main adds m1")
    fork_before = read(agent, TODO)["todoList"]["fork"]
    text = (agent / TODO).read_text().replace('"sequence": 3', '"sequence": 4')
    text = text.replace(
        T2_LINE, T2_LINE + ',\n      {"id": "a1", "title": "A1", "status": "pending"}'
    )
    edit(agent, TODO, text, "alice adds a1")
    merge = run_git(agent, "merge", "--no-edit", "main", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    merged = read(agent, TODO)["todoList"]
    assert merged["fork"] == {**fork_before, "parentSequence": 5}
    assert [i["id"] for i in merged["items"]] == ["t1", "t2", "a1", "m1"]
    assert merged["sequence"] == 6  # both advanced: max + 1 (M8)


def test_m11_merging_the_fork_into_the_base_keeps_the_base_free_of_fork(
    forked: tuple[Path, Path],
) -> None:
    main, agent = forked
    edit(main, TODO, todo(["t1", "t2", "m1"], 4), "main adds m1")
    (main / PLAN).write_text(PLAN_TRON.replace('"Release", 2', '"Release 2", 3'))
    commit_all(main, "main renames the plan")
    text = (
        (agent / TODO)
        .read_text()
        .replace('"id": "t2", "title": "T2"', '"id": "t2", "title": "Two"')
    )
    edit(agent, TODO, text, "alice renames t2")
    plan = (
        (agent / PLAN)
        .read_text()
        .replace('"Cut branch", "completed"', '"Cut the branch", "completed"')
    )
    edit(agent, PLAN, plan, "alice rewords p1.1")
    merge = run_git(main, "merge", "--no-ff", "--no-edit", "agents/alice", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    merged = read(main, TODO)["todoList"]
    assert "fork" not in merged
    assert merged["uid"] == "todo-uid-1"
    assert [(i["id"], i["title"]) for i in merged["items"]] == [
        ("t1", "T1"),
        ("t2", "Two"),
        ("m1", "M1"),
    ]
    plan_data = read(main, PLAN)["plan"]
    assert "fork" not in plan_data
    assert plan_data["title"] == "Release 2"
    assert plan_data["items"][0]["title"] == "Cut the branch"
