"""How ``sync --push`` judges git's words about the network (``gitio.transport``): what is
transient (retried until ``vcontext.syncTimeout``), what is a real refusal (stops at once),
what may be sent again as it is; and where an ssh URL points. PRODUCT.md, "Sync at scale".
The servers themselves are in tests/git/test_sync_transports.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from git_vcontext.gitio.transport import (
    Backoff,
    Link,
    SshShare,
    SshTarget,
    TransportError,
    clean_stale,
    explained,
    mux_exit,
    remote_config,
    ssh_share,
    ssh_target,
    transient,
    unsent,
)

TRANSIENT = [
    "fatal: unable to access 'http://h/r.git/': Failed to connect to h port 80: Connection refused",
    "fatal: unable to access 'http://h/r.git/': The requested URL returned error: 429",
    "fatal: unable to access 'http://h/r.git/': The requested URL returned error: 502",
    "fatal: unable to access 'http://h/r.git/': The requested URL returned error: 503",
    "fatal: unable to access 'http://h/r.git/': Empty reply from server",
    "error: RPC failed; curl 56 Recv failure: Connection reset by peer\n"
    "fatal: the remote end hung up unexpectedly",
    "kex_exchange_identification: Connection closed by remote host\n"
    "Connection closed by 127.0.0.1 port 22\n"
    "fatal: Could not read from remote repository.\n\n"
    "Please make sure you have the correct access rights\nand the repository exists.",
    "ssh: connect to host h port 22: Connection refused\n"
    "fatal: Could not read from remote repository.",
    # a fetch racing a push that deletes a request ref (the ref listed as the null id)
    "fatal: git upload-pack: not our ref 0000000000000000000000000000000000000000",
]

REFUSED = [
    "fatal: Authentication failed for 'http://h/r.git/'",
    "fatal: repository 'http://h/elsewhere.git/' not found",
    "fatal: unable to access 'http://h/r.git/': The requested URL returned error: 403",
    "git@h: Permission denied (publickey).\nfatal: Could not read from remote repository.",
    "fatal: '/srv/elsewhere.git' does not appear to be a git repository\n"
    "fatal: Could not read from remote repository.",
    "ssh: Could not resolve hostname nowhere: Name or service not known\n"
    "fatal: Could not read from remote repository.",
    "Host key verification failed.\nfatal: Could not read from remote repository.",
    "fatal: could not read Username for 'https://h': terminal prompts disabled",
    # ssh refusing the URL or its command line (a remote URL from config, TMPDIR): no retry
    "hostname contains invalid characters\nfatal: Could not read from remote repository.",
    "Bad port 'x'\nfatal: Could not read from remote repository.",
    "command-line: line 0: Bad configuration option: bogus\n"
    "fatal: Could not read from remote repository.",
    "command-line line 0: keyword controlpath extra arguments at end of line\n"
    "fatal: Could not read from remote repository.",
    # an object the remote truly lacks is no race: asking again cannot help
    "fatal: git upload-pack: not our ref 1234567890123456789012345678901234567890",
]


@pytest.mark.parametrize("stderr", TRANSIENT)
def test_sync_at_scale_transient_failures_are_retried(stderr: str) -> None:
    assert transient(stderr)


@pytest.mark.parametrize("stderr", REFUSED)
def test_sync_at_scale_real_refusals_stop_at_once(stderr: str) -> None:
    assert not transient(stderr)


def test_an_answer_of_the_remote_is_not_a_network_failure() -> None:
    """A rejection, a lock, a missing ref: the remote answered; the caller reads it."""
    for stderr in (
        " ! [rejected]        main -> main (fetch first)",
        "remote: error: cannot lock ref 'refs/vcontext/x': Unable to create '/r/x.lock'",
        "fatal: couldn't find remote ref refs/heads/agents/a",
        "fatal: the receiving end does not support --atomic push\n"
        "fatal: the remote end hung up unexpectedly",  # (push falls back to plain pushes)
    ):
        assert not transient(stderr), stderr


def test_a_push_is_sent_again_only_when_nothing_was_sent() -> None:
    """The first HTTP request or the ssh connection failed: nothing reached the remote. A
    connection that dropped mid-push may have landed: the sync looks first."""
    assert unsent(TRANSIENT[1])  # 429 on the first request
    assert unsent(TRANSIENT[0])  # connection refused
    assert unsent(TRANSIENT[6])  # kex_exchange_identification
    assert not unsent(TRANSIENT[5])  # reset while sending the pack


def test_explained_keeps_the_lines_that_say_why_and_drops_gits_advice() -> None:
    said = explained(TRANSIENT[6], 128)
    assert said.startswith("Could not read from remote repository.")
    assert "kex_exchange_identification" in said
    assert "access rights" not in said
    assert explained("", 128) == "exit status 128"


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("ssh://git@host:2222/srv/r.git", SshTarget("host", "git", "2222")),
        ("ssh://host/srv/r.git", SshTarget("host")),
        ("git+ssh://u@[::1]:22/r.git", SshTarget("::1", "u", "22")),
        ("git@host:srv/r.git", SshTarget("host", "git")),
        ("host:r.git", SshTarget("host")),
        ("http://host/r.git", None),
        ("/srv/r.git", None),
        ("./a:b", None),
        ("dir/a:b", None),
    ],
)
def test_ssh_target_of_a_url(url: str, target: SshTarget | None) -> None:
    assert ssh_target(url) == target


@pytest.mark.parametrize(
    "url",
    [
        "ext::ssh -p 22 host %S r.git",  # a remote helper's address: git runs no ssh for it
        "fd::7",
        "codecommit::us-east-1://r",
        "host::r.git",
        "9p::r.git",  # a digit first: git runs git-remote-9p all the same (is_urlschemechar)
        "ssh://-oProxyCommand=touch$IFS/tmp/x/r.git",  # git: "strange hostname blocked"
        "ssh://-u@host/r.git",
        "-host:r.git",
        "-u@host:r.git",
        "ssh://%2Dox@host/r.git",  # git decodes it: not the user ssh would be given
        "ssh://host:-1/r.git",  # git: "strange port blocked"
        "ssh://host:22x/r.git",
        "h o:r.git",
    ],
)
def test_ssh_target_none_where_git_would_run_no_ssh_or_refuse(url: str) -> None:
    """Nothing from outside reaches a command line unchecked: the early login is only
    for a destination git itself would hand to ssh as it is."""
    assert ssh_target(url) is None


def test_ssh_target_arguments_end_options_before_the_host() -> None:
    """A host from the remote's URL goes after ``--``: never read as an ssh option."""
    assert SshTarget("-oProxyCommand=x", "u", "22").args() == [
        "-p", "22", "-l", "u", "--", "-oProxyCommand=x",
    ]  # fmt: skip


def test_backoff_grows_with_jitter_and_is_capped() -> None:
    backoff = Backoff()
    pauses = [backoff.next() for _ in range(12)]
    assert 0.125 <= pauses[0] <= 0.375
    assert all(p <= 7.5 for p in pauses)  # 5 s × at most 1.5
    assert pauses[6] > pauses[0]


def _retried_until_it_stops(link: Link) -> TransportError:
    """A fetch refused again and again, retried on ``link`` with one backoff (100 tries at
    most) until the link gives up: the error it gives up with."""
    backoff = Backoff()

    def until_it_stops() -> None:
        for _ in range(100):
            link.wait("git fetch origin: Connection refused", backoff)

    with pytest.raises(TransportError) as stopped:
        until_it_stops()
    return stopped.value


def test_sync_at_scale_retries_last_until_the_sync_timeout_itself() -> None:
    """Pauses never cut the wait short: the last try is at the deadline, then it stops with
    the setting to change (vcontext.syncTimeout)."""
    now = [0.0]
    link = Link(
        ".", "origin", clock=lambda: now[0], sleep=lambda s: now.__setitem__(0, now[0] + s),
        timer=lambda: now[0],
    )  # fmt: skip
    link.deadline = 4.0

    stopped = _retried_until_it_stops(link)

    assert now[0] == pytest.approx(4.0)
    assert stopped.final
    assert "vcontext.syncTimeout" in stopped.message


@pytest.mark.parametrize(
    ("terminal", "agent", "opened"),
    [(True, None, False), (True, "/run/agent.sock", True), (False, None, True)],
    ids=["terminal-no-agent", "terminal-agent", "no-terminal"],
)
def test_sync_over_ssh_logs_in_early_only_where_no_prompt_is_needed(
    terminal: bool, agent: str | None, opened: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sync's early login (``ssh -f -N``, BatchMode) is skipped for someone at a
    terminal without an ssh agent: a passphrase to type cannot work there, and a login
    tried for nothing is one a server may count as failed; git's own ssh asks as always."""
    import os
    import shutil
    import subprocess

    started: list[list[str]] = []

    class Started:
        pid = 0

        def __init__(self, argv: list[str], **_: object) -> None:
            started.append(argv)

        def wait(self, timeout: float | None = None) -> int:
            return 0

    monkeypatch.setattr(os, "isatty", lambda fd: terminal)
    if agent is None:
        monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    else:
        monkeypatch.setenv("SSH_AUTH_SOCK", agent)
    monkeypatch.setattr(subprocess, "Popen", Started)
    share = SshShare("ssh", [SshTarget("localhost")])
    try:
        share.open()
        assert bool(started) == opened, started
        if opened:
            assert started[0][-4:] == ["-f", "-N", "--", "localhost"]
            assert "BatchMode=yes" in started[0]
    finally:
        shutil.rmtree(share.folder, ignore_errors=True)


@pytest.mark.parametrize(
    ("answer", "ended"),
    [("ok", True), ("closed", True), ("denied", False), ("nobody", False)],
)
def test_sync_over_ssh_ends_its_master_in_process(answer: str, ended: bool, tmp_path: Path) -> None:
    """A sync ends its ssh master as ``ssh -O exit`` does, without starting ssh for it
    (PRODUCT.md, "Sync at scale": no ssh process outlives the command): OpenSSH's mux
    protocol, a hello then a terminate request; the master's yes — or its socket closing,
    as a master exiting at once does — ends it; a no, or nobody listening, leaves it to
    ``ssh -O exit``."""
    import socket
    import struct
    import threading

    path = str(tmp_path / "control")
    heard: list[bytes] = []
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if answer != "nobody":
        listener.bind(path)
        listener.listen(1)

    def master() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.sendall(struct.pack(">III", 8, 1, 4))  # its hello, version 4
            for _ in range(2):
                size = struct.unpack(">I", conn.recv(4))[0]
                heard.append(conn.recv(size))
            if answer == "ok":
                conn.sendall(struct.pack(">III", 8, 0x80000001, 1))
            elif answer == "denied":
                conn.sendall(struct.pack(">III", 8, 0x80000002, 1))

    thread = threading.Thread(target=master, daemon=True)
    if answer != "nobody":
        thread.start()
    try:
        assert mux_exit(path) is ended
    finally:
        listener.close()
    if answer != "nobody":
        thread.join(5)
        assert heard == [struct.pack(">II", 1, 4), struct.pack(">II", 0x10000005, 1)]


def test_sync_over_ssh_a_master_answering_a_byte_at_a_time_holds_up_its_end_two_seconds(
    tmp_path: Path,
) -> None:
    """The mux exit never hangs the sync (PRODUCT.md, "Sync at scale": a sync's end is not
    held up): a socket that answers its hello with a long message a byte at a time (each
    byte within the per-read timeout) gets two seconds in all, then ``ssh -O exit`` is
    left to end it (fails before: a read timeout per byte, up to 64 KiB of them)."""
    import socket
    import struct
    import threading
    import time

    path = str(tmp_path / "control")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)
    stop = threading.Event()

    def master() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.sendall(struct.pack(">I", 60000))
            while not stop.wait(0.2):
                try:
                    conn.sendall(b"x")
                except OSError:
                    return

    thread = threading.Thread(target=master, daemon=True)
    thread.start()
    start = time.monotonic()
    try:
        assert mux_exit(path) is False
        assert time.monotonic() - start < 3.0
    finally:
        stop.set()
        listener.close()
        thread.join(5)


@pytest.mark.parametrize(
    "command",
    [
        "ssh -o ControlMaster=no",
        "ssh -oControlPath=/tmp/mine/%C",
        "ssh -o controlpersist=yes",
        "ssh -M",
        "ssh -vS /tmp/sock",
    ],
)
def test_sync_over_ssh_leaves_a_command_line_that_shares_by_itself_alone(
    tmp_path: Path, command: str
) -> None:
    """The user's own connection sharing is used as it is (PRODUCT.md, "Sync at scale"),
    said on the ssh command line too: ssh takes the first value it is given, so with
    ``-o ControlMaster=no`` ours was ignored and the early ``ssh -f -N`` stayed behind as a
    background session no control socket could end (``ssh -G`` says "false" for both)."""
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "config", "core.sshCommand", command], check=True)
    import shutil

    assert ssh_share(str(tmp_path), "localhost:r.git") is None
    subprocess.run(["git", "-C", str(tmp_path), "config", "core.sshCommand", "ssh -v"], check=True)
    share = ssh_share(str(tmp_path), "localhost:r.git")
    assert share is not None
    shutil.rmtree(share.folder, ignore_errors=True)


@pytest.mark.parametrize("step", [-3600.0, 3600.0], ids=["set-back", "set-forward"])
def test_sync_at_scale_a_wall_clock_step_neither_ends_nor_extends_the_retries(
    step: float,
) -> None:
    """The retries last ``vcontext.syncTimeout`` whatever the wall clock does meanwhile
    (PRODUCT.md, "Sync at scale": a transient failure is retried inside the sync's
    deadline): the deadline is kept on a monotonic timer, so an hour's step of the wall
    clock in the middle (NTP, a laptop waking up) neither stops the sync at once nor
    keeps it trying for an hour more."""
    wall, mono = [1_000_000.0], [50.0]

    def sleep(seconds: float) -> None:
        wall[0] += seconds
        mono[0] += seconds
        if len(pauses) == 2:
            wall[0] += step  # the clock is set, between two tries
        pauses.append(seconds)

    pauses: list[float] = []
    link = Link(".", "origin", clock=lambda: wall[0], sleep=sleep, timer=lambda: mono[0])
    link.deadline = link.clock() + 20.0
    assert link.deadline == pytest.approx(wall[0] + 20.0)
    assert link._left() == pytest.approx(20.0)

    stopped = _retried_until_it_stops(link)

    assert stopped.final
    assert mono[0] == pytest.approx(70.0)  # 20 s of pauses: no more, no less
    assert len(pauses) > 3
    assert link.deadline == pytest.approx(wall[0])  # said in the wall clock's new terms


@pytest.mark.parametrize(
    "tmp", ["/tmp/a b", "/tmp/p%d", "/tmp/q'u\"o"], ids=["space", "percent", "quote"]
)
def test_sync_at_scale_shared_ssh_socket_path_is_one_word_ssh_reads(
    tmp: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A value from outside (TMPDIR) reaches ssh's ``-o ControlPath=``: ssh splits an
    option's value at spaces (``extra arguments at end of line``, every ssh command of the
    sync fails) and expands ``%`` tokens; the socket goes where neither can happen."""
    import os
    import shlex
    import shutil
    import subprocess
    import tempfile

    os.makedirs(tmp, exist_ok=True)
    monkeypatch.setattr(tempfile, "tempdir", tmp)
    share = SshShare("ssh", [SshTarget("localhost")])
    try:
        folder = share.folder
        assert all(c.isalnum() or c in "/._-" for c in folder), folder
        ssh = shutil.which("ssh")
        if ssh is None:
            pytest.skip("no ssh client here to read the options")
        words = shlex.split(share.command)[1:]
        said = subprocess.run(
            [ssh, "-G", *words, "--", "localhost"], capture_output=True, text=True, check=False
        )
        assert said.returncode == 0, said.stderr
        assert f"controlpath {folder}/" in said.stdout
    finally:
        shutil.rmtree(share.folder, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)


def _dead_pid() -> int:
    """The pid of a process that has ended (reaped: nothing runs under it now)."""
    import subprocess

    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_sync_at_scale_a_killed_syncs_ssh_folder_is_removed_by_the_next_one() -> None:
    """A killed sync leaves its control folder (``vcontext-ssh-<pid>-…``, its master's
    socket in it): the next sync's start removes the folders whose sync is gone, and keeps
    those of a sync still running, an older version's (no pid) that is still young, and
    any folder of that name holding something else than sockets (not one of ours)."""
    import os
    import shutil
    import socket
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="vc-", dir="/tmp"))  # (a socket's path is short)
    try:
        gone = _dead_pid()
        dead = root / f"vcontext-ssh-{gone}-abc"
        live = root / f"vcontext-ssh-{os.getpid()}-def"
        young = root / "vcontext-ssh-x1y2z3"
        other = root / "something-else"
        files = root / f"vcontext-ssh-{gone}-files"  # someone else's folder of that name
        listeners = []
        for folder in (dead, live, young, other, files):
            folder.mkdir()
            listener = socket.socket(socket.AF_UNIX)
            listener.bind(str(folder / "s"))  # (a socket file its master left)
            listeners.append(listener)
        (files / "remote.git").mkdir()
        old = root / "vcontext-ssh-q9w8e7"
        old.mkdir()
        os.utime(old, (0, 0))
        removed = clean_stale(str(root), "true")
        assert sorted(removed) == sorted([str(dead), str(old)])
        assert not dead.exists()
        assert not old.exists()
        for kept in (live, young, other, files):
            assert (kept / "s").exists(), kept
        assert (files / "remote.git").is_dir()
        for listener in listeners:
            listener.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_sync_at_scale_a_new_ssh_folder_names_its_sync() -> None:
    """The folder's name carries the pid of the sync that made it (what the cleaning reads)."""
    import os
    import shutil

    share = SshShare("ssh", [SshTarget("localhost")])
    try:
        assert os.path.basename(share.folder).startswith(f"vcontext-ssh-{os.getpid()}-")
    finally:
        shutil.rmtree(share.folder, ignore_errors=True)


def test_remote_config_reads_urls_as_git_rewrites_them_in_one_command(
    tmp_path: Path,
) -> None:
    """One ``git config`` gives what ``git remote get-url`` (and ``--push``) would say:
    ``insteadOf`` (the longest match) for both, ``pushInsteadOf`` for pushes when the remote
    has no ``pushurl``; and the ssh command and variant."""
    import subprocess

    repo = tmp_path
    subprocess.run(["git", "init", "-q", str(repo)], check=True)

    def config(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), "config", *args], check=True)

    config("remote.my.origin.url", "gh:team/memory.git")
    config("url.ssh://git@github.example/.insteadOf", "gh:")
    config("url.ssh://git@mirror.example/team/.insteadOf", "gh:team/")
    config("url.ssh://push@github.example/.pushInsteadOf", "gh:")
    config("core.sshCommand", "ssh -F /dev/null")
    got = remote_config(str(repo), "my.origin")
    want = subprocess.run(
        ["git", "-C", str(repo), "remote", "get-url", "my.origin"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    want_push = subprocess.run(
        ["git", "-C", str(repo), "remote", "get-url", "--push", "my.origin"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert got.urls == (want,) == ("ssh://git@mirror.example/team/memory.git",)
    assert got.push_urls == (want_push,) == ("ssh://push@github.example/team/memory.git",)
    assert got.ssh_command == "ssh -F /dev/null"
    config("remote.my.origin.pushurl", "gh:other/memory.git")
    got = remote_config(str(repo), "my.origin")
    assert got.push_urls == ("ssh://git@github.example/other/memory.git",)
    assert remote_config(str(repo), "gh:x/y.git").urls == ("ssh://git@github.example/x/y.git",)
    config("remote.my.origin.vcs", "hg")  # git runs git-remote-hg for it: no ssh URL
    assert remote_config(str(repo), "my.origin").urls == ()


def test_sync_at_scale_the_kept_ssh_folder_is_private_and_ours_or_not_used(
    tmp_path: Path,
) -> None:
    """The folder of the control sockets that outlive a sync (``vcontext-ssh-u<uid>``) is
    made private (0700) and used only when it is this user's own private folder: a name
    taken by a symbolic link, a file or a folder others can enter is not used (the sync
    then shares its connection with its own commands only), and the next sync's cleaning
    never removes it (its masters end by themselves once idle)."""
    import os
    import stat

    from git_vcontext.gitio.transport import SHARE_PREFIX, user_folder

    name = f"{SHARE_PREFIX}u{os.getuid()}"
    made = user_folder(str(tmp_path))
    assert made == str(tmp_path / name)
    assert stat.S_IMODE(os.lstat(made).st_mode) == 0o700
    assert clean_stale(str(tmp_path), "true") == []
    assert (tmp_path / name).is_dir()
    os.chmod(made, 0o755)
    assert user_folder(str(tmp_path)) is None  # others may enter it: not ours to trust
    os.rmdir(made)
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    (tmp_path / name).symlink_to(tmp_path / "elsewhere")
    assert user_folder(str(tmp_path)) is None
    (tmp_path / name).unlink()
    (tmp_path / name).write_text("")
    assert user_folder(str(tmp_path)) is None


def test_sync_at_scale_a_kept_ssh_socket_is_the_clones_and_outlives_the_sync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``vcontext.sshPersist`` > 0 the control socket is in the user's folder, named
    by the clone and its ssh settings (another clone: another connection), ``ControlPersist``
    is that many seconds, and ``close()`` leaves the master running; with 0 the sync's own
    folder is used and removed."""
    import os
    import shlex
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    kept = SshShare("ssh", [SshTarget("localhost")], persist=45, key="0123456789abcdef")
    assert kept.kept
    assert kept.path == os.path.join(kept.folder, "01234567-%C")
    assert "ControlPersist=45" in shlex.split(kept.command)
    kept.close()
    assert os.path.isdir(kept.folder)  # (its masters end by themselves)
    other = SshShare("ssh", [SshTarget("localhost")], persist=45, key="fedcba9876543210")
    assert other.folder == kept.folder
    assert other.path != kept.path
    own = SshShare("ssh", [SshTarget("localhost")], persist=0)
    assert not own.kept
    assert os.path.basename(own.folder).startswith(f"vcontext-ssh-{os.getpid()}-")
    own.close()
    assert not os.path.exists(own.folder)


def test_sync_at_scale_a_rejected_push_counts_as_a_round_trip(tmp_path: Path) -> None:
    """``Link.took`` keeps what a push the remote answered took, rejected or not: a waiter
    whose lease push lost (its only command yet) times its first look by it."""
    import subprocess

    def run(*args: str, cwd: Path = tmp_path) -> None:
        subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)

    run("init", "-q", "--bare", "remote.git")
    run("init", "-q", "here")
    here = tmp_path / "here"
    run("-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "x",
        cwd=here)  # fmt: skip
    run("push", "-q", str(tmp_path / "remote.git"), "HEAD:refs/vcontext/lease/main", cwd=here)
    run("-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "y",
        cwd=here)  # fmt: skip
    link = Link(str(here), str(tmp_path / "remote.git"))
    stale = "--force-with-lease=refs/vcontext/lease/main:" + "1" * 40
    lease = "HEAD:refs/vcontext/lease/main"
    out = link.run("push", ["--porcelain", stale, "--", link.remote, lease])
    assert out.returncode != 0
    assert "stale info" in out.stdout
    assert link.took.get("push", 0) > 0


def test_sync_over_ssh_a_commands_time_leaves_out_the_login_it_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Link.took`` (what waiters and the lease's ``Landing`` are timed by) keeps what the
    command took, not the wait before it for the shared connection's login the sync
    started early (``SshShare.ready``): a first push that waited 0.5 s for it was kept as
    a 0.5 s push, and every estimate made from it with it. ``Link.ready`` waits for that
    login alone (PRODUCT.md, "Sync at scale")."""
    import subprocess
    import time

    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "remote.git")], check=True)
    share = SshShare("ssh", [SshTarget("localhost")])
    waited: list[float] = []
    logged_in: list[float] = []  # when each wait for the login ended

    def login(timeout: float | None) -> None:  # the early login, still under way
        time.sleep(0.5)
        waited.append(0.5)
        logged_in.append(time.monotonic())

    monkeypatch.setattr(share, "ready", login)
    link = Link(str(tmp_path), str(tmp_path / "remote.git"))
    link._ssh = share  # (a path: git runs no ssh, whatever GIT_SSH_COMMAND says)
    try:
        start = time.monotonic()
        out = link.run("ls-remote", ["--", link.remote])
        assert out.returncode == 0
        after = time.monotonic()
        assert after - start >= 0.5
        # What the command took fits between the login's end and run's return; counted
        # with the login it would be 0.5 s longer than that. (Was "< 0.5": a bound on
        # git's own time, which a loaded machine can pass; this holds at any speed.)
        assert link.took["ls-remote"] <= after - logged_in[0]
        link.ready()
        assert waited == [0.5, 0.5]
    finally:
        share.close()
