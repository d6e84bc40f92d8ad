"""Defects a new user met following the README literally (a trial round): each with the
command that showed it, run against real git."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.run import run_cli, run_git

TODO = {
    "vContextInfo": {"version": "0.4"},
    "todoList": {"items": [{"id": "t1", "title": "A", "status": "pending"}]},
}


def _installed(repo: Path) -> None:
    done = run_cli("install", cwd=repo)
    assert done.returncode == 0, done.stderr.decode()


def _write(repo: Path, name: str, value: object) -> None:
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")


def _titled(title: str) -> dict[str, object]:
    return {**TODO, "todoList": {"items": [{"id": "t1", "title": title, "status": "pending"}]}}


def test_advice_for_a_conflicted_path_with_a_newline_stays_on_one_line(git_repo: Path) -> None:
    """``conflicts`` ends with the resolve command to copy; the merge driver names the file:
    a newline in the name splits neither line."""
    name = "a\nb.vcontext.json"
    _installed(git_repo)
    _write(git_repo, name, _titled("A"))
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-qm", "base")
    run_git(git_repo, "switch", "-qc", "x")
    _write(git_repo, name, _titled("X"))
    run_git(git_repo, "commit", "-qam", "x")
    run_git(git_repo, "switch", "-q", "main")
    _write(git_repo, name, _titled("Y"))
    run_git(git_repo, "commit", "-qam", "y")
    merged = run_git(git_repo, "merge", "x", check=False)
    assert merged.returncode == 1
    said = [line for line in merged.stderr.splitlines() if line.startswith("git-vcontext:")]
    assert said
    assert said[0].startswith('git-vcontext: "a\\nb.vcontext.json": 1 conflict(s)')
    listed = run_cli("conflicts", cwd=git_repo)
    assert listed.returncode == 1
    last = listed.stderr.decode().splitlines()[-1]
    assert "resolve $'a\\nb.vcontext.json' [--conflict ID]" in last
