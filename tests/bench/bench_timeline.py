"""Where a sync's wall time goes, phase by phase, over each transport (a small soak).

Run: python tests/bench/bench_timeline.py [--agents 8] [--rounds 5]
     [--transport path http ssh ...] [--baseline OTHER_SRC] [--ssh-persist SECONDS]
     [--keep DIR] [--again DIR/TRANSPORT/timeline.json ...]

Runs ``bench_soak``'s soak (same server set-up) with git's trace2 events per sync and each
sync's sleeps logged (``timeline_site`` on the syncs' ``PYTHONPATH``), then prints per
kind of sync (integrating; waiting, its round merged by another) the mean of: its wall;
from its start to its first git command (Python's start, reading the clone); its network
commands (how many, how long each, by name); its other git commands; its time asleep;
the rest (Python working between commands); from its last command or sleep to its exit.
For the waiting syncs also the landing lag: from the end of the last integration push
before the look that found the round merged to that look's start (over a path, the end
of its last sleep: it reads in process), and the looks that found it not merged yet. Over
HTTP (nginx), the server's side: requests per sync by kind, their wall and CPU each.
``--baseline SRC`` runs each soak again with another checkout's ``src`` first on the
syncs' ``PYTHONPATH`` (/work/wt/base10/src). The traces cost a little: compare the phases,
not the walls of other benchmarks.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/: the soak harness
sys.path.insert(0, str(HERE))  # bench_soak

import bench_soak  # noqa: E402

from helpers import git_servers as servers  # noqa: E402
from helpers import soak  # noqa: E402

SITE = HERE / "timeline_site"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--transport", nargs="+", choices=("path", "http", "ssh"), default=["path", "http"]
    )
    parser.add_argument("--baseline", help="another checkout's src folder, run after ours")
    parser.add_argument(
        "--ssh-persist", type=float, default=0.0, metavar="SECONDS",
        help="Over ssh: git config vcontext.sshPersist SECONDS in the clones (0: not set).",
    )  # fmt: skip
    parser.add_argument("--keep", metavar="DIR", help="Run under DIR and keep everything.")
    parser.add_argument(
        "--again", metavar="JSON", nargs="+",
        help="Print the tables of kept runs again (DIR/TRANSPORT/timeline.json), run nothing.",
    )  # fmt: skip
    args = parser.parse_args()
    if args.again:
        for kept in args.again:
            print(f"\n## {kept}")
            _report(json.loads(Path(kept).read_text()))
        return 0
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ.pop("SOURCE_DATE_EPOCH", None)
    soak.adopt_orphans()  # (each sync's ssh master: its CPU counted too)
    print(f"(uptime before: {bench_soak._uptime()})")
    codes: list[tuple[str, str | None]] = [("this checkout", None)]
    if args.baseline:
        codes.append(("baseline", str(Path(args.baseline).resolve())))
    for transport in args.transport:
        for label, src in codes:
            name = transport + ("" if src is None else "-baseline")
            with bench_soak._folder(args.keep, name) as root:
                _run(root, args, transport, label, src)
    print(f"(uptime after: {bench_soak._uptime()})")
    return 0


def _run(root: Path, args: argparse.Namespace, transport: str, label: str, src: str | None) -> None:
    load = os.getloadavg()
    where = bench_soak._Transport(root, transport, "auto", args.ssh_persist)
    paths = [str(SITE)] + ([src] if src else [])
    env = {
        **where.agent_env(),
        soak.TRACE_ROOT: str(root / "traces"),
        "PYTHONPATH": os.pathsep.join(paths),
    }
    server_cpu: list[float] = []
    try:
        run = soak.soak(
            root, args.agents, args.rounds, True, False, {}, False, remote=where.remote,
            url=where.url, clone_config=where.clone_config, env=env, seeded=where.seeded,
            install_late=where.seeded is not None, ready=lambda _: server_cpu.append(where.cpu()),
        )  # fmt: skip
        server_cpu.append(where.cpu())
        served = where.server.ran() if isinstance(where.server, servers.NginxFront) else []
        merged = _merged(where.remote)
    finally:
        where.stop()
    syncs = [{**s, "agent": log.agent} for log in run.logs for s in log.syncs]
    failed = sum(1 for s in syncs if s["exit"])
    print(
        f"\n## {bench_soak.TITLES[transport]}{f' ({where.front})' if where.front else ''}, "
        f"{label}: {args.agents} agents × {args.rounds} rounds, {len(syncs)} syncs, "
        f"{failed} failed, lost {sum(len(v) for v in soak.lost(run, run.at_end).values())}, "
        f"wall {run.loop_seconds:.1f} s (load before {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, "
        f"after {' '.join(f'{x:.1f}' for x in os.getloadavg())})"
    )
    cpu = run.cpu_seconds + (server_cpu[-1] - server_cpu[0] if len(server_cpu) == 2 else 0.0)
    cores = os.cpu_count() or 1
    print(
        f"CPU of the soak (agents + server): {cpu:.1f} s, {cpu / len(syncs):.2f} s a round; "
        f"idle fraction 1 - CPU / (wall × {cores} cores): "
        f"{1 - cpu / (run.loop_seconds * cores):.0%} (the machine's other load not counted)"
    )
    finals = [{**s, "agent": f"agent-{i}"} for i, s in enumerate(run.final_syncs)]
    kept = {"syncs": syncs, "finals": finals, "merged": [sorted(m) for m in merged],
            "served": served, "wall": run.loop_seconds, "agents": args.agents}  # fmt: skip
    (root / "timeline.json").write_text(json.dumps(kept, default=str))
    _report(kept)


def _report(kept: dict[str, Any]) -> None:
    """The tables of one soak (``_run``'s figures, or a kept run's ``timeline.json``)."""
    syncs, finals, wall = kept["syncs"], kept["finals"], float(kept["wall"])
    merged, served = [set(m) for m in kept["merged"]], kept["served"]
    landings = _landings([*syncs, *finals], merged)
    kinds = {
        "integrating": [s for s in syncs if s.get("integrated")],
        "waiting (merged by another)": [
            s for s in syncs if s.get("elsewhere") and not s.get("integrated")
        ],
    }
    rows: dict[str, dict[str, str]] = {}
    for kind, chosen in kinds.items():
        if chosen:
            rows[kind] = _phases(chosen, landings if kind.startswith("waiting") else None)
    names = list(dict.fromkeys(k for r in rows.values() for k in r))
    print("| phase (mean per sync) | " + " | ".join(f"{k} ({len(kinds[k])})" for k in rows) + " |")
    print("|---|" + "---|" * len(rows))
    for name in names:
        print(f"| {name} | " + " | ".join(r.get(name, "—") for r in rows.values()) + " |")
    if served:
        _server(served, len(syncs))
    _chain(syncs, wall)
    _asleep(syncs, int(kept["agents"]))
    _sample(syncs)


def _merged(remote: Path) -> list[set[str]]:
    """The agents each integration on the remote's base merged (its trailers), oldest first."""
    out = soak.git(
        remote, "log", "--first-parent", "--reverse", "--format=%x00%B", soak.BASE
    ).stdout
    found = []
    for message in out.split("\0")[1:]:
        agents = {
            line.split(":", 1)[1].strip()
            for line in message.splitlines()
            if line.startswith("Vcontext-Sync:")
        }
        if agents:
            found.append(agents)
    return found


def _landings(syncs: list[dict[str, Any]], merged: list[set[str]]) -> list[tuple[float, set[str]]]:
    """(when, the agents it merged) of each integration push: the integrating syncs' last
    push, in order, matched with the base's merges in order (each agent it merged unknown
    when the counts differ)."""
    ends = sorted(
        max(e for k, _, e in s["spans"] if k == "push")
        for s in syncs
        if s.get("integrated") and any(k == "push" for k, _, _ in s["spans"])
    )
    if len(ends) != len(merged):
        print(f"(integration pushes {len(ends)}, merges on the base {len(merged)}: "
              "each waiter's landing taken as the last before its look)")  # fmt: skip
        return [(t, set()) for t in ends]
    return list(zip(ends, merged, strict=True))


def _phases(
    syncs: list[dict[str, Any]], landings: list[tuple[float, set[str]]] | None
) -> dict[str, str]:
    out: dict[str, list[float]] = {}

    def add(name: str, value: float) -> None:
        out.setdefault(name, []).append(value)

    waits = []
    present = {str(k) for s in syncs for k, _, _ in s["spans"]}  # (a mean over every sync)
    for s in syncs:
        spans = [(str(k), float(b), float(e)) for k, b, e in s["spans"]]
        start, end = float(s["started"]), float(s["started"]) + float(s["seconds"])
        for _, b, e in (span for span in spans if span[0] == "ssh-login"):
            add("ssh login: started, after the sync's start", b - start)
            add("ssh login: from its start to the end of the wait for it", e - b)
        spans = [span for span in spans if span[0] != "ssh-login"]
        add("wall", end - start)
        add("start to first git command", (spans[0][1] - start) if spans else end - start)
        busy = 0.0
        for verb in (*soak.NETWORK[:3], "git", "sleep", "ssh-ready", "ssh-ready failed"):
            took = [e - b for k, b, e in spans if k == verb]
            if verb in ("git", "sleep") or verb in present:
                add(f"{verb}: count", float(len(took)))
                add(f"{verb}: seconds", sum(took))
            busy += sum(took)
        last = max((e for _, _, e in spans), default=start)
        add("last command or sleep to exit", end - last)
        first = spans[0][1] if spans else start
        add("rest (Python between commands)", max(0.0, last - first - busy))
        if landings is not None and (waited := _waited(s["agent"], spans, landings)):
            waits.append(waited)
    shown = _means(out)
    if waits:
        for i, name in enumerate(("its round landed after its publish", "landing lag")):
            values = sorted(w[i] for w in waits)
            p90 = values[int(0.9 * (len(values) - 1))]
            shown[f"{name}, median / p90"] = (
                f"{statistics.median(values) * 1000:.0f} / {p90 * 1000:.0f} ms"
            )
        shown["looks while waiting before its round landed"] = (
            f"{statistics.mean(w[2] for w in waits):.2f}"
        )
    return shown


def _means(out: dict[str, list[float]]) -> dict[str, str]:
    """Each phase's mean, and each network command's mean duration."""
    shown: dict[str, str] = {}
    for name, values in out.items():
        mean = statistics.mean(values)
        shown[name] = f"{mean:.2f}" if name.endswith("count") else f"{mean * 1000:.0f} ms"
    for verb in soak.NETWORK[:3]:
        n, took = out.get(f"{verb}: count", []), out.get(f"{verb}: seconds", [])
        if sum(n):
            shown[f"{verb}: each"] = f"{sum(took) / sum(n) * 1000:.0f} ms"
    return shown


def _waited(
    agent: str, spans: list[tuple[str, float, float]], landings: list[tuple[float, set[str]]]
) -> tuple[float, float, int] | None:
    """A waiting sync's (landing after its publish push ended, landing lag, looks after its
    first sleep that came before the landing); None: not known."""
    pushes = [(b, e) for k, b, e in spans if k == "push"]
    looks = [b for k, b, _ in spans if k == "fetch"]
    if not looks:  # a path: it reads in process after each sleep
        looks = [e for k, _, e in spans if k == "sleep"]
    if not pushes or not looks:
        return None
    mine = [t for t, who in landings if agent in who and t >= pushes[0][0]]
    # the integration that merged this round (unmatched: the last before its last look)
    at = mine[0] if mine else max((t for t, _ in landings if t <= looks[-1]), default=looks[-1])
    after = [b for b in looks if b >= at]
    if not after:
        return None
    sleeps = [b for k, b, _ in spans if k == "sleep"]
    early = sum(1 for b in looks if sleeps and sleeps[0] <= b < at)
    return at - pushes[0][1], after[0] - at, early


def _chain(syncs: list[dict[str, Any]], wall: float) -> None:
    """The lease's chain, the soak's critical path: each integration from the start of the
    push that took the lease (the integrating sync's push before its last) to the end of its
    integration push (its last), what it spent in each, and the gaps between one
    integration's end and the next one's start (nobody holds the lease: the team waits),
    by what the next holder did meanwhile: not started yet, asleep, its early ssh login, a
    look, anything else (Python, local git)."""
    held: list[tuple[float, float, dict[str, float], dict[str, Any]]] = []
    for s in syncs:
        spans = [(str(k), float(b), float(e)) for k, b, e in s["spans"]]
        pushes = [(b, e) for k, b, e in spans if k == "push"]
        if not s.get("integrated") or len(pushes) < 2:
            continue
        start, end = pushes[-2][0], pushes[-1][1]
        inside = [(k, b, e) for k, b, e in spans if b >= start and e <= end]
        parts = {"lease push": pushes[-2][1] - start, "integration push": end - pushes[-1][0]}
        parts["looks"] = sum(e - b for k, b, e in inside if k == "fetch")
        parts["local git"] = sum(e - b for k, b, e in inside if k == "git")
        parts["sleep"] = sum(e - b for k, b, e in inside if k == "sleep")
        parts["Python"] = (end - start) - sum(parts.values())
        held.append((start, end, parts, s))
    if len(held) < 2:
        return
    held.sort(key=lambda h: h[0])
    gaps = [max(0.0, b[0] - a[1]) for a, b in itertools.pairwise(held)]
    overlap = sum(1 for a, b in itertools.pairwise(held) if b[0] < a[1])
    mean = {k: statistics.mean(p[k] for _, _, p, _ in held) for k in held[0][2]}
    each = statistics.mean(e - b for b, e, _, _ in held)
    print(
        f"lease chain: {len(held)} integrations, each {each * 1000:.0f} ms ("
        + ", ".join(f"{k} {v * 1000:.0f}" for k, v in mean.items())
        + f"); gaps between them: median {statistics.median(gaps) * 1000:.0f} ms, mean "
        f"{statistics.mean(gaps) * 1000:.0f} ms, sum {sum(gaps):.1f} s of {wall:.1f} s "
        f"({overlap} overlapping); held {sum(e - b for b, e, _, _ in held):.1f} s"
    )
    why: dict[str, float] = {}
    kinds = {"first push (no look before)": 0, "after a look": 0}
    for before, after in itertools.pairwise(held):
        gap_start, gap_end, s = before[1], after[0], after[3]
        if gap_end <= gap_start:
            continue
        spans = [(str(k), float(b), float(e)) for k, b, e in s["spans"]]
        first_net = min((b for k, b, _ in spans if k in soak.NETWORK), default=gap_end)
        kinds["first push (no look before)" if first_net >= gap_end else "after a look"] += 1

        def within(b: float, e: float, lo: float = gap_start, hi: float = gap_end) -> float:
            return max(0.0, min(e, hi) - max(b, lo))

        started = float(s["started"])
        parts = {"not started": within(gap_start, started)}
        for name, verbs in (("asleep", ("sleep",)), ("ssh login", ("ssh-ready",
                            "ssh-ready failed")), ("looks", ("fetch", "ls-remote")),
                            ("pushes", ("push",)), ("local git", ("git",))):  # fmt: skip
            parts[name] = sum(within(b, e) for k, b, e in spans if k in verbs)
        parts["Python"] = (gap_end - gap_start) - sum(parts.values())
        for k, v in parts.items():
            why[k] = why.get(k, 0.0) + v
    print(
        "the gaps, by what the next holder did (s, summed): "
        + ", ".join(f"{k} {v:.1f}" for k, v in why.items())
        + "; next holder's lease push: "
        + ", ".join(f"{k} {v}" for k, v in kinds.items())
    )


def _asleep(syncs: list[dict[str, Any]], agents: int) -> None:
    """How long every agent slept at once (a sync's sleeps and its wait for its early ssh
    login; between syncs an agent works), and every agent but one: the cores wait for the
    network or a timer, from the last agent's first sync to the first agent's last."""
    by_agent: dict[str, list[dict[str, Any]]] = {}
    for s in syncs:
        by_agent.setdefault(str(s["agent"]), []).append(s)
    if len(by_agent) < agents:
        return
    begin = max(min(float(s["started"]) for s in mine) for mine in by_agent.values())
    end = min(max(float(s["started"]) + float(s["seconds"]) for s in mine)
              for mine in by_agent.values())  # fmt: skip
    edges: list[tuple[float, int]] = []
    for s in syncs:
        for k, b, e in s["spans"]:
            if (
                k in ("sleep", "ssh-ready", "ssh-ready failed")
                and float(e) > begin
                and float(b) < end
            ):
                edges += [(max(float(b), begin), 1), (min(float(e), end), -1)]
    edges.sort()
    every = but_one = 0.0
    n, last = 0, begin
    for t, step in edges:
        if n >= agents:
            every += t - last
        if n >= agents - 1:
            but_one += t - last
        n, last = n + step, t
    span = max(end - begin, 1e-9)
    print(
        f"all {agents} agents asleep at once: {every:.1f} s of {span:.1f} s "
        f"({every / span:.0%}); all but one: {but_one:.1f} s ({but_one / span:.0%})"
    )


def _server(served: list[tuple[float, float, float, str]], syncs: int) -> None:
    kinds: dict[str, list[tuple[float, float]]] = {}
    for start, end, cpu, kind in served:
        kinds.setdefault(kind, []).append((end - start, cpu))
    cells = []
    for kind, runs in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        wall = statistics.mean(w for w, _ in runs) * 1000
        cpu = statistics.mean(c for _, c in runs) * 1000
        cells.append(f"{kind}: {len(runs) / syncs:.2f} × {wall:.0f} ms wall, {cpu:.0f} ms CPU")
    print("server requests per sync (incl. the final syncs) × wall, CPU each: " + "; ".join(cells))


def _sample(syncs: list[dict[str, Any]]) -> None:
    """Two syncs' timelines, in ms from their start: one integrating, one waiting."""
    kinds: dict[str, Callable[[dict[str, Any]], bool]] = {
        "integrating": lambda s: bool(s.get("integrated")),
        "waiting": lambda s: bool(s.get("elsewhere")) and not s.get("integrated"),
    }
    for kind, wanted in kinds.items():
        chosen = [s for s in syncs if wanted(s) and s["spans"]]
        if not chosen:
            continue
        s = chosen[len(chosen) // 2]
        t0 = float(s["started"])
        steps = ", ".join(
            f"{k} {(b - t0) * 1000:.0f}-{(e - t0) * 1000:.0f}" for k, b, e in s["spans"]
        )
        print(f"a {kind} sync ({float(s['seconds']) * 1000:.0f} ms): {steps}")


if __name__ == "__main__":
    sys.exit(main())
