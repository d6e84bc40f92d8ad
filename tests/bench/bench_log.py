"""``log`` of one item and ``blame`` of a whole document over a long history, whole process.

Run: python tests/bench/bench_log.py [--commits 1000] [--items 200] [--runs 5]
(PYTHONPATH=src from a checkout). Builds, with pygit2, a repository where a todo list
of ``--items`` items gets ``--commits`` commits. Each commit does what an agent does:
it sets one item's status and ``updated`` and bumps the list's ``sequence``; every
tenth commit adds an item instead (the list grows to ``--items``). Variants: each
commit also appends a changeLog entry (no two versions have the same lines, so every
version is parsed in full); the document is TRON. Prints the median wall time and the
median CPU time (user + system) of each command, with the machine's load average:
the machine is shared, and wall times measured under load are inflated; CPU time is
less so.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from timing import PYTHON, cli, env

JSON, TRON = "todo.vcontext.json", "todo.vcontext.tron"


def _item(n: int) -> dict[str, Any]:
    return {
        "id": f"t{n}",
        "title": f"Task {n}: make part {n} of the system work",
        "status": "pending",
        "priority": "medium",
        "tags": ["bench", f"area-{n % 7}"],
        "created": "2026-01-01T00:00:00Z",
        "updated": "2026-01-01T00:00:00Z",
    }


def _edit(todo: dict[str, Any], n: int, rnd: random.Random, changelog: bool) -> None:
    """What commit ``n`` does to the list."""
    stamp = f"2026-01-02T{n // 3600 % 24:02}:{n // 60 % 60:02}:{n % 60:02}Z"
    if n and n % 10 == 0:
        todo["items"].append(_item(len(todo["items"])))
    elif n:
        item = rnd.choice(todo["items"])
        item["status"] = rnd.choice(["pending", "inProgress", "completed", "blocked"])
        item["updated"] = stamp
    todo["sequence"] += 1
    if changelog:
        agent = {"id": "bench", "type": "aiAgent"}
        entry = {"sequence": todo["sequence"], "timestamp": stamp, "agent": agent}
        todo["changeLog"].append({**entry, "operation": "update"})


def build(top: Path, commits: int, items: int, *, changelog: bool, name: str = JSON) -> None:
    """The repository described in the module docstring, on branch main."""
    import pygit2

    from git_vcontext.codecs import dumps

    rnd = random.Random(19)
    repo = pygit2.init_repository(str(top), initial_head="main")
    todo: dict[str, Any] = {"id": "bench", "title": "Bench", "sequence": 1}
    todo["items"] = [_item(n) for n in range(items - commits // 10)]
    if changelog:
        todo["changeLog"] = []
    doc = {"vContextInfo": {"version": "0.4"}, "todoList": todo}
    parents: list[Any] = []
    for n in range(commits):
        _edit(todo, n, rnd, changelog)
        text = dumps(doc, "tron") if name == TRON else json.dumps(doc, indent=2) + "\n"
        tree = repo.TreeBuilder()
        tree.insert(name, repo.create_blob(text.encode()), pygit2.GIT_FILEMODE_BLOB)
        sig = pygit2.Signature("Agent", "agent@example.com", 1_767_225_600 + n * 60, 0)
        commit = repo.create_commit("refs/heads/main", sig, sig, f"edit {n}", tree.write(), parents)
        parents = [commit]
    repo.checkout_head(strategy=pygit2.GIT_CHECKOUT_FORCE)


def measure(cmd: list[str], runs: int, cwd: str) -> tuple[float, float]:
    """Median wall and CPU seconds of a whole process (one warm-up run first)."""
    walls, cpus = [], []
    for i in range(runs + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, env=env(), stdout=subprocess.DEVNULL, check=False)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        if i:
            walls.append(wall)
            cpus.append(cpu)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    wall, cpu = measure([PYTHON, "-c", "pass"], args.runs, ".")
    print(f"python -c pass: {wall * 1000:.0f} ms wall, {cpu * 1000:.0f} ms CPU")
    print("| what | wall | CPU | load |")
    print("|---|---|---|---|")
    for variant, changelog, name in (
        ("", False, JSON),
        (", a changeLog entry per commit", True, JSON),
        (", TRON", False, TRON),
    ):
        with tempfile.TemporaryDirectory() as tmp:
            top = Path(tmp) / "repo"
            build(top, args.commits, args.items, changelog=changelog, name=name)
            what = f"{args.commits} commits, {args.items} items{variant}"
            for label, cmd in (
                (f"`log` of one item, {what}", cli("log", "--", f"{name}#t{args.items // 2}")),
                (f"`blame`, {what}", cli("blame", name)),
            ):
                wall, cpu = measure(cmd, args.runs, str(top))
                load = os.getloadavg()[0]
                print(f"| {label} | {wall:.2f} s | {cpu:.2f} s | {load:.1f} |")


if __name__ == "__main__":
    main()
