"""``sync --push`` with many agents on one base (PRODUCT.md, "Sync at scale" and
"Branch-per-agent workflow"): requests, the lease, batching, a server that integrates,
interrupted syncs, the pre-push hook's verdicts, and a deleted event log. Real git, real
bare remotes, separate clones.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from helpers.playbook import doc, ev
from helpers.run import cli_path, run_cli, run_git
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
    write,
)

PLAYBOOK = "memory/playbook.vcontext.json"


def _clone(remote: Path, where: Path, name: str) -> Path:
    run_git(where.parent, "clone", "-q", str(remote), str(where))
    run_git(where, "config", "user.name", name)
    run_git(where, "config", "user.email", f"{name}@example.com")
    return where


@pytest.fixture
def remote(git_repo: Path, tmp_path: Path) -> Path:
    """A bare remote whose main holds a todo list, a plan and a playbook with two events."""
    bare = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    write(git_repo, PLAYBOOK, doc([ev("e1", "r1", "append"), ev("e2", "r2", "append", at=1)]))
    seed(git_repo)
    run_git(git_repo, "push", "-q", str(bare), "main")
    return bare


def _agent(remote: Path, tmp_path: Path, name: str) -> Path:
    """A clone of the remote with ``agents/NAME`` forked (not checked out)."""
    clone = _clone(remote, tmp_path / name, name)
    fork_by_hand(clone, name)
    return clone


def _requests(remote: Path) -> list[str]:
    return run_git(remote, "for-each-ref", "--format=%(refname)", "refs/vcontext/").stdout.split()


def _ids(remote: Path, rev_: str = "main") -> list[str]:
    return [i["id"] for i in show(remote, rev_, "todo.vcontext.json")["todoList"]["items"]]


def _add_item(item: str) -> object:
    def change(data: dict[str, object]) -> None:
        todo = data["todoList"]
        assert isinstance(todo, dict)
        todo["items"].append({"id": item, "title": item, "status": "pending"})
        todo["sequence"] += 1

    return change


def _publish(clone: Path, agent: str) -> str:
    """What an interrupted ``sync --push`` leaves: the agent branch and its request pushed."""
    tip = rev(clone, f"agents/{agent}")
    run_git(clone, "push", "-q", "origin", f"agents/{agent}")
    run_git(clone, "push", "-q", "origin", f"{tip}:refs/vcontext/sync/main/agents/{agent}")
    return tip


# -- the deleted event log (PRODUCT.md, branch-per-agent workflow) ------------------------


def test_sync_never_deletes_an_event_log_the_pair_stops_as_a_conflict_naming_it(
    remote: Path, tmp_path: Path
) -> None:
    """An agent that deleted the playbook (events inside): sync stops that pair with a
    conflict naming the document; the remote's main keeps it and no local ref moves."""
    alice = _agent(remote, tmp_path, "alice")
    commit_on(alice, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "a")
    wt = tmp_path / "wt"
    run_git(alice, "worktree", "add", "-q", str(wt), "agents/alice")
    run_git(wt, "rm", "-q", PLAYBOOK)
    run_git(wt, "commit", "-qm", "drop the playbook")
    run_git(alice, "worktree", "remove", "--force", str(wt))
    before = (rev(alice, "main"), rev(alice, "agents/alice"), rev(remote, "main"))

    code, out, err = sync(alice, "alice", "--push", "origin")

    assert code == 1, out + err
    assert "CONFLICT" in out
    assert (
        f"{PLAYBOOK}: deleted on agents/alice, kept on main: it holds an append-only log "
        "(2 entries)" in out
    )
    assert (rev(alice, "main"), rev(alice, "agents/alice"), rev(remote, "main")) == before
    assert [e["eventId"] for e in show(remote, "main", PLAYBOOK)["playbook"]["items"]] == [
        "e1",
        "e2",
    ]
    assert not _requests(remote)  # no request or lease left behind
    # the same without a remote: the pair stops
    code, out, _ = sync(alice, "alice")
    assert code == 1
    assert "deleted on agents/alice, kept on main" in out


def test_a_merge_the_pre_push_hook_would_refuse_is_not_made_its_findings_are_shown(
    remote: Path, tmp_path: Path
) -> None:
    """The agent's own commit removed a playbook event and the base left the playbook
    alone, so the merge would take the agent's version (M1) and drop it: sync makes no
    merge the hook would refuse (issue 26: one truth). The pair stops as a conflict with
    the hook's findings and what to do; nothing moves here or on the remote.

    (Before issue 26 sync made that merge and the installed hook refused its push.)"""
    alice = _agent(remote, tmp_path, "alice")
    installed = subprocess.run([*cli_path(), "install"], cwd=alice, capture_output=True)
    assert installed.returncode == 0, installed.stderr
    commit_on(alice, "agents/alice", {PLAYBOOK: doc([ev("e1", "r1", "append")])}, "drop e2")
    before = (rev(alice, "main"), rev(alice, "agents/alice"), rev(remote, "main"))

    code, out, err = sync(alice, "alice", "--push", "origin")

    assert code == 1, out + err
    assert "CONFLICT" in out
    assert "playbook event 'e2' was removed" in out
    assert "history-event-removed" in out
    assert "fix it on agents/alice" in out
    assert (rev(alice, "main"), rev(alice, "agents/alice"), rev(remote, "main")) == before
    assert "e2" in json.dumps(show(remote, "main", PLAYBOOK))


def test_a_push_the_pre_push_hook_refuses_shows_its_findings_and_moves_nothing_here(
    remote: Path, tmp_path: Path
) -> None:
    """The agent removed a playbook event in one commit and restored it in the next: the
    merge is fine, but the pushed history holds the bad commit, so the installed pre-push
    hook refuses the push, and sync shows the hook's findings (file, rule) and moves no
    local ref."""
    alice = _agent(remote, tmp_path, "alice")
    installed = subprocess.run([*cli_path(), "install"], cwd=alice, capture_output=True)
    assert installed.returncode == 0, installed.stderr
    events = show(alice, "agents/alice", PLAYBOOK)
    commit_on(alice, "agents/alice", {PLAYBOOK: doc([ev("e1", "r1", "append")])}, "drop e2")
    commit_on(alice, "agents/alice", {PLAYBOOK: events}, "restore e2")
    commit_on(alice, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "a")
    before = (rev(alice, "main"), rev(alice, "agents/alice"))

    code, out, err = sync(alice, "alice", "--push", "origin")

    assert code == 1, out + err
    assert "refused by the pre-push hook" in out
    assert "playbook event 'e2' was removed" in out
    assert "history-event-removed" in out
    assert (rev(alice, "main"), rev(alice, "agents/alice")) == before
    assert "e2" in json.dumps(show(remote, "main", PLAYBOOK))


# -- batching: one integration takes every request --------------------------------------


@pytest.mark.parametrize("in_process", [True, False], ids=["in-process", "git-fetch"])
def test_a_sync_merges_every_published_request_and_their_owners_find_it_done(
    remote: Path, tmp_path: Path, in_process: bool
) -> None:
    """Flat combining: bob's sync merges alice's published request too, in one merge
    commit of the integration (its parents: the base, then each agent's commit); alice's
    sync then finds her round on the remote, updates her branch and pushes it (a
    fast-forward of her published work). The same with the remote read in process and with git
    (vcontext.inProcessFetch)."""
    alice, bob = _agent(remote, tmp_path, "alice"), _agent(remote, tmp_path, "bob")
    for clone in (alice, bob):
        run_git(clone, "config", "vcontext.inProcessFetch", str(in_process).lower())
    a_tip = commit_on(alice, "agents/alice", {"todo.vcontext.json": _add_item("a1")}, "a1")
    _publish(alice, "alice")
    b_tip = commit_on(bob, "agents/bob", {"todo.vcontext.json": _add_item("b1")}, "b1")
    main_before = rev(remote, "main")
    sequence_before = show(remote, "main", "todo.vcontext.json")["todoList"]["sequence"]

    code, out, err = sync(bob, "bob", "--push", "origin")

    assert code == 0, out + err
    assert "merged with it into main: agents/alice" in out
    assert not _requests(remote)
    assert {"a1", "b1"} <= set(_ids(remote))
    merges = run_git(remote, "log", "--merges", "--first-parent", "--format=%s", "main")
    assert merges.stdout.splitlines()[:1] == [
        "vcontext sync: merge agents/bob, agents/alice into main"
    ]
    assert run_git(remote, "rev-parse", "main^@").stdout.split() == [main_before, b_tip, a_tip]
    message = run_git(remote, "log", "-1", "--format=%B", "main").stdout
    assert "Vcontext-Sync: bob\nVcontext-Sync: alice\n" in message
    assert show(remote, "main", "todo.vcontext.json")["todoList"]["sequence"] > sequence_before
    main_before = rev(remote, "main")

    code, out, err = sync(alice, "alice", "--push", "origin")

    assert code == 0, out + err
    assert "merged into main on the remote" in out
    # her work (published by an earlier, interrupted run) is there: this run brings her
    # branch along and pushes it, a fast-forward of her published work, so that no other
    # clone finds her behind main (a run's own request merged by another keeps the
    # published commit there: test_install_server_merges_requests_as_they_are_pushed)
    assert "pushed to origin: agents/alice\n" in out
    assert rev(remote, "main") == main_before  # alice integrated nothing herself
    assert rev(remote, "agents/alice") == rev(alice, "agents/alice")
    assert run_git(remote, "merge-base", "--is-ancestor", a_tip, "agents/alice").returncode == 0
    assert rev(alice, "main") == main_before
    fork = show(alice, "agents/alice", "todo.vcontext.json")["todoList"]["fork"]
    assert fork["mergeStatus"] == "merged"  # M11: her work reached the parent
    assert not _requests(remote)  # bob's sync removed the request it merged


_SEED_CHANGE = {
    "sequence": 3,
    "timestamp": "2026-01-01T00:00:00Z",
    "agent": {"id": "seed", "type": "human"},
    "operation": "create",
}


def _seed_change_log(git_repo: Path, remote: Path) -> None:
    """The remote's main with a changeLog on the todo list and a ``sequence`` on t1."""

    def seeded(data: dict[str, Any]) -> None:
        data["todoList"].update(changeLog=[_SEED_CHANGE])
        data["todoList"]["items"][0]["sequence"] = 1

    edit(git_repo, "todo.vcontext.json", seeded)
    commit_all(git_repo, "log the todo list")
    run_git(git_repo, "push", "-q", str(remote), "main")


def _logged_item(item: str) -> object:
    """A change: add an item, advance the sequence and log it (Extension 10)."""

    def change(data: dict[str, Any]) -> None:
        todo = data["todoList"]
        todo["items"].append({"id": item, "title": item, "status": "pending"})
        todo["sequence"] += 1
        entry = {"sequence": todo["sequence"], "timestamp": "2026-01-02T00:00:00Z"}
        agent = {"id": item, "type": "aiAgent"}
        todo["changeLog"].append({**entry, "agent": agent, "operation": "update", "reason": item})

    return change


def test_m8_one_integration_of_three_agents_adds_one_merge_entry(
    git_repo: Path, remote: Path, tmp_path: Path
) -> None:
    """Sync at scale: bob's integration merges alice's and carol's requests with his own
    round, all three having advanced the todo list's sequence: the base gets one M8
    ``merge`` entry (sequence: the highest of every side plus one), not one per agent."""
    _seed_change_log(git_repo, remote)
    clones = {name: _agent(remote, tmp_path, name) for name in ("alice", "carol", "bob")}
    for name, clone in clones.items():
        commit_on(clone, f"agents/{name}", {"todo.vcontext.json": _logged_item(name)}, name)
    _publish(clones["alice"], "alice")
    _publish(clones["carol"], "carol")

    code, out, err = sync(clones["bob"], "bob", "--push", "origin")

    assert code == 0, out + err
    assert "merged with it into main: agents/alice, agents/carol" in out
    todo = show(remote, "main", "todo.vcontext.json")["todoList"]
    merges = [c for c in todo["changeLog"] if c.get("operation") == "merge"]
    assert len(merges) == 1, merges
    assert merges[0]["sequence"] == todo["sequence"] == 5  # each agent at 4: max + 1
    assert merges[0] == todo["changeLog"][-1]
    assert merges[0]["reason"].endswith("at sequence 4 (ours) and 4, 4 (theirs)")
    reasons = [c.get("reason") for c in todo["changeLog"]]
    assert {"alice", "bob", "carol"} <= set(reasons)
    assert {"alice", "bob", "carol"} <= set(_ids(remote))


def _item_sequence(data: dict[str, Any]) -> None:
    """A change: retitle t1 and advance only its own ``sequence`` (not the list's)."""
    t1 = data["todoList"]["items"][0]
    t1["title"] = f"{t1['title']} (edited)"
    t1["sequence"] = t1.get("sequence", 1) + 1


def test_m8_an_integration_leaves_the_merge_entry_of_an_earlier_one_alone(
    git_repo: Path, remote: Path, tmp_path: Path
) -> None:
    """Two integrations at the same time (SOURCE_DATE_EPOCH): the second one's agents forked
    before the first, whose M8 entry is the base's last. The second integration's first
    merge conflicts only on an item's sequence (no entry logged), its second on the list's:
    it logs its own entry at max + 1 and leaves the first's as published (the installed
    pre-push hook refuses a rewritten changeLog entry: this sync used to give up)."""
    _seed_change_log(git_repo, remote)
    clones = {name: _agent(remote, tmp_path, name) for name in ("alice", "bob", "carol", "dave")}
    changes = {name: _logged_item(name) for name in ("alice", "bob", "carol")}
    changes["dave"] = _item_sequence  # an item's sequence: logged in no changeLog

    def alice(data: dict[str, Any]) -> None:  # so that dave's t1.sequence conflicts too
        _logged_item("alice")(data)  # type: ignore[operator]
        data["todoList"]["items"][0]["sequence"] = 2

    changes["alice"] = alice
    for name, clone in clones.items():
        commit_on(clone, f"agents/{name}", {"todo.vcontext.json": changes[name]}, name)
    _publish(clones["alice"], "alice")
    assert sync(clones["bob"], "bob", "--push", "origin")[0] == 0
    first = show(remote, "main", "todo.vcontext.json")["todoList"]["changeLog"][-1]
    assert first["operation"] == "merge"
    _publish(clones["carol"], "carol")
    installed = subprocess.run([*cli_path(), "install"], cwd=clones["dave"], capture_output=True)
    assert installed.returncode == 0, installed.stderr

    code, out, err = sync(clones["dave"], "dave", "--push", "origin")

    assert code == 0, out + err
    todo = show(remote, "main", "todo.vcontext.json")["todoList"]
    merges = [c for c in todo["changeLog"] if c.get("operation") == "merge"]
    assert merges == [first, todo["changeLog"][-1]]
    assert merges[1]["sequence"] == todo["sequence"] == first["sequence"] + 1


def test_a_request_that_conflicts_is_left_out_and_its_owner_reports_the_conflict(
    remote: Path, tmp_path: Path
) -> None:
    alice, bob = _agent(remote, tmp_path, "alice"), _agent(remote, tmp_path, "bob")
    commit_on(alice, "agents/alice", {"todo.vcontext.json": status(("t1", "blocked"))}, "a")
    _publish(alice, "alice")
    commit_on(bob, "agents/bob", {"todo.vcontext.json": status(("t1", "completed"))}, "b")

    code, out, err = sync(bob, "bob", "--push", "origin")
    assert code == 0, out + err
    assert "left agents/alice out: it conflicts with main" in out

    code, out, _ = sync(alice, "alice", "--push", "origin")
    assert code == 1
    assert "CONFLICT" in out
    assert "/todoList/items/0/status" in out
    assert _requests(remote) == []  # withdrawn, so others stop trying it


def test_a_second_sync_with_nothing_new_takes_no_lease_and_pushes_nothing(
    remote: Path, tmp_path: Path
) -> None:
    """An agent branch that ends in its merge of the base holds no work: the next sync
    says up to date without taking the base's lease or pushing."""
    alice = _agent(remote, tmp_path, "alice")
    commit_on(alice, "agents/alice", {"todo.vcontext.json": _add_item("a1")}, "a1")
    assert sync(alice, "alice", "--push", "origin")[0] == 0
    _plant_lease(remote, 600, os.getpid())  # anyone who needs the lease would wait
    refs_before = run_git(remote, "for-each-ref").stdout

    code, out, err = sync(alice, "alice", "--push", "origin")

    assert code == 0, out + err
    assert out == "agents/alice: up to date with main\n"
    assert run_git(remote, "for-each-ref").stdout == refs_before


# -- the lease -------------------------------------------------------------------------


def _plant_lease(
    remote: Path,
    seconds: float,
    pid: int,
    where: str = "/elsewhere",
    started: int | None = None,
    more: str = "",
) -> str:
    """A lease on main held by agents/zoe's sync, process ``pid`` of this machine (which
    ``started`` then: none, an older version's lease, which says no start time); ``more``:
    lines added to its message (anyone who may push a lease may write them)."""
    import socket

    from git_vcontext.remote.refs import Lease

    host = socket.gethostname()
    lease = Lease("agents/zoe", host, pid, where, time.time() + seconds, None, started)
    tree = run_git(remote, "hash-object", "-t", "tree", "-w", "/dev/null").stdout.strip()
    made = subprocess.run(
        ["git", "commit-tree", tree], cwd=remote, input=lease.message() + more, capture_output=True,
        text=True, check=True,
    )  # fmt: skip
    run_git(remote, "update-ref", "refs/vcontext/lease/main", made.stdout.strip())
    return made.stdout.strip()


@pytest.mark.parametrize("lease_by", ["swap", "push"])
def test_an_expired_lease_is_broken_and_a_live_one_is_waited_for(
    remote: Path, tmp_path: Path, lease_by: str
) -> None:
    """The same with the lease ref swapped in process (a remote on this machine) and with a
    compare-and-swap push (here forced by a pre-receive hook, which must see every ref)."""
    if lease_by == "push":
        hook = remote / "hooks" / "pre-receive"
        hook.write_text('#!/bin/sh\ncat >> "$GIT_DIR/received"\n')
        hook.chmod(0o755)
    alice = _agent(remote, tmp_path, "alice")
    commit_on(alice, "agents/alice", {"todo.vcontext.json": _add_item("a1")}, "a1")
    _plant_lease(remote, -5, os.getpid())  # expired five seconds ago

    code, out, err = sync(alice, "alice", "--push", "origin")
    assert code == 0, out + err
    assert "waiting" not in out
    assert "a1" in _ids(remote)

    commit_on(alice, "agents/alice", {"todo.vcontext.json": _add_item("a2")}, "a2")
    # alive (this process) for 3 s more: long enough that a loaded machine still finds it held
    _plant_lease(remote, 3, os.getpid())
    start = time.monotonic()
    code, out, err = sync(alice, "alice", "--push", "origin")
    assert code == 0, out + err
    assert "lease is held by agents/zoe" in out
    assert "waiting" in out
    assert time.monotonic() - start > 1.0
    assert "a2" in _ids(remote)
    assert not _requests(remote)  # the lease released, the request withdrawn
    if lease_by == "push":  # the hook saw the lease being taken
        received = (remote / "received").read_text().splitlines()
        assert [line for line in received if line.endswith(" refs/vcontext/lease/main")]


def test_a_lease_left_by_a_killed_sync_in_this_repository_is_taken_over_at_once(
    remote: Path, tmp_path: Path
) -> None:
    """An interrupted sync is safe to run again: its lease (a process that is gone, in
    this same repository) blocks nobody, not even until it expires."""
    alice = _agent(remote, tmp_path, "alice")
    commit_on(alice, "agents/alice", {"todo.vcontext.json": _add_item("a1")}, "a1")
    dead = subprocess.Popen(["true"])
    dead.wait()
    _plant_lease(remote, 600, dead.pid, where=str(alice / ".git"))

    start = time.monotonic()
    code, out, err = sync(alice, "alice", "--push", "origin")
    assert code == 0, out + err
    assert time.monotonic() - start < 60
    assert "waiting" not in out
    assert "a1" in _ids(remote)


@pytest.mark.parametrize("same_start", [False, True])
def test_a_lease_whose_pid_another_process_was_given_since_is_taken_over_at_once(
    remote: Path, tmp_path: Path, same_start: bool
) -> None:
    """An interrupted sync's lease "blocks no one for longer than its expiry", and in this
    same repository not at all: the lease says its holder's process start time besides
    its pid (``/proc``), so a pid given since to another process (here this test's own,
    alive, with a start time one tick off) is not taken for the holder: the lease is
    taken over at once. The same pid with its own start time is the holder: waited for
    (until the 2 s timeout)."""
    from git_vcontext.fsio import started

    start_time = started(os.getpid())
    if start_time is None:
        pytest.skip("no /proc: a lease is judged by its pid alone")
    alice = _agent(remote, tmp_path, "alice")
    commit_on(alice, "agents/alice", {"todo.vcontext.json": _add_item("a1")}, "a1")
    run_git(alice, "config", "vcontext.syncTimeout", "2")
    said = start_time if same_start else start_time + 1
    _plant_lease(remote, 600, os.getpid(), where=str(alice / ".git"), started=said)

    code, out, err = sync(alice, "alice", "--push", "origin")
    if same_start:
        assert code != 0, out + err
        assert "lease is held by agents/zoe" in out + err
        assert "a1" not in _ids(remote)
    else:
        assert code == 0, out + err
        assert "waiting" not in out
        assert "a1" in _ids(remote)


@pytest.mark.parametrize(
    ("pid", "more"),
    [(0, "Started: " + "9" * 5000 + "\n"), (10**20, "")],
    ids=["started-of-5000-digits", "pid-beyond-any-pid"],
)
def test_a_malformed_lease_left_in_this_repository_is_read_without_a_traceback(
    remote: Path, tmp_path: Path, pid: int, more: str
) -> None:
    """Bad input (a lease anyone who may push one may write: the guard judges a lease
    commit's tree and parents, never its message) gives no traceback: a ``Started`` too
    long for an int (Python refuses more than 4300 digits) reads as none, a pid no process
    can have is no process (its lease, left in this repository, is taken over). Both
    raised before (ValueError from refs.parse, OverflowError from os.kill)."""
    alice = _agent(remote, tmp_path, "alice")
    commit_on(alice, "agents/alice", {"todo.vcontext.json": _add_item("a1")}, "a1")
    if not pid:  # a sync killed since
        dead = subprocess.Popen(["true"])
        dead.wait()
        pid = dead.pid
    _plant_lease(remote, 600, pid, str(alice / ".git"), more=more)

    code, out, err = sync(alice, "alice", "--push", "origin")
    assert code == 0, out + err
    assert "Traceback" not in err
    assert "a1" in _ids(remote)


def _as_at_a_terminal() -> None:
    """Ctrl-C reaches a command started at a terminal: SIGINT at its default, whatever the
    test runner left (a process that ignores SIGINT passes that on: its children then
    ignore Ctrl-C, as a background job does, and sync waited out the lease)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_while_waiting_leaves_no_lease_and_a_second_run_lands(
    remote: Path, tmp_path: Path
) -> None:
    alice = _agent(remote, tmp_path, "alice")
    commit_on(alice, "agents/alice", {"todo.vcontext.json": _add_item("a1")}, "a1")
    other = _plant_lease(remote, 600, os.getpid())
    proc = subprocess.Popen(
        [*cli_path(), "sync", "alice", "--push", "origin"],
        cwd=alice, env={**os.environ, **EPOCH}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=_as_at_a_terminal,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while "refs/vcontext/sync/main/agents/alice" not in _requests(remote):
        assert time.monotonic() < deadline
        assert proc.poll() is None
        time.sleep(0.1)  # it published and now waits for zoe's lease
    proc.send_signal(signal.SIGINT)
    try:  # seconds when the machine is idle; CI's full suite on 2 cores has taken over 60
        _, stopped = proc.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, stopped = proc.communicate()
        raise AssertionError(f"sync went on 180 s after Ctrl-C: {stopped[-2000:]!r}") from None
    assert proc.returncode == 130, stopped
    assert rev(remote, "refs/vcontext/lease/main") == other  # not ours to touch
    run_git(remote, "update-ref", "-d", "refs/vcontext/lease/main")  # zoe is done

    code, out, err = sync(alice, "alice", "--push", "origin")
    assert code == 0, out + err
    assert "a1" in _ids(remote)
    assert not _requests(remote)


def test_without_the_lease_agents_integrate_optimistically(remote: Path, tmp_path: Path) -> None:
    """git config vcontext.syncLease=false: no lease ref; racing agents still all land."""
    clones = [_agent(remote, tmp_path, name) for name in ("alice", "bob", "carol")]
    for clone, name in zip(clones, ("alice", "bob", "carol"), strict=True):
        run_git(clone, "config", "vcontext.syncLease", "false")
        commit_on(clone, f"agents/{name}", {"todo.vcontext.json": _add_item(name)}, name)
    env = {**os.environ, **EPOCH}
    procs = [
        subprocess.Popen(
            [*cli_path(), "sync", name, "--push", "origin"],
            cwd=clone,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for clone, name in zip(clones, ("alice", "bob", "carol"), strict=True)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], outputs
    assert {"alice", "bob", "carol"} <= set(_ids(remote))
    assert not [r for r in _requests(remote) if "lease" in r]


# -- the pre-push hook's verdicts -------------------------------------------------------


def test_sync_prefills_the_hooks_verdicts_so_its_pushes_are_not_checked_twice(
    remote: Path, tmp_path: Path
) -> None:
    """Every push sync makes finds its verdict in the cache: the exact ref lines git gave
    the hook were checked by sync in process (the hook answers without opening the repo)."""
    from git_vcontext.prepush.cache import VerdictCache, push_key

    alice, bob = _agent(remote, tmp_path, "alice"), _agent(remote, tmp_path, "bob")
    assert subprocess.run([*cli_path(), "install"], cwd=alice).returncode == 0
    seen = alice / ".git" / "pushes"
    legacy = alice / ".git" / "hooks" / "pre-push.before-vcontext"  # runs first, same input
    legacy.write_text(f'#!/bin/sh\ncat >> "{seen}"\necho ---- >> "{seen}"\n')
    legacy.chmod(0o755)
    commit_on(bob, "agents/bob", {"todo.vcontext.json": _add_item("b1")}, "b1")
    _publish(bob, "bob")  # alice's integration merges it too
    commit_on(alice, "agents/alice", {"todo.vcontext.json": _add_item("a1")}, "a1")

    code, out, err = sync(alice, "alice", "--push", "origin")

    assert code == 0, out + err
    pushes = [p for p in seen.read_text().split("----\n") if p.strip()]
    assert pushes
    assert any("refs/heads/main" in p for p in pushes)
    cache = VerdictCache.open(alice / ".git")
    assert all(cache.get(push_key("origin", p)) == [] for p in pushes), pushes


def _hooks_started(trace: Path) -> list[str]:
    """The hooks git started, from its trace2 event log (GIT_TRACE2_EVENT)."""
    events = [json.loads(line) for line in trace.read_text().splitlines() if line.strip()]
    return [e["hook_name"] for e in events if e.get("event") == "child_start" and "hook_name" in e]


def test_sync_does_not_start_a_pre_push_hook_that_would_only_repeat_its_check(
    remote: Path, tmp_path: Path
) -> None:
    """With only our shim installed, a push sync checked in process and found clean goes
    out without the hook process (it would look up the same verdict); the remote gets it."""
    alice = _agent(remote, tmp_path, "alice")
    assert subprocess.run([*cli_path(), "install"], cwd=alice).returncode == 0
    commit_on(alice, "agents/alice", {"todo.vcontext.json": _add_item("a1")}, "a1")
    trace = tmp_path / "trace.json"

    code, out, err = sync(alice, "alice", "--push", "origin", env={"GIT_TRACE2_EVENT": str(trace)})

    assert code == 0, out + err
    assert "a1" in _ids(remote)
    assert "pre-push" not in _hooks_started(trace)


def test_sync_runs_a_chained_pre_push_hook(remote: Path, tmp_path: Path) -> None:
    """A hook of the user's kept as pre-push.before-vcontext is not ours to skip: it runs for
    every push sync makes that carries documents (and may refuse it)."""
    alice = _agent(remote, tmp_path, "alice")
    assert subprocess.run([*cli_path(), "install"], cwd=alice).returncode == 0
    legacy = alice / ".git" / "hooks" / "pre-push.before-vcontext"
    legacy.write_text("#!/bin/sh\necho 'legacy hook: no pushes today' >&2\nexit 1\n")
    legacy.chmod(0o755)
    commit_on(alice, "agents/alice", {"todo.vcontext.json": _add_item("a1")}, "a1")
    trace = tmp_path / "trace.json"

    code, out, err = sync(alice, "alice", "--push", "origin", env={"GIT_TRACE2_EVENT": str(trace)})

    assert code != 0
    assert "legacy hook: no pushes today" in out + err
    assert "pre-push" in _hooks_started(trace)
    assert "a1" not in _ids(remote)


def test_sync_runs_the_hook_when_its_own_check_finds_problems(remote: Path, tmp_path: Path) -> None:
    """A push sync's check finds problems with is left to the hook, which refuses it and
    says why (the verdict is not skipped on the way). The problem is in a commit of the
    agent's history that a later one fixed: the merge passes the checks (sync makes no
    merge that fails them), the pushed history does not."""
    alice = _agent(remote, tmp_path, "alice")
    assert subprocess.run([*cli_path(), "install"], cwd=alice).returncode == 0

    def duplicate(data: dict[str, object]) -> None:
        todo = data["todoList"]
        assert isinstance(todo, dict)
        todo["items"].append(dict(todo["items"][0]))  # a repeated id: an error
        todo["sequence"] += 1

    def fixed(data: dict[str, object]) -> None:
        todo = data["todoList"]
        assert isinstance(todo, dict)
        todo["items"][-1]["id"] = "t1-copy"
        todo["sequence"] += 1

    commit_on(alice, "agents/alice", {"todo.vcontext.json": duplicate}, "bad")
    commit_on(alice, "agents/alice", {"todo.vcontext.json": fixed}, "fixed")
    trace = tmp_path / "trace.json"

    code, out, err = sync(alice, "alice", "--push", "origin", env={"GIT_TRACE2_EVENT": str(trace)})

    assert code != 0
    assert "pre-push" in _hooks_started(trace)
    assert "by the pre-push hook" in out + err


# -- a server that integrates -----------------------------------------------------------


def test_install_server_merges_requests_as_they_are_pushed(remote: Path, tmp_path: Path) -> None:
    """git vcontext install --server in the bare remote: the post-receive hook merges each
    request as it arrives; sync --push then only pushes the agent's own refs."""
    done = subprocess.run([*cli_path(), "install", "--server"], cwd=remote, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert (remote / "hooks" / "post-receive").is_file()
    alice, bob = _agent(remote, tmp_path, "alice"), _agent(remote, tmp_path, "bob")
    for clone, name in ((alice, "alice"), (bob, "bob")):
        commit_on(clone, f"agents/{name}", {"todo.vcontext.json": _add_item(name)}, name)
        code, out, err = sync(clone, name, "--push", "origin")
        assert code == 0, out + err
        assert "merged into main on the remote" in out
        # the server moved main; the agent published its branch, and says so (trial12)
        assert f"pushed to origin: agents/{name}\n" in out
        assert "pushed to origin: main" not in out
    assert {"alice", "bob"} <= set(_ids(remote))
    committers = run_git(remote, "log", "--merges", "--format=%cn", "main").stdout.split("\n")
    assert "Test Committer" in committers  # the hook commits as the repository's identity
    assert "fork" not in show(remote, "main", "todo.vcontext.json")["todoList"]
    assert _requests(remote) == ["refs/vcontext/server"]

    gone = subprocess.run([*cli_path(), "uninstall", "--server"], cwd=remote, capture_output=True)
    assert gone.returncode == 0, gone.stderr
    assert not (remote / "hooks" / "post-receive").exists()
    assert not _requests(remote)


def test_install_server_outside_a_bare_repository_is_a_usage_error(git_repo: Path) -> None:
    done = subprocess.run([*cli_path(), "install", "--server"], cwd=git_repo, capture_output=True)
    assert done.returncode == 2
    assert done.stderr.decode().count("\n") == 1
    assert b"bare repository" in done.stderr
    assert not (git_repo / ".git" / "hooks" / "post-receive").exists()
    both = subprocess.run(
        [*cli_path(), "install", "--server", "--global"], cwd=git_repo, capture_output=True
    )
    assert both.returncode == 2
    assert b"--server cannot be combined with --global" in both.stderr


# -- criss-cross histories (M16) ---------------------------------------------------------


def test_criss_cross_history_merges_against_a_virtual_base(git_repo: Path) -> None:
    """Two branches that each merged the other's earlier tip have two merge bases; sync
    merges them structurally against a virtual base (the merged bases), not by lines."""
    import pygit2

    from git_vcontext.gitio.bases import merge_bases

    seed(git_repo)
    fork_by_hand(git_repo, "alice")
    wt = git_repo.parent / "alice"
    run_git(git_repo, "worktree", "add", "-q", str(wt), "agents/alice")
    x = _commit_here(git_repo, _add_item("m1"), "m1")
    y = _commit_here(wt, _add_item("a1"), "a1")
    # criss-cross: each side merges the other's tip (plain git, our driver not involved)
    for where, other in ((git_repo, y), (wt, x)):
        run_git(where, "merge", "-q", "--no-edit", "-s", "ours", other)
        data = json.loads((where / "todo.vcontext.json").read_text())
        have = {i["id"] for i in data["todoList"]["items"]}
        for item in ("m1", "a1"):
            if item not in have:
                data["todoList"]["items"].append({"id": item, "title": item, "status": "pending"})
        write(where, "todo.vcontext.json", data)
        run_git(where, "commit", "-q", "-a", "--amend", "--no-edit")
    _commit_here(git_repo, status(("m1", "completed")), "m1 done")
    _commit_here(wt, status(("a1", "completed")), "a1 done")
    repo = pygit2.Repository(str(git_repo))
    main, alice = (repo.revparse_single(b).id for b in ("main", "agents/alice"))
    bases = merge_bases(repo, main, alice)
    assert len(bases) == 2

    code, out, err = sync(git_repo, "alice")

    assert code == 0, out + err
    items = show(git_repo, "main", "todo.vcontext.json")["todoList"]["items"]
    assert {i["id"]: i["status"] for i in items if i["id"] in ("m1", "a1")} == {
        "m1": "completed",
        "a1": "completed",
    }
    assert [i["id"] for i in items].count("a1") == 1


def _commit_here(where: Path, change: object, message: str) -> str:
    edit(where, "todo.vcontext.json", change)
    return commit_all(where, message)


def test_a_round_another_merged_still_sets_the_agent_branchs_upstream(
    remote: Path, tmp_path: Path
) -> None:
    """The agent branch a ``sync --push`` published tracks the remote's copy (README: "An
    agent branch with no upstream of its own tracks the remote's copy once sync pushed
    it", as ``git push -u``) also when someone else merged the round (here the server's
    hook; the lease holder alike): the copy there keeps the published commit, an ancestor
    of the local branch, which only gained the merge of the base. Before, such an agent's
    plain ``git vcontext check`` (``@{upstream}..HEAD``, PRODUCT.md's command-line
    contract) exited 3, "has no upstream" (found over HTTP, trial9)."""
    done = subprocess.run([*cli_path(), "install", "--server"], cwd=remote, capture_output=True)
    assert done.returncode == 0, done.stderr
    alice = _agent(remote, tmp_path, "alice")
    commit_on(alice, "agents/alice", {"todo.vcontext.json": _add_item("a1")}, "a1")

    code, out, err = sync(alice, "alice", "--push", "origin")

    assert code == 0, out + err
    assert "merged into main on the remote" in out
    assert "branch 'agents/alice' set up to track 'origin/agents/alice'." in out, out
    assert run_git(alice, "config", "branch.agents/alice.remote").stdout.strip() == "origin"
    run_git(alice, "switch", "-q", "agents/alice")
    checked = run_cli("check", cwd=alice)
    assert checked.returncode == 0, checked.stderr.decode()
    assert "of origin/agents/alice..HEAD checked" in checked.stdout.decode()
