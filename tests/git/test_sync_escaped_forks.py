"""A fork block written with escaped keys is a fork block to sync and status (M11, one truth).

JSON reads ``"\\u0066ork"`` as ``"fork"``: the byte pre-test before sync's fork rules
(``document.may_hold_fork``) must not skip a block no byte of which says ``fork``. Real git
repositories; the agent branch is made as ``helpers.sync_repos.fork_by_hand`` makes it, then
its documents are rewritten with every ``fork…`` key escaped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.run import run_cli
from helpers.sync_repos import (
    EPOCH,
    commit_all,
    commit_on,
    edit,
    fork_by_hand,
    seed,
    show,
    status,
    sync,
    without_fork,
)

TODO, PLAN = "todo.vcontext.json", "docs/plan.vcontext.json"


def _escaped(data: Any) -> str:
    text = json.dumps(data, indent=2) + "\n"
    escaped = text.replace('"fork', '"\\u0066ork')  # fork, forkedAt, forkReason
    assert "fork" not in escaped
    assert json.loads(escaped) == data
    return escaped


def _escaped_agent(repo: Path) -> None:
    """agents/alice with escaped fork blocks in both documents and t1 ticked in the todo."""
    fork_by_hand(repo, "alice")
    todo = show(repo, "agents/alice", TODO)
    status(("t1", "completed"))(todo)
    plan = show(repo, "agents/alice", PLAN)
    commit_on(repo, "agents/alice", {TODO: _escaped(todo), PLAN: _escaped(plan)}, "tick")


def test_m11_sync_marks_an_escaped_fork_block_merged_and_keeps_it_off_the_base(
    git_repo: Path,
) -> None:
    """M11: sync merges the agent's work into main without its (escaped) fork block and
    marks the block merged on the agent branch, as it does a plain one."""
    repo = git_repo
    seed(repo)
    _escaped_agent(repo)
    edit(repo, TODO, lambda d: d["todoList"]["items"].append({"id": "t4", "title": "Four"}))
    commit_all(repo, "main adds t4")

    code, _, err = sync(repo, "alice")

    assert code == 0, err
    base_todo, agent_todo = show(repo, "main", TODO), show(repo, "agents/alice", TODO)
    assert "fork" not in base_todo["todoList"]
    assert [i["id"] for i in base_todo["todoList"]["items"]] == ["t1", "t2", "t3", "t4"]
    assert without_fork(agent_todo) == base_todo
    assert agent_todo["todoList"]["fork"]["mergeStatus"] == "merged"
    assert agent_todo["todoList"]["fork"]["parentSequence"] == base_todo["todoList"]["sequence"]
    assert show(repo, "agents/alice", PLAN)["plan"]["fork"]["mergeStatus"] == "merged"
    assert "fork" not in show(repo, "main", PLAN)["plan"]


def test_status_lists_an_escaped_fork_block(git_repo: Path) -> None:
    """status's fork column (merge status, sequence divergence) reads an escaped block."""
    repo = git_repo
    seed(repo)
    _escaped_agent(repo)

    proc = run_cli("status", "--format", "json", cwd=repo, env=EPOCH)

    assert proc.returncode == 0, proc.stderr
    (alice,) = json.loads(proc.stdout)["agents"]
    assert alice["mergeStatus"] == "unmerged"
    assert {s["path"] for s in alice["sequences"]} == {TODO, PLAN}
