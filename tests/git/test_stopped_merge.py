"""While a real ``git merge`` is stopped on a conflict: validate and diff read the work tree
file once (the index holds it three times, once per stage)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.conflict_repos import diverge
from helpers.run import run_cli, run_git

TODO = "memory/todo.vcontext.json"


def _doc(status: str) -> str:
    items = [{"id": "t1", "title": "A", "status": status}]
    data: dict[str, Any] = {"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}}
    return json.dumps(data, indent=2) + "\n"


@pytest.fixture
def stopped(git_repo: Path) -> Path:
    """main blocks t1 (and changes notes), branch feat completes it: git's line merge stops
    with markers."""
    (git_repo / "notes.vcontext.json").write_text(_doc("pending"))
    diverge(git_repo, _doc("pending"), _doc("blocked"), _doc("completed"), TODO)
    (git_repo / "notes.vcontext.json").write_text(_doc("inProgress"))
    run_git(git_repo, "commit", "-q", "-am", "main changes notes")
    merge = run_git(git_repo, "merge", "--no-edit", "feat", check=False)
    assert merge.returncode == 1
    assert "CONFLICT" in merge.stdout
    return git_repo


def test_validate_reports_a_conflicted_file_once(stopped: Path) -> None:
    proc = run_cli("validate", "--format", "json", cwd=stopped)
    files = [f["path"] for f in json.loads(proc.stdout)["files"]]
    assert files == [TODO, "notes.vcontext.json"]
    (report,) = [f for f in json.loads(proc.stdout)["files"] if f["path"] == TODO]
    assert [e["rule"] for e in report["errors"]] == ["conflict-markers"]
    assert proc.returncode == 1


def test_diff_head_shows_the_conflicted_file_as_modified_not_new(stopped: Path) -> None:
    out = run_cli("diff", "HEAD", cwd=stopped).stdout.decode()
    assert f"diff --vcontext a/{TODO} b/{TODO}\n" in out
    assert "new file" not in out
    assert out.count("diff --vcontext") == 1
    assert "+<<<<<<< HEAD" in out  # the work tree file, as it is


def test_diff_without_revision_compares_the_work_tree_with_ours(stopped: Path) -> None:
    out = run_cli("diff", cwd=stopped).stdout.decode()
    assert out.startswith(f"diff --vcontext a/{TODO} b/{TODO}\n")
    assert "new file" not in out


def test_diff_cached_names_the_unmerged_file_as_git_does(stopped: Path) -> None:
    proc = run_cli("diff", "--cached", cwd=stopped)
    assert proc.stdout.decode() == f"* Unmerged path {TODO}\n"  # not "deleted file"


def test_once_resolved_and_staged_the_file_diffs_structurally(stopped: Path) -> None:
    (stopped / TODO).write_text(_doc("completed"))
    run_git(stopped, "add", TODO)
    out = run_cli("diff", "--cached", cwd=stopped).stdout.decode()
    assert "todoList.items[t1].status: blocked → completed" in out
    assert run_cli("validate", cwd=stopped).returncode == 0
