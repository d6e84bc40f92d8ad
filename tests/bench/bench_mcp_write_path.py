"""Benchmark: the agent's write path on 1,000-item documents laid out as people write them.

Run: ``python tests/bench/bench_mcp_write_path.py [ITEMS]``. Prints the median time of one
``vbrief_update_todo`` (a status change, inside the server: wall clock and this process's
CPU time) on todo lists of ITEMS items (default 1,000) in the layouts PRODUCT.md's "The
write path" names: class-style TRON (the spec's ``TodoItem(…)`` rows, one a line, the
container ``todoList: TodoList(…)``), the same without ids (items addressed by JSON
Pointer), hand-laid-out compact JSON (one item a line), minified JSON, and a write that
changes nothing. Also the lines ``git diff --no-textconv`` shows for the last write.
Target (PRODUCT.md, "MCP server"): a write at most 50 ms, TRON included.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from git_vcontext.mcp_server import startup as setup
from git_vcontext.mcp_server.service import Options
from git_vcontext.mcp_server.tools.dispatch import call

RUNS = 30


def class_tron(items: int, *, ids: bool) -> str:
    """The spec's class-style TRON todo list, ITEMS rows (with ids and bookkeeping, or the
    minimal example's shape)."""
    if ids:
        rows = [
            f'  TodoItem("t{i}", "Task {i}: something to do", "pending"),' for i in range(items)
        ]
        head = [
            "class vContextInfo: version",
            "class TodoList: id, sequence, items",
            "class TodoItem: id, title, status",
            "",
            'vContextInfo: vContextInfo("0.4")',
            'todoList: TodoList("main", 1, [',
        ]
    else:
        rows = [f'  TodoItem("Task {i}: to do", "pending"),' for i in range(items)]
        head = [
            "class vContextInfo: version",
            "class TodoList: items",
            "class TodoItem: title, status",
            "",
            'vContextInfo: vContextInfo("0.4")',
            "todoList: TodoList([",
        ]
    rows[-1] = rows[-1].rstrip(",")
    return "\n".join([*head, *rows, "])", ""])


def compact_json(items: int, *, minified: bool) -> str:
    data = {
        "vContextInfo": {"version": "0.4"},
        "todoList": {
            "id": "main",
            "sequence": 1,
            "items": [
                {"id": f"t{i}", "title": f"Task {i}: something to do", "status": "pending"}
                for i in range(items)
            ],
        },
    }
    if minified:
        return json.dumps(data, separators=(",", ":"))
    rows = [json.dumps(item) for item in data["todoList"]["items"]]  # type: ignore[index]
    return (
        '{"vContextInfo": {"version": "0.4"},\n'
        ' "todoList": {"id": "main", "sequence": 1,\n'
        '  "items": [\n   ' + ",\n   ".join(rows) + "]}}\n"
    )


def _medians(step: Callable[[int], Any]) -> tuple[float, float]:
    step(-1)
    walls, cpus = [], []
    for n in range(RUNS):
        wall, cpu = time.perf_counter(), time.process_time()
        step(n)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls) * 1000, statistics.median(cpus) * 1000


def bench(folder: Path, label: str, name: str, text: str, items: int, *, pointer: bool) -> None:
    root = folder / label
    root.mkdir()
    (root / name).write_text(text)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "b"],
        check=True,
    )
    where, repo = setup.find_root(str(root))
    svc = setup.service(Options(root=where, agent="bench"), repo)

    def update(n: int) -> None:
        index = abs(n) * 7 % items
        item = f"/todoList/items/{index}" if pointer else f"t{index}"
        status = "inProgress" if n % 2 else "blocked"
        answer = call(svc, "vbrief_update_todo", {"id": item, "status": status})
        assert not answer.error, answer.text

    def unchanged(n: int) -> None:
        item = "/todoList/items/3" if pointer else "t3"
        answer = call(svc, "vbrief_update_todo", {"id": item, "status": "pending"})
        assert not answer.error, answer.text

    wall, cpu = _medians(update)
    diff = subprocess.run(
        ["git", "-C", str(root), "diff", "--no-textconv", "--numstat"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    print(
        f"| status change, {items}-item {label} | {wall:.1f} ms wall, {cpu:.1f} ms CPU | "
        f"median of {RUNS}; after {RUNS + 1} writes git diff shows +{diff[0]} -{diff[1]} lines |"
    )
    wall, cpu = _medians(unchanged)
    print(f"| a write that changes nothing, {label} | {wall:.1f} ms wall, {cpu:.1f} ms CPU | |")


def main() -> None:
    items = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    print(f"load average before: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    cases = [
        ("class-style TRON", "todo.vcontext.tron", class_tron(items, ids=True), False),
        ("minimal TRON (no ids)", "todo.vcontext.tron", class_tron(items, ids=False), True),
        ("compact JSON", "todo.vcontext.json", compact_json(items, minified=False), False),
        ("minified JSON", "todo.vcontext.json", compact_json(items, minified=True), False),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for label, name, text, pointer in cases:
            try:
                bench(Path(tmp), label, name, text, items, pointer=pointer)
            except AssertionError as exc:
                print(f"| {label} | refused: {exc} | |")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
