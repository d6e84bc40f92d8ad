"""``sync AGENT --checkout``, and ``merge.vcontext.favor`` in sync ("Resolving conflicts")."""

from __future__ import annotations

import json
from pathlib import Path

from sync_repos import commit_on, conflicting_agents, read, rev, show, status, sync

from conftest import run_cli, run_git


def _conflicted(repo: Path) -> None:
    """alice is synced into main (t1 completed); bob blocked t1 meanwhile."""
    conflicting_agents(repo)
    assert sync(repo, "alice")[0] == 0


def test_checkout_leaves_a_real_stopped_merge_that_resolve_and_commit_finish(
    git_repo: Path,
) -> None:
    repo = git_repo
    _conflicted(repo)
    main_before, bob_before = rev(repo, "main"), rev(repo, "agents/bob")
    code, out, err = sync(repo, "bob", "--checkout")
    assert code == 1, out + err
    assert "merge left stopped in" in out and "conflicted: todo.vcontext.json" in out
    assert (repo / ".git" / "MERGE_HEAD").read_text().strip() == bob_before
    assert rev(repo, "main") == main_before  # nothing committed by sync
    porcelain = run_git(repo, "status", "--porcelain").stdout
    assert "UU todo.vcontext.json" in porcelain

    listing = json.loads(run_cli("conflicts", "--format", "json", cwd=repo).stdout)
    [f] = listing["files"]
    assert f["labels"] == {"ours": "main", "theirs": "agents/bob"}
    [c] = f["conflicts"]
    assert (c["where"], c["ours"], c["theirs"]) == (
        "todoList.items[t1].status",
        "completed",
        "blocked",
    )

    assert run_cli("resolve", "todo.vcontext.json", "--take", "theirs", cwd=repo).returncode == 0
    assert "fork" not in read(repo, "todo.vcontext.json")["todoList"]  # M11 holds
    assert run_git(repo, "commit", "-q", "--no-edit", check=False).returncode == 0
    assert "Vcontext-Sync: bob" in run_git(repo, "log", "-1", "--format=%B").stdout

    code, out, err = sync(repo, "bob")
    assert code == 0, out + err
    on_bob = show(repo, "agents/bob", "todo.vcontext.json")["todoList"]
    assert on_bob["items"][0]["status"] == "blocked"
    assert on_bob["fork"]["mergeStatus"] == "merged"  # its work reached the base
    assert "fork" not in show(repo, "main", "todo.vcontext.json")["todoList"]


def test_checkout_refuses_a_base_work_tree_with_local_changes(git_repo: Path) -> None:
    repo = git_repo
    _conflicted(repo)
    (repo / "notes.txt").write_text("local edit\n")
    code, _out, err = sync(repo, "bob", "--checkout")
    assert code == 3 and "local changes" in err and err.count("\n") == 1
    assert not (repo / ".git" / "MERGE_HEAD").exists()


def test_checkout_needs_a_real_run(git_repo: Path) -> None:
    _conflicted(git_repo)
    for extra in (("--dry-run",), ("--push", "origin")):
        code, _out, err = sync(git_repo, "bob", "--checkout", *extra)
        assert code == 2 and "--checkout" in err


def test_favor_settles_the_conflicts_of_sync_on_the_chosen_side(git_repo: Path) -> None:
    repo = git_repo
    _conflicted(repo)
    run_git(repo, "config", "merge.vcontext.favor", "theirs")  # theirs = the agent's work
    code, out, err = sync(repo, "bob")
    assert code == 0, out + err
    assert show(repo, "main", "todo.vcontext.json")["todoList"]["items"][0]["status"] == "blocked"
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "cancelled"))}, "again")
    code, out, err = sync(repo, "alice", env={"GIT_VCONTEXT_FAVOR": "ours"})  # ours = the base
    assert code == 0, out + err
    assert show(repo, "main", "todo.vcontext.json")["todoList"]["items"][0]["status"] == "blocked"
