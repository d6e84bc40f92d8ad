"""No request blocks the team (issue 26, point 11; PRODUCT.md "Branch-per-agent workflow":
an integration leaves out any request whose merge would fail the checks, exactly as it
leaves out one that conflicts, and tells that request's own agent why on its next sync).

Real git, a real bare remote, separate clones with the pre-push hook installed; the bad
request is published as a client that skips the hook would (``git push --no-verify``).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import git_vcontext
from helpers.run import cli_path, run_cli, run_git
from helpers.sync_repos import EPOCH, commit_on, edit, fork_by_hand, rev, seed, show, sync

TODO = "todo.vcontext.json"


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hooks git starts must import the code under test (absolute path: git changes cwd)."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


@pytest.fixture
def remote(git_repo: Path, tmp_path: Path) -> Path:
    bare = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    seed(git_repo)
    run_git(git_repo, "push", "-q", str(bare), "main")
    return bare


def _agent(remote: Path, tmp_path: Path, name: str) -> Path:
    """A clone with the hook installed and agents/NAME forked (not checked out)."""
    clone = tmp_path / name
    run_git(tmp_path, "clone", "-q", str(remote), str(clone))
    run_git(clone, "config", "user.name", name)
    run_git(clone, "config", "user.email", f"{name}@example.com")
    installed = run_cli("install", cwd=clone)
    assert installed.returncode == 0, installed.stderr
    fork_by_hand(clone, name)
    return clone


def _add(item: str) -> Any:
    def change(data: dict[str, Any]) -> None:
        data["todoList"]["items"].append({"id": item, "title": item, "status": "pending"})
        data["todoList"]["sequence"] += 1

    return change


def _duplicate_t1(data: dict[str, Any]) -> None:
    """An invalid document: t1 twice (rule unique-id)."""
    data["todoList"]["items"].append(dict(data["todoList"]["items"][0]))
    data["todoList"]["sequence"] += 1


def _publish_skipping_the_hook(clone: Path, agent: str) -> str:
    """What a client that skipped the hook leaves: the branch and its request pushed."""
    tip = rev(clone, f"agents/{agent}")
    run_git(clone, "push", "-q", "--no-verify", "origin", f"agents/{agent}")
    request = f"{tip}:refs/vcontext/sync/main/agents/{agent}"
    run_git(clone, "push", "-q", "--no-verify", "origin", request)
    return tip


def _requests(remote: Path) -> list[str]:
    return run_git(remote, "for-each-ref", "--format=%(refname)", "refs/vcontext/").stdout.split()


def _ids(remote: Path) -> list[str]:
    return [i["id"] for i in show(remote, "main", TODO)["todoList"]["items"]]


def _validate_main(remote: Path, tmp_path: Path) -> subprocess.CompletedProcess[bytes]:
    check = tmp_path / "check"
    run_git(tmp_path, "clone", "-q", str(remote), str(check))
    return run_cli("validate", cwd=check)


def test_a_request_whose_merge_fails_the_checks_is_left_out_and_blocks_no_one(
    remote: Path, tmp_path: Path
) -> None:
    alice, bob = _agent(remote, tmp_path, "alice"), _agent(remote, tmp_path, "bob")
    commit_on(alice, "agents/alice", {TODO: _duplicate_t1}, "t1 twice")
    bad = _publish_skipping_the_hook(alice, "alice")
    commit_on(bob, "agents/bob", {TODO: _add("b1")}, "b1")

    code, out, err = sync(bob, "bob", "--push", "origin")

    assert code == 0, out + err
    assert "left agents/alice out: merging it into main fails the checks" in out
    assert "b1" in _ids(remote)
    assert rev(remote, "main") == rev(bob, "main")
    merged = run_git(remote, "merge-base", "--is-ancestor", bad, "main", check=False)
    assert merged.returncode == 1  # alice's commit never reached main
    assert _validate_main(remote, tmp_path).returncode == 0
    # a second agent after bob is not blocked either
    carol = _agent(remote, tmp_path, "carol")
    commit_on(carol, "agents/carol", {TODO: _add("c1")}, "c1")
    code, out, err = sync(carol, "carol", "--push", "origin")
    assert code == 0, out + err
    assert {"b1", "c1"} <= set(_ids(remote))


def test_the_bad_requests_agent_is_told_why_and_what_to_do_and_following_it_lands(
    remote: Path, tmp_path: Path
) -> None:
    alice, bob = _agent(remote, tmp_path, "alice"), _agent(remote, tmp_path, "bob")
    commit_on(alice, "agents/alice", {TODO: _duplicate_t1}, "t1 twice")
    _publish_skipping_the_hook(alice, "alice")
    commit_on(bob, "agents/bob", {TODO: _add("b1")}, "b1")
    assert sync(bob, "bob", "--push", "origin")[0] == 0
    main_before = rev(remote, "main")

    code, out, err = sync(alice, "alice", "--push", "origin")

    assert code == 1, out + err  # as for a conflict
    assert "agents/alice <-> main" in out
    assert "fails the checks" in out
    assert "[unique-id]" in out
    assert "git vcontext validate" in out  # what to do
    assert out.rstrip().endswith("next: fix it as said, then git vcontext sync alice --push origin")
    assert "--checkout" not in out  # nothing to resolve in a stopped merge
    assert rev(remote, "main") == main_before
    assert _requests(remote) == []  # withdrawn, so others stop trying it
    assert "Traceback" not in out + err

    # alice does what the message says: fix the document on her branch, commit, sync again
    wt = tmp_path / "alice-wt"
    run_git(alice, "worktree", "add", "-q", str(wt), "agents/alice")
    found = run_cli("validate", TODO, cwd=wt)
    assert found.returncode == 1
    assert b"[unique-id]" in found.stdout

    def fix(data: dict[str, Any]) -> None:
        data["todoList"]["items"][-1]["id"] = "t1-again"

    edit(wt, TODO, fix)
    run_git(wt, "commit", "-qam", "fix the duplicate id")
    code, out, err = sync(alice, "alice", "--push", "origin")
    assert code == 0, out + err
    assert {"b1", "t1-again"} <= set(_ids(remote))
    assert _validate_main(remote, tmp_path).returncode == 0


def test_status_says_what_blocks_an_agent_whose_request_can_never_land(
    remote: Path, tmp_path: Path
) -> None:
    """Not "needs sync", exit 0: the row says what blocks it (and status exits 1)."""
    alice = _agent(remote, tmp_path, "alice")
    commit_on(alice, "agents/alice", {TODO: _duplicate_t1}, "t1 twice")

    proc = run_cli("status", "--format", "json", cwd=alice, env=EPOCH)

    assert proc.returncode == 1, proc.stderr
    (row,) = json.loads(proc.stdout)["agents"]
    assert row["state"] != "needs sync"
    assert row["state"] == "blocked"
    (conflict,) = row["conflicts"]
    assert conflict["path"] == TODO
    assert any("[unique-id]" in reason for reason in conflict["reasons"])
    text = run_cli("status", cwd=alice, env=EPOCH)
    assert text.returncode == 1
    assert b"blocked" in text.stdout
    assert b"needs sync" not in text.stdout
    assert b"[unique-id]" in text.stdout


def test_install_server_leaves_out_a_request_that_fails_the_checks(
    remote: Path, tmp_path: Path
) -> None:
    """The server-side integration (post-receive) merges the good requests and leaves the
    bad one out, instead of keeping no merge at all. Its guard (pre-receive) is taken out
    here, as on a server set up before the guard existed: with the guard, such a request
    never gets in (the next test)."""
    done = subprocess.run([*cli_path(), "install", "--server"], cwd=remote, capture_output=True)
    assert done.returncode == 0, done.stderr
    (remote / "hooks" / "pre-receive").unlink()
    alice, bob = _agent(remote, tmp_path, "alice"), _agent(remote, tmp_path, "bob")
    commit_on(alice, "agents/alice", {TODO: _duplicate_t1}, "t1 twice")
    _publish_skipping_the_hook(alice, "alice")
    commit_on(bob, "agents/bob", {TODO: _add("b1")}, "b1")

    code, out, err = sync(bob, "bob", "--push", "origin")

    assert code == 0, out + err
    assert "b1" in _ids(remote)
    assert _validate_main(remote, tmp_path).returncode == 0

    code, out, err = sync(alice, "alice", "--push", "origin")
    assert code == 1, out + err
    assert "fails the checks" in out
    assert "[unique-id]" in out


def test_install_server_guard_refuses_a_bad_request_at_the_door(
    remote: Path, tmp_path: Path
) -> None:
    """PRODUCT.md "The remote guards itself": refs under refs/vcontext/ get the same checks
    (a request is a commit like any other): a client that skipped the hook cannot publish
    a broken request, and the others' syncs land."""
    done = subprocess.run([*cli_path(), "install", "--server"], cwd=remote, capture_output=True)
    assert done.returncode == 0, done.stderr
    alice, bob = _agent(remote, tmp_path, "alice"), _agent(remote, tmp_path, "bob")
    commit_on(alice, "agents/alice", {TODO: _duplicate_t1}, "t1 twice")
    tip = rev(alice, "agents/alice")
    request = f"{tip}:refs/vcontext/sync/main/agents/alice"

    refused = run_git(alice, "push", "--no-verify", "origin", request, check=False)

    assert refused.returncode != 0
    assert "[unique-id]" in refused.stderr
    assert "refs/vcontext/sync/main/agents/alice" not in _requests(remote)
    commit_on(bob, "agents/bob", {TODO: _add("b1")}, "b1")
    code, out, err = sync(bob, "bob", "--push", "origin")
    assert code == 0, out + err
    assert "b1" in _ids(remote)


def test_an_unpublished_bad_commit_is_told_a_rebase_that_runs_and_reaches_it(
    remote: Path, tmp_path: Path
) -> None:
    """Advice that runs: the agent's bad commit is not on the remote, so the hook wants it
    rewritten; a forked agent branch has no upstream, so a bare ``git rebase -i`` fails
    ("no tracking information"): the advice names the rebase from the merge base."""
    alice = _agent(remote, tmp_path, "alice")
    commit_on(alice, "agents/alice", {TODO: _add("a1")}, "a1")
    commit_on(alice, "agents/alice", {TODO: _duplicate_t1}, "t1 twice")
    bad = rev(alice, "agents/alice")

    code, out, err = sync(alice, "alice", "--push", "origin")

    assert code == 1, out + err
    assert "fails the checks" in out
    assert "[unique-id]" in out
    said = re.search(r"else (git rebase -i [0-9a-f]{12})\)", out)
    assert said is not None, out
    wt = tmp_path / "alice-wt"
    run_git(alice, "worktree", "add", "-q", str(wt), "agents/alice")
    todo = tmp_path / "todo.txt"
    copy = f"import shutil, sys; shutil.copy(sys.argv[1], {str(todo)!r})"
    editor = f"{shlex.quote(sys.executable)} -c {shlex.quote(copy)}"
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": editor}
    bare = subprocess.run(["git", "rebase", "-i"], cwd=wt, env=env, capture_output=True, text=True)
    assert bare.returncode != 0  # what the advice said before: no upstream to rebase onto
    ran = subprocess.run(
        shlex.split(said.group(1)), cwd=wt, env=env, capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr
    assert bad[:7] in todo.read_text()  # the rebase reaches the bad commit
    assert "Traceback" not in out + err
