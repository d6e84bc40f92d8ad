"""Issue 26 through real git: what the driver merges, validate and the hook accept (M6, M8,
M13, M19)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.run import run_cli, run_git

TODO = "memory/todo.vcontext.json"


def doc(*items: dict[str, Any], info: dict[str, Any] | None = None, **extra: Any) -> Any:
    return {"vContextInfo": {"version": "0.4", **(info or {})}, "todoList": {**extra, "items": list(items)}}  # fmt: skip


def item(i: str, **fields: Any) -> dict[str, Any]:
    return {"id": i, "title": i.upper(), "status": "pending", **fields}


def write(repo: Path, rel: str, data: Any) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def commit(repo: Path, message: str) -> str:
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)
    return run_git(repo, "rev-parse", "HEAD").stdout.strip()


def read(repo: Path, rel: str = TODO) -> Any:
    return json.loads((repo / rel).read_text())


def validate(repo: Path, *paths: str) -> Any:
    proc = run_cli("validate", "--format", "json", *paths, cwd=repo)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def errors(repo: Path, *paths: str) -> list[str]:
    return [e["rule"] for f in validate(repo, *paths)["files"] for e in f["errors"]]


@pytest.fixture
def repo(git_repo: Path) -> Path:
    """A repository with the driver installed (no hook: pushes are tested on their own)."""
    proc = run_cli("install", "--no-hooks", cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    return git_repo


def test_m8_info_sequence_both_advanced_through_git_merge(repo: Path) -> None:
    write(repo, TODO, doc(item("a"), item("b"), info={"sequence": 3}))
    commit(repo, "base")
    run_git(repo, "checkout", "-q", "-b", "alice")
    write(repo, TODO, doc(item("a", status="completed"), item("b"), info={"sequence": 4}))
    commit(repo, "alice completes a")
    run_git(repo, "checkout", "-q", "main")
    write(repo, TODO, doc(item("a"), item("b", status="completed"), info={"sequence": 4}))
    commit(repo, "main completes b")
    merge = run_git(repo, "merge", "--no-edit", "alice", check=False)
    assert merge.returncode == 0, merge.stderr
    merged = read(repo)
    assert merged["vContextInfo"]["sequence"] == 5
    assert [i["status"] for i in merged["todoList"]["items"]] == ["completed", "completed"]
    assert errors(repo, TODO) == []
