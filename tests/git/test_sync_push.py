"""``sync --push``: a rejected push is retried after fetch + merge (PRODUCT.md, agent workflow)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from helpers.next_steps import setting_advice
from helpers.run import cli_path, run_cli, run_git
from helpers.sync_repos import (
    EPOCH,
    clone,
    commit_all,
    commit_on,
    edit,
    fork_by_hand,
    rev,
    seed,
    shared_with_alice,
    show,
    status,
    sync,
    without_fork,
)


@pytest.fixture
def shared(git_repo: Path, tmp_path: Path) -> tuple[Path, Path]:
    """(a bare "remote" with main, a clone of it with agents/alice forked)."""
    return shared_with_alice(git_repo, tmp_path / "remote.git"), git_repo


def _other_commits_to_main(remote: Path, tmp_path: Path) -> Path:
    """Another clone with a commit on main (t3 blocked), not pushed yet."""
    other = clone(remote, tmp_path / "other")
    edit(other, "todo.vcontext.json", status(("t3", "blocked")))
    commit_all(other, "someone else blocks t3")
    return other


def _other_pushes_to_main(remote: Path, tmp_path: Path) -> None:
    run_git(_other_commits_to_main(remote, tmp_path), "push", "-q", "origin", "main")


def _race_on_main(repo: Path, other: Path, times: int = 1) -> None:
    """A pre-push hook in ``repo`` that, the first ``times`` times a push writes main,
    first pushes ``other``'s main (a new commit each time after the first): the remote's
    main moves between sync's fetch and its push, a real race."""
    hook = repo / ".git" / "hooks" / "pre-push"
    count = repo / ".git" / "raced"
    hook.write_text(
        "#!/bin/sh\n"
        "INPUT=$(cat)\n"
        'case "$INPUT" in *" refs/heads/main "*) ;; *) exit 0 ;; esac\n'
        f'N=$(cat "{count}" 2>/dev/null || echo 0)\n'
        f'[ "$N" -ge {times} ] && exit 0\n'
        f'echo $((N + 1)) > "{count}"\n'
        "unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE\n"
        f'if [ "$N" -gt 0 ]; then git -C "{other}" commit -q --allow-empty -m "race $N"; fi\n'
        f'git -C "{other}" push -q origin main\n'
    )
    hook.chmod(0o755)


def _raced(repo: Path) -> int:
    count = repo / ".git" / "raced"
    return int(count.read_text()) if count.exists() else 0


def test_rejected_push_is_fetched_merged_and_retried(
    shared: tuple[Path, Path], tmp_path: Path
) -> None:
    remote, repo = shared
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "tick")
    # the remote's main moves after sync fetched it: the integration push is rejected
    _race_on_main(repo, _other_commits_to_main(remote, tmp_path))

    code, out, err = sync(repo, "alice", "--push", "origin")

    assert code == 0, out + err
    assert _raced(repo) == 1
    assert "rejected" in out
    assert "retry 1" in out
    assert "pushed after 1 retry to origin" in out
    on_remote = show(remote, "main", "todo.vcontext.json")
    assert [i["status"] for i in on_remote["todoList"]["items"]] == [
        "completed",
        "pending",
        "blocked",
    ]
    assert "fork" not in on_remote["todoList"]
    assert rev(remote, "main") == rev(repo, "main")
    assert rev(remote, "agents/alice") == rev(repo, "agents/alice")
    # the agent branch carries what came in from the remote too
    assert without_fork(show(repo, "agents/alice", "todo.vcontext.json")) == on_remote
    # the remote's commit is merged, not overwritten: it is an ancestor of main
    other_tip = run_git(tmp_path / "other", "rev-parse", "HEAD").stdout.strip()
    assert run_git(remote, "merge-base", "--is-ancestor", other_tip, "main").returncode == 0


def test_push_refused_by_the_remote_is_not_retried_and_shows_its_reason(
    shared: tuple[Path, Path],
) -> None:
    """PRODUCT.md, branch-per-agent workflow: a refused push shows the remote's reason, and
    with --push local refs move only when the push landed."""
    remote, repo = shared
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'no pushes today' >&2\nexit 1\n")
    hook.chmod(0o755)
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "tick")
    before = (rev(repo, "main"), rev(repo, "agents/alice"))

    code, out, _ = sync(repo, "alice", "--push", "origin")

    assert code == 1
    assert "refused" in out
    assert "retry" not in out
    assert "pre-receive hook declined" in out
    assert "remote: no pushes today" in out  # the remote's own words
    assert (rev(repo, "main"), rev(repo, "agents/alice")) == before


def test_push_to_an_unknown_remote_is_an_operational_error(shared: tuple[Path, Path]) -> None:
    _, repo = shared
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "tick")
    code, _, err = sync(repo, "alice", "--push", "nowhere")
    assert code == 3
    assert err.startswith("git-vcontext: error: --push remote 'nowhere' is not a configured remote")
    assert err.count("\n") == 1


def test_an_unknown_remote_stops_sync_push_before_any_branch_moves(
    shared: tuple[Path, Path],
) -> None:
    """sync --push reads the remote first: a remote it cannot reach is git's first
    complaint in one line (not its advice), and no local branch moved."""
    _, repo = shared
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "tick")
    before = (rev(repo, "main"), rev(repo, "agents/alice"))
    gone = repo.parent / "gone.git"  # a path (a remote git accepts) with no repository
    run_git(repo, "remote", "add", "gone", str(gone))
    code, _, err = sync(repo, "alice", "--push", "gone")
    assert code == 3
    assert err == (
        f"git-vcontext: error: git fetch gone: '{gone}' does not appear to be a git repository\n"
    )
    assert (rev(repo, "main"), rev(repo, "agents/alice")) == before


def test_two_agents_pushing_at_once_both_land(shared: tuple[Path, Path], tmp_path: Path) -> None:
    remote, repo = shared
    run_git(repo, "push", "-q", "origin", "agents/alice")
    bob_repo = clone(remote, tmp_path / "bob")
    fork_by_hand(bob_repo, "bob")
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "a")
    commit_on(bob_repo, "agents/bob", {"todo.vcontext.json": status(("t2", "completed"))}, "b")

    procs = [
        subprocess.Popen(
            [*cli_path(), "sync", agent, "--push", "origin"],
            cwd=where,
            env={**os.environ, **EPOCH},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for agent, where in (("alice", repo), ("bob", bob_repo))
    ]
    outputs = [p.communicate(timeout=120) for p in procs]

    assert [p.returncode for p in procs] == [0, 0], outputs
    on_remote = show(remote, "main", "todo.vcontext.json")
    assert [i["status"] for i in on_remote["todoList"]["items"]][:2] == ["completed", "completed"]
    assert "fork" not in on_remote["todoList"]


def test_sync_push_passes_the_installed_pre_push_hook(
    shared: tuple[Path, Path], tmp_path: Path
) -> None:
    remote, repo = shared
    installed = subprocess.run(
        [*cli_path(), "install", "--local"], cwd=repo, capture_output=True, env=os.environ
    )
    assert installed.returncode == 0, installed.stderr
    assert "git-vcontext" in (repo / ".git" / "hooks" / "pre-push").read_text()
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "tick")
    _other_pushes_to_main(remote, tmp_path)

    code, out, err = sync(repo, "alice", "--push", "origin")

    assert code == 0, out + err
    assert rev(remote, "main") == rev(repo, "main")
    assert "fork" not in show(remote, "main", "todo.vcontext.json")["todoList"]


def test_an_agent_branch_pushed_from_elsewhere_is_merged_not_overwritten(
    shared: tuple[Path, Path], tmp_path: Path
) -> None:
    remote, repo = shared
    run_git(repo, "push", "-q", "origin", "agents/alice")
    elsewhere = clone(remote, tmp_path / "elsewhere")  # the same agent on another machine
    run_git(elsewhere, "branch", "agents/alice", "origin/agents/alice")
    commit_on(elsewhere, "agents/alice", {"todo.vcontext.json": status(("t2", "completed"))}, "x")
    run_git(elsewhere, "push", "-q", "origin", "agents/alice")
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "here")

    code, out, err = sync(repo, "alice", "--push", "origin")

    assert code == 0, out + err
    statuses = [
        i["status"] for i in show(remote, "main", "todo.vcontext.json")["todoList"]["items"]
    ]
    assert statuses == ["completed", "completed", "pending"]
    elsewhere_tip = rev(elsewhere, "agents/alice")  # merged into, not overwritten
    kept = run_git(remote, "merge-base", "--is-ancestor", elsewhere_tip, "agents/alice")
    assert kept.returncode == 0
    agent = show(remote, "agents/alice", "todo.vcontext.json")
    assert agent["todoList"]["fork"]["parentUid"] == "u-todo"  # the fork stays on the agent
    assert without_fork(agent) == show(remote, "main", "todo.vcontext.json")


def _parents(repo: Path, rev_: str) -> list[str]:
    return run_git(repo, "rev-parse", f"{rev_}^@").stdout.split()


def _alice_ticks_while_other_pushes(repo: Path, remote: Path, tmp_path: Path) -> tuple[str, str]:
    """Alice completes t1 on her branch while someone else pushes to main: (her commit,
    the remote's new main)."""
    tick = commit_on(
        repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "tick"
    )
    _other_pushes_to_main(remote, tmp_path)
    return tick, run_git(tmp_path / "other", "rev-parse", "HEAD").stdout.strip()


def test_a_retry_starts_over_from_the_remote_base_one_sync_merge_per_agent(
    shared: tuple[Path, Path], tmp_path: Path
) -> None:
    """M8: a rejected integration is not merged into; the retry merges the agent's work
    into the remote's new main, one merge commit and one sequence bump."""
    remote, repo = shared
    run_git(repo, "push", "-q", "origin", "agents/alice")
    tick = commit_on(
        repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "tick"
    )
    other = _other_commits_to_main(remote, tmp_path)
    other_tip = rev(other, "main")
    _race_on_main(repo, other)

    code, out, err = sync(repo, "alice", "--push", "origin")

    assert code == 0, out + err
    assert "pushed after 1 retry" in out
    # the rejected sync commit is not merged with the remote's main: the agent's work is
    # merged straight into the remote's main, one real merge commit
    assert _parents(remote, "main") == [other_tip, tick]
    assert "Vcontext-Sync: alice" in run_git(remote, "log", "-1", "--format=%B", "main").stdout
    on_remote = show(remote, "main", "todo.vcontext.json")
    assert [i["status"] for i in on_remote["todoList"]["items"]] == [
        "completed",
        "pending",
        "blocked",
    ]
    # both sides advanced the sequence once: one M8 merge, max(4, 4) + 1
    assert on_remote["todoList"]["sequence"] == 5
    assert _parents(remote, "agents/alice") == [tick, rev(remote, "main")]


def test_a_rejected_push_moves_no_branch_on_the_remote_nor_here(
    shared: tuple[Path, Path], tmp_path: Path
) -> None:
    """The integration push is atomic: rejected, it moved nothing on the remote, and no
    local branch moved."""
    remote, repo = shared
    run_git(repo, "push", "-q", "origin", "agents/alice")
    pushed_before = rev(remote, "agents/alice")
    run_git(repo, "config", "vcontext.pushAttempts", "1")
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "tick")
    other = _other_commits_to_main(remote, tmp_path)
    _race_on_main(repo, other)
    before = (rev(repo, "main"), rev(repo, "agents/alice"))

    code, out, _ = sync(repo, "alice", "--push", "origin")

    assert code == 1
    [gave_up] = [line for line in out.splitlines() if "still rejected after 1 attempts" in line]
    assert "main" in gave_up
    assert rev(remote, "main") == rev(other, "main")
    assert rev(remote, "agents/alice") == pushed_before  # all or nothing: it stayed
    assert (rev(repo, "main"), rev(repo, "agents/alice")) == before
    assert not run_git(remote, "for-each-ref", "refs/vcontext/lease").stdout  # released


def test_a_remote_without_atomic_pushes_gets_ordinary_pushes_and_merges(
    shared: tuple[Path, Path], tmp_path: Path
) -> None:
    remote, repo = shared
    run_git(remote, "config", "receive.advertiseAtomic", "false")
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "tick")
    _other_pushes_to_main(remote, tmp_path)
    other_tip = run_git(tmp_path / "other", "rev-parse", "HEAD").stdout.strip()

    code, out, err = sync(repo, "alice", "--push", "origin")

    assert code == 0, out + err
    assert rev(remote, "main") == rev(repo, "main")
    assert run_git(remote, "merge-base", "--is-ancestor", other_tip, "main").returncode == 0
    statuses = [
        i["status"] for i in show(remote, "main", "todo.vcontext.json")["todoList"]["items"]
    ]
    assert statuses == ["completed", "pending", "blocked"]


def test_sync_push_fetches_the_base_first_so_a_moved_remote_needs_no_retry(
    shared: tuple[Path, Path], tmp_path: Path
) -> None:
    remote, repo = shared
    tick, other_tip = _alice_ticks_while_other_pushes(repo, remote, tmp_path)

    code, out, err = sync(repo, "alice", "--push", "origin")

    assert code == 0, out + err
    assert "pushed to origin" in out
    assert "retry" not in out
    assert _parents(remote, "main") == [other_tip, tick]  # a fast-forward to origin, then sync
    statuses = [
        i["status"] for i in show(remote, "main", "todo.vcontext.json")["todoList"]["items"]
    ]
    assert statuses == ["completed", "pending", "blocked"]
    assert rev(remote, "agents/alice") == rev(repo, "agents/alice")


def test_fetch_leaves_out_a_branch_the_remote_does_not_have_yet(
    shared: tuple[Path, Path],
) -> None:
    """An agent branch before its first push is fetched with its base: the base alone
    arrives, and the missing branch is named (not an error)."""
    from git_vcontext.errors import OperationalError
    from git_vcontext.gitio import remote as remotes

    remote, repo = shared
    specs = [f"+refs/heads/{b}:refs/test/{b}" for b in ("agents/alice", "main")]
    assert remotes.fetch(str(repo), "origin", specs) == ["refs/heads/agents/alice"]
    assert rev(repo, "refs/test/main") == rev(remote, "main")
    assert remotes.fetch(str(repo), "origin", specs[:1]) == ["refs/heads/agents/alice"]
    with pytest.raises(OperationalError, match="git fetch nowhere"):
        remotes.fetch(str(repo), "nowhere", specs[1:])


def plant_lease(remote: Path, holder: str, seconds: float, **fields: object) -> str:
    """A lease on the remote's main as another agent's sync takes it: (its commit id)."""
    import socket
    import time

    from git_vcontext.remote.refs import Lease

    lease = Lease(
        holder,
        str(fields.get("host", socket.gethostname())),
        int(str(fields.get("pid", os.getpid()))),  # alive: this test's process
        str(fields.get("where", "/somewhere/else")),
        time.time() + seconds,
    )
    tree = run_git(remote, "hash-object", "-t", "tree", "-w", "/dev/null").stdout.strip()
    commit = subprocess.run(
        ["git", "commit-tree", tree], cwd=remote, input=lease.message(), capture_output=True,
        text=True, check=True,
    ).stdout.strip()  # fmt: skip
    run_git(remote, "update-ref", "refs/vcontext/lease/main", commit)
    return commit


def test_a_commit_made_while_sync_waits_is_kept_and_pushed(
    shared: tuple[Path, Path], tmp_path: Path
) -> None:
    """While another agent holds the lease, sync waits; the agent's commit made meanwhile
    stays on its branch and reaches the remote with the rest."""
    import pygit2

    from git_vcontext.remote.rounds import push_with_retries
    from git_vcontext.sync.syncer import Syncer

    remote, repo = shared
    _alice_ticks_while_other_pushes(repo, remote, tmp_path)
    plant_lease(remote, "agents/bob", 3.0)
    made: list[str] = []

    def sleep(seconds: float) -> None:
        if not made:  # alice commits on her branch during the first wait
            change = {"todo.vcontext.json": status(("t2", "completed"))}
            made.append(commit_on(repo, "agents/alice", change, "tick2"))
        time.sleep(seconds)

    lines: list[str] = []
    outcome = push_with_retries(
        Syncer(pygit2.Repository(str(repo))),
        [("alice", "main")],
        "origin",
        report=lines.append,
        show=lambda _result: None,
        sleep=sleep,
    )
    assert outcome.pushed, lines
    assert made, lines
    assert any("lease is held by agents/bob" in line for line in lines)
    assert outcome.waited > 0.0
    for where, ref in ((repo, "agents/alice"), (remote, "main"), (remote, "agents/alice")):
        kept = run_git(where, "merge-base", "--is-ancestor", made[0], ref, check=False)
        assert kept.returncode == 0, f"tick2 is not on {ref} of {where.name}"


def test_sync_at_scale_git_dash_c_sync_timeout_bounds_the_retries(git_repo: Path) -> None:
    """ "a transient failure … is retried with backoff and jitter inside the sync's deadline
    (vcontext.syncTimeout)": a setting given as git gives one for a single command
    (``git -c vcontext.syncTimeout=2 vcontext sync …``) bounds the retries as the same
    setting in .git/config does."""
    seed(git_repo)
    fork_by_hand(git_repo, "alice")
    run_git(git_repo, "remote", "add", "dead", "http://127.0.0.1:1/remote.git")
    path = f"{Path(cli_path()[0]).parent}{os.pathsep}{os.environ['PATH']}"
    started = time.monotonic()
    proc = subprocess.Popen(
        ["git", "-c", "vcontext.syncTimeout=2", "vcontext", "sync", "alice", "--push", "dead"],
        cwd=git_repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PATH": path},
        start_new_session=True,  # git and the git-vcontext it starts: stopped together
    )
    try:
        code = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        pytest.fail("still retrying after 30 s with vcontext.syncTimeout=2")
    assert code != 0
    assert time.monotonic() - started < 30


def test_sync_push_sets_the_agent_branchs_upstream_as_git_push_u_so_check_needs_no_range(
    shared: tuple[Path, Path],
) -> None:
    """``sync --push`` publishes ``agents/alice`` as ``git push -u`` would: with no upstream
    of its own, the branch then tracks ``origin/agents/alice`` (said as git says it), so a
    plain ``git vcontext check`` (``@{upstream}..HEAD``, PRODUCT.md) runs on the agent
    branch and checks exactly the commits not pushed yet."""
    _, repo = shared
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "tick")

    code, out, err = sync(repo, "alice", "--push", "origin")

    assert code == 0, out + err
    assert "branch 'agents/alice' set up to track 'origin/agents/alice'." in out
    assert run_git(repo, "config", "branch.agents/alice.remote").stdout.strip() == "origin"
    merge = run_git(repo, "config", "branch.agents/alice.merge").stdout.strip()
    assert merge == "refs/heads/agents/alice"
    run_git(repo, "switch", "-q", "agents/alice")
    edit(repo, "todo.vcontext.json", status(("t2", "completed")))
    commit_all(repo, "next")  # not pushed yet
    checked = run_cli("check", cwd=repo)
    assert checked.returncode == 0, checked.stderr.decode()
    assert "1 commit(s) of origin/agents/alice..HEAD checked" in checked.stdout.decode()

    code, out, err = sync(repo, "alice", "--push", "origin")  # set once: said once
    assert code == 0, out + err
    assert "set up to track" not in out


def test_sync_push_never_changes_an_upstream_the_agent_branch_has(
    shared: tuple[Path, Path],
) -> None:
    _, repo = shared
    run_git(repo, "branch", "-q", "--set-upstream-to", "main", "agents/alice")
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "tick")

    code, out, err = sync(repo, "alice", "--push", "origin")

    assert code == 0, out + err
    assert "set up to track" not in out
    assert run_git(repo, "config", "branch.agents/alice.remote").stdout.strip() == "."
    assert run_git(repo, "config", "branch.agents/alice.merge").stdout.strip() == "refs/heads/main"


def _sync_with_the_clock_stepped(repo: Path, step: float) -> tuple[object, list[str], float]:
    """``sync --push`` of alice, whose wall clock steps by ``step`` seconds (NTP, a resumed
    VM) at its first wait for the lease: (its outcome, what it said, the seconds it took).
    A wait past 30 s fails the test (the step extended the sync)."""
    import pygit2

    from git_vcontext.remote.rounds import push_with_retries
    from git_vcontext.sync.syncer import Syncer

    offset = [0.0]
    began = time.monotonic()

    def sleep(seconds: float) -> None:
        offset[0] = step
        assert time.monotonic() - began < 30, "the clock's step extended the sync's wait"
        time.sleep(min(seconds, 0.1))

    lines: list[str] = []
    outcome = push_with_retries(
        Syncer(pygit2.Repository(str(repo))),
        [("alice", "main")],
        "origin",
        report=lines.append,
        show=lambda _result: None,
        sleep=sleep,
        clock=lambda: time.time() + offset[0],
    )
    return outcome, lines, time.monotonic() - began


def test_sync_at_scale_a_wall_clock_step_back_neither_extends_the_sync_past_its_timeout(
    shared: tuple[Path, Path],
) -> None:
    """ "retried ... inside the sync's deadline (vcontext.syncTimeout)": the deadline is
    kept on a monotonic clock, so a wall clock set back an hour while the sync waits for
    another machine's lease still ends the sync after its 2 s (it waited an hour more when
    the deadline was a wall-clock time)."""
    remote, repo = shared
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "tick")
    run_git(repo, "config", "vcontext.syncTimeout", "2")
    plant_lease(remote, "agents/bob", 600.0, host="elsewhere.invalid")

    outcome, lines, took = _sync_with_the_clock_stepped(repo, -3600.0)

    assert not outcome.pushed, lines  # type: ignore[attr-defined]
    assert "not integrated after 2 s" in outcome.message, lines  # type: ignore[attr-defined]
    assert took < 20, took
    # the setting it names, pasted, sets it (as printed, a shell refuses it)
    setting_advice(outcome.message, "vcontext.syncTimeout", "1200", repo)  # type: ignore[attr-defined]


def test_sync_at_scale_a_wall_clock_step_forward_neither_ends_the_sync_early(
    shared: tuple[Path, Path],
) -> None:
    """A wall clock set forward an hour while the sync waits for another machine's lease
    does not make the sync give up (its deadline, 60 s, is on a monotonic clock: it gave up
    at once when the deadline was a wall-clock time); the lease's expiry, written in the
    lease for other machines to read, stays a wall-clock time: passed now, the lease is
    taken over and the round integrated ("no sync give up", PRODUCT.md, sync at scale)."""
    remote, repo = shared
    tick = commit_on(
        repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "tick"
    )
    run_git(repo, "config", "vcontext.syncTimeout", "60")
    plant_lease(remote, "agents/bob", 600.0, host="elsewhere.invalid")

    outcome, lines, _ = _sync_with_the_clock_stepped(repo, 3600.0)

    assert outcome.pushed, lines  # type: ignore[attr-defined]
    assert any("lease is held by agents/bob" in line for line in lines), lines
    kept = run_git(remote, "merge-base", "--is-ancestor", tick, "main", check=False)
    assert kept.returncode == 0, lines
