"""Benchmark: ``git vcontext mcp`` — a write tool on a 1,000-item todo list, and start-up.

Run: ``python tests/bench/bench_mcp.py [ITEMS] [--baseline OTHER/src] [--no-start]``.
Prints, for ``vbrief_update_todo`` and
``vbrief_create_todo`` on a JSON and a TRON todo list of ITEMS items (default 1,000), the
median time of one tool call inside the server (wall clock and this process's CPU time:
the machine's other jobs inflate the first), and the time from starting the server
process to its answer to ``initialize`` (the SDK's stdio client, legacy handshake).
Targets: a write at most 50 ms; ``initialize`` at most 1.5 s. Also the look every call
makes at the disk (``Catalog.entries``: a stat per served file and per folder holding
documents, git's index and HEAD, and the rule files: two ``.gitattributes``, and
``info/attributes`` and ``info/exclude``) on a tree of
400 folders and 40 documents, settled (made more than two seconds before), and a
``vbrief://todos`` read there. ``--baseline`` runs the
same with another checkout's code (``--no-start``: without the ``initialize`` timing).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(  # --baseline: another checkout's code (e.g. main's), run by this same script
    0,
    sys.argv[sys.argv.index("--baseline") + 1]
    if "--baseline" in sys.argv
    else str(Path(__file__).resolve().parents[2] / "src"),
)

from timing import cli

import git_vcontext as gv
from git_vcontext.mcp_server import startup as setup
from git_vcontext.mcp_server.service import Options
from git_vcontext.mcp_server.tools.dispatch import call

RUNS = 30


def _todo(items: int) -> dict[str, Any]:
    return {
        "vContextInfo": {"version": "0.4"},
        "todoList": {
            "id": "main",
            "uid": "u-bench",
            "sequence": 1,
            "items": [
                {
                    "id": f"t{i}",
                    "title": f"Task {i}: something to do",
                    "status": "pending",
                    "tags": ["bench"],
                }
                for i in range(items)
            ],
        },
    }


def _medians(step: Callable[[int], Any]) -> tuple[float, float]:
    """Median wall and CPU milliseconds of ``step(n)`` over RUNS calls (after a warm-up)."""
    step(-1)
    walls, cpus = [], []
    for n in range(RUNS):
        wall, cpu = time.perf_counter(), time.process_time()
        step(n)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls) * 1000, statistics.median(cpus) * 1000


def writes(folder: Path, items: int) -> None:
    for fmt in ("json", "tron"):
        root = folder / fmt
        root.mkdir()
        name = f"todo.vcontext.{fmt}"
        data = _todo(items)
        (root / name).write_text(
            json.dumps(data, indent=2) if fmt == "json" else gv.dumps(data, "tron")
        )
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        where, repo = setup.find_root(str(root))
        svc = setup.service(Options(root=where), repo)

        def update(n: int, svc: Any = svc) -> None:
            status = "completed" if n % 2 else "blocked"
            answer = call(
                svc, "vbrief_update_todo", {"id": f"t{abs(n) * 7 % items}", "status": status}
            )
            assert not answer.error, answer.text

        def create(n: int, svc: Any = svc) -> None:
            answer = call(svc, "vbrief_create_todo", {"title": f"new task {n}"})
            assert not answer.error, answer.text

        for label, step in (("vbrief_update_todo", update), ("vbrief_create_todo", create)):
            wall, cpu = _medians(step)
            print(
                f"| {label}, {items}-item {fmt.upper()} todo list | {wall:.1f} ms wall, "
                f"{cpu:.1f} ms CPU | median of {RUNS} calls inside the server |"
            )


def looks(folder: Path, folders: int = 400, documents: int = 40, runs: int = 200) -> None:
    """The look at the disk each call makes, on a tree of ``folders`` folders (a file each,
    ``documents`` of them holding a small todo list), nothing changing."""
    from git_vcontext.mcp_server.resources import read

    root = folder / "tree"
    for n in range(folders):
        sub = root / f"area{n % 20}" / f"part{n}"
        sub.mkdir(parents=True)
        (sub / "README.md").write_text("x\n")
        if n % (folders // documents) == 0:
            (sub / "todo.vcontext.json").write_text(json.dumps(_todo(10), indent=2))
    (root / ".gitattributes").write_text("*.md text\n")  # stat'ed each call: routing
    (root / "area0" / ".gitattributes").write_text("*.json -text\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    where, repo = setup.find_root(str(root))
    svc = setup.service(Options(root=where), repo)
    assert len(svc.catalog.entries()) == documents
    time.sleep(2.1)  # past the timestamps' tick (files.RACY_NS): folders just made are
    # listed again on each look until then (a file made in that tick keeps their mtime)
    svc.catalog.entries()
    for label, step in (
        ("the look (`Catalog.entries`)", svc.catalog.entries),
        ("a `vbrief://todos` read", lambda: read(svc, "vbrief://todos")),
        ("of it, the rule files' look (`GitSide.routing_moved`)", _routing(svc)),
    ):
        step()
        cpus = []
        for _ in range(runs):
            cpu = time.process_time()
            step()
            cpus.append(time.process_time() - cpu)
        print(
            f"| {label}, {folders} folders, {documents} documents | "
            f"{statistics.median(cpus) * 1e6:.0f} µs CPU (mean {statistics.mean(cpus) * 1e6:.0f}) "
            f"| {runs} calls, nothing changed |"
        )


def _routing(svc: Any) -> Callable[[], Any]:
    """The look at the rule files alone (part of ``Catalog.entries``: ``.gitattributes``,
    ``.gitignore``, ``info/attributes``, ``info/exclude``), if the code has it
    (``--baseline`` may not, or name it ``attribute_files``: ``.gitattributes`` alone)."""
    tree = svc.catalog._tree
    listed = getattr(tree, "rule_files", None) or getattr(tree, "attribute_files", None)
    files = listed() if listed is not None and hasattr(svc.git, "routing_moved") else []
    return (lambda: svc.git.routing_moved(files)) if files else (lambda: None)


def initialize(folder: Path, runs: int = 7) -> None:
    import anyio
    from mcp import Client, StdioServerParameters

    command, *prefix = cli()
    params = StdioServerParameters(command=command, args=[*prefix, "mcp"], cwd=str(folder))

    async def once() -> float:
        start = time.perf_counter()
        async with Client(params, mode="legacy") as client:
            took = time.perf_counter() - start
            assert client.server_info is not None
        return took

    times = [anyio.run(once) for _ in range(runs)]
    print(
        f"| `initialize` answered after start | {statistics.median(times) * 1000:.0f} ms "
        f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}) | {runs} starts, "
        "the SDK's stdio client |"
    )
    base = [_seconds([sys.executable, "-c", "pass"]) for _ in range(runs)]
    print(f"| `python -c pass` | {statistics.median(base) * 1000:.0f} ms | baseline |")


def _seconds(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True)
    return time.perf_counter() - start


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--no-start"]
    if "--baseline" in args:
        del args[args.index("--baseline") : args.index("--baseline") + 2]
    items = int(args[0]) if args else 1000
    print(f"code: {gv.__file__}")
    print(f"load average before: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory() as tmp:
        writes(Path(tmp), items)
        looks(Path(tmp))
        if "--no-start" not in sys.argv:
            initialize(Path(tmp) / "json")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
