"""``sync --push`` over the transports agents really use: HTTP and SSH, against real git
servers on loopback that the tests start and stop (``helpers.git_servers``).

PRODUCT.md, "Sync at scale": over any transport git speaks (a path, HTTP(S), SSH), a
transient failure (a connection refused, closed or reset, ``kex_exchange_identification``,
HTTP 429/502/503) is retried with backoff and jitter inside the sync's deadline
(``vcontext.syncTimeout``); a real refusal (authentication, permissions, a missing
repository) stops the sync at once. Many agents lose no event and no sync gives up —
through a network that drops every third connection and against a stock sshd that sheds
unauthenticated connections (``MaxStartups 10:30:100``) too. ``install --server`` run by
the wrong user (root, in a repository the server's user owns) refuses or fixes it in one
line, ``doctor`` in the bare repository says so, and sync shows the remote's own lines
without retrying what is not transient (issue 30). And what a sync costs on the network:
git commands that talk to the remote, ssh connections, git's auto maintenance.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.remote.lease import EARLIEST, LATE
from git_vcontext.remote.refs import DEFAULT_SECONDS
from helpers import git_servers as servers
from helpers import soak
from helpers.run import add_packs

AGENTS = 3
ROUNDS = 2
GITS_LOOKS = {"vcontext.inProcessHttp": "false"}
"""For the tests that count git's commands from its trace: every look over HTTP is a git
fetch (a look taken in process is none; ``test_sync_http_in_process``)."""


# -- servers ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sshd() -> Iterator[servers.SshServer]:
    """One stock sshd for the module; agents log in by key as the server's own git user
    (its files in a folder that user can read: sshd reads the keys as the user)."""
    if why := servers.SshServer.available():
        pytest.skip(why)
    work = servers.shared_tmp("vcontext-sshd-")
    try:
        login = servers.other_user()
        server = servers.SshServer(work, login=login.name).start()
    except servers.Unavailable as exc:
        subprocess.run(["rm", "-rf", "--", str(work)], check=False)
        pytest.skip(f"sshd cannot run here: {exc}")
    yield server
    server.stop()
    subprocess.run(["rm", "-rf", "--", str(work)], check=False)


@pytest.fixture
def served(sshd: servers.SshServer) -> Iterator[Path]:
    """A folder for the repositories sshd serves (its user must reach them; removed after).
    The tests' checks read them here as root: root's git trusts them (safe.directory)."""
    folder = servers.shared_tmp("vcontext-ssh-")
    soak.git(folder, "config", "--global", "--add", "safe.directory", "*")
    yield folder
    subprocess.run(["rm", "-rf", "--", str(folder)], check=False)


def _give_to_login(sshd: servers.SshServer) -> Any:
    """``seeded`` for soak.setup: the remote becomes the ssh user's (as on a git server)."""
    login = servers.other_user(sshd.login)
    return lambda remote: servers.own(remote, login)


def _front(
    root: Path, work: Path, kind: str, **kwargs: Any
) -> servers.HttpFront | servers.NginxFront:
    if kind == "nginx" and (why := servers.NginxFront.available()):
        pytest.skip(why)
    front = servers.http_front(root, work, kind, **kwargs)
    try:
        front.start()
    except servers.Unavailable as exc:
        pytest.skip(f"{kind} cannot run here: {exc}")
    return front


def _ssh_clone_config(sshd: servers.SshServer, where: Path, **kwargs: Any) -> dict[str, str]:
    config = sshd.client_config(where / "ssh_config", **kwargs)
    return {"core.sshCommand": sshd.ssh_command(config)}


# -- what a run proves -------------------------------------------------------------------------


def _assert_nothing_lost(run: soak.SoakRun) -> None:
    failed = [s["output"] for log in run.logs for s in log.syncs if s["exit"] != 0]
    assert failed == [], failed[-1][-1500:]
    assert soak.last_rounds_missing(run, run.at_end) == []
    assert soak.lost(run, run.at_end) == {
        "items": [],
        "plan_items": [],
        "events": [],
        "changes": [],
    }
    fsck = soak.git(run.remote, "fsck", "--no-progress", check=False)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr


def _sync(clone: Path, agent: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """One sync --push with its git processes traced (network operations in ``ops``)."""
    traces = clone.parent / "traces"
    return soak.sync(clone, agent, {**(env or {}), soak.TRACE_ROOT: str(traces)})


def _team(root: Path, url: str | None, agents: int = 1, **kwargs: Any) -> tuple[Path, list[Path]]:
    """A bare remote under ``root/srv`` and ``agents`` clones reaching it at ``url``."""
    (root / "srv").mkdir(exist_ok=True)
    return soak.setup(root, agents, remote=root / "srv" / "remote.git", url=url, **kwargs)


def _ssh_team(
    root: Path, sshd: servers.SshServer, remote: Path, agents: int = 1, **kwargs: Any
) -> tuple[Path, list[Path]]:
    """A bare remote the ssh user owns, and ``agents`` clones reaching it over ssh."""
    return soak.setup(
        root, agents, remote=remote, url=sshd.url(remote), seeded=_give_to_login(sshd), **kwargs
    )


# -- every transport ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["python", "nginx"])
def test_sync_at_scale_over_http_every_round_lands(tmp_path: Path, kind: str) -> None:
    """Agents pushing over HTTP (git http-backend behind a web server): every sync exits 0
    and its round is on the base."""
    (tmp_path / "srv").mkdir()
    front = _front(tmp_path / "srv", tmp_path / "front", kind)
    try:
        remote = tmp_path / "srv" / "remote.git"
        run = soak.soak(tmp_path, AGENTS, ROUNDS, remote=remote, url=front.url(remote))
    finally:
        front.stop()
    _assert_nothing_lost(run)


def test_sync_at_scale_over_ssh_every_round_lands(
    tmp_path: Path, sshd: servers.SshServer, served: Path
) -> None:
    remote = served / "remote.git"
    config = _ssh_clone_config(sshd, tmp_path)
    run = soak.soak(
        tmp_path, AGENTS, ROUNDS, remote=remote, url=sshd.url(remote), clone_config=config,
        seeded=_give_to_login(sshd),
    )  # fmt: skip
    _assert_nothing_lost(run)


# -- transient failures are retried --------------------------------------------------------


@pytest.mark.parametrize("transport", ["http", "ssh"])
def test_sync_at_scale_a_network_dropping_every_third_connection_loses_nothing(
    tmp_path: Path, request: pytest.FixtureRequest, transport: str
) -> None:
    """A proxy on loopback closes (FIN, then RST, in turn) every third connection before a
    byte reaches the server: git says "Empty reply from server", "Connection reset by
    peer", "kex_exchange_identification: … Connection closed", "Could not read from remote
    repository". Every such failure is transient: no sync fails, nothing is lost."""
    remote = tmp_path / "srv" / "remote.git"
    remote.parent.mkdir()
    config: dict[str, str] = {}
    front: servers.HttpFront | None = None
    seeded = None
    if transport == "http":
        front = servers.HttpFront(remote.parent).start()
        target = front.port
    else:
        sshd = request.getfixturevalue("sshd")
        remote = request.getfixturevalue("served") / "remote.git"
        seeded = _give_to_login(sshd)
        target = sshd.port
    proxy = servers.DroppingProxy(target, every=0).start()  # set-up without drops
    try:
        if front is not None:
            url = f"http://{servers.LOOPBACK}:{proxy.port}/remote.git"
        else:
            url = sshd.url(remote)
            config = _ssh_clone_config(sshd, tmp_path, port=proxy.port)

        def drop(clones: list[Path]) -> None:
            proxy.every = 3

        run = soak.soak(
            tmp_path, AGENTS, ROUNDS, remote=remote, url=url, clone_config=config, ready=drop,
            seeded=seeded,
            # (a connection per sync over ssh, not one per clone: drops to retry)
            config={"vcontext.sshPersist": "0"} if front is None else None,
        )  # fmt: skip
    finally:
        proxy.stop()
        if front is not None:
            front.stop()
    # (the drops happened: over ssh a sync's git commands share one connection, so fewer)
    assert proxy.dropped >= (AGENTS * ROUNDS if transport == "http" else 2), proxy.dropped
    _assert_nothing_lost(run)


@pytest.mark.parametrize("status", [429, 502, 503])
def test_sync_at_scale_http_busy_answers_are_retried(tmp_path: Path, status: int) -> None:
    """A server (or the proxy in front of it) answering every third request with 429 Too
    Many Requests, 502 Bad Gateway or 503 Service Unavailable: each sync retries and lands."""
    (tmp_path / "srv").mkdir()
    front = servers.HttpFront(tmp_path / "srv").start()
    try:
        remote = tmp_path / "srv" / "remote.git"
        _, clones = _team(tmp_path, front.url(remote), agents=2)
        front.faults = servers.Faults(every=3, status=status)
        logs = [soak.AgentLog(f"agent-{i}") for i in range(2)]
        results = []
        for r in range(ROUNDS):
            for i, clone in enumerate(clones):
                soak.work(clone, f"agent-{i}", r, logs[i])
                results.append(_sync(clone, f"agent-{i}"))
    finally:
        front.stop()
    assert front.requests > 0
    assert [s["exit"] for s in results] == [0] * len(results), [
        s["output"] for s in results if s["exit"]
    ]
    on_base = soak.base_documents(remote, tmp_path / "check")
    assert soak.lost(soak.SoakRun(remote, clones, logs, [], 0.0), on_base)["items"] == []


def test_sync_at_scale_connection_refused_is_retried_until_the_server_answers(
    tmp_path: Path,
) -> None:
    """The server is down (nothing listens: connection refused) when the sync starts and
    comes back 3 s later, well inside vcontext.syncTimeout: the sync waits for it and lands."""
    (tmp_path / "srv").mkdir()
    front = servers.HttpFront(tmp_path / "srv").start()
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, front.url(remote))
    front.stop()
    soak.work(clone, "agent-0", 0, soak.AgentLog("agent-0"))
    later = servers.HttpFront(tmp_path / "srv", port=front.port)

    def come_back() -> None:
        time.sleep(3)
        later.start()

    thread = threading.Thread(target=come_back, daemon=True)
    thread.start()
    try:
        result = _sync(clone, "agent-0")
    finally:
        thread.join(timeout=10)
        later.stop()
    assert result["exit"] == 0, result["output"]
    assert result["seconds"] >= 3
    assert "agent-0-t0" in [
        i["id"]
        for i in soak.base_documents(remote, tmp_path / "check")[soak.TODO]["todoList"]["items"]
    ]


def test_sync_at_scale_connection_refused_gives_up_at_the_sync_timeout(tmp_path: Path) -> None:
    """A server that stays down: the sync retries until vcontext.syncTimeout, then stops
    with git's own words and the setting to change, exit 3, nothing moved."""
    (tmp_path / "srv").mkdir()
    front = servers.HttpFront(tmp_path / "srv").start()
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, front.url(remote))
    front.stop()
    soak.git(clone, "config", "vcontext.syncTimeout", "4")
    soak.work(clone, "agent-0", 0, soak.AgentLog("agent-0"))
    before = soak.git(clone, "rev-parse", "agents/agent-0", "main").stdout
    result = _sync(clone, "agent-0")
    assert result["exit"] == 3, result["output"]
    assert 4 <= result["seconds"] < 30, result
    assert result["ops"]["total"] >= 3, result["ops"]  # it did try again
    said = result["output"]
    assert "Failed to connect" in said or "Connection refused" in said, said
    assert "vcontext.syncTimeout" in said, said
    assert "Traceback" not in said
    assert soak.git(clone, "rev-parse", "agents/agent-0", "main").stdout == before


# -- a real refusal stops at once ------------------------------------------------------------


def _refusing_http(tmp_path: Path, why: str) -> tuple[Path, servers.HttpFront, str]:
    """A clone whose origin refuses over HTTP: wrong credentials, or no such repository."""
    (tmp_path / "srv").mkdir()
    front = servers.HttpFront(tmp_path / "srv").start()
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, front.url(remote))
    if why == "authentication":
        front.password = "right"
        url = front.url(remote).replace("http://", "http://agent:wrong@")
        words = "Authentication failed"
    else:
        url = front.url(remote).replace("remote.git", "elsewhere.git")
        words = "not found"
    soak.git(clone, "remote", "set-url", "origin", url)
    return clone, front, words


@pytest.mark.parametrize("why", ["authentication", "missing repository"])
def test_sync_at_scale_a_real_refusal_over_http_stops_at_once(tmp_path: Path, why: str) -> None:
    clone, front, words = _refusing_http(tmp_path, why)
    try:
        soak.git(clone, "config", "vcontext.syncTimeout", "120")
        soak.work(clone, "agent-0", 0, soak.AgentLog("agent-0"))
        result = _sync(clone, "agent-0", {"GIT_TERMINAL_PROMPT": "0"})
    finally:
        front.stop()
    _assert_stopped_at_once(result, words)


@pytest.mark.parametrize("why", ["authentication", "missing repository"])
def test_sync_at_scale_a_real_refusal_over_ssh_stops_at_once(
    tmp_path: Path, sshd: servers.SshServer, served: Path, why: str
) -> None:
    remote = served / "remote.git"
    config = _ssh_clone_config(sshd, tmp_path)
    _, [clone] = _ssh_team(tmp_path, sshd, remote, clone_config=config)
    if why == "authentication":  # a key the server does not know
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(tmp_path / "stranger")],
            check=True,
        )
        text = (tmp_path / "ssh_config").read_text()
        (tmp_path / "ssh_config").write_text(
            text.replace(str(sshd.key), str(tmp_path / "stranger"))
        )
        words = "Permission denied"
    else:
        soak.git(clone, "remote", "set-url", "origin", sshd.url(remote.with_name("elsewhere.git")))
        words = "does not appear to be a git repository"
    soak.git(clone, "config", "vcontext.syncTimeout", "120")
    soak.work(clone, "agent-0", 0, soak.AgentLog("agent-0"))
    result = _sync(clone, "agent-0")
    _assert_stopped_at_once(result, words)


def _assert_stopped_at_once(result: dict[str, Any], words: str) -> None:
    said = result["output"]
    assert result["exit"] == 3, said
    assert words in said, said
    assert result["ops"]["total"] == 1, result["ops"]  # one try, no retry
    assert "retry" not in said
    assert "Traceback" not in said


# -- a stock sshd under 16 agents ----------------------------------------------------------


@pytest.mark.slow
def test_sync_at_scale_stock_sshd_max_startups_sixteen_agents_no_sync_fails(
    tmp_path: Path, sshd: servers.SshServer, served: Path
) -> None:
    """Debian's sshd as shipped (MaxStartups 10:30:100: past 10 connections not yet logged
    in it drops 30 % of new ones, more as they grow) and 16 agents at once: a dropped
    connection is retried, no sync fails, nothing is lost."""
    assert sshd.max_startups == "10:30:100"
    remote = served / "remote.git"
    config = _ssh_clone_config(sshd, tmp_path)
    run = soak.soak(
        tmp_path, 16, 2, remote=remote, url=sshd.url(remote), clone_config=config,
        seeded=_give_to_login(sshd),
    )  # fmt: skip
    _assert_nothing_lost(run)


# -- the wrong user ----------------------------------------------------------------------------


@pytest.fixture
def owned_elsewhere(tmp_path: Path) -> Iterator[tuple[servers.RunAs, Path]]:
    """A folder another user may enter, for a bare repository that user owns (root's git
    told to trust it: ``safe.directory``, as an administrator has it)."""
    try:
        user = servers.other_user()
    except servers.Unavailable as exc:
        pytest.skip(str(exc))
    folder = servers.shared_tmp("vcontext-owned-")
    soak.git(tmp_path, "config", "--global", "--add", "safe.directory", "*")
    try:
        yield user, folder
    finally:
        subprocess.run(["rm", "-rf", "--", str(folder)], check=False)


def _served_as(
    tmp_path: Path, user: servers.RunAs, folder: Path, agents: int = 2
) -> tuple[Path, list[Path], servers.HttpFront]:
    """A bare remote owned by ``user`` and served over HTTP as ``user`` (git http-backend
    run by the web server's user), with agent clones reaching it."""
    remote = folder / "remote.git"
    _, clones = soak.setup(tmp_path, agents, remote=remote)
    subprocess.run(["chown", "-R", f"{user.uid}:{user.gid}", "--", str(remote)], check=True)
    front = servers.HttpFront(folder, run_as=user).start()
    for clone in clones:
        soak.git(clone, "remote", "set-url", "origin", front.url(remote))
    return remote, clones, front


def _not_owned_by(root: Path, uid: int) -> list[str]:
    return sorted(
        str(p.relative_to(root)) for p in [root, *root.rglob("*")] if p.lstat().st_uid != uid
    )


def test_install_server_as_root_in_a_repository_another_user_owns_works_as_the_owner(
    tmp_path: Path, owned_elsewhere: tuple[servers.RunAs, Path]
) -> None:
    """install --server run by root in a repository the web server's user owns: it works
    as the repository's owner (nothing it leaves is root's), says so in one line, and the
    agents' pushes — run by the server as that user — are merged."""
    user, folder = owned_elsewhere
    try:  # an installation the server's user can run (its hook runs as that user)
        python = servers.shared_python(user, folder / "python")
    except servers.Unavailable as exc:
        pytest.skip(str(exc))
    remote, clones, front = _served_as(tmp_path, user, folder)
    try:
        installed = soak.run([str(python), "-m", "git_vcontext", "install", "--server"], remote)
        assert installed.returncode == 0, installed.stderr
        said = installed.stdout + installed.stderr
        assert [ln for ln in said.splitlines() if user.name in ln], said  # one line says so
        assert _not_owned_by(remote, user.uid) == []
        logs = [soak.AgentLog(f"agent-{i}") for i in range(len(clones))]
        results = []
        for i, clone in enumerate(clones):
            soak.work(clone, f"agent-{i}", 0, logs[i])
            results.append(_sync(clone, f"agent-{i}"))
    finally:
        front.stop()
    assert [s["exit"] for s in results] == [0, 0], [s["output"] for s in results]
    assert _not_owned_by(remote, user.uid) == []  # nor what the hook wrote since
    items = soak.base_documents(remote, tmp_path / "check")[soak.TODO]["todoList"]["items"]
    assert {"agent-0-t0", "agent-1-t0"} <= {i["id"] for i in items}


def test_install_server_as_root_refuses_when_the_owner_cannot_run_it(
    tmp_path: Path, owned_elsewhere: tuple[servers.RunAs, Path]
) -> None:
    """The repository's owner cannot run this installation (the hook would fail at every
    push, as that user): install --server refuses in one line, and writes nothing."""
    user, folder = owned_elsewhere
    if servers.can_run(user, [*soak.cli(), "--version"]):
        pytest.skip(f"{user.name} can run this installation here (its Python is not private)")
    remote = folder / "remote.git"
    soak.setup(tmp_path, 0, remote=remote)
    subprocess.run(["chown", "-R", f"{user.uid}:{user.gid}", "--", str(remote)], check=True)
    installed = soak.vcontext(remote, "install", "--server", check=False)
    assert installed.returncode == 3, installed.stdout + installed.stderr
    errors = installed.stderr.strip().splitlines()
    assert len(errors) == 1, installed.stderr
    assert user.name in errors[0], installed.stderr
    assert "Traceback" not in installed.stderr
    assert not (remote / "hooks" / "post-receive").exists()
    assert _not_owned_by(remote, user.uid) == []


def _root_left_refs(remote: Path, owner: servers.RunAs) -> None:
    """What an install --server by the wrong user left before this was fixed: refs/vcontext/
    created by root (a folder the owner cannot write in). Only that: the object root wrote
    for it goes back to the owner (a loose-object folder of root's would refuse any pushed
    object whose name starts alike, "unable to migrate objects", by chance)."""
    blob = soak.run(["git", "hash-object", "-w", "--stdin"], remote).stdout.strip()
    soak.git(remote, "update-ref", "refs/vcontext/server", blob)
    objects = str(remote / "objects")
    subprocess.run(["chown", "-R", f"{owner.uid}:{owner.gid}", "--", objects], check=True)


def test_doctor_in_a_bare_repository_names_what_the_owner_cannot_write(
    tmp_path: Path, owned_elsewhere: tuple[servers.RunAs, Path]
) -> None:
    user, folder = owned_elsewhere
    remote = folder / "remote.git"
    soak.setup(tmp_path, 0, remote=remote)
    subprocess.run(["chown", "-R", f"{user.uid}:{user.gid}", "--", str(remote)], check=True)
    _root_left_refs(remote, user)
    out = soak.vcontext(remote, "doctor", check=False)
    said = out.stdout + out.stderr
    assert out.returncode == 1, said
    problems = [ln for ln in said.splitlines() if ln.startswith("problem:")]
    assert any("refs/vcontext" in ln and user.name in ln and "root" in ln for ln in problems), said
    assert any("chown" in ln for ln in problems), said  # the fix, with the owner
    assert "Traceback" not in said


def test_sync_shows_the_remotes_own_lines_and_does_not_retry_a_permission_failure(
    tmp_path: Path, owned_elsewhere: tuple[servers.RunAs, Path]
) -> None:
    """The remote cannot create the request's ref (a folder root made, the server's user
    cannot write in): the push is refused for good, not for a race. sync stops at the first
    refusal, exit 1, with the remote's own lines (git's "cannot lock ref … unable to create
    directory"), and retries nothing."""
    user, folder = owned_elsewhere
    remote, [clone], front = _served_as(tmp_path, user, folder, agents=1)
    _root_left_refs(remote, user)
    try:
        soak.work(clone, "agent-0", 0, soak.AgentLog("agent-0"))
        result = _sync(clone, "agent-0")
    finally:
        front.stop()
    said = result["output"]
    assert result["exit"] == 1, said
    assert "remote: error: cannot lock ref" in said, said
    assert "unable to create directory" in said, said
    assert "retry" not in said, said
    assert result["ops"]["push"] == 1, result["ops"]


# -- what a sync costs on the network ----------------------------------------------------------


def test_sync_own_fetches_skip_gits_auto_maintenance(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """git fetch starts ``git maintenance run --auto`` after it fetched; sync's own fetches
    (a few refs, many times a minute) do not, and the clone's own settings stay as they are."""
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, http.url(remote), config=GITS_LOOKS)
    for r in range(2):
        soak.work(clone, "agent-0", r, soak.AgentLog("agent-0"))
        result = _sync(clone, "agent-0")
        assert result["exit"] == 0, result["output"]
        assert result["ops"]["fetch"] >= 1
        assert result["ops"]["maintenance"] == 0, result["ops"]
    for key in ("maintenance.auto", "gc.auto"):
        assert soak.git(clone, "config", "--get", key, check=False).stdout == ""


def test_sync_alone_takes_at_most_three_network_operations_and_its_push(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """The common case of an agent that integrates (nobody else syncing): at most three git
    commands that talk to the remote (a look that brings every ref the round needs, the push
    that publishes its work and takes the lease, the integration push: no second look once
    the lease is ours); its first sync (its branch not on the remote yet) too."""
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, http.url(remote))
    for r in range(2):
        soak.work(clone, "agent-0", r, soak.AgentLog("agent-0"))
        result = _sync(clone, "agent-0")
        assert result["exit"] == 0, result["output"]
        assert result["ops"]["total"] <= 3, (r, result["ops"])
        assert result["ops"]["ls-remote"] == 0, (r, result["ops"])


def test_sync_at_scale_publishes_and_tries_the_lease_before_it_looks(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """Sync at scale, in fewer round trips: an agent whose last sync saw its branch on the
    remote (its new commits move forward from it) publishes its round and tries the lease in
    its first git command, without a look first; the lease won, it looks (every request,
    the base, after the lease is its own) and pushes its integration: three commands, the
    first a push. Its first sync (nothing seen yet) looks first."""
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, http.url(remote), config=GITS_LOOKS)
    names = []
    for r in range(3):
        soak.work(clone, "agent-0", r, soak.AgentLog("agent-0"))
        result = _sync(clone, "agent-0")
        assert result["exit"] == 0, result["output"]
        names.append([name for _, name in result["commands"]])
    assert names[0][0] == "fetch", names
    assert names[1:] == [["push", "fetch", "push"]] * 2, names
    items = soak.base_documents(remote, tmp_path / "check")[soak.TODO]["todoList"]["items"]
    assert {"agent-0-t0", "agent-0-t1", "agent-0-t2"} <= {i["id"] for i in items}


def test_sync_at_scale_an_expired_lease_found_while_waiting_is_taken_at_once(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """Sync at scale, a lease left by a killed sync elsewhere (expired): the push that tries
    the lease without a look first loses to it; the first look finds it expired and the sync
    takes it over then, instead of watching it for a lease's time (here 300 s, beyond the
    sync's 100 s deadline: waiting it out would give up)."""
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, http.url(remote))
    soak.git(clone, "config", "vcontext.leaseSeconds", "300")
    soak.git(clone, "config", "vcontext.syncTimeout", "100")
    soak.work(clone, "agent-0", 0, soak.AgentLog("agent-0"))
    assert _sync(clone, "agent-0")["exit"] == 0
    soak.work(clone, "agent-0", 1, soak.AgentLog("agent-0"))
    lease = "refs/vcontext/lease/main"
    left = _lease_commit(remote, seconds=-5.0)  # its holder is gone: expired 5 s ago
    soak.git(remote, "update-ref", lease, left)
    result = _sync(clone, "agent-0")
    assert result["exit"] == 0, result["output"]
    assert result["commands"][0][1] == "push", result["commands"]  # lost to the stale lease
    assert result["seconds"] < 60, result["output"]
    assert soak.git(remote, "rev-parse", "-q", "--verify", lease, check=False).returncode != 0
    items = soak.base_documents(remote, tmp_path / "check")[soak.TODO]["todoList"]["items"]
    assert "agent-0-t1" in {i["id"] for i in items}


def test_sync_at_scale_a_push_without_a_look_whose_branch_moved_on_the_remote_loses_nothing(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """Sync at scale, the agent's branch moved on the remote since its last look (another
    clone of the same agent pushed to it): the push without a look first is rejected for
    that branch; the sync looks, merges the remote's copy of its branch, and lands both
    clones' work (nothing lost, exit 0)."""
    remote = tmp_path / "srv" / "remote.git"
    _, [clone, other] = _team(tmp_path, http.url(remote), agents=2)
    for c, agent in ((clone, "agent-0"), (other, "agent-1")):
        soak.work(c, agent, 0, soak.AgentLog(agent))
        assert _sync(c, agent)["exit"] == 0
    branch = "agents/agent-0"
    soak.git(other, "fetch", "-q", "origin", f"{branch}:refs/heads/{branch}")
    soak.git(other, "checkout", "-q", branch)
    soak.work(other, "agent-0", 5, soak.AgentLog("agent-0"), playbook=False)
    soak.git(other, "push", "-q", "--no-verify", "origin", f"{branch}:{branch}")
    soak.work(clone, "agent-0", 1, soak.AgentLog("agent-0"))
    result = _sync(clone, "agent-0")
    assert result["exit"] == 0, result["output"]
    assert result["commands"][0][1] == "push", result["commands"]
    items = soak.base_documents(remote, tmp_path / "check")[soak.TODO]["todoList"]["items"]
    assert {"agent-0-t1", "agent-0-t5"} <= {i["id"] for i in items}


RACE = """#!/bin/sh
# Another agent's lease push lands just before this one's: plant its lease (once).
while read -r old new ref; do
    if [ "$ref" = refs/vcontext/lease/main ] && [ ! -e planted ]; then
        touch planted
        env -u GIT_QUARANTINE_PATH -u GIT_OBJECT_DIRECTORY -u GIT_ALTERNATE_OBJECT_DIRECTORIES \
            git update-ref refs/vcontext/lease/main {lease} ""
    fi
done
exit 0
"""


def _another_agent_takes_the_lease_first(remote: Path) -> None:
    """The lease is free when the agent looks, but another agent's lease push lands just
    before its own (a pre-receive hook of the remote plants that agent's lease when the
    agent's try arrives): the race every waiting agent of a busy base loses."""
    lease = _lease_commit(remote)
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(RACE.format(lease=lease))
    hook.chmod(0o755)


def _lease_commit(remote: Path, seconds: float = 60.0, landing: float | None = None) -> str:
    """A lease on main held by a live agent on another machine (what its push leaves);
    ``landing``: in how many seconds it says its round lands."""
    message = (
        "vcontext sync lease: agents/holder\n\nHolder: agents/holder\nHost: elsewhere.invalid\n"
        f"Pid: 1\nRepository: /elsewhere\nExpires: {time.time() + seconds:.3f}\n"
    )
    if landing is not None:
        message += f"Landing: {time.time() + landing:.3f}\n"
    tree = soak.run(["git", "hash-object", "-w", "-t", "tree", "--stdin"], remote).stdout.strip()
    made = subprocess.run(
        ["git", "commit-tree", tree], cwd=remote, input=message, capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    return made.stdout.strip()


def _wait_for_ref(remote: Path, ref: str, limit: float = 60.0) -> str:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        out = soak.git(remote, "rev-parse", "-q", "--verify", ref, check=False)
        if out.returncode == 0:
            return out.stdout.strip()
        time.sleep(0.05)
    raise AssertionError(f"{ref} never appeared on the remote")


def test_sync_waiting_for_the_lease_takes_one_push_besides_its_waiting_looks(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """An agent that loses the race for the lease: it publishes its work (its branch, its
    request — and its try at the lease, in the same push) without looking first (its last
    sync's look says its branch moves forward), and waits; each look while it waits is a
    fetch of the refs the next step needs, so the look that finds its work merged has
    brought the base: once the holder is done, one git command talks to the remote (no
    ``ls-remote`` then a fetch)."""
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, http.url(remote))
    soak.work(clone, "agent-0", 0, soak.AgentLog("agent-0"))
    first = soak.sync(clone, "agent-0")  # its branch is on the remote: the common case
    assert first["exit"] == 0, first["output"]
    soak.work(clone, "agent-0", 1, soak.AgentLog("agent-0"))
    _another_agent_takes_the_lease_first(remote)
    traces = tmp_path / "waiter-traces"
    with _waiter(clone, "agent-0", traces) as waiter:
        _wait_for_ref(remote, "refs/vcontext/sync/main/agents/agent-0")
        assert (remote / "planted").exists()  # it lost the race
        time.sleep(1.0)  # the holder takes its time
        done = _merged_by_hand(remote, "agent-0")
        _finished(waiter)
    commands = soak.network_commands(traces)
    ops = soak.network_operations(traces)
    assert ops["push"] == 1, ops
    assert ops["ls-remote"] == 0, ops
    assert commands[0][1] == "push", commands  # no look first
    after = [name for at, name in commands if at > done]  # (a look during the merge: none)
    assert after in ([], ["fetch"]), (done, commands)
    items = soak.base_documents(remote, tmp_path / "check")[soak.TODO]["todoList"]["items"]
    assert "agent-0-t1" in {i["id"] for i in items}


@contextlib.contextmanager
def _waiter(clone: Path, agent: str, traces: Path) -> Iterator[subprocess.Popen[str]]:
    """``sync AGENT --push origin`` started, its git processes traced into ``traces``;
    killed on the way out if it is still running (a test that failed meanwhile)."""
    traces.mkdir()
    waiter = subprocess.Popen(
        [*soak.cli(), "sync", agent, "--push", "origin"], cwd=clone,
        env={**os.environ, "GIT_TRACE2_EVENT": str(traces)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        yield waiter
    finally:
        if waiter.poll() is None:
            waiter.kill()
            waiter.communicate()


def _merged_by_hand(remote: Path, agent: str) -> str:
    """Another agent's integration merges ``agent``'s request as soon as it is published
    (the server's integration, run by hand) and releases the lease; when the merge was
    done (ISO 8601 UTC, as trace2 writes times), before the lease was released."""
    request = f"refs/vcontext/sync/main/agents/{agent}"
    sha = _wait_for_ref(remote, request)
    merged = subprocess.run(
        [*soak.cli(), "hook", "post-receive"], cwd=remote,
        input=f"{'0' * 40} {sha} {request}\n", capture_output=True, text=True,
        env={**os.environ, "GIT_DIR": str(remote)},
    )  # fmt: skip
    done = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert merged.returncode == 0, merged.stderr
    soak.git(remote, "update-ref", "-d", "refs/vcontext/lease/main")
    return done


def _finished(waiter: subprocess.Popen[str]) -> str:
    """The waiter's output, once it has ended well (in two minutes at most)."""
    out, err = waiter.communicate(timeout=120)
    assert waiter.returncode == 0, out + err
    return out + err


def test_sync_at_scale_a_waiter_that_lost_the_lease_unseen_looks_when_it_expects_its_round(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """Sync at scale, waiting without looking more than needed, nor later: an agent whose
    push tried the lease without a look first and lost to another's looks first after
    ``UNSEEN`` (1.5) integrations as its clone expects them (here 2 s each: 3 s after its
    push), not stretched by the slack a holder adds to the Landing it announces (x 1.5)
    nor by the lateness its clone keeps for others' Landings (here 3: x 3): both made it
    13.5 s (8 x 8 over HTTP such looks came a median 1.75 s after the round had landed).
    Its round merged meanwhile: that one look ends the wait (push, fetch)."""
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, http.url(remote), config=GITS_LOOKS)
    soak.work(clone, "agent-0", 0, soak.AgentLog("agent-0"))
    assert soak.sync(clone, "agent-0")["exit"] == 0  # its branch is on the remote
    soak.work(clone, "agent-0", 1, soak.AgentLog("agent-0"))
    kept = clone / ".git" / "vcontext"
    (kept / "integration-seconds").write_text("2.000\n")
    (kept / "landing-lateness").write_text("3.000\n")
    _another_agent_takes_the_lease_first(remote)
    traces = tmp_path / "waiter-traces"
    with _waiter(clone, "agent-0", traces) as waiter:
        _merged_by_hand(remote, "agent-0")
        _finished(waiter)
    assert (remote / "planted").exists()  # it lost the race
    spans = [s for s in soak.timeline(traces) if s[0] in soak.NETWORK]
    assert [name for name, _, _ in spans] == ["push", "fetch"], spans
    looked = spans[1][1] - spans[0][2]
    assert 3.0 * 0.9 <= looked < 8.0, spans  # (3 s, jittered; before: 13.5 s)
    items = soak.base_documents(remote, tmp_path / "check")[soak.TODO]["todoList"]["items"]
    assert "agent-0-t1" in {i["id"] for i in items}


def test_sync_at_scale_a_clone_whose_holders_land_in_time_looks_before_their_slack(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """Sync at scale, a waiter's look no later than needed: a holder's lease says its round
    lands later than it expects (``LANDING_SLACK``), for waiters that know nothing yet; a
    clone whose looks have found the holders in time (its lateness factor down to
    ``EARLIEST``: the holder's own expectation) looks that slack sooner. Here a lease taken
    just now says it lands in 9 s: this clone looks 6 s after it was taken, not 9 s (its
    factor could not go below 1 before, so the slack always stood: 8 x 5 over HTTP every
    clone's factor sat at 1). The look finds the round merged: it ends the wait, in time,
    and the factor stays at its floor."""
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, http.url(remote), config=GITS_LOOKS)
    late = clone / ".git" / "vcontext" / "landing-lateness"
    late.parent.mkdir(exist_ok=True)
    late.write_text(f"{EARLIEST:.3f}\n")
    soak.work(clone, "agent-0", 0, soak.AgentLog("agent-0"))
    taken = time.time()
    lease = _lease_commit(remote, DEFAULT_SECONDS, landing=9.0)  # (Expires: when it was taken)
    soak.git(remote, "update-ref", "refs/vcontext/lease/main", lease)
    traces = tmp_path / "waiter-traces"
    with _waiter(clone, "agent-0", traces) as waiter:  # its first sync: it looks first
        _merged_by_hand(remote, "agent-0")
        said = _finished(waiter)
    assert "held by agents/holder" in said, said
    spans = [s for s in soak.timeline(traces) if s[0] in soak.NETWORK]
    assert [name for name, _, _ in spans] == ["fetch", "push", "fetch"], spans
    assert spans[2][1] - taken < 7.3, (taken, spans)  # (6 s, jittered; before: 9 s)
    assert float(late.read_text()) == pytest.approx(EARLIEST, abs=1e-3)
    items = soak.base_documents(remote, tmp_path / "check")[soak.TODO]["todoList"]["items"]
    assert "agent-0-t0" in {i["id"] for i in items}


SLOW_LEASE = """#!/bin/sh
# Every integration takes its time: a lease taken waits here before its push returns.
while read -r old new ref; do
    if [ "$ref" = refs/vcontext/lease/main ] && [ "$old" = {zero} ]; then
        sleep {seconds}
    fi
done
exit 0
"""


def test_sync_waiting_while_the_holder_integrates_takes_three_network_operations(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """The common case of a busy base: one agent holds the lease and integrates, another
    syncs meanwhile. The waiter looks, publishes, and looks once more when the holder's lease
    says its round lands (``Landing``): by then the holder, whose one look came after its
    lease push (published and took the lease in one push, without a look first), has merged
    the waiter's request too, and that last look brings the base back: three git commands
    that talk to the remote, two when its first look comes after the holder landed
    (PRODUCT.md "Sync at scale"; issue 30). The holder: that push, its one look (under the
    lease: no second look before its integration push, though the base is busy: another
    agent integrated a moment ago) and its integration push. Each integration here takes
    4 s (the remote's hook holds every lease push), which the holder knows from its last
    one."""
    remote = tmp_path / "srv" / "remote.git"
    _, [holder, waiter] = _team(tmp_path, http.url(remote), agents=2, config=GITS_LOOKS)
    hook = remote / "hooks" / "post-receive"
    hook.write_text(SLOW_LEASE.format(zero="0" * 40, seconds=4))
    hook.chmod(0o755)
    for clone, agent in ((holder, "agent-0"), (waiter, "agent-1")):  # on the remote, each
        soak.work(clone, agent, 0, soak.AgentLog(agent))  # integrating alone (4 s)
        alone = soak.sync(clone, agent)
        assert alone["exit"] == 0, alone["output"]
    for clone, agent in ((holder, "agent-0"), (waiter, "agent-1")):
        soak.work(clone, agent, 1, soak.AgentLog(agent))
    traces = {a: tmp_path / f"traces-{a}" for a in ("holder", "waiter")}
    procs: dict[str, subprocess.Popen[str]] = {}
    lease = "refs/vcontext/lease/main"
    try:
        for name, clone, agent in (("holder", holder, "agent-0"), ("waiter", waiter, "agent-1")):
            traces[name].mkdir()
            procs[name] = subprocess.Popen(
                [*soak.cli(), "sync", agent, "--push", "origin"], cwd=clone,
                env={**os.environ, "GIT_TRACE2_EVENT": str(traces[name])},
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )  # fmt: skip
            if name == "holder":
                _wait_for_ref(remote, lease)  # the holder integrates: the waiter starts
        said = {name: proc.communicate(timeout=180) for name, proc in procs.items()}
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    for name, proc in procs.items():
        assert proc.returncode == 0, (name, said[name])
    waited = "".join(said["waiter"])
    assert "merged into main on the remote" in waited, waited  # the holder merged it
    ops = {name: soak.network_operations(folder) for name, folder in traces.items()}
    commands = {name: soak.network_commands(folder) for name, folder in traces.items()}
    if ops["waiter"]["total"] > 2:  # (a first look after the holder landed says nothing)
        assert "held by agents/agent-0" in waited, waited
    assert ops["waiter"]["total"] <= 3, commands
    assert ops["waiter"]["push"] == 1, commands
    assert [name for _, name in commands["holder"]] == ["push", "fetch", "push"], commands
    items = soak.base_documents(remote, tmp_path / "check")[soak.TODO]["todoList"]["items"]
    assert {"agent-0-t1", "agent-1-t1"} <= {i["id"] for i in items}


@pytest.mark.parametrize("designated", ["as-late", "one-step-later"])
def test_sync_waiters_of_a_released_lease_let_one_of_them_take_it(
    tmp_path: Path, http: servers.HttpFront, designated: str
) -> None:
    """Two agents publish while another machine's agent holds the lease; it goes away
    without merging them (its lease is removed). Both look when its lease said its round
    lands and find the lease free with both requests waiting: one of them (first by a hash
    of the base and its branch, which both compute alike) takes the lease and merges both;
    the other does not race for it (no lease push of its own) and finds its round merged.
    ``one-step-later``: the designated agent's clone has found holders late before (its
    lateness factor one step up), so it looks a good while after the other: the other
    still lets it take the lease (it used to take it itself after a fixed 1.5 integrations'
    time, and under load or the landing's jitter alone that raced)."""
    remote = tmp_path / "srv" / "remote.git"
    _, clones = _team(tmp_path, http.url(remote), agents=2)
    agents = [f"agent-{i}" for i in range(2)]
    for clone, agent in zip(clones, agents, strict=True):  # its branch is on the remote
        soak.work(clone, agent, 0, soak.AgentLog(agent))
        assert soak.sync(clone, agent)["exit"] == 0
    for clone, agent in zip(clones, agents, strict=True):
        soak.work(clone, agent, 1, soak.AgentLog(agent))
    base = soak.git(remote, "rev-parse", "main").stdout.strip()
    first = min(
        range(2), key=lambda i: hashlib.sha1(f"{base} agents/{agents[i]}".encode()).digest()
    )
    lease, seconds = "refs/vcontext/lease/main", 60.0
    if designated == "one-step-later":
        late = clones[first] / ".git" / "vcontext" / "landing-lateness"
        late.parent.mkdir(exist_ok=True)
        late.write_text(f"{LATE[0]}\n")
        seconds = DEFAULT_SECONDS  # so that its Expires tells when it was taken
    soak.git(remote, "update-ref", lease, _lease_commit(remote, seconds, landing=4.0))
    procs = []
    traces = [tmp_path / f"traces-{agent}" for agent in agents]
    try:
        for clone, agent, folder in zip(clones, agents, traces, strict=True):
            folder.mkdir()
            procs.append(subprocess.Popen(
                [*soak.cli(), "sync", agent, "--push", "origin"], cwd=clone,
                env={**os.environ, "GIT_TRACE2_EVENT": str(folder)},
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            ))  # fmt: skip
        for agent in agents:
            _wait_for_ref(remote, f"refs/vcontext/sync/main/agents/{agent}")
        soak.git(remote, "update-ref", "-d", lease)  # the holder went away, merging nothing
        said = [p.communicate(timeout=180) for p in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    outputs = ["".join(out) for out in said]
    for proc, out in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, out
    integrated = [i for i, out in enumerate(outputs) if "pushed to origin: main" in out]
    assert integrated == [first], outputs  # the one first by the hash merged both
    other = 1 - first
    assert "merged into main on the remote" in outputs[other], outputs[other]
    pushes = soak.network_operations(traces[other])["push"]
    assert pushes == 1, (soak.network_commands(traces[other]), outputs[other])  # no race
    items = soak.base_documents(remote, tmp_path / "check")[soak.TODO]["todoList"]["items"]
    assert {"agent-0-t1", "agent-1-t1"} <= {i["id"] for i in items}


def test_sync_with_install_server_waits_without_polling(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """With install --server the publishing push returns once the request is merged: the
    agent publishes and brings the base back, no look in between (no ls-remote)."""
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, http.url(remote), server=True)
    for r in range(2):
        soak.work(clone, "agent-0", r, soak.AgentLog("agent-0"))
        result = _sync(clone, "agent-0")
        assert result["exit"] == 0, result["output"]
        assert result["ops"]["ls-remote"] == 0, result["ops"]
        assert result["ops"]["total"] <= 3, result["ops"]


def test_sync_over_ssh_the_clones_next_sync_reuses_its_connection_until_idle(
    tmp_path: Path, sshd: servers.SshServer, served: Path
) -> None:
    """Each git command over ssh is a new connection and a new key exchange (0.07 s of CPU
    for the post-quantum one alone); a sync shares one connection among its git commands
    (ssh's ControlMaster), which outlives it for ``vcontext.sshPersist`` idle seconds: the
    clone's next syncs reuse it (no key exchange), then it ends by itself."""
    proxy = servers.DroppingProxy(sshd.port, every=0).start()  # counts the connections
    try:
        remote = served / "remote.git"
        config = _ssh_clone_config(sshd, tmp_path, port=proxy.port)
        _, [clone] = _ssh_team(tmp_path, sshd, remote, clone_config=config)
        soak.git(clone, "config", "vcontext.sshPersist", "10")  # (a loaded machine's syncs)
        before = proxy.connections
        for r in range(3):
            soak.work(clone, "agent-0", r, soak.AgentLog("agent-0"))
            result = _sync(clone, "agent-0")
            assert result["exit"] == 0, result["output"]
            assert result["ops"]["total"] >= 2
        assert proxy.connections - before == 1  # one key exchange for three syncs
        assert proxy.open_connections == 1  # (it outlives the syncs)
        assert _until(lambda: proxy.open_connections == 0, 40), "the idle connection stays"
    finally:
        proxy.stop()


@pytest.mark.parametrize("persist", [None, "0"])
def test_sync_over_ssh_opens_one_connection_and_leaves_none_open_when_it_ends(
    tmp_path: Path, sshd: servers.SshServer, served: Path, persist: str | None
) -> None:
    """By default (and with ``vcontext.sshPersist 0``) a sync shares one connection among
    its git commands (for its own commands only) and closes it when it ends (``ssh -O
    exit`` on its own control socket): no ssh master and no open session outlive it, as
    with git itself."""
    proxy = servers.DroppingProxy(sshd.port, every=0).start()  # counts the connections
    try:
        remote = served / "remote.git"
        config = _ssh_clone_config(sshd, tmp_path, port=proxy.port)
        _, [clone] = _ssh_team(tmp_path, sshd, remote, clone_config=config)
        if persist is not None:
            soak.git(clone, "config", "vcontext.sshPersist", persist)
        for r in range(2):
            soak.work(clone, "agent-0", r, soak.AgentLog("agent-0"))
            before = proxy.connections
            result = _sync(clone, "agent-0")
            assert result["exit"] == 0, result["output"]
            assert result["ops"]["total"] >= 2
            assert proxy.connections - before == 1, (proxy.connections - before, result["ops"])
            assert _until(lambda: proxy.open_connections == 0, 3), "the sync left it open"
    finally:
        proxy.stop()
    assert (
        soak.git(clone, "config", "--get", "core.sshCommand").stdout.strip().endswith("ssh_config")
    )  # the user's own setting, untouched


SSH_SPY = """#!/bin/sh
# git's ssh, logging what each run is and whether the sync's master was listening then
path=
for word in "$@"; do case $word in ControlPath=*) path=${word#ControlPath=};; esac; done
state=none
if [ -n "$path" ] && [ -n "$(ls -A "$(dirname "$path")" 2>/dev/null)" ]; then state=listening; fi
case " $* " in
*" -N "*) kind=open;; *" -O "*) kind=control;; *" -G "*) kind=probe;; *) kind=git;;
esac
echo "$kind $state" >> "$SSH_SPY_LOG"
exec ssh "$@"
"""


def _spied_ssh(sshd: servers.SshServer, where: Path, **kwargs: Any) -> tuple[dict[str, str], Path]:
    """A clone config whose ssh command (still OpenSSH's, as git and sync see it) logs each
    run: its kind (``open``: the sync's own early login, ``git``: a git command's) and
    whether the sync's control socket was there when it started."""
    spy = where / "bin" / "ssh"
    spy.parent.mkdir(parents=True)
    spy.write_text(SSH_SPY)
    spy.chmod(0o755)
    config = sshd.client_config(where / "ssh_config", **kwargs)
    return {"core.sshCommand": f"{spy} -F {config}"}, where / "ssh.log"


def test_sync_over_ssh_logs_in_before_its_first_git_command_needs_the_connection(
    tmp_path: Path, sshd: servers.SshServer, served: Path
) -> None:
    """PRODUCT.md, "Sync at scale" (issue 30: SSH near the local path's speed): a sync
    starts its shared ssh connection when it starts (``ssh -f -N``, in the background), so
    the key exchange and login overlap its local work; its git commands then all find the
    master listening — the first one too, which used to log in itself — and it is still
    one connection per sync, none left open after it."""
    proxy = servers.DroppingProxy(sshd.port, every=0).start()
    try:
        remote = served / "remote.git"
        config, log = _spied_ssh(sshd, tmp_path, port=proxy.port)
        _, [clone] = _ssh_team(tmp_path, sshd, remote, clone_config=config)
        for r in range(2):
            soak.work(clone, "agent-0", r, soak.AgentLog("agent-0"))
            log.unlink(missing_ok=True)
            before = proxy.connections
            result = _sync(clone, "agent-0", {"SSH_SPY_LOG": str(log)})
            assert result["exit"] == 0, result["output"]
            runs = [line for line in log.read_text().splitlines() if not line.startswith("probe")]
            assert runs[0] == "open none", runs  # the login, before any git command
            git_runs = [line for line in runs if line.startswith("git")]
            assert len(git_runs) == result["ops"]["total"] >= 2, (runs, result["ops"])
            assert set(git_runs) == {"git listening"}, runs
            assert not [line for line in runs if line.startswith("control")]  # (said in process)
            assert proxy.connections - before == 1
            assert _until(lambda: proxy.open_connections == 0, 3), "the sync left it open"
    finally:
        proxy.stop()


def test_sync_over_ssh_an_early_login_dropped_costs_nothing(
    tmp_path: Path, sshd: servers.SshServer, served: Path
) -> None:
    """The early login is a head start, never a new way to fail: dropped by the network
    (sshd shedding connections), git's first command logs in itself as it always did, the
    sync goes on without a retry to say, and nothing is left open."""
    proxy = servers.DroppingProxy(sshd.port, every=2, how="close").start()
    try:
        remote = served / "remote.git"
        config, log = _spied_ssh(sshd, tmp_path, port=proxy.port)
        _, [clone] = _ssh_team(tmp_path, sshd, remote, clone_config=config)
        soak.work(clone, "agent-0", 0, soak.AgentLog("agent-0"))
        proxy.connections = 1  # the next one (the early login) is dropped, not the one after
        dropped = proxy.dropped
        result = _sync(clone, "agent-0", {"SSH_SPY_LOG": str(log)})
        assert result["exit"] == 0, result["output"]
        assert proxy.dropped - dropped == 1
        assert "retry" not in result["output"], result["output"]
        runs = [line for line in log.read_text().splitlines() if not line.startswith("probe")]
        assert runs[:2] == ["open none", "git none"], runs  # git's first command logs in
        assert _until(lambda: proxy.open_connections == 0, 3), "the sync left it open"
    finally:
        proxy.stop()


def _control_folders(pid: int) -> list[Path]:
    """The control folders of the sync with this pid (where ``SshShare`` puts them)."""
    import tempfile

    roots = {Path("/tmp"), Path(tempfile.gettempdir())}
    return [f for root in roots for f in root.glob(f"vcontext-ssh-{pid}-*")]


def test_sync_over_ssh_a_killed_syncs_connection_and_folder_go_at_the_next_sync(
    tmp_path: Path, sshd: servers.SshServer, served: Path
) -> None:
    """``vcontext.sshPersist 0``: a sync killed while it waits leaves its control folder
    (and its master, which would live on for ControlPersist): the agent's next sync removes
    the folder and ends that master before it starts its own, and leaves nothing of its own
    either."""
    proxy = servers.DroppingProxy(sshd.port, every=0).start()
    try:
        remote = served / "remote.git"
        config = _ssh_clone_config(sshd, tmp_path, port=proxy.port)
        _, [clone] = _ssh_team(tmp_path, sshd, remote, clone_config=config)
        soak.git(clone, "config", "vcontext.sshPersist", "0")
        soak.work(clone, "agent-0", 0, soak.AgentLog("agent-0"))
        assert soak.sync(clone, "agent-0")["exit"] == 0
        soak.work(clone, "agent-0", 1, soak.AgentLog("agent-0"))
        soak.git(remote, "update-ref", "refs/vcontext/lease/main", _lease_commit(remote))
        _give_to_login(sshd)(remote)  # (the objects root wrote)
        waiter = subprocess.Popen(
            [*soak.cli(), "sync", "agent-0", "--push", "origin"], cwd=clone,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            assert _until(lambda: _control_folders(waiter.pid) != [], 60), "no control folder"
            assert _until(lambda: proxy.open_connections == 1), "no master"
            waiter.kill()  # SIGKILL: no clean-up of its own
            waiter.wait()
        finally:
            if waiter.poll() is None:
                waiter.kill()
                waiter.wait()
        [left] = _control_folders(waiter.pid)
        assert proxy.open_connections == 1  # its master lives on
        soak.git(remote, "update-ref", "-d", "refs/vcontext/lease/main")
        result = soak.sync(clone, "agent-0")
        assert result["exit"] == 0, result["output"]
        assert not left.exists()
        assert _until(lambda: proxy.open_connections == 0), "the killed sync's master still runs"
    finally:
        proxy.stop()


def test_sync_to_a_path_remote_skips_its_gc_auto_until_it_has_work(tmp_path: Path) -> None:
    """A push to a remote on this machine runs the remote's receive-pack here, which starts
    ``git gc --auto`` after every push: sync's pushes skip it while git's own thresholds
    (the remote's gc.auto, gc.autoPackLimit) say it has nothing to do, and leave it to run
    once they say it has: the remote is maintained as git maintains it."""
    _, [clone] = _team(tmp_path, None)
    remote = tmp_path / "srv" / "remote.git"
    soak.work(clone, "agent-0", 0, soak.AgentLog("agent-0"))
    result = _sync(clone, "agent-0")
    assert result["exit"] == 0, result["output"]
    assert result["ops"]["push"] >= 1
    assert result["ops"]["maintenance"] == 0, result["ops"]
    add_packs(remote, 2, salt=str(time.time()))  # two more, over a limit of one: gc has work
    soak.git(remote, "config", "gc.autoPackLimit", "1")
    soak.git(remote, "config", "gc.autoDetach", "false")
    soak.work(clone, "agent-0", 1, soak.AgentLog("agent-0"))
    result = _sync(clone, "agent-0")
    assert result["exit"] == 0, result["output"]
    assert result["ops"]["maintenance"] >= 1, result["ops"]
    assert len(list((remote / "objects" / "pack").glob("*.pack"))) <= 1  # gc ran


def test_sync_over_ssh_keeps_the_users_own_connection_sharing(
    tmp_path: Path, sshd: servers.SshServer, served: Path
) -> None:
    """The user's ssh config says how to share connections (its own ControlMaster and
    ControlPath): sync uses it as it is and leaves the user's master running."""
    proxy = servers.DroppingProxy(sshd.port, every=0).start()
    socket_path = tmp_path / "cm.sock"
    extra = f"    ControlMaster auto\n    ControlPath {socket_path}\n    ControlPersist 60\n"
    try:
        remote = served / "remote.git"
        config = _ssh_clone_config(sshd, tmp_path, port=proxy.port, extra=extra)
        _, [clone] = _ssh_team(tmp_path, sshd, remote, clone_config=config)
        soak.work(clone, "agent-0", 0, soak.AgentLog("agent-0"))
        result = _sync(clone, "agent-0")
        assert result["exit"] == 0, result["output"]
        assert socket_path.exists()  # the user's master still runs
    finally:
        subprocess.run(
            ["ssh", "-F", str(tmp_path / "ssh_config"), "-O", "exit", servers.SSH_ALIAS],
            capture_output=True, check=False,
        )  # fmt: skip
        proxy.stop()


def _until(condition: Any, limit: float = 10.0) -> bool:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


@pytest.mark.parametrize(
    "url",
    [
        "ext::ssh -p 22 host %S r.git",  # a remote helper's address (git: no ssh, ext refused)
        "ssh://-oProxyCommand=touch$IFS/tmp/x/r.git",  # git: "strange hostname blocked"
        "-host:r.git",
    ],
)
def test_sync_runs_no_ssh_for_a_remote_git_would_not_reach_over_ssh(
    tmp_path: Path, url: str
) -> None:
    """Nothing from outside reaches a command line unchecked: a configured remote's URL
    that git reads as a remote helper's address, or refuses (a host or port ssh would read
    as an option), gets no early login either; the sync runs no ssh at all (fails before:
    ``ssh -G -- ext``, ``ssh -G -- -oProxyCommand=…`` were run)."""
    _, [clone] = _team(tmp_path, None)
    spy = tmp_path / "bin" / "ssh"
    spy.parent.mkdir()
    spy.write_text(f'#!/bin/sh\necho "$*" >> {tmp_path / "ssh.log"}\nexit 255\n')
    spy.chmod(0o755)
    subprocess.run(["git", "config", "remote.evil.url", url], cwd=clone, check=True)
    subprocess.run(["git", "config", "core.sshCommand", str(spy)], cwd=clone, check=True)
    out = subprocess.run(
        ["git", "vcontext", "sync", "agent-0", "--push", "evil"],
        cwd=clone, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60,
    )  # fmt: skip
    assert out.returncode != 0  # (git refuses the remote: the sync says so)
    assert "Traceback" not in out.stderr, out.stderr
    assert not (tmp_path / "ssh.log").exists(), (tmp_path / "ssh.log").read_text()


@pytest.mark.parametrize(
    "args",
    [
        ["nobody"],  # no branch for that agent
        ["agent-0", "--into", "bad..name"],
        ["agent-0", "--all"],
        [],
    ],
)
def test_sync_that_stops_before_the_network_opens_no_ssh_connection(
    tmp_path: Path, args: list[str]
) -> None:
    """A sync --push refused before it reaches the network (an agent with no branch, a
    bad --into, agents and --all, neither) starts no early login: the server sees no
    connection for it (fails before: ssh -f -N was started, then killed)."""
    _, [clone] = _team(tmp_path, None)
    spy = tmp_path / "bin" / "ssh"
    spy.parent.mkdir()
    spy.write_text(
        f'#!/bin/sh\ncase " $* " in *" -G "*) exit 0;; esac\necho "$*" >> {tmp_path / "ssh.log"}\n'
        "exit 255\n"
    )  # (ssh -G answers: nothing of the user's shares connections)
    spy.chmod(0o755)
    subprocess.run(["git", "config", "remote.far.url", "host:r.git"], cwd=clone, check=True)
    subprocess.run(["git", "config", "core.sshCommand", str(spy)], cwd=clone, check=True)
    # (the look for an agent only the remote has retries a failure as transient until the
    # sync's deadline, 5775bb3: a short one, as what is guarded is the early login)
    subprocess.run(["git", "config", "vcontext.syncTimeout", "3"], cwd=clone, check=True)
    out = subprocess.run(
        ["git", "vcontext", "sync", *args, "--push", "far"],
        cwd=clone, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60,
    )  # fmt: skip
    assert out.returncode in (2, 3), (out.returncode, out.stderr)
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    log = tmp_path / "ssh.log"
    if args[:1] == ["nobody"]:
        # With --push, sync looks for agents/nobody on the remote before refusing (one
        # git-upload-pack): that look is all; no early login (ssh -f -N) is started for it.
        lines = log.read_text().splitlines() if log.exists() else []
        assert all("git-upload-pack" in line and " -N" not in f" {line}" for line in lines), lines
    else:
        assert not log.exists(), log.read_text()


def test_sync_over_ssh_for_an_agent_only_the_remote_has_logs_in_once(
    tmp_path: Path, sshd: servers.SshServer, served: Path
) -> None:
    """PRODUCT.md, "Sync at scale" (issue 30: one connection per sync over ssh): the look
    at the remote for an agent this clone never fetched goes through the sync's own link,
    the sync's first command on it, so the whole sync is one key exchange and one login
    (fails before: the look had a link of its own, 2 connections)."""
    proxy = servers.DroppingProxy(sshd.port, every=0).start()  # counts the connections
    try:
        remote = served / "remote.git"
        config = _ssh_clone_config(sshd, tmp_path, port=proxy.port)
        _, [mine, theirs] = _ssh_team(tmp_path, sshd, remote, 2, clone_config=config)
        soak.work(theirs, "agent-1", 0, soak.AgentLog("agent-1"))
        assert _sync(theirs, "agent-1")["exit"] == 0
        for ref in ("refs/heads/agents/agent-1", "refs/remotes/origin/agents/agent-1"):
            soak.git(mine, "update-ref", "-d", ref, check=False)
        before = proxy.connections
        done = subprocess.run(
            ["git", "vcontext", "sync", "agent-1", "--push", "origin"],
            cwd=mine, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        assert "agents/agent-1: created from origin/agents/agent-1" in done.stdout
        assert proxy.connections - before == 1, proxy.connections - before
        assert _until(lambda: proxy.open_connections == 0, 3), "the sync left it open"
    finally:
        proxy.stop()
