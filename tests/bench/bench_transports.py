"""What one look at a remote costs per transport: the poll of a waiting agent, a fetch of
nothing new, a push of one request ref — against real servers on loopback.

Run: python tests/bench/bench_transports.py [--refs 0 200 1000] [--runs 30]
     [--front auto|nginx|python]

For each transport (a path through git, HTTP: git http-backend behind nginx + fcgiwrap
where installed, SSH: a stock sshd, SSH over one ControlMaster connection) and each number
of requests waiting on the remote (refs under ``refs/vcontext/sync/``), the median wall
time and the CPU per operation of the client (git and its helpers: ssh, git-remote-http)
and of the server (the web server's or sshd's processes and the git processes they start),
and how many such looks one core could serve a second. That is the polling cost of waiting
agents: 1,000 agents looking every 2 s are 500 looks a second.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers

from helpers import git_servers as servers

LEASE = "refs/vcontext/lease/main"
REQUEST = "refs/vcontext/sync/main/agents/agent-0"


def _git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    out = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, env=env, check=False
    )
    if out.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {out.stderr.strip()}")
    return out.stdout


def _children() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _measure(
    action: Callable[[], None], server_cpu: Callable[[], float], runs: int
) -> tuple[float, float, float]:
    """(median wall, client CPU per run, server CPU per run) of ``runs`` calls (one warm-up)."""
    action()
    walls = []
    client0, server0 = _children(), server_cpu()
    for _ in range(runs):
        start = time.perf_counter()
        action()
        walls.append(time.perf_counter() - start)
    client, server = (_children() - client0) / runs, (server_cpu() - server0) / runs
    return statistics.median(walls), client, server


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


def _bench(root: Path, transport: str, refs: int, runs: int, front: str) -> list[str]:
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
            sshd = servers.SshServer(root / "sshd").start()
            server = sshd
            extra = ""
            if transport.endswith("ControlMaster"):
                extra = (
                    f"    ControlMaster auto\n    ControlPath {root}/cm-%C\n"
                    "    ControlPersist 120\n"
                )
            config = sshd.client_config(root / "ssh_config", extra=extra)
            env["GIT_SSH_COMMAND"] = sshd.ssh_command(config)
            url = sshd.url(remote)
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
    args = parser.parse_args()
    load = os.getloadavg()
    print(f"cpus: {os.cpu_count()}, load average before: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print("| transport | requests waiting | operation | wall (median) | client CPU | "
          "server CPU | per core |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for transport in args.transport:
        for refs in args.refs:
            with tempfile.TemporaryDirectory(prefix="bench-transports-") as tmp:
                try:
                    for row in _bench(Path(tmp), transport, refs, args.runs, args.front):
                        print(row, flush=True)
                except servers.Unavailable as exc:
                    print(f"| {transport} | {refs} | skipped: {exc} |||||")
                    break
    load = os.getloadavg()
    print(f"load average after: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
