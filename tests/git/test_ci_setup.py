"""README "CI and unusual setups": its lines, run one by one, in the checkout a CI job gets
(another user's, shallow, without an identity, HOME empty): each does what it says."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.run import REPO_ROOT, run_cli, run_git

README = REPO_ROOT / "README.md"
IDENTITY = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")


def ci_lines() -> list[str]:
    """The commands of the section's first ``sh`` block, comments taken off."""
    if not README.exists():
        pytest.skip("needs the source checkout (README.md)")
    text = README.read_text("utf-8")
    section = text[text.index("### CI and unusual setups") :]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block is not None
    return [line.split("  #")[0].strip() for line in block.group(1).splitlines() if line.strip()]


def _todo(status: str) -> str:
    items = [{"id": "t1", "title": "One", "status": status}]
    return json.dumps({"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}})


def test_installing_never_breaks_git_the_readmes_ci_lines_work_in_a_ci_checkout(
    git_repo: Path, tmp_path: Path
) -> None:
    if os.geteuid() != 0:
        pytest.skip("a checkout of another user needs root (chown)")
    for n, status in enumerate(("pending", "inProgress", "completed")):
        (git_repo / "todo.vcontext.json").write_text(_todo(status))
        if n == 0:
            assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
        run_git(git_repo, "add", "-A")
        run_git(git_repo, "commit", "-q", "-m", f"c{n}")
    checkout = tmp_path / "checkout"
    run_git(tmp_path, "clone", "-q", "--depth", "1", f"file://{git_repo}", str(checkout))
    for folder, dirs, files in os.walk(checkout):
        for name in [".", *dirs, *files]:
            os.lchown(os.path.join(folder, name), 65534, 65534)
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in IDENTITY and k != "EMAIL"}
    env.pop("GIT_CONFIG_GLOBAL", None)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        GIT_CONFIG_NOSYSTEM="1",
        PWD=str(checkout),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
    )

    def run(line: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["sh", "-c", line], cwd=checkout, env=env, capture_output=True, text=True, timeout=120
        )

    lines = ci_lines()
    assert lines[0].startswith("git config --global --add safe.directory")
    refused = run("git vcontext validate")  # before the first line: git's fix, in one line
    assert refused.returncode == 3
    assert "git config --global --add safe.directory" in refused.stderr
    for line in lines:
        done = run(line)
        assert done.returncode == 0, (line, done.stdout, done.stderr)
    assert run("git rev-parse --is-shallow-repository").stdout.strip() == "false"
    assert "merge-driver" in run("git config merge.vcontext.driver").stdout
    assert not (checkout / ".git" / "hooks" / "pre-push").exists()
    (checkout / "todo.vcontext.json").write_text(_todo("done"))
    assert run("git vcontext validate").returncode == 1  # "done" is no status
    changed = run("git diff --exit-code")
    assert changed.returncode == 1
    assert changed.stdout.startswith("diff --git a/todo.vcontext.json b/todo.vcontext.json")
