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
    head = {"version": "0.4", **(info or {})}
    return {"vContextInfo": head, "todoList": {**extra, "items": list(items)}}


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


PLAYBOOK = "memory/playbook.vcontext.json"


def event(eid: str, day: int, target: str | None = None, **fields: Any) -> dict[str, Any]:
    op = "update" if "prevEventId" in fields else "append"
    out = {"eventId": eid, "targetId": target or eid, "operation": op, "kind": "rule"}
    if op == "append":
        out["text"] = f"rule {eid}"
    return {**out, **fields, "createdAt": f"2025-01-{day:02d}T00:00:00Z"}


def playbook(*events: dict[str, Any]) -> Any:
    return {"vContextInfo": {"version": "0.4"}, "playbook": {"items": list(events)}}


def test_m6_a_branch_merged_again_never_reorders_what_ours_holds_through_git(repo: Path) -> None:
    r0, ra, rb, rc = event("r0", 1), event("ra", 2), event("rb", 3), event("rc", 4)
    write(repo, PLAYBOOK, playbook(r0))
    commit(repo, "r0")
    run_git(repo, "checkout", "-q", "-b", "alice")
    write(repo, PLAYBOOK, playbook(r0, ra))
    commit(repo, "alice adds ra")
    run_git(repo, "checkout", "-q", "main")
    write(repo, PLAYBOOK, playbook(r0, rb))
    with_rb = commit(repo, "main adds rb")
    run_git(repo, "checkout", "-q", "-b", "bob", with_rb)
    write(repo, PLAYBOOK, playbook(r0, rb, rc))
    commit(repo, "bob adds rc")
    run_git(repo, "checkout", "-q", "main")
    assert run_git(repo, "merge", "--no-edit", "alice", check=False).returncode == 0
    assert [e["eventId"] for e in read(repo, PLAYBOOK)["playbook"]["items"]] == ["r0", "ra", "rb"]
    before = (repo / PLAYBOOK).read_text()
    assert run_git(repo, "merge", "--no-edit", "bob", check=False).returncode == 0
    after = (repo / PLAYBOOK).read_text()
    ids = [e["eventId"] for e in json.loads(after)["playbook"]["items"]]
    assert ids == ["r0", "ra", "rb", "rc"]
    # ours' text is untouched: the merge only inserted theirs' event
    diff = run_git(repo, "diff", "-U0", "HEAD~1", "HEAD", "--", PLAYBOOK).stdout
    removed = [x for x in diff.splitlines() if x.startswith("-") and not x.startswith("---")]
    assert not removed
    assert len(after) > len(before)
    assert errors(repo, PLAYBOOK) == []
