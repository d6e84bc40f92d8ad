"""Benchmark: a write on a todo list with real history, built through the MCP tools.

Run: ``python tests/bench/bench_mcp_history.py [ITEMS]``. For a JSON and a TRON todo list
built by ITEMS (default 1,000) ``vbrief_create_todo`` calls through the SDK's client (so
it holds ITEMS ``changeLog`` entries, as agents' lists do), prints the median time of one
``vbrief_update_todo`` and one ``vbrief_create_todo`` inside the server (wall clock and
CPU time), then the same for the same list with its ``changeLog`` removed, and the ratio.

Targets (PRODUCT.md, "Where agents' platforms run it"; issue 37, finding 6): at most
50 ms with 1,000 items and 1,000 changeLog entries, JSON and TRON, and within 1.5x of
the same list without a changeLog.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

import anyio

import git_vcontext as gv
from git_vcontext.mcp_server import startup as setup
from git_vcontext.mcp_server.app import VContextServer
from git_vcontext.mcp_server.service import Options, Service
from git_vcontext.mcp_server.tools.dispatch import call

RUNS = 25


def _service(root: Path, fmt: str) -> Service:
    where, repo = setup.find_root(str(root))
    pinned = {"todoList": f"todo.vcontext.{fmt}"}
    return setup.service(Options(root=where, pinned=pinned), repo)


def build(root: Path, fmt: str, items: int) -> Path:
    """A repository whose todo list was made by ``items`` creates through the SDK client."""
    from mcp import Client

    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    svc = _service(root, fmt)

    async def creates() -> None:
        async with Client(VContextServer(svc)) as client:
            for n in range(items):
                done = await client.call_tool(
                    "vbrief_create_todo", {"title": f"Task {n}: something to do"}
                )
                assert not done.is_error, done

    anyio.run(creates)
    return root / f"todo.vcontext.{fmt}"


def without_changelog(source: Path, root: Path, fmt: str) -> None:
    """The same list in another repository, its ``changeLog`` removed (same style)."""
    shutil.copytree(source.parent, root, ignore=shutil.ignore_patterns(".git"))
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    path = root / f"todo.vcontext.{fmt}"
    doc = gv.load(str(path))
    data = dict(doc.data)
    data["todoList"] = {k: v for k, v in data["todoList"].items() if k != "changeLog"}
    path.write_text(doc.render(data))


def _medians(step: Callable[[int], Any]) -> tuple[float, float]:
    step(-1)
    walls, cpus = [], []
    for n in range(RUNS):
        wall, cpu = time.perf_counter(), time.process_time()
        step(n)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls) * 1000, statistics.median(cpus) * 1000


def measure(root: Path, fmt: str) -> dict[str, tuple[float, float]]:
    svc = _service(root, fmt)
    first = call(svc, "vbrief_query_playbook", {})  # warm the server as a session would
    assert not first.error or "playbook" in first.text
    listing = svc.catalog.current("todoList")
    assert listing is not None
    loaded = svc.catalog.store.load(listing.rel, listing.real)
    assert loaded is not None
    ids = [i["id"] for i in loaded.data["todoList"]["items"]]

    def update(n: int) -> None:
        status = "completed" if n % 2 else "blocked"
        answer = call(
            svc, "vbrief_update_todo", {"id": ids[abs(n) * 7 % len(ids)], "status": status}
        )
        assert not answer.error, answer.text

    def create(n: int) -> None:
        answer = call(svc, "vbrief_create_todo", {"title": f"one more {n}"})
        assert not answer.error, answer.text

    return {"vbrief_update_todo": _medians(update), "vbrief_create_todo": _medians(create)}


def main() -> None:
    items = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    print(f"load average before: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in ("json", "tron"):
            start = time.perf_counter()
            path = build(Path(tmp) / f"{fmt}-history", fmt, items)
            built = time.perf_counter() - start
            size = path.stat().st_size
            without_changelog(path, Path(tmp) / f"{fmt}-plain", fmt)
            plain_size = (Path(tmp) / f"{fmt}-plain" / f"todo.vcontext.{fmt}").stat().st_size
            print(
                f"built {items} items by {items} MCP creates in {built:.1f} s: {fmt.upper()} "
                f"{size // 1024} KB with changeLog, {plain_size // 1024} KB without"
            )
            history = measure(Path(tmp) / f"{fmt}-history", fmt)
            plain = measure(Path(tmp) / f"{fmt}-plain", fmt)
            for tool in history:
                (hw, hc), (pw, pc) = history[tool], plain[tool]
                print(
                    f"| {tool}, {items}-item {fmt.upper()} list, {items} changeLog entries | "
                    f"{hw:.1f} ms wall, {hc:.1f} ms CPU | without changeLog {pw:.1f} ms wall, "
                    f"{pc:.1f} ms CPU | ratio {hc / pc:.2f} (CPU) |"
                )
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
