"""``status`` and ``sync`` agree, and both find agents that exist only on a remote (issue 36
point 7; PRODUCT.md "Branch-per-agent workflow", command-line contract for ``status``).

One function decides what ``sync AGENT`` would do, and ``status`` shows exactly that for
each agent: never "needs sync" for an agent whose ``sync`` says "up to date". Two agents
that would conflict with each other are still shown (with whom), and exit 1. In a fresh
clone — a new machine, a CI job, a second clone of an agent — agents exist only as
``origin/agents/*``: ``status`` lists them, and ``sync AGENT``/``sync --all`` (with or
without ``--push``) create the local branch from the remote's, as ``git switch`` would,
and sync it with the base it was forked from."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from helpers.run import run_cli, run_git
from helpers.sync_repos import (
    EPOCH,
    commit_all,
    commit_on,
    edit,
    fork_by_hand,
    rev,
    seed,
    show,
    status,
    sync,
)


def _status(repo: Path) -> tuple[int, dict[str, Any]]:
    proc = run_cli("status", "--format", "json", cwd=repo, env=EPOCH)
    assert b"Traceback" not in proc.stderr
    return proc.returncode, {r["agent"]: r for r in json.loads(proc.stdout)["agents"]}


def _sync_says(repo: Path, agent: str) -> str:
    """What ``sync AGENT --dry-run`` would do, in status' words."""
    code, out, err = sync(repo, agent, "--dry-run")
    assert "Traceback" not in err
    if "up to date" in out:
        return "up to date"
    if "CONFLICT" in out:
        return "conflict"
    assert code == 0, out + err
    return "needs sync"


def _fork(repo: Path, agent: str, base: str = "main") -> None:
    proc = run_cli("fork", agent, "--from", base, cwd=repo, env=EPOCH)
    assert proc.returncode == 0, proc.stderr


@pytest.fixture
def team(git_repo: Path, tmp_path: Path) -> Path:
    """main pushed to a bare ``origin``; alice has new work, dave was just synced and
    pushed, bob and carol changed t2's status differently (each alone merges cleanly)."""
    repo = git_repo
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    run_git(repo, "remote", "add", "origin", str(remote))
    seed(repo)
    run_git(repo, "push", "-q", "-u", "origin", "main")
    for agent in ("alice", "bob", "carol", "dave"):
        _fork(repo, agent)
    commit_on(repo, "agents/dave", {"todo.vcontext.json": status(("t3", "completed"))}, "d")
    assert sync(repo, "dave", "--push", "origin")[0] == 0
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "a")
    commit_on(repo, "agents/bob", {"todo.vcontext.json": status(("t2", "blocked"))}, "b")
    commit_on(repo, "agents/carol", {"todo.vcontext.json": status(("t2", "cancelled"))}, "c")
    run_git(repo, "push", "-q", "origin", "agents/alice", "agents/bob", "agents/carol")
    return repo


def test_status_shows_for_each_agent_what_its_sync_would_do(team: Path) -> None:
    code, rows = _status(team)
    for agent, row in rows.items():
        assert row["state"] == _sync_says(team, agent), agent
    assert rows["dave"]["state"] == "up to date"  # not "needs sync" with 0/0/0
    assert (rows["dave"]["ahead"], rows["dave"]["behind"]) == (0, 0)
    assert rows["alice"]["state"] == "needs sync"
    # bob and carol each sync cleanly alone, but not both: status says so, and with whom
    assert code == 1
    assert [c["with"] for c in rows["bob"]["clashes"]] == ["agents/carol"]
    assert [c["with"] for c in rows["carol"]["clashes"]] == ["agents/bob"]
    [clash] = rows["bob"]["clashes"]
    assert clash["conflicts"][0]["conflicts"][0]["path"] == "/todoList/items/1/status"
    text = run_cli("status", cwd=team, env=EPOCH).stdout.decode()
    assert "agents/carol" in text.split("agents/bob:", 1)[1]


def test_status_after_the_clash_is_met_agrees_with_sync(team: Path) -> None:
    assert sync(team, "bob")[0] == 0
    code, rows = _status(team)
    assert code == 1
    assert rows["carol"]["state"] == "conflict" == _sync_says(team, "carol")
    assert rows["bob"]["state"] == _sync_says(team, "bob")


def _fresh_clone(team: Path, tmp_path: Path, name: str = "clone") -> Path:
    clone = tmp_path / name
    run_git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(clone))
    for key, value in (("user.name", "Clone"), ("user.email", "clone@example.com")):
        run_git(clone, "config", key, value)
    assert run_git(clone, "branch", "--list", "agents/*").stdout == ""
    return clone


def test_status_in_a_fresh_clone_lists_the_agents_on_the_remote(team: Path, tmp_path: Path) -> None:
    clone = _fresh_clone(team, tmp_path)
    code, rows = _status(clone)
    assert sorted(rows) == ["alice", "bob", "carol", "dave"]
    assert rows["alice"]["state"] == "needs sync"
    assert rows["dave"]["state"] == "up to date"
    assert rows["alice"]["base"] == "main"
    assert code == 1  # bob and carol
    text = run_cli("status", cwd=clone, env=EPOCH).stdout.decode()
    assert "no agent branches" not in text
    assert "origin/agents/alice" in text  # where it is


def test_sync_push_of_an_agent_only_on_the_remote_lands(team: Path, tmp_path: Path) -> None:
    clone = _fresh_clone(team, tmp_path)
    code, out, err = sync(clone, "alice", "--push", "origin")
    assert code == 0, out + err
    remote = tmp_path / "remote.git"
    landed = show(remote, "main", "todo.vcontext.json")
    assert landed["todoList"]["items"][0]["status"] == "completed"
    assert rev(clone, "agents/alice") == rev(remote, "agents/alice")
    upstream = run_git(clone, "rev-parse", "--abbrev-ref", "agents/alice@{upstream}").stdout
    assert upstream.strip() == "origin/agents/alice"  # as git switch would have made it
    assert sync(clone, "alice", "--push", "origin")[1].startswith("agents/alice: up to date")


def test_sync_all_in_a_fresh_clone_syncs_the_remote_agents(team: Path, tmp_path: Path) -> None:
    clone = _fresh_clone(team, tmp_path)
    code, out, err = sync(clone, "--all")
    assert code == 1, out + err  # bob and carol meet
    assert "agents/alice <-> main: merge" in out
    # dave has nothing new for main; it gets alice's work, as every branch does in sync --all
    assert "agents/dave <-> main: update 1 document on agents/dave" in out
    lines = out.splitlines()
    dave = next(i for i, x in enumerate(lines) if x.startswith("agents/dave <-> main"))
    assert lines[dave + 1] == "  todo.vcontext.json"  # named (before: no path)
    data = show(clone, "main", "todo.vcontext.json")
    assert data["todoList"]["items"][0]["status"] == "completed"
    assert (
        show(clone, "agents/dave", "todo.vcontext.json")["todoList"]["items"][0]
        == (data["todoList"]["items"][0])
    )
    upstream = run_git(clone, "rev-parse", "--abbrev-ref", "agents/dave@{upstream}").stdout
    assert upstream.strip() == "origin/agents/dave"


def test_a_remote_only_agent_syncs_with_the_base_it_was_forked_from(
    team: Path, tmp_path: Path
) -> None:
    """No ``vcontext.agent.NAME.base`` in a new clone: the fork commit says the base."""
    run_git(team, "branch", "release", "main")
    run_git(team, "push", "-q", "origin", "release")
    _fork(team, "erin", "release")
    commit_on(team, "agents/erin", {"todo.vcontext.json": status(("t1", "blocked"))}, "e")
    run_git(team, "push", "-q", "origin", "agents/erin")
    clone = _fresh_clone(team, tmp_path)
    run_git(clone, "branch", "release", "origin/release")
    _code, rows = _status(clone)
    assert rows["erin"]["base"] == "release"
    code, out, err = sync(clone, "erin")
    assert code == 0, out + err
    assert "agents/erin <-> release" in out
    assert run_git(clone, "config", "vcontext.agent.erin.base").stdout.strip() == "release"
    assert show(clone, "main", "todo.vcontext.json") == show(team, "main", "todo.vcontext.json")


def test_an_agent_on_no_remote_is_still_refused_with_one_line(team: Path) -> None:
    code, _out, err = sync(team, "nobody")
    assert code == 3
    assert err.count("\n") == 1
    assert "agents/nobody" in err


def test_sync_dry_run_in_a_fresh_clone_says_what_it_would_do_and_creates_nothing(
    team: Path, tmp_path: Path
) -> None:
    clone = _fresh_clone(team, tmp_path)
    code, out, err = sync(clone, "alice", "--dry-run")
    assert code == 0, out + err
    assert out.startswith("agents/alice <-> main: would merge 1 document into main")
    assert run_git(clone, "branch", "--list", "agents/*").stdout == ""
    assert run_git(clone, "config", "--get-regexp", "^vcontext", check=False).stdout == ""


def test_fork_of_an_agent_a_remote_has_points_to_sync(team: Path, tmp_path: Path) -> None:
    clone = _fresh_clone(team, tmp_path)
    proc = run_cli("fork", "alice", cwd=clone, env=EPOCH)
    assert proc.returncode == 3
    assert "git vcontext sync alice" in proc.stderr.decode()
    assert run_git(clone, "branch", "--list", "agents/*").stdout == ""


def test_an_agent_on_two_remotes_is_taken_as_git_switch_takes_it(
    team: Path, tmp_path: Path
) -> None:
    """Several remotes have agents/alice: like ``git switch``, sync takes
    ``checkout.defaultRemote``'s, and without it names them (status shows it in the row)."""
    clone = _fresh_clone(team, tmp_path)
    run_git(clone, "remote", "add", "mirror", str(tmp_path / "remote.git"))
    run_git(clone, "fetch", "-q", "mirror")
    code, out, err = sync(clone, "alice")
    assert code == 3, out + err
    assert err.count("\n") == 1
    assert "(mirror/agents/alice, origin/agents/alice)" in err
    assert "checkout.defaultRemote" in err
    _code, rows = _status(clone)
    assert rows["alice"]["state"] == "refused"
    assert "checkout.defaultRemote" in rows["alice"]["message"]
    run_git(clone, "config", "checkout.defaultRemote", "mirror")
    code, out, err = sync(clone, "alice")
    assert code == 0, out + err
    upstream = run_git(clone, "rev-parse", "--abbrev-ref", "agents/alice@{upstream}").stdout
    assert upstream.strip() == "mirror/agents/alice"


def test_a_fresh_clone_with_the_hook_syncs_every_remote_agent_and_the_result_is_valid(
    team: Path, tmp_path: Path
) -> None:
    """One truth: what sync pushes from a fresh clone passes the pre-push hook installed
    there, and validate accepts every branch it wrote."""
    clone = _fresh_clone(team, tmp_path)
    assert run_cli("install", cwd=clone).returncode == 0
    for agent in ("alice", "dave", "bob"):
        code, out, err = sync(clone, agent, "--push", "origin")
        assert code == 0, out + err
    code, out, err = sync(clone, "carol", "--push", "origin")
    assert code == 1, out + err  # carol meets bob's t2, and says how to go on
    assert "next: git vcontext sync carol --push origin --checkout" in out
    remote = tmp_path / "remote.git"
    for branch in ("main", "agents/alice", "agents/bob"):
        assert rev(clone, branch) == rev(remote, branch), branch
    for branch in ("main", "agents/alice", "agents/bob", "agents/dave"):
        run_git(clone, "switch", "-q", branch)
        assert run_cli("validate", cwd=clone).returncode == 0, branch
    items = show(remote, "main", "todo.vcontext.json")["todoList"]["items"]
    assert [i["status"] for i in items] == ["completed", "blocked", "completed"]


# -- the fork merge status: what sync says of it, every status shows (trial point 3) ---------


def _clone_as(remote: Path, where: Path, name: str) -> Path:
    run_git(where.parent, "clone", "-q", str(remote), str(where))
    run_git(where, "config", "user.name", name)
    run_git(where, "config", "user.email", f"{name}@example.com")
    return where


def _with_item(item: str) -> Any:
    def change(data: dict[str, Any]) -> None:
        data["todoList"]["items"].append({"id": item, "title": item, "status": "pending"})
        data["todoList"]["sequence"] += 1

    return change


def _row_of(clone: Path, agent: str) -> dict[str, Any]:
    proc = run_cli("status", "--format", "json", cwd=clone)
    assert proc.returncode == 0, proc.stderr.decode()
    rows: list[dict[str, Any]] = [
        r for r in json.loads(proc.stdout)["agents"] if r["agent"] == agent
    ]
    assert len(rows) == 1, proc.stdout.decode()
    return rows[0]


def test_branch_per_agent_a_fork_sync_says_merged_elsewhere_is_merged_in_every_status(
    git_repo: Path, tmp_path: Path
) -> None:
    """bob's ``sync --push`` integrates alice's published request; alice's sync then says
    "merged into main on the remote" and marks her fork merged in her clone only (the
    remote's copy of her branch keeps her published commit until she publishes again). Her
    row in any other clone's ``status`` says merged too, not ``unmerged``."""
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    seed(git_repo)
    run_git(git_repo, "push", "-q", str(remote), "main")
    alice, bob = (_clone_as(remote, tmp_path / n, n) for n in ("alice", "bob"))
    for clone, name in ((alice, "alice"), (bob, "bob")):
        fork_by_hand(clone, name)
    commit_on(alice, "agents/alice", {"todo.vcontext.json": _with_item("a1")}, "a1")
    tip = rev(alice, "agents/alice")  # what an interrupted sync --push leaves: branch, request
    run_git(alice, "push", "-q", "origin", "agents/alice")
    run_git(alice, "push", "-q", "origin", f"{tip}:refs/vcontext/sync/main/agents/alice")
    commit_on(bob, "agents/bob", {"todo.vcontext.json": _with_item("b1")}, "b1")
    code, out, err = sync(bob, "bob", "--push", "origin")
    assert code == 0, out + err
    assert "merged with it into main: agents/alice" in out

    code, out, err = sync(alice, "alice", "--push", "origin")

    assert code == 0, out + err
    assert "agents/alice <-> main: merged into main on the remote" in out
    assert _row_of(alice, "alice")["mergeStatus"] == "merged"
    run_git(bob, "fetch", "-q", "origin")
    elsewhere = _row_of(bob, "alice")
    assert elsewhere["remote"] == "origin/agents/alice"  # read from the remote's copy
    assert elsewhere["ahead"] == 0
    assert elsewhere["mergeStatus"] == "merged", elsewhere
    assert {s["mergeStatus"] for s in elsewhere["sequences"]} == {"merged"}, elsewhere
    table = run_cli("status", cwd=bob).stdout.decode()
    alice_line = next(line for line in table.splitlines() if line.startswith("alice "))
    assert "unmerged" not in alice_line, table


def test_branch_per_agent_a_fork_with_its_own_commits_not_in_the_base_stays_unmerged(
    git_repo: Path, tmp_path: Path
) -> None:
    """The other side of the same judgement: a fork whose commits the base lacks is
    ``unmerged``, whatever clone looks."""
    seed(git_repo)
    fork_by_hand(git_repo, "carol")
    assert _row_of(git_repo, "carol")["mergeStatus"] == "unmerged"


def test_branch_per_agent_a_published_commit_that_merges_nothing_is_not_merged_elsewhere(
    git_repo: Path, tmp_path: Path
) -> None:
    """alice's published request holds the same change main already has: merging it changes
    nothing, so no one merged it. Her sync said "merged into main on the remote" while her
    commit stayed off main and her fork ``unmerged``; it says what a local sync says (no
    merge), and status agrees (her fork unmerged, her commits ahead)."""
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    seed(git_repo)
    run_git(git_repo, "push", "-q", str(remote), "main")
    alice = _clone_as(remote, tmp_path / "alice", "alice")
    fork_by_hand(alice, "alice")
    done = status(("t1", "completed"), sequence_bump=0)
    commit_on(alice, "agents/alice", {"todo.vcontext.json": done}, "alice: same")
    edit(git_repo, "todo.vcontext.json", done)
    commit_all(git_repo, "main: same")
    run_git(git_repo, "push", "-q", str(remote), "main")
    tip = rev(alice, "agents/alice")  # what an interrupted sync --push leaves: branch, request
    run_git(alice, "push", "-q", "origin", "agents/alice")
    run_git(alice, "push", "-q", "origin", f"{tip}:refs/vcontext/sync/main/agents/alice")

    code, out, err = sync(alice, "alice", "--push", "origin")

    assert code == 0, out + err
    assert "merged into main on the remote" not in out, out
    main = run_git(alice, "rev-parse", "origin/main").stdout.strip()
    assert run_git(alice, "merge-base", "--is-ancestor", tip, main, check=False).returncode == 1
    row = _row_of(alice, "alice")
    assert row["mergeStatus"] == "unmerged", row
    assert row["ahead"] > 0, row


def test_status_of_an_agent_whose_own_commit_changes_nothing_on_the_base_says_so(
    team: Path,
) -> None:
    """The agent's only own commit is undone by its resolution of a sync conflict (it took
    the base's side): it changes nothing on the base, so there is nothing to sync. status
    says so in the agent's row, as sync does, not a bare "up to date" next to AHEAD 1."""
    (team / "notes.txt").write_text("line 1\nmain's line 2\nline 3\n")
    commit_all(team, "main's notes")
    commit_on(team, "agents/dave", {"notes.txt": "line 1\ndave's line 2\nline 3\n"}, "dave's")
    code, out, err = sync(team, "dave", "--checkout")
    assert code == 1, out + err
    assert "CONFLICT" in out
    run_git(team, "checkout", "--theirs", "--", "notes.txt")  # the base's side
    run_git(team, "add", "notes.txt")
    run_git(team, "commit", "-q", "--no-edit")
    run_git(team, "switch", "-q", "main")
    _code, rows = _status(team)
    dave = rows["dave"]
    assert (dave["ahead"], dave["behind"], dave["state"]) == (1, 0, "up to date")
    said = "its 1 commit main lacks changes nothing on main"
    assert said in dave["message"], dave
    text = run_cli("status", cwd=team, env=EPOCH).stdout.decode()
    assert f"agents/dave:\n  {said}" in text, text
    code, out, err = sync(team, "dave")
    assert code == 0, out + err
    assert out.startswith(f"agents/dave: up to date with main ({said}"), out
    assert sync(team, "dave", "--dry-run")[1] == out


def test_status_of_an_agent_its_base_moved_past_with_no_change_agrees_with_sync(
    team: Path,
) -> None:
    """A person's edit on main and its revert: main has two commits dave lacks, which change
    nothing on agents/dave. status showed "up to date" next to BEHIND 2, and sync left them
    out for ever. The row's words agree with its counts and with sync (PRODUCT.md, "Branch-per-
    agent workflow": sync merges the base into the agent branch, as a real merge commit)."""
    (team / "notes.txt").write_text("a person's line\n")
    commit_all(team, "main: notes")
    run_git(team, "revert", "--no-edit", "HEAD")
    _code, rows = _status(team)
    dave = rows["dave"]
    assert (dave["ahead"], dave["behind"]) == (0, 2), dave
    assert dave["state"] == "needs sync" == _sync_says(team, "dave")
    code, out, err = sync(team, "dave")
    assert code == 0, out + err
    assert "merge main into agents/dave (its documents hold the base's already)" in out, out
    main = rev(team, "main")
    assert run_git(team, "merge-base", "--is-ancestor", main, "agents/dave").returncode == 0
    _code, rows = _status(team)
    dave = rows["dave"]
    assert (dave["ahead"], dave["behind"], dave["state"]) == (0, 0, "up to date"), dave
    assert _sync_says(team, "dave") == "up to date"
