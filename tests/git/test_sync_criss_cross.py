"""In-process merges (sync, status) on criss-cross histories: all merge bases, a virtual base.

libgit2's ``merge_base`` returns one of several merge bases. Here either one alone turns
an edit that both branches inherited into a false conflict: the agent completed t1, the
base completed t2, both merged each other (git merge), then the agent reopens t1 and the
base reopens t2. From the virtual base (t1 and t2 completed) both reopenings merge.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygit2
from sync_repos import EPOCH, commit_all, read, rev, write

from conftest import run_cli, run_git
from git_vcontext.gitio.bases import merge_bases

DOC = "todo.vcontext.json"


def todo(**statuses: str) -> dict[str, Any]:
    items = [{"id": i, "title": i.upper(), "status": s} for i, s in statuses.items()]
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}}


def crossed(repo: Path) -> tuple[str, str]:
    """main and agents/x merged each other's first commit; returns those two commits."""
    write(repo, DOC, todo(t1="pending", t2="pending"))
    commit_all(repo, "base")
    run_git(repo, "config", "vcontext.agent.x.base", "main")
    run_git(repo, "checkout", "-q", "-b", "agents/x")
    write(repo, DOC, todo(t1="completed", t2="pending"))
    agent_first = commit_all(repo, "x completes t1")
    run_git(repo, "checkout", "-q", "main")
    write(repo, DOC, todo(t1="pending", t2="completed"))
    main_first = commit_all(repo, "main completes t2")
    run_git(repo, "merge", "-q", "--no-edit", "agents/x")
    run_git(repo, "checkout", "-q", "agents/x")
    run_git(repo, "merge", "-q", "--no-edit", main_first)
    write(repo, DOC, todo(t1="inProgress", t2="completed"))
    commit_all(repo, "x reopens t1")
    run_git(repo, "checkout", "-q", "main")
    write(repo, DOC, todo(t1="completed", t2="inProgress"))
    commit_all(repo, "main reopens t2")
    return agent_first, main_first


def test_merge_bases_finds_both_bases_of_a_criss_cross_like_git(git_repo: Path) -> None:
    assert run_cli("install", cwd=git_repo).returncode == 0
    agent_first, main_first = crossed(git_repo)
    repo = pygit2.Repository(str(git_repo))
    found = merge_bases(repo, repo[rev(git_repo, "main")].id, repo[rev(git_repo, "agents/x")].id)
    expected = run_git(git_repo, "merge-base", "--all", "main", "agents/x").stdout.split()
    assert sorted(str(b) for b in found) == sorted(expected) == sorted([agent_first, main_first])
    # an ordinary history has one base, the same as libgit2's
    one = merge_bases(repo, repo[agent_first].id, repo[main_first].id)
    assert one == [repo.merge_base(repo[agent_first].id, repo[main_first].id)]


def test_sync_of_a_criss_cross_history_merges_from_a_virtual_base(git_repo: Path) -> None:
    assert run_cli("install", cwd=git_repo).returncode == 0
    crossed(git_repo)
    run_git(git_repo, "checkout", "-q", "--detach")
    status = run_cli("status", "--format", "json", cwd=git_repo, env=EPOCH)
    assert b'"conflict"' not in status.stdout, status.stdout
    proc = run_cli("sync", "x", cwd=git_repo, env=EPOCH)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for branch in ("main", "agents/x"):
        run_git(git_repo, "checkout", "-q", branch)
        assert read(git_repo, DOC) == todo(t1="inProgress", t2="inProgress")


def test_git_merge_agrees_on_the_same_history(git_repo: Path) -> None:
    """The driver path (merge.vcontext.recursive) gives what sync gives."""
    assert run_cli("install", cwd=git_repo).returncode == 0
    crossed(git_repo)
    merge = run_git(git_repo, "merge", "--no-edit", "agents/x", check=False)
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert read(git_repo, DOC) == todo(t1="inProgress", t2="inProgress")
