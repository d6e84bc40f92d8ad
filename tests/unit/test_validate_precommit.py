"""``.pre-commit-hooks.yaml``: the hooks find their files as git routes them (install's patterns
and the repository's own ``.gitattributes`` lines), never by a fixed pattern; run by the real
pre-commit framework, as a team would declare them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers.run import REPO_ROOT, run_git

HOOKS = REPO_ROOT / ".pre-commit-hooks.yaml"


def _hooks() -> list[dict[str, Any]]:
    if not HOOKS.exists():
        pytest.skip("needs the source checkout")
    yaml = pytest.importorskip("yaml", reason="pyyaml comes with pre-commit (test extras)")
    hooks: list[dict[str, Any]] = yaml.safe_load(HOOKS.read_text("utf-8"))
    return hooks


def test_no_hook_selects_files_by_a_fixed_pattern() -> None:
    for hook in _hooks():
        assert "files" not in hook, hook["id"]
        assert hook["pass_filenames"] is False, hook["id"]
        assert hook["entry"].startswith("git-vcontext "), hook["id"]


def _doc(status: str) -> str:
    items = [{"id": "t1", "title": "One", "status": status}]
    return json.dumps({"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}})


def test_validate_hook_checks_the_files_gitattributes_routes(git_repo: Path) -> None:
    """A document routed by the team's own line (``memory/*.json``) is validated; a JSON
    file nothing routes is not."""
    pytest.importorskip("pre_commit", reason="pre-commit is in the test extras")
    yaml = pytest.importorskip("yaml")
    hook = next(h for h in _hooks() if h["id"] == "vcontext-validate")
    local = {**hook, "language": "system"}  # the same hook, from this installation
    config = {"repos": [{"repo": "local", "hooks": [local]}]}
    (git_repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    (git_repo / ".gitattributes").write_text("memory/*.json merge=vcontext diff=vcontext\n")
    (git_repo / "package.json").write_text('{"name": "x", "status": "done"}\n')
    run_git(git_repo, "add", "-A")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}

    def commit() -> subprocess.CompletedProcess[str]:
        subprocess.run(
            [sys.executable, "-m", "pre_commit", "install"], cwd=git_repo, env=env, check=True,
            capture_output=True,
        )  # fmt: skip
        return subprocess.run(
            ["git", "commit", "-q", "-m", "x"], cwd=git_repo, env=env, capture_output=True,
            text=True, timeout=120,
        )  # fmt: skip

    assert commit().returncode == 0  # package.json is nobody's document
    (git_repo / "memory").mkdir()
    (git_repo / "memory" / "todo.json").write_text(_doc("done"))
    run_git(git_repo, "add", "-A")
    refused = commit()
    assert refused.returncode != 0
    assert "memory/todo.json" in refused.stdout + refused.stderr
    (git_repo / "memory" / "todo.json").write_text(_doc("completed"))
    run_git(git_repo, "add", "-A")
    assert commit().returncode == 0
