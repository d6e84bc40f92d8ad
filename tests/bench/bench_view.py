"""Benchmark: ``git-vcontext view`` of a 100,000-event playbook (20,000 targets, 5% multi-head).

Run: ``python tests/bench/bench_view.py [EVENTS] [TARGETS]``. Prints the size of the
generated file, the in-process parse and view times, and the whole-process times
of ``view`` (text and JSON output; best of three runs). Target: under 2 s.
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[2] / "src"
KINDS = ("strategy", "learning", "rule", "warning", "note")
WORDS = [
    *("cache", "invalidate", "retry", "backoff", "migration", "staging", "rollback"),
    *("index", "query", "latency", "queue", "worker", "timeout", "budget", "schema"),
    *("lock", "test", "fixture", "deploy", "canary", "flag", "metric"),
]


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def _stamp(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1_735_689_600 + seconds))


def _append(rng: random.Random, eid: str, target: str, at: int) -> dict[str, Any]:
    return {
        "eventId": eid,
        "targetId": target,
        "operation": "append",
        "kind": rng.choice(KINDS),
        "title": _sentence(rng, 5),
        "text": _sentence(rng, 18),
        "tags": rng.sample(WORDS, 2),
        "confidence": round(rng.uniform(0.5, 1.0), 2),
        "status": "active",
        "createdAt": _stamp(at),
        "reason": _sentence(rng, 6),
    }


def _update(rng: random.Random, eid: str, target: str, prev: str, at: int) -> dict[str, Any]:
    e: dict[str, Any] = {
        "eventId": eid,
        "targetId": target,
        "operation": "update",
        "prevEventId": prev,
    }
    roll = rng.random()
    if roll < 0.6:
        e["delta"] = {rng.choice(("helpfulCount", "harmfulCount")): 1}
    elif roll < 0.9:
        e["text"] = _sentence(rng, 18)
    else:
        e["confidence"] = round(rng.uniform(0.5, 1.0), 2)
    e["createdAt"] = _stamp(at)
    e["reason"] = _sentence(rng, 6)
    return e


def make_playbook(
    events: int = 100_000, targets: int = 20_000, multi_head: float = 0.05, seed: int = 7
) -> dict[str, Any]:
    """A playbook document: chains per target, ``multi_head`` of them forked at the end."""
    rng = random.Random(seed)
    per_target = max(1, events // targets)
    log: list[dict[str, Any]] = []
    n = 0
    for t in range(targets):
        target = f"entry-{t:05d}"
        at = rng.randrange(0, 30_000_000)
        chain = [_append(rng, f"evt-{n:07d}", target, at)]
        n += 1
        fork = per_target >= 3 and rng.random() < multi_head
        for i in range(1, per_target):
            at += rng.randrange(60, 86_400)
            prev = chain[-2 if fork and i == per_target - 1 else -1]["eventId"]
            chain.append(_update(rng, f"evt-{n:07d}", target, prev, at))
            n += 1
        log.extend(chain)
    log.sort(key=lambda e: (e["createdAt"], e["eventId"]))
    return {
        "vContextInfo": {"version": "0.4"},
        "playbook": {
            "version": len(log),
            "created": _stamp(0),
            "updated": log[-1]["createdAt"],
            "items": log,
            "metrics": {"totalEntries": targets},
        },
    }


def _best_of(runs: int, argv: list[str]) -> str:
    """Best wall time and best CPU time (user + system) of ``runs`` runs of a process."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    wall = cpu = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall = min(wall, time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        cpu = min(cpu, used)
        if proc.returncode != 0:
            raise SystemExit(f"view failed: {proc.stderr.decode()}")
    return f"{wall:.2f} s wall, {cpu:.2f} s CPU"


def main() -> None:
    events = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    targets = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000
    sys.path.insert(0, str(SRC))
    from git_vcontext.codecs import parse
    from git_vcontext.playbook import playbook_view

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.vcontext.json"
        path.write_text(json.dumps(make_playbook(events, targets), indent=2) + "\n")
        size = path.stat().st_size / 1e6
        start = time.perf_counter()
        doc = parse(path.read_bytes(), path=str(path))
        parsed = time.perf_counter()
        view = playbook_view(doc.data)
        done = time.perf_counter()
        multi = sum(1 for e in view.entries if e.multi_head)
        print(f"file: {events} events, {targets} targets ({multi} multi-head), {size:.1f} MB")
        print(f"in process: parse {parsed - start:.2f} s, view {done - parsed:.2f} s")
        cli = [sys.executable, "-m", "git_vcontext", "view", str(path), "--status", "all"]
        print(f"whole process, text: {_best_of(5, cli)}")
        print(f"whole process, json: {_best_of(5, [*cli, '--format', 'json'])}")


if __name__ == "__main__":
    main()
