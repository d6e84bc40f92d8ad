"""Pictures: ``view --format dot|mermaid`` of big playbooks, ``status --format dot`` of many agents.

Run: ``python tests/bench/bench_pictures.py [--events 100000] [--agents 16]``.

- view: the playbook of ``bench_view.py`` (EVENTS events, a fifth as many targets, 5%
  with two heads). Whole-process times (best of three) of ``view --format json``
  (the baseline: the same reading and folding), ``--format dot`` and ``mermaid`` (a
  large playbook draws at most 50 of its targets with several heads) and ``--format dot
  --all`` (every event); ``dot -Tsvg`` of the first picture, when Graphviz is installed.
- status: the repository of ``bench_sync.py`` (AGENTS agents, 10 documents, each agent
  changing 5 of them). ``status`` (text) against ``status --format dot``, whose trial
  merges of agent pairs find who would conflict with whom (best of three each).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from bench_sync import build
from bench_view import make_playbook
from timing import cli, env


def _best(argv: list[str], cwd: Path | None = None, runs: int = 3) -> tuple[float, bytes]:
    best, out = float("inf"), b""
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(argv, cwd=cwd, env=env(), capture_output=True, check=False)
        best = min(best, time.perf_counter() - start)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{argv} failed: {proc.stderr.decode()}")
        out = proc.stdout
    return best, out


def bench_view(work: Path, events: int) -> None:
    path = work / "big.vcontext.json"
    path.write_text(json.dumps(make_playbook(events, events // 5), indent=2) + "\n")
    print(f"view: {events:,} events, {events // 5:,} targets, {path.stat().st_size / 1e6:.1f} MB")
    base, _ = _best(cli("view", str(path), "--format", "json", "--status", "all"))
    print(f"| view --format json | {base:.2f} s | baseline |")
    for fmt, every in (("dot", ()), ("mermaid", ()), ("dot", ("--all",))):
        took, out = _best(cli("view", str(path), "--format", fmt, *every))
        nodes = len(re.findall(rb"^ +e\d+ ?\[", out, re.M))  # event nodes, in either syntax
        name = " ".join(("view --format", fmt, *every))
        print(f"| {name} | {took:.2f} s | {took / base:.2f}x; {nodes:,} event nodes |")
        if fmt == "dot" and not every and shutil.which("dot"):
            start = time.perf_counter()
            subprocess.run(["dot", "-Tsvg"], input=out, capture_output=True, check=True)
            print(f"| dot -Tsvg of that picture | {time.perf_counter() - start:.2f} s | Graphviz |")


def bench_status(work: Path, agents: int) -> None:
    repo = build(work, agents, 10, 40)
    text, _ = _best(cli("status"), cwd=repo)
    picture, out = _best(cli("status", "--format", "dot"), cwd=repo)
    pairs = agents * (agents - 1) // 2
    conflicts = out.count(b'class="conflict"')
    print(f"status: {agents} agents ({pairs} pairs), 10 documents, {conflicts} conflict links")
    print(f"| status (text) | {text:.2f} s | baseline |")
    print(f"| status --format dot | {picture:.2f} s | {picture / text:.2f}x |")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--agents", type=int, default=16)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-pictures-"))
    try:
        bench_view(work, args.events)
        bench_status(work, args.agents)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
