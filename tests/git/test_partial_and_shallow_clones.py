"""PRODUCT.md "Installing never breaks git": partial clones (``--filter=blob:none``) read
objects as git does (a missing blob is fetched on demand), and shallow clones say what they
could not see (the hook, status/sync, log/blame mark the boundary as git does)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from helpers.run import run_cli, run_git

DOC = "todo.vcontext.json"


def _todo(done: int, items: int = 6) -> str:
    rows = [
        {"id": f"t{n}", "title": f"T{n}", "status": "completed" if n < done else "pending"}
        for n in range(items)
    ]
    return json.dumps({"vContextInfo": {"version": "0.4"}, "todoList": {"items": rows}}, indent=2)


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """A bare remote that serves filters, with 5 versions of a todo list on main and an
    agent branch forked from the third."""
    source = tmp_path / "source"
    source.mkdir()
    run_git(source, "init", "-q", "-b", "main")
    for n in range(5):
        (source / DOC).write_text(_todo(n))
        run_git(source, "add", "-A")
        run_git(source, "commit", "-q", "-m", f"c{n}")
    assert run_cli("install", "--no-hooks", cwd=source).returncode == 0
    run_git(source, "add", ".gitattributes")
    run_git(source, "commit", "-q", "-m", "attributes")
    assert run_cli("fork", "alice", "--from", "main", cwd=source).returncode == 0
    bare = tmp_path / "remote.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(source), str(bare))
    run_git(bare, "config", "uploadpack.allowFilter", "true")
    return bare


def _missing(repo: Path) -> set[str]:
    """Objects the clone has been promised but not fetched (git does not fetch for this)."""
    out = run_git(repo, "rev-list", "--objects", "--missing=print", "--all").stdout
    return {line[1:] for line in out.splitlines() if line.startswith("?")}


def _clone(remote: Path, where: Path, *options: str) -> Path:
    run_git(where.parent, "clone", "-q", *options, f"file://{remote}", str(where))
    done = run_cli("install", cwd=where)
    assert done.returncode == 0, done.stderr
    run_git(where, "config", "vcontext.agent.alice.base", "main")
    run_git(where, "branch", "-q", "agents/alice", "origin/agents/alice")
    return where


def test_installing_never_breaks_git_a_partial_clone_reads_missing_blobs_as_git_does(
    remote: Path, tmp_path: Path
) -> None:
    """Issue 35: diff REV REV, log, blame --rev, status and sync --push exited 3 with
    'internal error: KeyError/NotFoundError' on a blob the clone had not fetched."""
    clone = _clone(remote, tmp_path / "partial", "--filter=blob:none")
    assert len(_missing(clone)) >= 3
    for args in (
        ["diff", "HEAD~4", "HEAD~2"],
        ["log", "--", DOC],
        ["blame", DOC, "--rev", "HEAD~3"],
        ["status"],
    ):
        proc = run_cli(*args, cwd=clone)
        assert proc.returncode == 0, (args, proc.stderr)
        assert b"internal error" not in proc.stderr
    diff = run_cli("diff", "HEAD~4", "HEAD~2", cwd=clone).stdout.decode()
    assert "todoList.items[t1].status: pending → completed" in diff
    blame = run_cli("blame", DOC, "--rev", "HEAD~3", cwd=clone).stdout.decode()
    assert "todoList.items[t1]" in blame

    (clone / DOC).write_text(_todo(5))
    run_git(clone, "commit", "-q", "-am", "all but one done")
    pushed = subprocess.run(
        ["git", "push", "-q", "origin", "main"], cwd=clone, capture_output=True, text=True
    )
    assert pushed.returncode == 0, pushed.stderr
    run_git(clone, "switch", "-q", "agents/alice")
    (clone / DOC).write_text(_todo(2, items=7))
    run_git(clone, "commit", "-q", "-am", "alice adds t6")
    synced = run_cli("sync", "alice", "--push", "origin", cwd=clone)
    assert synced.returncode == 0, synced.stderr
    assert b"internal error" not in synced.stderr


def test_installing_never_breaks_git_the_hook_fetches_a_blob_a_partial_clone_lacks(
    remote: Path, tmp_path: Path
) -> None:
    """A pushed commit whose file is an old version never checked out here (its blob not
    fetched): the hook refused ('cannot read object'); git pushes it, and so do we."""
    clone = _clone(remote, tmp_path / "partial", "--filter=blob:none")
    old_tree = run_git(clone, "rev-parse", "HEAD~3^{tree}").stdout.strip()
    blob = run_git(clone, "rev-parse", f"HEAD~3:{DOC}").stdout.strip()
    assert blob in _missing(clone)
    commit = run_git(clone, "commit-tree", old_tree, "-p", "HEAD", "-m", "back").stdout.strip()
    pushed = subprocess.run(
        ["git", "push", "origin", f"{commit}:refs/heads/back"],
        cwd=clone,
        capture_output=True,
        text=True,
    )
    assert pushed.returncode == 0, pushed.stderr
    assert "could not run" not in pushed.stderr


def test_installing_never_breaks_git_a_shallow_clones_hook_says_what_it_could_not_check(
    remote: Path, tmp_path: Path
) -> None:
    """Issue 35: a depth-1 clone's hook said 'checked the whole history of HEAD' and passed
    a boundary commit whose parent it never saw."""
    clone = tmp_path / "shallow"
    run_git(tmp_path, "clone", "-q", "--depth", "1", f"file://{remote}", str(clone))
    assert run_cli("install", cwd=clone).returncode == 0
    for ref in ("refs/remotes/origin/main", "refs/remotes/origin/HEAD"):
        run_git(clone, "update-ref", "-d", ref)
    (clone / DOC).write_text(_todo(5))
    run_git(clone, "commit", "-q", "-am", "five done")
    pushed = subprocess.run(
        ["git", "push", "origin", "HEAD:refs/heads/shallow-work"],
        cwd=clone,
        capture_output=True,
        text=True,
    )
    assert pushed.returncode == 0, pushed.stderr
    assert "checked the whole history" not in pushed.stderr
    assert "as far as this shallow clone has it" in pushed.stderr
    boundary = run_git(clone, "rev-parse", "HEAD~1").stdout.strip()
    assert f"shallow clone: the parents of {boundary[:12]} were not fetched" in pushed.stderr
    assert "NOT checked" in pushed.stderr


def test_installing_never_breaks_git_shallow_history_is_told_from_unrelated_history(
    remote: Path, tmp_path: Path
) -> None:
    clone = _clone(remote, tmp_path / "shallow", "--depth", "1", "--no-single-branch")
    status = run_cli("status", cwd=clone).stdout.decode()
    assert "share no history in this shallow clone" in status
    assert "git fetch --unshallow" in status
    synced = run_cli("sync", "alice", cwd=clone)
    assert synced.returncode != 0
    assert b"share no history in this shallow clone" in synced.stdout + synced.stderr
    run_git(clone, "fetch", "-q", "--unshallow")
    assert run_cli("sync", "alice", cwd=clone).returncode == 0


def test_installing_never_breaks_git_log_and_blame_mark_a_shallow_boundary(
    remote: Path, tmp_path: Path
) -> None:
    """git marks a commit whose parents a shallow clone lacks: ``^`` in blame, ``grafted``
    in log; it showed as the commit that added every item, with nothing said."""
    clone = tmp_path / "shallow"
    run_git(tmp_path, "clone", "-q", "--depth", "2", f"file://{remote}", str(clone))
    boundary = run_git(clone, "rev-parse", "HEAD~1").stdout.strip()
    blame = run_cli("blame", DOC, cwd=clone).stdout.decode().splitlines()
    assert blame
    assert all(line.startswith(f"^{boundary[:8]} ") for line in blame), blame
    assert b'"boundary": true' in run_cli("blame", DOC, "--format", "json", cwd=clone).stdout
    log = run_cli("log", "--", DOC, cwd=clone).stdout.decode()
    assert f"commit {boundary} (grafted)" in log
    assert "shallow clone: the history before this commit was not fetched" in log
    full = tmp_path / "full"
    run_git(tmp_path, "clone", "-q", f"file://{remote}", str(full))
    assert "^" not in run_cli("blame", DOC, cwd=full).stdout.decode()
    assert "(grafted)" not in run_cli("log", "--", DOC, cwd=full).stdout.decode()
