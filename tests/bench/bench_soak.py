"""Soak at benchmark size: N agent processes × R rounds of edit → commit → sync --push.

Run: python tests/bench/bench_soak.py [--agents 16] [--rounds 25] [--server] [--guard] [--no-lease]
     [--no-hooks] [--transport path|http|ssh|ssh-mux ...] [--front auto|nginx|python]
     [--trace] [--processes] [--ssh-persist SECONDS] [--git-looks] [--server-config K=V]
     [--server-python PYTHON] [--keep DIR]

Each transport given runs one soak, back to back, against a real git server on loopback
that the script starts and stops: ``path`` (the remote as a local path: sync reads it in
process), ``http`` (``git http-backend`` behind nginx + fcgiwrap where installed, else
Python's standard library: ``--front``), ``ssh`` (OpenSSH's sshd as Debian ships it,
``MaxStartups 10:30:100``, on a high port, with keys made for the run), ``ssh-mux`` (the
same with a ControlMaster connection per agent in the agents' ssh config).

Prints per soak what was lost (must be 0), syncs that gave up (must be 0), whether every
agent's last round is on the remote's base when the agents stop, M8 ``merge`` entries
against integrations (at most one each), per-sync times, the time until the base holds
everyone's last round, the CPU time of all processes (the agents' and, over HTTP and SSH,
the server's: a figure the machine's other load does not inflate) and the load average;
then, for several transports, the comparison table. ``--trace`` counts what each sync did
on the network (git's trace2 events: fetches, pushes, ``ls-remote``, ssh connections, git's
auto maintenance), for the integrating syncs and the waiting ones apart; it costs a little
time, so compare walls without it. A look taken in process is no git command (a path's,
and over HTTP where ``gitio.httpremote`` takes it): over HTTP the server's requests
(nginx) count those; ``--git-looks`` (``vcontext.inProcessHttp false`` in the clones) has
every look over HTTP be git's. ``--processes`` gives the CPU per round by process (git
fetch, git-remote-http, pack-objects under upload-pack, the syncs' Python, …; client and
server alike: ``helpers.cpulog``, where a C compiler is installed). Exit 1 when anything
was lost, a sync gave up or an integration logged more than one M8 entry. Over SSH the
agents log in as a user of the server's own, who cannot run a Python under root's home:
``--server``/``--guard`` there need ``--server-python``, a Python that user can run with
git-vcontext installed (``python3 -m venv /opt/vcontext && /opt/vcontext/bin/pip install .``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the soak harness

from helpers import cpulog, soak
from helpers import git_servers as servers

TRANSPORTS = ("path", "http", "ssh", "ssh-mux")
TITLES = {
    "path": "local path",
    "http": "HTTP",
    "ssh": "SSH",
    "ssh-mux": "SSH, one ControlMaster connection per agent",
}
OPS = ("fetch", "push", "ls-remote", "total", "ssh", "maintenance")


@dataclass
class Summary:
    """One soak's figures for the comparison table."""

    transport: str
    wall: float
    cpu_clients: float
    cpu_server: float
    rounds: int
    failed: int
    syncs: int
    lost: int
    undelivered: int
    front: str = ""
    ops: dict[str, dict[str, float]] = field(default_factory=dict)  # kind of sync -> means


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--no-hooks", action="store_true", help="Clones without the pre-push hook.")
    parser.add_argument(
        "--server", action="store_true", help="install --server on the remote (with the guard)."
    )
    parser.add_argument(
        "--guard", action="store_true", help="install --server --guard: the guard alone."
    )
    parser.add_argument(
        "--no-lease", action="store_true", help="vcontext.syncLease=false: no lease, optimistic."
    )
    parser.add_argument(
        "--transport", nargs="+", choices=TRANSPORTS, default=["path"],
        help="How the agents reach the remote; several: one soak each, back to back.",
    )  # fmt: skip
    parser.add_argument(
        "--front", choices=("auto", "nginx", "python"), default="auto",
        help="The web server in front of git http-backend (auto: nginx + fcgiwrap if installed).",
    )  # fmt: skip
    parser.add_argument(
        "--trace", action="store_true", help="Count each sync's network operations (trace2)."
    )
    parser.add_argument(
        "--processes", action="store_true",
        help="CPU per round by process, client and server (an LD_PRELOAD logger).",
    )  # fmt: skip
    parser.add_argument(
        "--ssh-persist", type=float, default=0.0, metavar="SECONDS",
        help="Over ssh: git config vcontext.sshPersist SECONDS in the clones (0: not set).",
    )  # fmt: skip
    parser.add_argument(
        "--git-looks", action="store_true",
        help="vcontext.inProcessHttp=false: every look over HTTP through git.",
    )  # fmt: skip
    parser.add_argument(
        "--server-config", action="append", default=[], metavar="KEY=VALUE", type=_setting,
        help="git config KEY VALUE in the remote once made (repeatable; e.g. what doctor notes: "
        "receive.unpackLimit=1).",
    )  # fmt: skip
    parser.add_argument(
        "--server-python", metavar="PYTHON",
        help="The Python that runs install --server (--server, --guard) in the remote: one "
        "the git server's user can run, with git-vcontext installed (over SSH the login is "
        "a user of its own, who cannot run a Python under root's home).",
    )  # fmt: skip
    parser.add_argument("--keep", metavar="DIR", help="Run under DIR and keep the repositories.")
    args = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode caching on, as after an install
    os.environ.pop("SOURCE_DATE_EPOCH", None)  # event ids need their entropy
    summaries = []
    failed = False
    soak.adopt_orphans()  # (each sync's ssh master: its CPU counted too)
    print(f"(uptime before: {_uptime()})")
    for transport in args.transport:
        with _folder(args.keep, transport) as root:
            try:
                code, summary = _bench(root, args, transport)
            except RuntimeError as exc:  # a setup the server refused (install --server)
                print(f"{TITLES[transport]}: not run: {str(exc).strip().splitlines()[-1]}")
                if args.server or args.guard:
                    print("(--server-python: a Python the server's user can run)")
                print()
                failed = True
                continue
        failed = failed or code != 0
        summaries.append(summary)
        print()
    if summaries and (len(summaries) > 1 or args.transport != ["path"]):
        _compare(summaries, args)
    return 1 if failed else 0


def _setting(text: str) -> tuple[str, str]:
    """``--server-config``'s KEY=VALUE: a git config key (section.name) and its value."""
    key, sign, said = text.partition("=")
    if not sign or "." not in key.strip(".") or not key.replace(".", "").replace("-", "").isalnum():
        raise argparse.ArgumentTypeError(f"not KEY=VALUE with a git config key: {text!r}")
    return key, said


@contextmanager
def _folder(keep: str | None, transport: str) -> Iterator[Path]:
    if keep:
        root = Path(keep) / transport
        root.mkdir(parents=True, exist_ok=False)
        yield root
        return
    with tempfile.TemporaryDirectory(prefix=f"bench-soak-{transport}-") as tmp:
        yield Path(tmp)


class _Transport:
    """The server of one soak (none for a path): where the remote is, how to reach it, and
    what its processes used."""

    def __init__(
        self, root: Path, kind: str, front: str, persist: float = 0.0,
        logger: dict[str, str] | None = None,
    ) -> None:  # fmt: skip
        """``logger``: the process logger's environment (``--processes``), which sshd's
        sessions get through its ``SetEnv`` (sshd gives them an environment of their own)."""
        self.root, self.kind, self.persist = root, kind, persist
        self.remote = root / "srv" / "remote.git"
        self.remote.parent.mkdir()
        self.url: str | None = None
        self.clone_config: soak.CloneConfig | None = None
        self.seeded: Callable[[Path], None] | None = None
        self.server: servers.HttpFront | servers.NginxFront | servers.SshServer | None = None
        self.front = ""
        self.configs: list[Path] = []
        self.shared: Path | None = None  # a folder the ssh user can enter (removed at the end)
        self.environ = dict(os.environ)
        if kind == "http":
            self.server = servers.http_front(self.remote.parent, root / "front", front)
            self.front = "nginx + fcgiwrap" if isinstance(self.server, servers.NginxFront) else (
                "Python's http.server"
            )  # fmt: skip
            self.server.start()
            self.url = self.server.url(self.remote)
        elif kind.startswith("ssh"):
            # as on a git server: the repository and the logins are a user's of its own
            # (root's shell here runs rc files at each session, which no server would)
            login = servers.other_user()
            self.shared = servers.shared_tmp("bench-soak-ssh-")
            self.remote = self.shared / "remote.git"
            sshd = servers.SshServer(self.shared / "sshd", login=login.name, set_env=logger)
            sshd.start()
            self.server = sshd
            self.front = f"sshd, MaxStartups {sshd.max_startups}, user {login.name}"
            self.url = sshd.url(self.remote)
            self.clone_config = self._ssh_config(sshd, kind == "ssh-mux")
            self.seeded = lambda remote: servers.own(remote, login)
            _trust_every_repository(self.shared)  # the checks read the remote here, as root

    def _ssh_config(self, sshd: servers.SshServer, mux: bool) -> soak.CloneConfig:
        if not mux:
            config = sshd.client_config(self.root / "ssh_config")
            self.configs.append(config)
            said = {"core.sshCommand": sshd.ssh_command(config)}
            if self.persist:  # sync's own connection kept that long (vcontext.sshPersist)
                said["vcontext.sshPersist"] = f"{self.persist:g}"
            return said

        def per_agent(agent: str) -> dict[str, str]:
            extra = (
                "    ControlMaster auto\n"
                f"    ControlPath {self.root}/cm-{agent}\n"
                "    ControlPersist 300\n"
            )
            config = sshd.client_config(self.root / f"ssh_config-{agent}", extra=extra)
            self.configs.append(config)
            return {"core.sshCommand": sshd.ssh_command(config)}

        return per_agent

    def agent_env(self) -> dict[str, str | None]:
        """What the agents' environment differs in from this process's: over ssh, not the
        trust of every repository the checks need (``_trust_every_repository``) but the
        user's own global configuration, as on a user's machine (with a
        ``GIT_CONFIG_GLOBAL`` of its own, each of a sync's config reads is a ``git config``
        process: 25 more a sync, about 30 ms of CPU, that HTTP and the path did not pay)."""
        if self.shared is None:
            return {}
        return {"GIT_CONFIG_GLOBAL": self.environ.get("GIT_CONFIG_GLOBAL")}

    def cpu(self) -> float:
        """CPU seconds the server's processes used so far."""
        return 0.0 if self.server is None else self.server.cpu_seconds()

    def requests(self) -> dict[str, tuple[int, float]]:
        """The HTTP requests git answered so far, by kind: (how many, CPU seconds); {} when
        not measured (not nginx, or no C compiler for the measuring wrapper)."""
        if isinstance(self.server, servers.NginxFront):
            return self.server.by_request()
        return {}

    def stop(self) -> None:
        for config in self.configs:  # masters of ssh-mux
            subprocess.run(
                ["ssh", "-F", str(config), "-O", "exit", servers.SSH_ALIAS],
                capture_output=True, check=False, timeout=30,
            )  # fmt: skip
        if self.server is not None:
            self.server.stop()
        if self.shared is not None:
            subprocess.run(["rm", "-rf", "--", str(self.shared)], check=False)
        os.environ.clear()
        os.environ.update(self.environ)


def _trust_every_repository(folder: Path) -> None:
    """safe.directory=* for this process and its children: a global configuration of the
    run's own (GIT_CONFIG_GLOBAL) that includes the user's and adds it (git's local clones
    ignore configuration given through the environment otherwise)."""
    mine = os.environ.get("GIT_CONFIG_GLOBAL") or str(Path.home() / ".gitconfig")
    config = folder / "gitconfig"
    config.write_text(f"[include]\n\tpath = {mine}\n[safe]\n\tdirectory = *\n")
    os.environ["GIT_CONFIG_GLOBAL"] = str(config)


def _bench(root: Path, args: argparse.Namespace, transport: str) -> tuple[int, Summary]:
    start, load = time.perf_counter(), os.getloadavg()
    config = {"vcontext.syncLease": "false"} if args.no_lease else {}
    if args.git_looks:
        config["vcontext.inProcessHttp"] = "false"
    logged = _log_processes() if args.processes else None  # (before the server starts: its
    logger = cpulog.environment(logged.with_name("cpulog.so"), logged) if logged else None
    where = _Transport(root, transport, args.front, args.ssh_persist, logger)  # processes inherit
    # it)
    marks: list[int] = []  # the process log's size when the agents start and when they end
    env: dict[str, str | None] = {**where.agent_env()}
    if args.trace:
        env[soak.TRACE_ROOT] = str(root / "traces")
    server_cpu: list[float] = []
    asked: list[dict[str, tuple[int, float]]] = []

    def ready(clones: list[Path]) -> None:
        server_cpu.append(where.cpu())
        asked.append(where.requests())
        marks.append(_size(logged))

    try:
        run = soak.soak(
            root, args.agents, args.rounds, not args.no_hooks, args.server, config, args.guard,
            remote=where.remote, url=where.url, clone_config=where.clone_config, env=env,
            ready=ready, seeded=where.seeded, install_late=where.seeded is not None,
            remote_config=dict(args.server_config),
            server_cli=[args.server_python, "-m", "git_vcontext"] if args.server_python else None,
        )  # fmt: skip
        server_cpu.append(where.cpu())
        asked.append(where.requests())
        marks.append(_size(logged))
        docs = soak.documents(soak.fresh_clone(run, root))
        figures = _figures(run)
    finally:
        where.stop()
        for name in ("LD_PRELOAD", cpulog.VARIABLE):
            os.environ.pop(name, None)
    missing = soak.lost(run, run.at_end)
    syncs = [s for log in run.logs for s in log.syncs]
    gave_up = [s for s in syncs if s["exit"] != 0]
    n_lost = sum(len(v) for v in missing.values())
    design = "server" if args.server else "lease off" if args.no_lease else "lease"
    design += ", guard on the remote" if args.server or args.guard else ""
    design += "".join(f", remote's {k}={v}" for k, v in args.server_config)
    over = TITLES[transport] + (f" ({where.front})" if where.front else "")
    print(
        f"soak: {args.agents} agents × {args.rounds} rounds against one bare remote over "
        f"{over} (pre-push hook {'on' if not args.no_hooks else 'off'}, {design}, "
        f"cpus: {os.cpu_count()}, load average before: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})"
    )
    print(f"| events written | {sum(len(log.events) for log in run.logs)} |")
    print(f"| lost when the agents stopped (events, items, plan items, changes) | {n_lost} "
          f"{_detail(missing)} |")  # fmt: skip
    print(f"| syncs that gave up (exit != 0) | {len(gave_up)} of {len(syncs)} |")
    undelivered = soak.last_rounds_missing(run, run.at_end)
    print(f"| agents whose last round is not on the base when they stop | {len(undelivered)} |")
    print(f"| fork blocks on the base | {len(soak.forks_on_base(docs))} |")
    print(f"| duplicated ids | {len(soak.duplicates(docs))} |")
    merges, integrations = figures
    entries = soak.merge_entries(docs)
    print(f"| M8 merge entries (todo changeLog) / integrations (merge commits on the base) / "
          f"agents' rounds they merged | {entries} / {integrations} / "
          f"{merges} |")  # fmt: skip
    _how(syncs)
    times = sorted(s["seconds"] for s in syncs)
    print(f"| sync time median / p95 / max | {_ms(statistics.median(times))} / "
          f"{_ms(times[int(0.95 * (len(times) - 1))])} / {_ms(times[-1])} |")  # fmt: skip
    cpu = sorted(float(str(s["cpu"])) for s in syncs)
    print(f"| CPU per sync, median / p95 (with its git and hook processes) | "
          f"{_ms(statistics.median(cpu))} / {_ms(cpu[int(0.95 * (len(cpu) - 1))])} |")  # fmt: skip
    served = server_cpu[-1] - server_cpu[0] if len(server_cpu) == 2 else 0.0
    sshd = run.orphan_seconds.get("sshd", 0.0)  # (the server's, reaped with the clients')
    served, clients = served + sshd, run.cpu_seconds - sshd
    print(f"| CPU of all syncs / of the whole soak / of the server | {sum(cpu):.1f} s / "
          f"{clients:.1f} s / {served:.1f} s |")  # fmt: skip
    if run.orphan_seconds:
        print(f"| of which processes left behind (the syncs' ssh masters / sshd's side of "
              f"their connections) | {run.orphan_seconds.get('ssh', 0.0):.1f} s / "
              f"{sshd:.1f} s |")  # fmt: skip
    if len(asked) == 2 and asked[1]:
        _requests(asked[0], asked[1], args.agents * args.rounds)
    if logged is not None:
        _processes(logged, marks, args.agents * args.rounds, keep=bool(args.keep))
    ops = _operations(syncs) if args.trace else {}
    for kind, means in ops.items():
        shown = ", ".join(f"{k} {means[k]:.1f}" for k in OPS)
        print(f"| network operations per sync, {kind} ({means['n']:.0f}) | {shown} |")
    print(f"| until the base holds every agent's last round (agents' wall time) | "
          f"{run.loop_seconds:.1f} s |")  # fmt: skip
    print(f"| final syncs failed | {sum(1 for s in run.final_syncs if s['exit'])} |")
    print(f"| total incl. setup and checks | {time.perf_counter() - start:.1f} s |")
    print(f"| load average after | {' '.join(f'{x:.1f}' for x in os.getloadavg())} |")
    if gave_up:
        print("last failure:", gave_up[-1]["output"].strip().splitlines()[-3:])
    summary = Summary(
        transport, run.loop_seconds, clients, served, args.agents * args.rounds,
        len(gave_up), len(syncs), n_lost, len(undelivered), where.front, ops,
    )  # fmt: skip
    return (1 if n_lost or gave_up or entries > integrations else 0), summary


def _requests(
    before: dict[str, tuple[int, float]], after: dict[str, tuple[int, float]], rounds: int
) -> None:
    """The server's HTTP requests during the soak, per round, by kind, with their CPU."""
    cells = []
    for kind in sorted(after, key=lambda k: -after[k][1]):
        n = after[kind][0] - before.get(kind, (0, 0.0))[0]
        cpu = after[kind][1] - before.get(kind, (0, 0.0))[1]
        if n:
            cells.append(f"{kind} {n / rounds:.2f} × {cpu / n * 1000:.1f} ms")
    print(f"| server requests per round × CPU each | {'; '.join(cells)} |")


def _log_processes() -> Path | None:
    """Have every process started from now on log its CPU (``helpers.cpulog``); the log,
    or None (said) where the logger cannot be built. Both in a folder every user enters,
    the log writable by all: over ssh, the server's sessions are another user's."""
    folder = servers.shared_tmp("bench-soak-cpulog-")
    library = cpulog.build(folder)
    if library is None:
        print("(--processes: no C compiler to build the logger with: not measured)")
        return None
    log = folder / "processes.log"
    log.touch()
    log.chmod(0o666)
    os.environ.update(cpulog.environment(library, log))
    return log


def _size(log: Path | None) -> int:
    return log.stat().st_size if log is not None and log.exists() else 0


def _processes(log: Path, marks: list[int], rounds: int, *, keep: bool, shown: int = 16) -> None:
    """The CPU per round of the processes that ran while the agents did, by kind, the most
    first: how many per round × CPU each; then the log's folder is removed (``keep``: said
    where it is)."""
    try:
        if len(marks) == 2:
            _by_kind(log, marks, rounds, shown)
    finally:
        if keep:
            print(f"(the process log: {log})")
        else:
            subprocess.run(["rm", "-rf", "--", str(log.parent)], check=False)


def _by_kind(log: Path, marks: list[int], rounds: int, shown: int) -> None:
    with open(log, "rb") as f:
        f.seek(marks[0])
        part = f.read(marks[1] - marks[0])
    window = log.with_name("processes-soak.log")
    window.write_bytes(part)
    kinds = sorted(cpulog.by_process(window).items(), key=lambda kv: -kv[1][1])
    total = sum(cpu for _, (_, cpu) in kinds)
    cells = [f"{k} {n / rounds:.2f} × {cpu / n * 1000:.1f} ms" for k, (n, cpu) in kinds[:shown]]
    print(f"| CPU per round by process ({total / rounds * 1000:.0f} ms in all; the "
          f"{min(shown, len(kinds))} most) | {'; '.join(cells)} |")  # fmt: skip


def _figures(run: soak.SoakRun) -> tuple[int, int]:
    """Read on the remote before it goes: agents' rounds merged into the base, integrations."""
    return soak.merges_into_base(run.remote), soak.integrations(run.remote)


def _operations(syncs: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Mean network operations per sync: all, those that integrated, those that waited."""
    kinds: dict[str, Callable[[dict[str, Any]], bool]] = {
        "all": lambda s: True,
        "integrating": lambda s: bool(s.get("integrated")),
        "waiting (merged by another)": lambda s: (
            bool(s.get("elsewhere")) and not s.get("integrated")
        ),
    }
    out = {}
    for kind, wanted in kinds.items():
        chosen = [s["ops"] for s in syncs if s.get("ops") and wanted(s)]
        if chosen:
            out[kind] = {k: statistics.mean(float(o.get(k, 0)) for o in chosen) for k in OPS}
            out[kind]["n"] = float(len(chosen))
    return out


def _compare(summaries: list[Summary], args: argparse.Namespace) -> None:
    """The comparison table: one column per transport, ratios to the local path."""
    path = next((s for s in summaries if s.transport == "path"), None)

    def ratio(value: float, of: float | None) -> str:
        return f" ({value / of:.1f}×)" if of and path is not None else ""

    heads = [TITLES[s.transport] for s in summaries]
    print(f"| {args.agents} agents × {args.rounds} rounds | " + " | ".join(heads) + " |")
    print("|---|" + "---|" * len(summaries))
    rows = [
        ("wall (until every last round is on the base)", [
            f"{s.wall:.1f} s" + ratio(s.wall, path.wall if path else None) for s in summaries
        ]),
        ("CPU per round (client + server)", [
            f"{(s.cpu_clients + s.cpu_server) / s.rounds:.2f} s"
            + ratio(s.cpu_clients + s.cpu_server, path.cpu_clients if path else None)
            for s in summaries
        ]),
        ("of which the server", [f"{s.cpu_server / s.rounds:.2f} s" for s in summaries]),
        ("syncs failed / events lost / last rounds undelivered", [
            f"{s.failed} of {s.syncs} / {s.lost} / {s.undelivered}" for s in summaries
        ]),
    ]  # fmt: skip
    if all(s.ops for s in summaries):
        for kind in ("integrating", "waiting (merged by another)"):
            rows.append((f"network operations per sync, {kind}: fetch + push + ls-remote", [
                _ops_cell(s.ops.get(kind)) for s in summaries
            ]))  # fmt: skip
        rows.append(("ssh connections / git maintenance runs per sync", [
            f"{s.ops['all']['ssh']:.1f} / {s.ops['all']['maintenance']:.1f}" for s in summaries
        ]))  # fmt: skip
    for label, cells in rows:
        print(f"| {label} | " + " | ".join(cells) + " |")
    print(f"(uptime after: {_uptime()})")


def _ops_cell(means: dict[str, float] | None) -> str:
    if not means:
        return "—"
    return (
        f"{means['fetch']:.1f} + {means['push']:.1f} + {means['ls-remote']:.1f} = "
        f"{means['total']:.1f}"
    )


def _uptime() -> str:
    out = subprocess.run(["uptime"], capture_output=True, text=True, check=False)
    return out.stdout.strip()


def _how(syncs: list[dict[str, object]]) -> None:
    here = sum(1 for s in syncs if s.get("integrated"))
    elsewhere = sum(1 for s in syncs if s.get("elsewhere"))
    waited = sum(1 for s in syncs if s.get("waited"))
    retried = sum(int(str(s["retries"])) for s in syncs)
    print(f"| syncs that integrated / found their round merged by another / waited for a "
          f"lease | {here} / {elsewhere} / {waited} |")  # fmt: skip
    print(f"| pushes retried (as reported by sync) | {retried} |")
    again = [s for s in syncs if "trying again in" in str(s.get("output", ""))]
    streaks = sum(str(s.get("output", "")).count("(retry 1)") for s in again)
    print(f"| syncs that met a transient transport failure (tried again) / streaks of "
          f"retries | {len(again)} / {streaks} |")  # fmt: skip


def _detail(missing: dict[str, list[str]]) -> str:
    return "(" + ", ".join(f"{k} {len(v)}" for k, v in missing.items()) + ")"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


if __name__ == "__main__":
    sys.exit(main())
