"""What one look at a remote costs per transport: the poll of a waiting agent, a fetch of
nothing new, a push of one request ref — against real servers on loopback.

Run: python tests/bench/bench_transports.py [--refs 0 200 1000] [--runs 30]
     [--front auto|nginx|python] [--protocol 2 0] [--agents 16 1000]
     [--ssh-login git-shell|root] [--kex default curve25519-sha256]

For each transport (a path through git, HTTP: git http-backend behind nginx + fcgiwrap
where installed, SSH: a stock sshd, SSH over one ControlMaster connection; sshd's clients
log in as a user of the server's own whose login shell is git-shell, as on a forge, or
with ``--ssh-login root`` as root, whose shell runs its rc files at each session: the
figures of runs before this option) and each number
of requests waiting on the remote (refs under ``refs/vcontext/sync/``), the median wall
time and the CPU per operation of the client (git and its helpers: ssh, git-remote-http)
and of the server (the web server's or sshd's processes and the git processes they start),
and how many such looks one core could serve a second. That is the polling cost of waiting
agents: 1,000 agents looking every 2 s are 500 looks a second.

``--agents N``: instead of request refs alone, a remote as ``sync --push`` leaves it with N
agents (N agent branches, N requests waiting, a lease), and the operations as sync runs them:
its look (a fetch of the base, its own branch, its lease, the server mark and every request
of the base) when nothing moved, when a request moved, when the lease moved (a new lease
commit on the base's tip, as sync takes it) and when an older version's lease moved (a root
commit, which git's negotiation cannot end early on: over HTTP one request more),
``ls-remote`` of two refs, and the
push of one request ref, under each git wire protocol of ``--protocol`` (``-c
protocol.version``: v2, git's default, lists refs by prefix in a request of its own; v0 has
every ref advertised in the first answer). Over HTTP (nginx) the column ``requests`` counts
the CGI runs per operation (each one ``git http-backend`` and the git command it starts).

``--kex ALGORITHM ...``: instead, what one ssh connection costs (``git-upload-pack`` asked
for nothing: what each sync pays once over ssh) under each key exchange (``default``: what
this ssh chooses; OpenSSH 9.x: the post-quantum ``sntrup761x25519-sha512``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers

from timing import load_average

from helpers import git_servers as servers
from helpers import soak

LEASE = "refs/vcontext/lease/main"
REQUEST = "refs/vcontext/sync/main/agents/agent-0"


OWNER: list[servers.RunAs] = []
"""Who runs git in the served repositories (under ``srv/``): their owner when the server's
login is a user of its own (``--ssh-login git-shell``), else (empty) as we run."""


def _git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    owner = OWNER[0] if OWNER and "srv" in cwd.parts else None
    out = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, env=env, check=False,
        user=None if owner is None else owner.uid, group=None if owner is None else owner.gid,
        extra_groups=None if owner is None else [],
    )  # fmt: skip
    if out.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {out.stderr.strip()}")
    return out.stdout


def _children() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _measure(
    action: Callable[[], None], server_cpu: Callable[[], float], runs: int
) -> tuple[float, float, float]:
    """(median wall, client CPU per run, server CPU per run) of ``runs`` calls (one warm-up).
    sshd's process for each connection, which its monitor leaves behind as the connection
    ends (outside the server's tree), is reaped here (``soak.adopt_orphans``, as
    ``bench_soak`` does) and counted as the server's."""
    action()
    _orphans()  # (the warm-up's)
    walls = []
    client0, server0 = _children(), server_cpu()
    for _ in range(runs):
        start = time.perf_counter()
        action()
        walls.append(time.perf_counter() - start)
    left = _orphans()  # (reaped: in _children() now, the server's sshd ones included)
    client = (_children() - client0 - left) / runs
    server = (server_cpu() - server0 + left) / runs
    return statistics.median(walls), client, server


def _orphans() -> float:
    """CPU seconds of the sshd processes left behind since the last call, reaped now."""
    return soak.reap_orphans().get("sshd", 0.0) if soak._ADOPTED else 0.0


def _seed(root: Path, refs: int) -> tuple[Path, Path]:
    """A bare remote with main, ``refs`` request refs and a lease; a clone of it."""
    srv = root / "srv"
    srv.mkdir()
    remote = srv / "remote.git"
    _git(root, "init", "-q", "--bare", "-b", "main", str(remote))
    work = root / "work"
    _git(root, "init", "-q", "-b", "main", str(work))
    (work / "todo.json").write_text('{"items": []}\n')
    ident = ["-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    _git(work, "add", "todo.json")
    _git(work, *ident, "commit", "-qm", "seed")
    _git(work, "push", "-q", str(remote), "main")
    head = _git(work, "rev-parse", "HEAD").strip()
    lines = [f"create refs/vcontext/sync/main/agents/agent-{i} {head}\n" for i in range(refs)]
    lines.append(f"create {LEASE} {head}\n")
    subprocess.run(
        ["git", "update-ref", "--stdin"], cwd=remote, input="".join(lines), text=True,
        check=True,
    )  # fmt: skip
    return remote, work


def _bench(root: Path, transport: str, refs: int, runs: int, front: str, login: str) -> list[str]:
    remote, work = _seed(root, refs)
    env = dict(os.environ)
    server: servers.HttpFront | servers.NginxFront | servers.SshServer | None = None
    config: Path | None = None
    try:
        if transport == "path (git)":
            url = str(remote)
        elif transport == "HTTP":
            server = servers.http_front(remote.parent, root / "front", front).start()
            url = server.url(remote)
        else:
            url, server, config = _sshd(root, remote, transport, env, login)
        cpu = server.cpu_seconds if server is not None else (lambda: 0.0)
        head = _git(work, "rev-parse", "HEAD").strip()
        counter = [0]

        def look() -> None:
            _git(work, "ls-remote", url, LEASE, REQUEST, env=env)

        def fetch() -> None:
            _git(
                work, "-c", "maintenance.auto=false", "fetch", "-q", "--no-tags", url,
                "+refs/heads/main:refs/bench/main", f"+{LEASE}:refs/bench/lease", env=env,
            )  # fmt: skip

        def push() -> None:
            counter[0] += 1
            ref = f"refs/vcontext/sync/main/agents/bench-{counter[0]}"
            _git(work, "push", "-q", "--no-verify", url, f"{head}:{ref}", env=env)

        rows = []
        for name, action in (("look (ls-remote, 2 refs)", look), ("fetch, nothing new", fetch),
                             ("push of one request ref", push)):  # fmt: skip
            wall, client, served = _measure(action, cpu, runs)
            per_core = 1.0 / (client + served) if client + served > 0 else float("inf")
            rows.append(
                f"| {transport} | {refs} | {name} | {wall * 1000:.1f} ms | "
                f"{client * 1000:.1f} ms | {served * 1000:.1f} ms | {per_core:.0f} /s |"
            )
        return rows
    finally:
        if config is not None:
            subprocess.run(
                ["ssh", "-F", str(config), "-O", "exit", servers.SSH_ALIAS],
                capture_output=True, check=False, timeout=30,
            )  # fmt: skip
        if server is not None:
            server.stop()


def _measure_each(
    action: Callable[[], None],
    prepare: Callable[[], None],
    server_cpu: Callable[[], float],
    requests: Callable[[], int],
    runs: int,
) -> tuple[float, float, float, float]:
    """As ``_measure``, with ``prepare`` run (not counted) before each call: (median wall,
    client CPU, server CPU, server requests) per call."""
    prepare()
    action()
    walls: list[float] = []
    client = served = 0.0
    asked = 0
    for _ in range(runs):
        prepare()
        _orphans()  # (the warm-up's, or prepare's: not this call's)
        client0, server0, asked0 = _children(), server_cpu(), requests()
        start = time.perf_counter()
        action()
        walls.append(time.perf_counter() - start)
        _settled(requests)  # (the CGI wrapper logs a request after git has answered it)
        left = _orphans()  # (sshd's process for the connection: the server's, see _measure)
        client += _children() - client0 - left
        served += server_cpu() - server0 + left
        asked += requests() - asked0
    return statistics.median(walls), client / runs, served / runs, asked / runs


def _settled(requests: Callable[[], int]) -> None:
    """Until the server's request count stops moving (30 ms; at most 1 s)."""
    last, deadline = requests(), time.monotonic() + 1.0
    while time.monotonic() < deadline:
        time.sleep(0.03)
        now = requests()
        if now == last:
            return
        last = now


def _seed_agents(root: Path, agents: int) -> tuple[Path, Path, str]:
    """A bare remote as ``sync --push`` leaves it with ``agents`` agents: main, an agent
    branch and a waiting request for each, a lease; a clone that has fetched it all."""
    remote, work = _seed(root, 0)
    head = _git(work, "rev-parse", "HEAD").strip()
    lines = []
    for i in range(agents):
        lines.append(f"create refs/heads/agents/agent-{i} {head}\n")
        lines.append(f"create refs/vcontext/sync/main/agents/agent-{i} {head}\n")
    subprocess.run(
        ["git", "update-ref", "--stdin"], cwd=remote, input="".join(lines), text=True,
        check=True,
    )  # fmt: skip
    return remote, work, head


SYNC_SPECS = [
    "+refs/heads/main:refs/vcontext/remotes/o/heads/main",
    "+refs/heads/agents/agent-0:refs/vcontext/remotes/o/heads/agents/agent-0",
    "+refs/vcontext/lease/main*:refs/vcontext/remotes/o/lease/main*",
    "+refs/vcontext/server*:refs/vcontext/remotes/o/server*",
    "+refs/vcontext/sync/main/*:refs/vcontext/remotes/o/sync/main/*",
]
"""What one look of ``sync --push`` fetches (remote/view.py's RemoteView.fetch)."""


Server = servers.HttpFront | servers.NginxFront | servers.SshServer


def _serve(
    root: Path, remote: Path, transport: str, front: str, env: dict[str, str], login: str
) -> tuple[str, Server | None, Path | None]:
    """Start ``transport``'s server for ``remote``: (its URL, the server, an ssh config)."""
    if transport == "path (git)":
        return str(remote), None, None
    if transport == "HTTP":
        server = servers.http_front(remote.parent, root / "front", front).start()
        return server.url(remote), server, None
    return _sshd(root, remote, transport, env, login)


def _sshd(
    root: Path, remote: Path, transport: str, env: dict[str, str], login: str
) -> tuple[str, servers.SshServer, Path]:
    """sshd for ``remote``, its clients logging in as ``login``: ``git-shell``, a user of the
    server's own whose login shell is git-shell (each session runs git and nothing else, as
    on a forge; the repository becomes that user's), or ``root`` (root's shell and its rc
    files run at each session, as no git server's would)."""
    if login == "root":
        sshd = servers.SshServer(root / "sshd").start()
    else:
        user = servers.other_user(servers.GIT_SHELL_USER, shell=servers.git_shell())
        servers.own(remote, user)
        OWNER.append(user)
        sshd = servers.SshServer(root / "sshd", login=user.name).start()
    extra = ""
    if transport.endswith("ControlMaster"):
        extra = f"    ControlMaster auto\n    ControlPath {root}/cm-%C\n    ControlPersist 120\n"
    config = sshd.client_config(root / "ssh_config", extra=extra)
    env["GIT_SSH_COMMAND"] = sshd.ssh_command(config)
    return sshd.url(remote), sshd, config


def _bench_sync(
    root: Path,
    transport: str,
    agents: int,
    runs: int,
    front: str,
    protocols: list[int],
    login: str,
) -> list[str]:
    remote, work, head = _seed_agents(root, agents)
    env = dict(os.environ)
    url, server, config = _serve(root, remote, transport, front, env, login)
    try:
        rows = []
        for protocol in protocols:
            for name, wall, client, served, n in _sync_ops(
                remote, work, head, url, server, env, protocol, runs
            ):
                rows.append(
                    f"| {transport} | v{protocol} | {agents} | {name} | {wall * 1000:.1f} ms | "
                    f"{client * 1000:.1f} ms | {served * 1000:.1f} ms | {n:.1f} |"
                )
        return rows
    finally:
        if config is not None:
            subprocess.run(
                ["ssh", "-F", str(config), "-O", "exit", servers.SSH_ALIAS],
                capture_output=True, check=False, timeout=30,
            )  # fmt: skip
        if server is not None:
            server.stop()


def _sync_ops(
    remote: Path,
    work: Path,
    head: str,
    url: str,
    server: Server | None,
    env: dict[str, str],
    protocol: int,
    runs: int,
) -> list[tuple[str, float, float, float, float]]:
    """Sync's operations under one wire protocol: (name, wall, client CPU, server CPU,
    requests) each."""
    cpu = server.cpu_seconds if server is not None else (lambda: 0.0)
    asked = getattr(server, "requests", lambda: 0)
    version = ["-c", f"protocol.version={protocol}"]
    quiet = ["-c", "maintenance.auto=false", "-c", "gc.auto=0"]
    fetch_args = ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--prune"]
    # commits made on the remote beforehand, one per run: "a request moved"
    tree = _git(remote, "rev-parse", f"{head}^{{tree}}").strip()
    ident = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b",
             "GIT_COMMITTER_EMAIL": "b@x"}  # fmt: skip
    fresh = [
        _git(remote, "commit-tree", tree, "-p", head, "-m", f"v{protocol} {i}",
             env={**env, **ident}).strip()
        for i in range(runs + 2)
    ]  # fmt: skip
    request = "refs/vcontext/sync/main/agents/agent-1"
    empty = _git(remote, "hash-object", "-t", "tree", "-w", "/dev/null").strip()
    roots = [  # lease commits as earlier versions made them: the empty tree, no parent
        _git(remote, "commit-tree", empty, "-m", f"lease v{protocol} {i}", env={**env, **ident})
        .strip()
        for i in range(runs + 2)
    ]  # fmt: skip
    leases = [  # as sync makes them now: the base tip as parent, its tree (no file changed)
        _git(remote, "commit-tree", tree, "-p", head, "-m", f"lease v{protocol} {i}",
             env={**env, **ident}).strip()
        for i in range(runs + 2)
    ]  # fmt: skip
    counter = [0]

    def look() -> None:
        _git(work, *version, *quiet, *fetch_args, url, *SYNC_SPECS, env=env)

    def move() -> None:  # (not counted: _measure_each leaves out what prepare used)
        counter[0] += 1
        commit = fresh[counter[0] % len(fresh)]
        _git(remote, "update-ref", request, commit)

    def lease() -> None:  # (not counted either)
        counter[0] += 1
        commit = leases[counter[0] % len(leases)]
        _git(remote, "update-ref", LEASE, commit)

    def root_lease() -> None:  # (not counted either)
        counter[0] += 1
        commit = roots[counter[0] % len(roots)]
        _git(remote, "update-ref", LEASE, commit)

    def ls_remote() -> None:
        _git(work, *version, "ls-remote", url, LEASE, REQUEST, env=env)

    def push() -> None:
        counter[0] += 1
        ref = f"refs/vcontext/sync/main/agents/bench-v{protocol}-{counter[0]}"
        _git(work, *version, "push", "-q", "--no-verify", url, f"{head}:{ref}", env=env)

    def nothing() -> None:
        pass

    look()
    out = []
    for name, action, prepare in (
        ("sync's look, nothing new", look, nothing),
        ("sync's look, a request moved", look, move),
        ("sync's look, the lease moved", look, lease),
        ("sync's look, the lease moved (an older version's root lease)", look, root_lease),
        ("ls-remote, 2 refs", ls_remote, nothing),
        ("push of one request ref", push, nothing),
    ):
        out.append((name, *_measure_each(action, prepare, cpu, asked, runs)))
    return out


def _print_sync(args: argparse.Namespace) -> int:
    """``--agents``: sync's operations (see the module)."""
    print(f"cpus: {os.cpu_count()}, load average before: {load_average()}")
    print("| transport | protocol | agents | operation | wall (median) | client CPU | "
          "server CPU | requests |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for transport in args.transport:
        for agents in args.agents:
            with _workdir(transport, args.ssh_login) as tmp:
                try:
                    rows = _bench_sync(
                        tmp, transport, agents, args.runs, args.front, args.protocol,
                        args.ssh_login,
                    )  # fmt: skip
                except servers.Unavailable as exc:
                    print(f"| {transport} | | {agents} | skipped: {exc} |||||")
                    break
                for row in rows:
                    print(row, flush=True)
    print(f"load average after: {load_average()}")
    return 0


def _print_kex(args: argparse.Namespace) -> int:
    """``--kex``: one ssh connection under each key exchange."""
    print(f"cpus: {os.cpu_count()}, load average before: {load_average()}")
    print("| transport | requests waiting | operation | wall (median) | client CPU | "
          "server CPU | per core |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    with _workdir("SSH", args.ssh_login) as tmp:
        for row in _bench_kex(tmp, args.kex, args.runs, args.ssh_login):
            print(row, flush=True)
    print(f"load average after: {load_average()}")
    return 0


def _bench_kex(root: Path, kexes: list[str], runs: int, login: str) -> list[str]:
    """One ssh connection per run that asks ``git-upload-pack`` for nothing (what each sync
    pays once over ssh), under each key exchange of ``kexes`` (``default``: what this ssh
    chooses): its median wall, client and server CPU."""
    remote, _ = _seed(root, 0)
    env = dict(os.environ)
    _, sshd, config = _sshd(root, remote, "SSH", env, login)
    rows = []
    try:
        for kex in kexes:
            chosen = [] if kex == "default" else ["-o", f"KexAlgorithms={kex}"]
            argv = ["ssh", "-F", str(config), *chosen, servers.SSH_ALIAS,
                    f"git-upload-pack '{remote}'"]  # fmt: skip

            def connect(argv: list[str] = argv) -> None:
                subprocess.run(argv, input=b"0000", capture_output=True, check=True)

            wall, client, served = _measure(connect, sshd.cpu_seconds, runs)
            rows.append(
                f"| SSH, KexAlgorithms {kex} | 0 | one connection, nothing fetched | "
                f"{wall * 1000:.1f} ms | {client * 1000:.1f} ms | {served * 1000:.1f} ms | "
                f"{1.0 / (client + served):.0f} /s |"
            )
    finally:
        sshd.stop()
    return rows


@contextlib.contextmanager
def _workdir(transport: str, login: str) -> Iterator[Path]:
    """A folder for one run, removed after: one the server's own user may enter when sshd
    logs in as that user."""
    OWNER.clear()
    if transport.startswith("SSH") and login != "root":
        folder = servers.shared_tmp("bench-transports-")
        try:
            yield folder
        finally:
            subprocess.run(["rm", "-rf", "--", str(folder)], check=False)
        return
    with tempfile.TemporaryDirectory(prefix="bench-transports-") as tmp:
        yield Path(tmp)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--refs", type=int, nargs="+", default=[0, 200, 1000])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--front", choices=("auto", "nginx", "python"), default="auto")
    parser.add_argument(
        "--transport", nargs="+",
        default=["path (git)", "HTTP", "SSH", "SSH, one ControlMaster"],
        choices=["path (git)", "HTTP", "SSH", "SSH, one ControlMaster"],
    )  # fmt: skip
    parser.add_argument("--agents", type=int, nargs="+", help="Sync's operations (see above).")
    parser.add_argument("--protocol", type=int, nargs="+", default=[2, 0], choices=[0, 1, 2])
    parser.add_argument(
        "--ssh-login", choices=("git-shell", "root"), default="git-shell",
        help="Who SSH clients log in as: a user whose login shell is git-shell (as on a "
        "forge), or root (whose shell runs its rc files at each session: the figures of "
        "earlier runs).",
    )  # fmt: skip
    parser.add_argument(
        "--kex", nargs="+", metavar="ALGORITHM",
        help="Instead: what one ssh connection costs under each key exchange (default: "
        "what ssh chooses), e.g. --kex default curve25519-sha256.",
    )  # fmt: skip
    args = parser.parse_args()
    soak.adopt_orphans()  # (sshd's process per connection: counted, see _measure)
    before = load_average()
    if args.kex:
        return _print_kex(args)
    if args.agents:
        return _print_sync(args)
    print(f"cpus: {os.cpu_count()}, load average before: {before}")
    print("| transport | requests waiting | operation | wall (median) | client CPU | "
          "server CPU | per core |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for transport in args.transport:
        for refs in args.refs:
            with _workdir(transport, args.ssh_login) as tmp:
                try:
                    for row in _bench(tmp, transport, refs, args.runs, args.front, args.ssh_login):
                        print(row, flush=True)
                except servers.Unavailable as exc:
                    print(f"| {transport} | {refs} | skipped: {exc} |||||")
                    break
    print(f"load average after: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
