"""One agent's ``sync --push`` over each transport: where its time goes, this tree against a
baseline, run in turn on the same clone against the same real server on loopback.

Run: python tests/bench/bench_sync_alone.py [--transport path http ssh] [--runs 10]
     [--baseline OTHER/src]

Each run: the agent edits its three documents and commits (not timed), then ``git vcontext
sync AGENT --push origin`` alone (no other agent: no lease to wait for), its git processes
traced (trace2). Printed per transport and code (median of ``--runs``): the sync's wall
time, its CPU (user + system of it and every process it waited for: git, git-remote-http,
ssh's foreground), the server's CPU (nginx, fcgiwrap and the git processes of the requests;
sshd, its sessions and their git processes), over ssh when its own login (``ssh -f -N``)
started (seconds after the sync did; noted by the clone's ssh command), when the first git
command that talks to the remote started and how long it took, and the git commands
that talked to the remote. Over ssh the first command used to open the connection (key
exchange, login) itself; a sync now opens it when it starts, in the background. With
``--baseline``, the baseline's run and ours alternate, so the machine's load weighs on both
alike; the load average is printed with the figures. ``--delay MS``: ssh goes through a
proxy on loopback that holds each chunk MS ms either way, as a server across a network
would (its key exchange and login then mostly wait, which the early login overlaps).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the soak harness

from timing import baseline, load_average

from helpers import git_servers as servers
from helpers import soak

NETWORK = ("fetch", "push", "ls-remote")


def _at(stamp: str) -> float:
    when = datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ")
    return when.replace(tzinfo=datetime.UTC).timestamp()


def network_commands(traces: Path) -> list[tuple[float, str, float]]:
    """(start, verb, seconds) of each git command of one sync that talked to the remote."""
    out = []
    for path in traces.iterdir():
        text = path.read_text(errors="replace")  # (argv of a binary path: not UTF-8)
        events = [json.loads(line) for line in text.splitlines() if line.strip()]
        start = next((e for e in events if e["event"] == "start"), None)
        end = next((e for e in events if e["event"] in ("exit", "atexit")), None)
        if start is None or end is None or len(start["argv"]) < 2:
            continue
        if start["argv"][1] in NETWORK:
            began = _at(start["time"])
            out.append((began, start["argv"][1], _at(end["time"]) - began))
    return sorted(out)


LOGIN_SPY = """#!/bin/sh
case " $* " in *" -N "*) [ -n "$LOGIN_LOG" ] && date +%s.%N >> "$LOGIN_LOG";; esac
exec {ssh} "$@"
"""
"""The clone's ssh: OpenSSH's, which notes when the sync's own login (``ssh -f -N``) starts."""


class Team:
    """One agent's clone and its remote behind a server of ``transport`` (stopped by
    ``stop``)."""

    def __init__(self, transport: str, root: Path, delay: float = 0.0) -> None:
        self.server: Any = None
        self.proxy: servers.DroppingProxy | None = None
        self.folders: list[Path] = []
        if transport == "ssh":
            if why := servers.SshServer.available():
                raise servers.Unavailable(why)
            work = servers.shared_tmp("vcontext-sshd-")
            login = servers.other_user()
            self.server = servers.SshServer(work, login=login.name).start()
            served = servers.shared_tmp("vcontext-ssh-")
            self.folders += [work, served]
            remote = served / "remote.git"
            port = None
            if delay:
                self.proxy = servers.DroppingProxy(self.server.port, every=0, delay=delay)
                port = self.proxy.start().port
            config = self.server.client_config(root / "ssh_config", port=port)
            spy = root / "bin" / "ssh"  # (named ssh: sync shares its connection as OpenSSH's)
            spy.parent.mkdir()
            spy.write_text(LOGIN_SPY.format(ssh=shutil.which("ssh") or "ssh"))
            spy.chmod(0o755)
            _, [self.clone] = soak.setup(
                root, 1, remote=remote, url=self.server.url(remote),
                clone_config={"core.sshCommand": f"{spy} -F {config}"},
                seeded=lambda r: servers.own(r, servers.other_user(self.server.login)),
            )  # fmt: skip
        elif transport == "http":
            (root / "srv").mkdir()
            self.server = servers.http_front(root / "srv", root / "front", "auto")
            self.server.start()
            remote = root / "srv" / "remote.git"
            _, [self.clone] = soak.setup(root, 1, remote=remote, url=self.server.url(remote))
        else:
            _, [self.clone] = soak.setup(root, 1)
        self.rounds = 0

    def server_cpu(self) -> float:
        return 0.0 if self.server is None else float(self.server.cpu_seconds())

    def sync(self, command: list[str], traces: Path) -> dict[str, Any]:
        soak.work(self.clone, "agent-0", self.rounds, soak.AgentLog("agent-0"))
        self.rounds += 1
        traces.mkdir()
        logins = traces.with_name(traces.name + "-logins")
        env = {**os.environ, "GIT_TRACE2_EVENT": str(traces), "LOGIN_LOG": str(logins)}
        served = self.server_cpu()
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.time()
        proc = subprocess.run(
            [*command, "sync", "agent-0", "--push", "origin"], cwd=self.clone, env=env,
            capture_output=True, text=True, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        wall = time.time() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"sync failed: {proc.stdout}{proc.stderr}")
        commands = network_commands(traces)
        return {
            "wall": wall,
            "cpu": after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime,
            "server": self.server_cpu() - served,
            "first_at": commands[0][0] - start if commands else 0.0,
            "first_took": commands[0][2] if commands else 0.0,
            "login_at": float(logins.read_text().split()[0]) - start if logins.exists() else 0.0,
            "ops": " ".join(verb for _, verb, _ in commands),
        }

    def stop(self) -> None:
        if self.proxy is not None:
            self.proxy.stop()
        if self.server is not None:
            self.server.stop()
        for folder in self.folders:
            subprocess.run(["rm", "-rf", "--", str(folder)], check=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", nargs="+", default=["path", "http", "ssh"],
                        choices=["path", "http", "ssh"])  # fmt: skip
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--baseline", help="another checkout's src folder, run in turn")
    parser.add_argument(
        "--delay", type=float, default=0.0, metavar="MS",
        help="ssh through a proxy on loopback that holds each chunk MS ms either way "
        "(a round trip of 2 x MS, as to a remote server)",
    )  # fmt: skip
    args = parser.parse_args()
    print(f"load average before: {load_average()}")
    if args.delay:
        print(f"ssh through a proxy holding each chunk {args.delay:.0f} ms either way")
    print("| transport | code | sync wall | its CPU | server CPU | ssh login starts at | 1st "
          "network command: starts at / takes | commands |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="vcontext-alone-") as tmp:
        codes = {"ours": soak.cli()}
        if args.baseline:
            codes = {"baseline": baseline(args.baseline, tmp), **codes}
        for transport in args.transport:
            root = Path(tmp) / transport
            root.mkdir()
            try:
                team = Team(transport, root, args.delay / 1000)
            except servers.Unavailable as exc:
                print(f"| {transport} | skipped: {exc} |")
                continue
            try:
                results: dict[str, list[dict[str, Any]]] = {name: [] for name in codes}
                team.sync(codes["ours"], root / "warm-up")
                for i in range(args.runs):
                    for name, command in codes.items():
                        results[name].append(team.sync(command, root / f"{name}-{i}"))
            finally:
                team.stop()
            for name, runs in results.items():
                med = {k: statistics.median(r[k] for r in runs) for k in runs[0] if k != "ops"}
                print(
                    f"| {transport} | {name} | {med['wall'] * 1000:.0f} ms | "
                    f"{med['cpu'] * 1000:.0f} ms | {med['server'] * 1000:.0f} ms | "
                    f"{med['login_at'] * 1000:.0f} ms | "
                    f"{med['first_at'] * 1000:.0f} / {med['first_took'] * 1000:.0f} ms | "
                    f"{runs[-1]['ops']} |"
                )
    print(f"load average after: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
