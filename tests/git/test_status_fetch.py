"""``status`` says what its counts are relative to, and ``status --fetch`` looks at the
remote first (PRODUCT.md, command-line contract for ``status``; "Branch-per-agent
workflow"). Like ``git status``, ``status`` does not fetch: its rows count against the
base branch here (what a plain ``sync`` merges into, so status and sync agree) and a base
that tracks a remote is compared with it *as of the last fetch*, said in its own line.
``--fetch`` fetches each base's upstream and the agent branches first, through sync's
transport and with every value checked before git sees it."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from helpers.next_steps import setting_advice
from helpers.run import run_cli, run_git
from helpers.sync_repos import EPOCH, clone, commit_all, edit, fork_by_hand, rev, seed, status, sync


@pytest.fixture
def team(git_repo: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    """(the bare remote, this clone: main tracking origin/main and agents/alice with work,
    another clone of the remote)."""
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    seed(git_repo)
    run_git(git_repo, "remote", "add", "origin", str(remote))
    run_git(git_repo, "push", "-q", "-u", "origin", "main")
    fork_by_hand(git_repo, "alice")
    run_git(git_repo, "switch", "-q", "agents/alice")
    edit(git_repo, "todo.vcontext.json", status(("t1", "completed")))
    commit_all(git_repo, "alice ticks t1")
    run_git(git_repo, "switch", "-q", "main")
    return remote, git_repo, clone(remote, tmp_path / "other")


def _status(repo: Path, *args: str) -> tuple[int, str, str]:
    proc = run_cli("status", *args, cwd=repo, env=EPOCH)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def _json(repo: Path, *args: str) -> dict[str, Any]:
    code, out, err = _status(repo, "--format", "json", *args)
    assert code == 0, out + err
    data: dict[str, Any] = json.loads(out)
    return data


def _other_pushes_main(other: Path) -> None:
    edit(other, "todo.vcontext.json", status(("t3", "blocked")))
    commit_all(other, "someone else blocks t3")
    run_git(other, "push", "-q", "origin", "main")


def test_status_says_its_counts_are_against_the_base_here_and_the_remote_as_last_fetched(
    team: tuple[Path, Path, Path],
) -> None:
    _, repo, other = team
    _other_pushes_main(other)  # the remote's main moved; this clone has not fetched

    code, out, err = _status(repo)

    assert code == 0, out + err
    assert "main: counts against main here, up to date with origin/main as of the last fetch" in (
        out.splitlines()
    )
    assert _json(repo)["bases"] == [
        {
            "base": "main",
            "upstream": "origin/main",
            "remote": "origin",
            "branch": "main",
            "fetched": True,
            "ahead": 0,
            "behind": 0,
            "usable": True,
            "gone": False,
        }
    ]


def test_status_fetch_fetches_first_and_says_how_far_behind_the_base_is(
    team: tuple[Path, Path, Path],
) -> None:
    remote, repo, other = team
    _other_pushes_main(other)
    main_before = rev(repo, "main")

    code, out, err = _status(repo, "--fetch")

    assert code == 0, out + err
    [line] = [ln for ln in out.splitlines() if ln.startswith("main: ")]
    assert line == (
        "main: counts against main here, 1 commit behind origin/main as of the last fetch: "
        "git vcontext sync alice --push origin syncs with origin/main"
    )
    assert rev(repo, "refs/remotes/origin/main") == rev(remote, "main")  # as git fetch does
    assert rev(repo, "main") == main_before  # status moves no branch
    bases = _json(repo)["bases"]  # the next status, without --fetch, says the same
    assert bases == [
        {
            "base": "main",
            "upstream": "origin/main",
            "remote": "origin",
            "branch": "main",
            "fetched": True,
            "ahead": 0,
            "behind": 1,
            "usable": True,
            "gone": False,
        }
    ]
    # status and sync agree: the row is what a plain sync does, into main as it is here
    agents = {r["agent"]: r for r in _json(repo)["agents"]}
    assert agents["alice"]["state"] == "needs sync"
    assert agents["alice"]["next"] == ["git vcontext sync alice --push origin"]  # trial13b
    code, out, err = sync(repo, "alice", "--dry-run")
    assert code == 0, out + err
    assert "up to date" not in out


def test_status_fetch_finds_an_agent_only_the_remote_has(
    team: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    _, repo, other = team
    run_git(other, "switch", "-q", "-c", "agents/bob")
    edit(other, "todo.vcontext.json", status(("t2", "completed")))
    commit_all(other, "bob ticks t2")
    run_git(other, "push", "-q", "origin", "agents/bob")
    assert "bob" not in {r["agent"] for r in _json(repo)["agents"]}  # not fetched yet

    rows = {r["agent"]: r for r in _json(repo, "--fetch")["agents"]}

    assert rows["bob"]["remote"] == "origin/agents/bob"


def test_status_fetch_checks_the_remote_it_reads_from_config_before_git_sees_it(
    team: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    _, repo, _ = team
    mark = tmp_path / "ran"
    run_git(repo, "config", "branch.main.remote", f"ext::sh -c touch% {mark}")

    code, _, err = _status(repo, "--fetch")

    assert code != 0
    assert "Traceback" not in err
    assert err.count("\n") == 1, err
    assert "branch.main.remote" in err
    assert not mark.exists()


def test_status_fetch_of_a_base_that_tracks_no_remote_says_so_and_shows_the_rows(
    git_repo: Path,
) -> None:
    seed(git_repo)
    fork_by_hand(git_repo, "alice")

    code, out, err = _status(git_repo, "--fetch")

    assert code == 0, out + err
    assert "main tracks no remote: nothing fetched for it" in err
    assert out.startswith("AGENT")
    assert "as of the last fetch" not in out


@pytest.mark.parametrize("remote", ["gone", "ext::sh -c touch% ran"])
def test_status_of_a_base_whose_remote_is_not_usable_advises_no_fetch_that_fails(
    team: tuple[Path, Path, Path], remote: str
) -> None:
    # branch.main.remote names a remote that was removed (or is no remote at all): the line
    # under the table named `status --fetch` as the way forward, which stops on that very
    # value (exit 3); it says what is wrong instead, with git's own ways out
    _, repo, _ = team
    run_git(repo, "config", "branch.main.remote", remote)

    code, out, err = _status(repo)

    assert code == 0, out + err
    line = out.splitlines()[-1]
    assert line.startswith("main: counts against main here; its upstream's remote "), line
    assert "is not a configured remote" in line
    assert "--fetch" not in out
    assert "git branch --unset-upstream main" in line
    assert _json(repo)["bases"] == [
        {"base": "main", "upstream": f"{remote}/main", "remote": remote, "branch": "main",
         "fetched": False, "ahead": 0,
         "behind": 0, "usable": False, "gone": False}
    ]  # fmt: skip
    code, _, err = _status(repo, "--fetch")
    assert code in (2, 3), err  # what the line spares the user
    assert "branch.main.remote" in err


def test_status_fetch_of_a_base_the_remote_no_longer_has_says_so(
    team: tuple[Path, Path, Path],
) -> None:
    # the remote's main was deleted (renamed there): --fetch found no main, yet the line
    # said 'up to date with origin/main as of the last fetch' from the copy fetched before
    remote, repo, _ = team
    run_git(remote, "branch", "-q", "trunk", "main")
    run_git(remote, "symbolic-ref", "HEAD", "refs/heads/trunk")
    run_git(remote, "branch", "-q", "-D", "main")

    code, out, err = _status(repo, "--fetch")

    assert code == 0, out + err
    line = out.splitlines()[-1]
    assert "as of the last fetch" not in line, line
    assert line == (
        "main: counts against main here; origin has no main as fetched now"
        " (to stop tracking it: git branch --unset-upstream main)"
    )
    assert _json(repo)["bases"][0]["fetched"] is True  # without --fetch: the last fetch's


def test_status_fetch_from_a_dead_remote_answers_within_its_own_deadline(
    team: tuple[Path, Path, Path],
) -> None:
    """A status answers promptly: ``status --fetch`` retries a remote that refuses
    connections (transient, as for sync) only until ``vcontext.statusTimeout`` (15 s by
    default), not sync's ``vcontext.syncTimeout`` (600 s), then stops in one line naming
    its setting (exit 3, the command-line contract)."""
    _, repo, _ = team
    run_git(repo, "remote", "set-url", "origin", "http://127.0.0.1:1/remote.git")
    run_git(repo, "config", "vcontext.syncTimeout", "600")
    started = time.monotonic()

    proc = run_cli("status", "--fetch", cwd=repo, env=EPOCH, timeout=90)

    took = time.monotonic() - started
    assert proc.returncode == 3, proc.stdout + proc.stderr
    last = proc.stderr.decode().splitlines()[-1]
    assert "git config vcontext.statusTimeout" in last
    assert "trying again" in proc.stderr.decode()  # transient: it was retried
    assert 10 < took < 60, took


class _Silent:
    """A server on loopback that accepts connections and never answers (a hung proxy, a
    stopped server process): git's fetch waits on it for ever. Records when each
    connection it accepted was closed by the other end."""

    def __init__(self) -> None:
        import socket
        import threading

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.closed: list[float] = []
        self._stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        import threading

        self.sock.settimeout(0.2)
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            threading.Thread(target=self._hold, args=(conn,), daemon=True).start()

    def _hold(self, conn: Any) -> None:
        conn.settimeout(0.2)
        while not self._stop.is_set():
            try:
                if conn.recv(65536) == b"":  # the other end went away
                    self.closed.append(time.monotonic())
                    break
            except TimeoutError:
                continue
            except OSError:
                self.closed.append(time.monotonic())
                break
        conn.close()

    def stop(self) -> None:
        self._stop.set()
        self.sock.close()


def test_status_fetch_kills_a_fetch_that_hangs_at_its_deadline(
    team: tuple[Path, Path, Path],
) -> None:
    """Command-line contract (``status --fetch`` answers within ``vcontext.statusTimeout``,
    exit 3 with one line naming it) and "Sync at scale" (transient failures are retried
    until the deadline): a server that accepts the connection and never answers held
    ``status --fetch`` for ever — the deadline bounded retries, not one hanging fetch. The
    fetch is now killed at the deadline with the processes it started (git-remote-http
    held the connection): the server sees it closed, and status stops in one line."""
    _, repo, _ = team
    server = _Silent()
    try:
        run_git(repo, "remote", "set-url", "origin", f"http://127.0.0.1:{server.port}/r.git")
        run_git(repo, "config", "vcontext.statusTimeout", "2")
        started = time.monotonic()

        proc = run_cli("status", "--fetch", cwd=repo, env=EPOCH, timeout=120)

        took = time.monotonic() - started
        ended = time.monotonic()
        assert proc.returncode == 3, proc.stdout + proc.stderr
        last = proc.stderr.decode().splitlines()[-1]
        assert "timed out" in last, last
        assert "git config vcontext.statusTimeout" in last, last
        setting_advice(last, "vcontext.statusTimeout", "30", repo)  # pasted: does as it says
        # The wait is the deadline (2 s), at least LAST_TRY (5 s) for the try: 7 s; the rest
        # is the command's own start and status, seconds idle but ~20 s at load 25 on 2
        # cores, where "< 20" failed at 26.7 s. A fetch left hanging never ends (the
        # server never answers): it runs into run_cli's timeout, whatever this bound.
        assert took < 50, took
        assert server.accepted >= 1
        for _ in range(50):  # every connection it opened was closed by now (or at once)
            if len(server.closed) == server.accepted:
                break
            time.sleep(0.1)
        assert len(server.closed) == server.accepted, (server.accepted, server.closed)
        assert all(at <= ended + 1 for at in server.closed)
    finally:
        server.stop()


@pytest.mark.parametrize("value", ["inf", "nan", "1e400", "-inf", "86401"])
def test_a_status_timeout_no_deadline_can_hold_is_refused_naming_the_key(
    team: tuple[Path, Path, Path], value: str
) -> None:
    """Command-line contract (exit 3, one line): ``vcontext.statusTimeout=inf`` made
    ``status --fetch`` retry a failing remote for ever. A value that is no finite number,
    or more than a day, is refused before anything is fetched, in one line naming the
    key and the command that sets its default; git refuses a numeric setting it cannot
    hold too ("bad numeric config value"), rather than clamp it without a word."""
    _, repo, _ = team
    run_git(repo, "remote", "set-url", "origin", "http://127.0.0.1:1/remote.git")
    run_git(repo, "config", "vcontext.statusTimeout", value)

    proc = run_cli("status", "--fetch", cwd=repo, env=EPOCH, timeout=60)

    assert proc.returncode == 3, proc.stdout + proc.stderr
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert f"vcontext.statusTimeout {value!r} is out of range" in lines[0]
    assert lines[0].endswith("git config vcontext.statusTimeout 15 (the default)")
    assert "trying again" not in proc.stderr.decode()
