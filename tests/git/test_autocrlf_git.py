"""``core.autocrlf=true`` (issue 36 point 4): git keeps LF in the repository and CRLF in
the work tree; every writer of the tool keeps ours' line endings there (README: "JSON keeps
ours' … line endings"): ``resolve``, ``git mergetool -t vcontext``, the merge ``sync
--checkout`` leaves stopped, ``git vcontext revert``. And ``resolve`` judges "changed since
the merge stopped" on the text as git sees it, not on its line endings."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers.conflict_repos import TODO, diverge, installed, pretty, todo
from helpers.run import run_cli, run_git
from helpers.sync_repos import commit_all, conflicting_agents, edit, sync
from helpers.terminal import Terminal


def eol(repo: Path, rel: str) -> str:
    """The work tree's line endings of ``rel`` as git reports them (``w/crlf``, ``w/lf``)."""
    line = run_git(repo, "ls-files", "--eol", "--", rel).stdout.splitlines()[0]
    return line.split()[1]


def crlf_checkout(repo: Path) -> None:
    """Check every file out again, now that ``core.autocrlf=true``: CRLF in the work tree."""
    run_git(repo, "rm", "-q", "-r", "--cached", ".")
    run_git(repo, "reset", "-q", "--hard")


@pytest.fixture
def stopped(git_repo: Path) -> Path:
    """Under ``core.autocrlf=true``, a merge stopped on t1's status and t3's title."""
    repo = installed(git_repo)
    run_git(repo, "config", "core.autocrlf", "true")
    ours = todo(t1="blocked", t3={"title": "Tests on main"})
    theirs = todo(t1="completed", t3={"title": "Tests on feat"})
    diverge(repo, pretty(todo()), pretty(ours), pretty(theirs))
    crlf_checkout(repo)
    assert eol(repo, TODO) == "w/crlf"
    assert run_git(repo, "merge", "--no-edit", "feat", check=False).returncode == 1
    assert b"\r\n" in (repo / TODO).read_bytes()  # git wrote the conflict as CRLF
    return repo


def no_edited_copies(repo: Path) -> None:
    state = repo / ".git" / "vcontext" / "resolve"
    assert not list(state.glob("*.edited")) if state.is_dir() else True


def test_resolve_keeps_crlf_and_does_not_call_an_untouched_file_edited(stopped: Path) -> None:
    proc = run_cli("resolve", TODO, "--conflict", "todoList.items[t1].status", "--take",
                   "theirs", cwd=stopped)  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # one conflict left
    assert b"changed since" not in proc.stderr
    raw = (stopped / TODO).read_bytes()
    assert raw.count(b"\n") == raw.count(b"\r\n")  # every line CRLF, markers included
    proc = run_cli("resolve", TODO, "--take", "ours", cwd=stopped)
    assert proc.returncode == 0, proc.stderr
    assert b"changed since" not in proc.stderr
    no_edited_copies(stopped)
    assert eol(stopped, TODO) == "w/crlf"
    data = json.loads((stopped / TODO).read_text())
    assert data["todoList"]["items"][0]["status"] == "completed"
    assert data["todoList"]["items"][2]["title"] == "Tests on main"
    # staged as git cleans it: nothing left to add, the index holds LF
    assert run_git(stopped, "diff", "--name-only").stdout == ""
    assert b"\r" not in run_git(stopped, "show", f":{TODO}").stdout.encode()


def test_resolve_of_a_file_really_edited_under_autocrlf_still_says_so(stopped: Path) -> None:
    raw = (stopped / TODO).read_bytes()
    (stopped / TODO).write_bytes(raw.replace(b"Tests on main", b"Tests by hand", 1))
    proc = run_cli("resolve", TODO, "--take", "theirs", cwd=stopped)
    assert proc.returncode == 0, proc.stderr
    assert b"changed since the merge stopped" in proc.stderr
    assert eol(stopped, TODO) == "w/crlf"


def test_mergetool_keeps_crlf(stopped: Path) -> None:
    env = {**os.environ, "TERM": "dumb"}
    term = Terminal(["git", "mergetool", "-t", "vcontext"], stopped, env)
    for _ in range(2):
        term.expect(r"\[q\]uit\? $")
        term.type("t\n")
        term.screen = term.screen.replace("[q]uit? ", "")
    assert term.wait() == 0, term.screen
    assert eol(stopped, TODO) == "w/crlf"
    assert run_git(stopped, "diff", "--name-only").stdout == ""
    data = json.loads((stopped / TODO).read_text())
    assert data["todoList"]["items"][0]["status"] == "completed"


def test_the_merge_sync_checkout_leaves_stopped_keeps_crlf(git_repo: Path) -> None:
    repo = git_repo
    run_git(repo, "config", "core.autocrlf", "true")
    conflicting_agents(repo)
    edit(repo, "docs/plan.vcontext.json", lambda d: d["plan"].update(title="Main's plan"))
    commit_all(repo, "main renames the plan")
    assert sync(repo, "alice")[0] == 0
    crlf_checkout(repo)
    wt = repo.parent / "bob"
    run_git(repo, "worktree", "add", "-q", str(wt), "agents/bob")
    assert eol(wt, "todo.vcontext.json") == "w/crlf"
    code, out, err = sync(repo, "bob", "--checkout")
    assert code == 1, out + err
    assert "left stopped" in out
    for rel in ("todo.vcontext.json", "docs/plan.vcontext.json"):  # conflicted, merged clean
        assert eol(wt, rel) == "w/crlf", rel
    listed = run_git(wt, "status", "--porcelain").stdout.splitlines()
    assert "UU todo.vcontext.json" in listed
    proc = run_cli("resolve", "todo.vcontext.json", "--take", "theirs", cwd=wt)
    assert proc.returncode == 0, proc.stderr
    assert b"changed since" not in proc.stderr
    assert eol(wt, "todo.vcontext.json") == "w/crlf"


def test_vcontext_revert_keeps_crlf(git_repo: Path) -> None:
    repo = installed(git_repo)
    run_git(repo, "config", "core.autocrlf", "true")
    (repo / TODO).write_text(pretty(todo()))
    commit_all(repo, "base")
    crlf_checkout(repo)
    edit(repo, TODO, lambda d: d["todoList"]["items"][0].update(status="completed"))
    reverted = commit_all(repo, "complete t1")
    crlf_checkout(repo)
    proc = run_cli("revert", reverted, cwd=repo)
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()
    assert eol(repo, TODO) == "w/crlf"
    assert run_git(repo, "status", "--porcelain").stdout == ""
