"""The refs sync --push keeps on a remote: lease messages, expiry, who may break a lease,
request names, the pre-push input sync predicts, and what a server's hook reads."""

from __future__ import annotations

import os
import socket
import subprocess

import pytest

from git_vcontext.fsio import find_common_dir
from git_vcontext.gitio.remote import Update
from git_vcontext.prepush.cache import push_key
from git_vcontext.remote import refs as leases
from git_vcontext.remote.pusher import hook_lines
from git_vcontext.remote.server import bases_requested
from helpers.run import in_another_pid_namespace

HOST = socket.gethostname()


def test_a_lease_reads_back_from_its_commit_message() -> None:
    lease = leases.Lease("agents/a, agents/b", HOST, 1234, "/repo/.git", 1767225600.5)
    assert leases.parse(lease.message()) == lease
    assert lease.message().startswith("vcontext sync lease: agents/a, agents/b\n\n")


def test_a_message_that_is_not_a_lease_reads_as_none_and_may_be_replaced() -> None:
    assert leases.parse("just a commit\n\nHolder: x\nPid: nope\n") is None
    assert leases.breakable(None, "/repo", 0.0)


def test_an_expired_lease_may_be_broken_by_anyone_a_live_one_by_nobody() -> None:
    lease = leases.Lease("agents/z", "another-host", 1, "/their/.git", 100.0)
    assert not lease.expired(99.9)
    assert lease.expired(100.0)
    assert leases.breakable(lease, "/repo/.git", 100.0)
    assert not leases.breakable(lease, "/repo/.git", 50.0)
    assert lease.describe(50.0) == "held by agents/z on another-host for 50.0 s more"


def test_a_lease_left_here_by_a_process_that_is_gone_may_be_taken_at_once() -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()
    left = leases.Lease("agents/a", HOST, gone.pid, "/repo/.git", 1e12)
    assert leases.breakable(left, "/repo/.git", 0.0)
    assert not leases.breakable(left, "/other/.git", 0.0)  # not this repository's
    alive = leases.Lease("agents/a", HOST, os.getpid(), "/repo/.git", 1e12)
    assert not leases.breakable(alive, "/repo/.git", 0.0)
    nobody = leases.Lease("agents/a", HOST, 0, "/repo/.git", 1e12)  # (kill(0, 0): a group's)
    assert leases.breakable(nobody, "/repo/.git", 0.0)


def test_mine_expires_after_the_configured_seconds() -> None:
    lease = leases.mine("agents/a", "/repo/.git", 30.0, 1000.0)
    assert (lease.host, lease.pid, lease.expires) == (HOST, os.getpid(), 1030.0)


def test_a_lease_says_when_its_round_lands_and_an_older_lease_reads_without_it() -> None:
    """``Landing``: when the holder expects its integration on the base (waiters look then);
    an older version's lease has none, a bad one reads as none, and no estimate outlasts
    the lease itself."""
    lease = leases.mine("agents/a", "/repo/.git", 30.0, 1000.0, takes=2.5)
    assert lease.landing == 1002.5
    assert "\nLanding: 1002.500\n" in lease.message()
    assert leases.parse(lease.message()) == lease
    older = leases.Lease("agents/a", HOST, 1, "/repo/.git", 1030.0)
    assert "Landing" not in older.message()
    assert leases.parse(older.message()) == older
    for bad in ("soon", "nan", "inf"):
        said = older.message() + f"Landing: {bad}\n"
        assert leases.parse(said) == older
    assert leases.mine("agents/a", "/repo/.git", 30.0, 1000.0, takes=99.0).landing == 1030.0


def test_a_lease_says_its_holders_start_time_and_an_older_lease_reads_without_it() -> None:
    """``Started``: the holder's process start time (``fsio.started``), so that a pid given
    since to another process is not taken for the holder; an older version's lease has
    none (its pid alone judges it, as before), a bad one reads as none, and an older
    version reads a newer lease by the fields it knows (unknown lines are skipped)."""
    from git_vcontext.fsio import started
    from git_vcontext.record import replace

    lease = leases.mine("agents/a", "/repo/.git", 30.0, 1000.0)
    assert lease.started == started(os.getpid())
    assert leases.parse(lease.message()) == lease
    older = leases.Lease("agents/a", HOST, os.getpid(), "/repo/.git", 1e12)
    assert "Started" not in older.message()
    assert leases.parse(older.message()) == older
    for bad in ("soon", "-1", "1.5", "\u0661", "9" * 5000):  # (Arabic-Indic; int() refuses 5000)
        assert leases.parse(older.message() + f"Started: {bad}\n") == older
    assert not leases.breakable(older, "/repo/.git", 0.0)  # alive by its pid alone
    beyond = replace(older, pid=10**20)  # no process has it (os.kill: OverflowError)
    assert leases.breakable(beyond, "/repo/.git", 0.0)
    if lease.started is None:
        pytest.skip("no /proc: no start time to compare")
    assert not leases.breakable(replace(older, started=lease.started), "/repo/.git", 0.0)
    reused = replace(older, started=lease.started + 1)
    assert leases.breakable(reused, "/repo/.git", 0.0)
    assert not leases.breakable(reused, "/other/.git", 0.0)  # not this repository's


def test_a_lease_from_another_pid_namespace_is_waited_for_not_judged_by_its_pid() -> None:
    """A lease "blocks no one for longer than its expiry" and is taken over at once only
    when left here by a sync that is gone: a holder in another pid namespace (a container
    sharing this host name and the repository) is not judged by a pid and start time that
    mean nothing here (another process of ours may have that pid: judged a pid given since,
    its live holder's lease was taken over at once; or none: gone). Its lease says its
    namespace (``Namespace``), an older one none (judged by its pid, as before). Real: a
    holder started under ``unshare --pid`` (pid 1 there) writes its lease; read here, it
    is not breakable while the holder lives (it was before this change)."""
    holder = (
        "import sys, time\n"
        "from git_vcontext.remote import refs\n"
        "lease = refs.mine('agents/z', '/repo/.git', 600, time.time())\n"
        "print(lease.message() + 'end', flush=True)\n"
        "sys.stdin.read()\n"
    )
    with in_another_pid_namespace(holder) as message:
        theirs = leases.parse(message)
        assert theirs is not None
        assert theirs.pid == 1  # (here: this machine's init)
        assert not leases.breakable(theirs, "/repo/.git", 0.0)


def test_a_lease_says_its_holders_pid_namespace_and_an_older_lease_reads_without_it() -> None:
    """(See the test above.) Another namespace: waited for; ours, or unsaid: by the pid."""
    from git_vcontext.fsio import pid_namespace
    from git_vcontext.record import replace

    ours = pid_namespace()
    if ours is None:
        pytest.skip("no /proc: no pid namespace to read")
    lease = leases.mine("agents/a", "/repo/.git", 30.0, 1000.0)
    assert lease.namespace == ours
    assert leases.parse(lease.message()) == lease
    gone = replace(lease, pid=_dead_pid())
    assert leases.breakable(gone, "/repo/.git", 0.0)  # ours, gone: taken over at once
    assert not leases.breakable(replace(gone, namespace=ours + 1), "/repo/.git", 0.0)
    assert leases.breakable(replace(gone, namespace=None), "/repo/.git", 0.0)  # older
    assert leases.parse(lease.message().replace(f"Namespace: {ours}", "Namespace: x")) == (
        replace(lease, namespace=None)
    )


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_base_names_become_one_ref_component_and_back() -> None:
    for base in ("main", "release/1.0", "odd%2Fname", "a/b/c"):
        encoded = leases.encode_base(base)
        assert "/" not in encoded
        assert leases.decode_base(encoded) == base
    assert leases.request_ref("release/1.0", "agents/a") == (
        "refs/vcontext/sync/release%2F1.0/agents/a"
    )
    assert leases.lease_ref("main") == "refs/vcontext/lease/main"


def test_hook_lines_are_the_pre_push_input_git_gives_for_a_push_by_commit_id() -> None:
    a, b, c = "a" * 40, "b" * 40, "c" * 40
    updates = [
        Update(a, "refs/heads/main"),
        Update(b, "refs/vcontext/sync/main/agents/x", force=True),
        Update(None, "refs/vcontext/lease/main", expect=c),
    ]
    known = {"refs/heads/main": c, "refs/vcontext/lease/main": c}
    assert hook_lines(updates, known) == [
        f"{a} {a} refs/heads/main {c}",
        f"{b} {b} refs/vcontext/sync/main/agents/x {'0' * 40}",
        f"(delete) {'0' * 40} refs/vcontext/lease/main {c}",
    ]
    assert updates[1].refspec() == f"+{b}:refs/vcontext/sync/main/agents/x"
    assert updates[2].refspec() == ":refs/vcontext/lease/main"  # the lease forces it


def test_the_push_key_ignores_line_order_and_spacing_not_the_remote() -> None:
    one = "x 1 refs/heads/a 0\ny 2 refs/heads/b 0\n"
    two = "\ny  2 refs/heads/b 0\nx 1 refs/heads/a 0"
    assert push_key("origin", one) == push_key("origin", two)
    assert push_key("origin", one) != push_key("upstream", one)


def test_the_server_hook_merges_only_for_requests_written_not_removed() -> None:
    zero, sha = "0" * 40, "1" * 40
    text = (
        f"{zero} {sha} refs/vcontext/sync/main/agents/a\n"
        f"{sha} {zero} refs/vcontext/sync/release%2F1/agents/b\n"
        f"{zero} {sha} refs/vcontext/sync/release%2F1/agents/c\n"
        f"{zero} {sha} refs/heads/agents/a\n"
    )
    assert bases_requested(text) == ["main", "release/1"]
    assert bases_requested(f"{sha} {zero} refs/vcontext/sync/main/agents/a\n") == []


def test_the_hook_finds_the_common_directory_without_git(tmp_path: os.PathLike[str]) -> None:
    from pathlib import Path

    root = Path(tmp_path)
    subprocess.run(["git", "init", "-q", str(root / "r")], check=True)
    subprocess.run(["git", "init", "-q", "--bare", str(root / "b.git")], check=True)
    assert Path(find_common_dir(str(root / "r"), {}) or "").samefile(root / "r" / ".git")
    assert Path(find_common_dir(str(root / "b.git"), {}) or "").samefile(root / "b.git")
    linked = root / "r" / ".git" / "worktrees" / "w"
    linked.mkdir(parents=True)
    (linked / "commondir").write_text("../..\n")
    found = find_common_dir(str(root), {"GIT_DIR": str(linked)})
    assert Path(found or "").samefile(root / "r" / ".git")
    assert find_common_dir(str(root), {}) is None


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


class _View:
    """A remote whose lease is held until ``done_after`` looks, then released."""

    def __init__(self, lease: str, said: leases.Lease, done_after: int) -> None:
        self.local = None
        self.base = "main"
        self.branches = ["agents/a"]
        self.looks = 0
        self.lease, self.said, self.done_after = lease, said, done_after

    def poll(self) -> tuple[str | None, int, leases.Lease | None]:
        self.looks += 1
        if self.looks > self.done_after:
            return None, 0, None
        return self.lease, 1, self.said


def _keeper(repo: os.PathLike[str], view: _View) -> object:
    from types import SimpleNamespace

    import pygit2

    from git_vcontext.remote.lease import LeaseKeeper

    pusher = SimpleNamespace(repo=pygit2.Repository(str(repo)), remote="origin", link=None)
    return LeaseKeeper(pusher, view, "agents/a", 30.0)  # type: ignore[arg-type]


def test_sync_at_scale_a_waiter_whose_look_at_landing_was_too_soon_looks_later_next_time(
    tmp_path: os.PathLike[str],
) -> None:
    """Over git a waiter looks when the lease's ``Landing`` says the holder's round lands.
    A look that finds the holder still at it costs a look more: the clone's waiters then
    stretch the integration the next lease announces (by a factor kept in the clone, up
    30 % per look too soon, down 5 % per look in time, between the holder's expectation
    without the slack it adds and 3), so that on a loaded machine a waiter's first look is
    mostly its last, and on a quick one it looks when the round is likely in, not the
    holder's slack after it (8 x 5 over HTTP: a factor kept at 1 looked a median 1.1 s after
    the round landed)."""
    from types import SimpleNamespace

    from git_vcontext.remote.lease import EARLIEST, LeaseKeeper

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    clock = _Clock()

    def wait(done_after: int) -> tuple[LeaseKeeper, _View]:
        start = clock.now
        said = leases.Lease("agents/b", HOST, 1, "/x", start + 30.0, start + 2.0)  # takes 2 s
        snap = SimpleNamespace(lease_id="c0ffee", lease=said)
        view = _View("c0ffee", said, done_after)
        keeper = _keeper(tmp_path, view)
        assert isinstance(keeper, LeaseKeeper)
        keeper.timer = clock  # (the sync's durations: here the same test clock)
        clock.slept.clear()
        keeper.wait(snap, 1, start + 60, clock, clock.sleep, lambda _: None)  # type: ignore[arg-type]
        return keeper, view

    keeper, view = wait(done_after=1)  # the holder was late: two looks
    assert view.looks == 2
    assert 2.0 * 0.9 <= clock.slept[0] <= 2.0 * 1.1  # at its Landing
    assert keeper.lateness() == 1.3
    keeper, view = wait(done_after=0)  # the next lease: 2 s said, 2.6 s waited, one look
    assert view.looks == 1
    assert 2.6 * 0.9 <= clock.slept[0] <= 2.6 * 1.1
    assert keeper.lateness() == 1.3 * 0.95
    for _ in range(6):
        keeper, _ = wait(done_after=0)
    assert EARLIEST < keeper.lateness() < 1.0  # (holders in time: the slack they said is
    for _ in range(20):  # taken off, down to their own expectation, never sooner)
        keeper, _ = wait(done_after=0)
    assert keeper.lateness() == pytest.approx(EARLIEST)
    assert 2.0 * EARLIEST * 0.9 <= clock.slept[0] <= 2.0 * EARLIEST * 1.1  # (2 s said)
    for _ in range(10):
        keeper, _ = wait(done_after=1)
    assert keeper.lateness() == 3.0  # (bounded)


def test_sync_at_scale_a_waiter_that_pushed_without_a_look_looks_after_its_holder_landed(
    tmp_path: os.PathLike[str],
) -> None:
    """A waiter whose push tried the lease without a look first (and lost) knows neither
    when that lease's holder lands nor whether its look saw the waiter's request: it looks
    after ``UNSEEN`` (1.5) of the integration it would take itself (its clone's last, per
    request, times the requests it last saw, as it expects it: not stretched by the slack a
    holder adds to the ``Landing`` it announces, nor by a lateness the clone keeps (set
    here to 2: it would double the pause); 8 x 8 over HTTP both made the first look come a
    median 1.75 s after the round landed), then by what
    that lease says; it says it waits once it has seen who holds the lease (nothing when
    its first look finds its round merged)."""
    from pathlib import Path
    from types import SimpleNamespace

    import pygit2

    from git_vcontext.remote.lease import MERGE_SHARE, UNSEEN, LeaseKeeper

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (Path(tmp_path) / ".git" / "vcontext").mkdir()
    (Path(tmp_path) / ".git" / "vcontext" / "integration-seconds").write_text("1.000\n")
    (Path(tmp_path) / ".git" / "vcontext" / "landing-lateness").write_text("2.000\n")
    clock = _Clock()
    said = leases.Lease("agents/b", HOST, 1, "/x", clock.now + 30.0, clock.now + 2.0)
    snap = SimpleNamespace(
        lease_id=None, lease=None, requests={"agents/b": "b0", "agents/c": "c0"}
    )  # two other agents' requests waited when this clone last looked
    for done_after, looks in ((0, 1), (1, 2)):
        view = _View("c0ffee", said, done_after)
        view.looked = clock.now  # type: ignore[attr-defined]
        link = SimpleNamespace(took={"fetch": 0.2})
        pusher = SimpleNamespace(repo=pygit2.Repository(str(tmp_path)), remote="o", link=link)
        keeper = LeaseKeeper(pusher, view, "agents/a", 30.0)  # type: ignore[arg-type]
        keeper.timer = clock
        lines: list[str] = []
        clock.slept.clear()
        keeper.wait(
            snap, 1, clock.now + 60, clock, clock.sleep, lines.append,  # type: ignore[arg-type]
            lost=True, unseen=True,
        )  # fmt: skip
        assert view.looks == looks
        first = UNSEEN * 1.0 * (1 + MERGE_SHARE * 2)  # (no slack: its own expectation)
        assert first * 0.9 <= clock.slept[0] <= first * 1.1, clock.slept
        if done_after:
            assert len(lines) == 1, lines
            assert "held by agents/b" in lines[0], lines
        else:
            assert lines == []


def test_sync_at_scale_a_waiter_that_never_integrated_times_its_look_by_its_pushes(
    tmp_path: os.PathLike[str],
) -> None:
    """A clone that never integrated (no time kept) whose push tried the lease without a
    look first and lost knows only what that push took (rejected, a round trip all the
    same): it looks after ``UNSEEN`` integrations of such pushes, not at once (it looked
    0.1 s later, and again, before the holder was anywhere near done)."""
    from types import SimpleNamespace

    import pygit2

    from git_vcontext.remote.lease import PUSHES_PER_INTEGRATION, UNSEEN, LeaseKeeper

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    clock = _Clock()
    said = leases.Lease("agents/b", HOST, 1, "/x", clock.now + 30.0, clock.now + 2.0)
    snap = SimpleNamespace(lease_id=None, lease=None, requests={})
    view = _View("c0ffee", said, 0)
    view.looked = clock.now - 100  # type: ignore[attr-defined]
    link = SimpleNamespace(took={"push": 0.4})  # the lost lease push: no fetch yet
    pusher = SimpleNamespace(repo=pygit2.Repository(str(tmp_path)), remote="o", link=link)
    keeper = LeaseKeeper(pusher, view, "agents/a", 30.0)  # type: ignore[arg-type]
    keeper.timer = clock
    keeper.wait(
        snap, 1, clock.now + 60, clock, clock.sleep, lambda _: None,  # type: ignore[arg-type]
        lost=True, unseen=True,
    )  # fmt: skip
    first = UNSEEN * PUSHES_PER_INTEGRATION * 0.4
    assert view.looks == 1
    assert first * 0.9 <= clock.slept[0] <= first * 1.1, clock.slept


def test_sync_at_scale_an_integration_keeps_its_time_per_request_it_merged(
    tmp_path: os.PathLike[str],
) -> None:
    """What an integration took is kept per request it merged (the next lease's
    ``Landing`` is that times the requests then waiting), counted by the requests its push
    carried, not by those the look before its lease push saw: a push that took the lease
    without a look saw none (or an earlier sync's), and its time was kept as if it merged
    those, far off what it merged."""
    from pathlib import Path
    from types import SimpleNamespace

    import pygit2

    from git_vcontext.remote.lease import MERGE_SHARE, LeaseKeeper

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    clock = _Clock()
    view = _View("c0ffee", leases.Lease("a", HOST, 1, "/x", 0.0), 0)
    link = SimpleNamespace(took={"fetch": 0.2, "push": 0.3})
    pusher = SimpleNamespace(repo=pygit2.Repository(str(tmp_path)), remote="o", link=link)
    keeper = LeaseKeeper(pusher, view, "agents/a", 30.0)  # type: ignore[arg-type]
    keeper.won = clock.now  # the lease push landed (seen: 6 requests waiting, long ago)
    clock.now += 1.2
    keeper.landed(clock.now, 2)  # merged 2 other agents' requests in 1.2 s
    kept = Path(tmp_path) / ".git" / "vcontext" / "integration-seconds"
    assert float(kept.read_text()) == round(1.2 / (1 + MERGE_SHARE * 2), 3)


def test_sync_at_scale_a_waiter_lets_the_designated_agent_look_and_push_as_long_as_its_own_took(
    tmp_path: os.PathLike[str],
) -> None:
    """A waiter that leaves a free lease to the agent first by the hash gives it, besides
    its later look (the pause jittered the other way, one lateness step more), the time of
    a look and a lease push as this sync's own took: on a loaded machine both agents' git
    commands are slow alike, and the waiter took the lease itself while the designated
    agent's push was still on its way (a race the test of the two waiters saw at load 15-23)."""
    from types import SimpleNamespace

    import pygit2

    from git_vcontext.remote.lease import JITTER, LATE, LeaseKeeper

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    view = _View("c0ffee", leases.Lease("agents/b", HOST, 1, "/x", 0.0), 0)
    repo = pygit2.Repository(str(tmp_path))
    shares = {}
    for took in ({}, {"fetch": 0.8, "push": 1.5}):
        link = SimpleNamespace(took=took)
        pusher = SimpleNamespace(repo=repo, remote="o", link=link)
        keeper = LeaseKeeper(pusher, view, "agents/a", 30.0)  # type: ignore[arg-type]
        keeper.last_pause = 2.0
        shares[len(took)] = keeper.others_look()
    assert shares[0] == pytest.approx(2.0 * (JITTER[1] * LATE[0] / JITTER[0] - 1))
    assert shares[2] == pytest.approx(shares[0] + 0.8 + 1.5)


def test_sync_at_scale_an_integrations_time_leaves_out_the_ssh_login_it_waited_for(
    tmp_path: os.PathLike[str],
) -> None:
    """The lease push that starts an integration first waits for the sync's ssh login still
    under way (``Link.ready``), then starts the integration's clock and the lease's own
    (its expiry, its ``Landing``): that login is no part of the integration, whose time
    (per request merged) is the next lease's ``Landing``
    (PRODUCT.md, "Sync at scale"). Counted in, each waiter of the next round looked that much
    after its round had landed (8 x 10 over ssh at load 12: logins of 0.5-1.5 s)."""
    from pathlib import Path
    from types import SimpleNamespace

    import pygit2

    from git_vcontext.gitio.remote import Pushed, PushedRef
    from git_vcontext.remote.lease import LeaseKeeper
    from git_vcontext.remote.view import Snapshot

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    clock = _Clock()
    link = SimpleNamespace(took={}, ready=lambda: clock.sleep(0.8))  # the login: 0.8 s more
    ref = leases.lease_ref("main")

    def push_with(publish: object, updates: list[Update], known: object = None) -> Pushed:
        clock.now += 0.3  # the lease push itself
        return Pushed((PushedRef(ref, True, False, ""),), True)

    said: list[leases.Lease] = []

    def lease_commit(lease: leases.Lease, *_: object) -> str:
        said.append(lease)
        return "1" * 40

    pusher = SimpleNamespace(
        repo=pygit2.Repository(str(tmp_path)), remote="o", link=link,
        lease_commit=lease_commit, push_with=push_with,
    )  # fmt: skip
    view = _View("c0ffee", leases.Lease("a", HOST, 1, "/x", 0.0), 0)
    keeper = LeaseKeeper(pusher, view, "agents/a", 30.0)  # type: ignore[arg-type]
    keeper.timer = clock
    snap = Snapshot("c0ffee", {}, None, None, False, {}, True)  # type: ignore[arg-type]
    start = clock.now

    won, _ = keeper.acquire(snap, None, clock.now)  # type: ignore[arg-type]

    assert won
    assert keeper.won == start + 0.8  # after the login, before the lease push
    assert said[0].expires == start + 0.8 + 30.0  # the lease counts from then too
    clock.now += 1.0  # merging, the integration push
    keeper.landed(clock.now, 0)
    kept = Path(tmp_path) / ".git" / "vcontext" / "integration-seconds"
    assert float(kept.read_text()) == pytest.approx(1.3)
