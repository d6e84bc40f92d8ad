"""``sync --push`` and ``status --fetch`` when git's fetch refuses to move a remote-tracking
ref it updates of its own accord (PRODUCT.md, "Sync at scale": over any transport sync does
what git would do, and no sync gives up; command-line contract: one clear line).

- A fetch refspec without ``+`` (``remote.origin.fetch = refs/heads/*:refs/remotes/origin/*``)
  and a base rewritten on the remote: git's fetch rejects ``origin/main`` (``! [rejected]
  main -> origin/main (non-fast-forward)``) and exits 1, though every ref sync asked for was
  fetched. Through git (``vcontext.inProcessFetch false``) that failed the sync (``git fetch
  origin: exit status 1``, exit 3); the look in process left origin/main alone and said
  nothing. Both now fetch what sync needs, leave origin/main where git leaves it, and say so
  in one line, git's own words first, with the command that takes the rewritten branch.
- A lock file a killed process left on ``refs/remotes/origin/main``: through git the sync
  failed (exit 3); in process origin/main silently stayed behind. Both now name the lock
  and how to remove it safely in one line (``gitio.locks.advice``), and the round lands; over
  MCP the line is a person's step (``lockFiles``). Doing what it says, the next sync moves
  origin/main.

Real git: a bare remote on disk, read in process or through git.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from helpers.mcp_support import in_process, run, text
from helpers.run import run_cli, run_git
from helpers.sync_repos import clone, commit_on, rev, shared_with_alice, status, sync

TODO = "todo.vcontext.json"
HOW = [False, True]
IDS = ["git", "in-process"]


def _rewritten_main(repo: Path, remote: Path, tmp_path: Path) -> str:
    """Someone pushes a commit to main, which ``repo`` fetches, then rewrites it
    (``commit --amend``, ``push -f``): origin/main here is a commit the remote no longer
    has in its main. The rewritten main."""
    other = clone(remote, tmp_path / "other")
    (other / "notes.txt").write_text("line 1\nline 2\nline 3\nline 4\n")
    run_git(other, "commit", "-qam", "a fourth line")
    run_git(other, "push", "-q", "origin", "main")
    run_git(repo, "fetch", "-q", "origin")
    run_git(other, "commit", "-q", "--amend", "-m", "a fourth line, reworded")
    run_git(other, "push", "-q", "-f", "origin", "main")
    return rev(other, "main")


def _team(git_repo: Path, tmp_path: Path, in_process: bool) -> tuple[Path, Path]:
    """(the bare remote, this clone: alice ticked t1, a fetch refspec without +)."""
    remote = shared_with_alice(git_repo, tmp_path / "remote.git")
    run_git(git_repo, "config", "vcontext.inProcessFetch", str(in_process).lower())
    run_git(
        git_repo, "config", "--replace-all", "remote.origin.fetch",
        "refs/heads/*:refs/remotes/origin/*",
    )  # fmt: skip
    commit_on(git_repo, "agents/alice", {TODO: status(("t1", "completed"))}, "alice ticks t1")
    return remote, git_repo


def _warnings(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ln.startswith("git-vcontext: warning: ")]


def _t1(remote: Path) -> str:
    import json

    data = json.loads(run_git(remote, "show", f"main:{TODO}").stdout)
    return str(data["todoList"]["items"][0]["status"])


@pytest.mark.parametrize("in_process", HOW, ids=IDS)
def test_a_rewritten_base_under_a_refspec_without_plus_is_said_not_a_failure(
    git_repo: Path, tmp_path: Path, in_process: bool
) -> None:
    remote, repo = _team(git_repo, tmp_path, in_process)
    old = rev(repo, "origin/main")
    rewritten = _rewritten_main(repo, remote, tmp_path)
    assert old != rewritten

    code, out, err = sync(repo, "alice", "--push", "origin")

    assert code == 0, out + err
    assert _t1(remote) == "completed"  # the round landed, on the rewritten main
    assert run_git(remote, "merge-base", "--is-ancestor", rewritten, "main").returncode == 0
    # (git leaves origin/main where it was; sync's own push then moved it to the pushed main)
    assert rev(repo, "origin/main") in (old, rev(remote, "main"))
    (line,) = _warnings(err)
    assert "git fetch origin: ! [rejected] main -> origin/main (non-fast-forward)" in line
    take = line[line.index("git fetch origin +") :].split(" takes it")[0]
    run_git(repo, *shlex.split(take)[1:])  # the command it names takes the rewritten main
    assert run_git(repo, "merge-base", "--is-ancestor", rewritten, "origin/main").returncode == 0


def test_both_looks_say_the_rejected_tracking_branch_alike(git_repo: Path, tmp_path: Path) -> None:
    """One truth: the look in process and the look through git say the same line."""
    said = []
    for looked in HOW:
        where = tmp_path / str(looked)
        where.mkdir()
        repo = where / "repo"
        run_git(where, "init", "-q", "-b", "main", str(repo))
        for key, value in (("user.name", "T"), ("user.email", "t@example.com")):
            run_git(repo, "config", key, value)
        remote, _ = _team(repo, where, looked)
        _rewritten_main(repo, remote, where)
        code, out, err = sync(repo, "alice", "--push", "origin")
        assert code == 0, out + err
        said.append(_warnings(err))
    assert said[0] == said[1]
    assert len(said[0]) == 1


def test_git_speaks_english_to_sync_whatever_the_persons_language(
    git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person whose git speaks German (``LANGUAGE=de``): sync quoted git's ``!
    [zurückgewiesen] … (kein Vorspulen)`` inside its English line, and every parser of
    git's words (a rejected ref, a lock, a transient failure) missed. git runs in English
    for the tool (``gitio.in_english``): the line is the one an English git gives."""
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("LANGUAGE", "de")
    probe = subprocess.run(
        ["git", "ls-remote", "--", str(tmp_path / "nowhere")], capture_output=True, text=True
    )
    if "fatal:" in probe.stderr:
        pytest.skip("git speaks no German here (its translations are not installed)")
    remote, repo = _team(git_repo, tmp_path, False)
    _rewritten_main(repo, remote, tmp_path)

    code, out, err = sync(repo, "alice", "--push", "origin")

    assert code == 0, out + err
    (line,) = _warnings(err)
    assert "git fetch origin: ! [rejected] main -> origin/main (non-fast-forward)" in line


def test_status_fetch_says_the_rejected_tracking_branch_and_goes_on(
    git_repo: Path, tmp_path: Path
) -> None:
    """``status --fetch`` fetches through git: the same refusal failed it (exit 3)."""
    remote, repo = _team(git_repo, tmp_path, False)
    run_git(repo, "config", "branch.main.remote", "origin")
    run_git(repo, "config", "branch.main.merge", "refs/heads/main")
    _rewritten_main(repo, remote, tmp_path)

    done = run_cli("status", "--fetch", cwd=repo)

    err = done.stderr.decode()
    assert done.returncode in (0, 1), done.stdout.decode() + err
    assert "! [rejected] main -> origin/main (non-fast-forward)" in err
    assert "Traceback" not in err


def _stale_lock(repo: Path) -> Path:
    """A lock file on origin/main as a killed git leaves it (a minute old)."""
    lock = repo / ".git" / "refs" / "remotes" / "origin" / "main.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("")
    old = time.time() - 60
    os.utime(lock, (old, old))
    return lock


def _moved_main(remote: Path, tmp_path: Path) -> str:
    other = clone(remote, tmp_path / "mover")
    (other / "notes.txt").write_text("moved\n")
    run_git(other, "commit", "-qam", "main moves on")
    run_git(other, "push", "-q", "origin", "main")
    return rev(other, "main")


@pytest.mark.parametrize("in_process", HOW, ids=IDS)
def test_a_stale_lock_on_a_tracking_branch_is_named_with_its_removal(
    git_repo: Path, tmp_path: Path, in_process: bool
) -> None:
    remote, repo = _team(git_repo, tmp_path, in_process)
    moved = _moved_main(remote, tmp_path)
    before = rev(repo, "origin/main")
    lock = _stale_lock(repo)

    code, out, err = sync(repo, "alice", "--push", "origin")

    assert code == 0, out + err
    assert _t1(remote) == "completed"
    assert lock.exists()  # (never removed: nothing proves no git holds it)
    assert rev(repo, "origin/main") == before
    (line,) = _warnings(err)
    assert "git fetch origin: origin/main not updated: " in line
    assert f"rm -f '{lock}'" in line
    assert "if no git command is running there" in line
    subprocess.run(shlex.split(line[line.index("rm -f ") :].split(";")[0]), check=True)
    assert not lock.exists()

    code, out, err = sync(repo, "alice", "--push", "origin")

    assert code == 0, out + err
    assert not _warnings(err)
    assert run_git(repo, "merge-base", "--is-ancestor", moved, "origin/main").returncode == 0


def test_mcp_sync_gives_a_stale_tracking_lock_as_a_persons_step(
    git_repo: Path, tmp_path: Path
) -> None:
    """Over MCP the lock is a person's to remove (no tool removes it): ``person`` names it
    with the command, ``lockFiles`` lists it, and the sync itself landed."""
    remote, repo = _team(git_repo, tmp_path, True)
    _moved_main(remote, tmp_path)
    lock = _stale_lock(repo)

    async def call() -> Any:
        async with in_process(repo) as client:
            return await client.call_tool("vcontext_sync", {"agents": ["alice"], "push": "origin"})

    answer = run(call)

    assert not answer.is_error, text(answer)
    data = answer.structured_content
    assert data["ok"] is True
    assert data["person"]["lockFiles"] == [str(lock)]
    assert f"rm -f '{lock}'" in data["person"]["steps"]
    assert _t1(remote) == "completed"
