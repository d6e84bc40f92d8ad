"""Repositories for the pre-push hook tests: documents, commits, a bare remote."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from helpers.run import run_cli, run_git

PLAYBOOK = "memory/playbook.vcontext.json"


TODO = "memory/todo.vcontext.json"


ZERO = "0" * 40


def event(eid: str, text: str, target: str | None = None) -> dict[str, Any]:
    # a valid creation event: createdAt is required (seed 000), one creation per target
    stamp = "2026-01-01T00:00:00Z"
    return {
        "eventId": eid,
        "targetId": target or f"r-{eid}",
        "operation": "append",
        "kind": "rule",
        "text": text,
        "createdAt": stamp,
    }


def playbook(*events: dict[str, Any]) -> dict[str, Any]:
    return {"vContextInfo": {"version": "0.4"}, "playbook": {"items": list(events)}}


def todo(**container: Any) -> dict[str, Any]:
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"items": [], **container}}


def write(repo: Path, rel: str, data: Any) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2) + "\n")


def commit(repo: Path, message: str) -> str:
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)
    return sha(repo, "HEAD")


def sha(repo: Path, rev: str) -> str:
    return run_git(repo, "rev-parse", rev).stdout.strip()


def push(repo: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "push", "-q", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )


def remote_sha(remote: Path, ref: str) -> str | None:
    out = run_git(remote, "rev-parse", "--verify", "-q", ref, check=False)
    return out.stdout.strip() or None


def bare_remote(tmp_path: Path) -> Path:
    path = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    return path


def installed_and_pushed(git_repo: Path, remote: Path) -> Path:
    """A repository with git-vcontext installed, a playbook on main, pushed to ``origin``."""
    run_git(git_repo, "remote", "add", "origin", str(remote))
    proc = run_cli("install", cwd=git_repo)
    assert proc.returncode == 0, proc.stderr
    write(git_repo, PLAYBOOK, playbook(event("e1", "first")))
    commit(git_repo, "base")
    done = push(git_repo, "-u", "origin", "main")
    assert done.returncode == 0, done.stderr
    return git_repo
