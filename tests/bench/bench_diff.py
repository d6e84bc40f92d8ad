"""Benchmark ``git vcontext diff`` and ``textconv`` as whole processes.

Run: ``python tests/bench/bench_diff.py [--deepdiff]``.

Targets (issue 5): a 5,000-item todo list with 50 status changes, 10 removals,
20 additions and 100 moves gives the exact change list in under 0.5 s;
50,000 items in under 3 s; textconv of a 1 MB document in under 0.3 s.
``--deepdiff`` also times deepdiff on the 5,000-item case for comparison.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[2] / "src"


def todo(n: int) -> dict[str, Any]:
    items = [
        {
            "id": f"t{i}",
            "title": f"Task number {i}: do the thing properly",
            "status": "pending",
            "tags": ["bench", f"group{i % 7}"],
            "priority": "medium",
        }
        for i in range(n)
    ]
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"id": "bench", "items": items}}


def edit(old: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any], dict[str, set[str]]]:
    """50 status changes, 10 removals, 20 additions, 100 moves; returns the expected ids per op."""
    new = json.loads(json.dumps(old))
    items = new["todoList"]["items"]
    n = len(items)
    first_half = list(range(0, n // 2))
    picked = rng.sample(first_half, 160)
    moved_ix, removed_ix, changed_ix = picked[:100], picked[100:110], picked[110:160]
    expected = {
        "move": {items[i]["id"] for i in moved_ix},
        "remove": {items[i]["id"] for i in removed_ix},
        "change": {items[i]["id"] for i in changed_ix},
        "add": {f"new{k}" for k in range(20)},
    }
    for i in changed_ix:
        items[i]["status"] = "completed"
    by_id = {x["id"]: x for x in items}
    moving = [by_id[i] for i in sorted(expected["move"], key=lambda k: int(k[1:]))]
    keep = [x for x in items if x["id"] not in expected["move"] | expected["remove"]]
    # moved items go to the second half in reverse order: each really moved
    slots = sorted(rng.sample(range(len(keep) // 2 + 1, len(keep)), len(moving)), reverse=True)
    for item, slot in zip(reversed(moving), sorted(slots), strict=True):
        keep.insert(slot, item)
    for k in range(20):
        added = {"id": f"new{k}", "title": "New", "status": "pending"}
        keep.insert(rng.randrange(len(keep)), added)
    new["todoList"]["items"] = keep
    return new, expected


def run_cli(*args: str) -> tuple[float, bytes]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "git_vcontext", *args], capture_output=True, env=env, check=False
    )
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(proc.stderr.decode())
    return elapsed, proc.stdout


def best_of(times: int, *args: str) -> tuple[float, bytes]:
    runs = [run_cli(*args) for _ in range(times)]
    return min(r[0] for r in runs), runs[-1][1]


def bench_diff(n: int, tmp: Path, limit: float) -> None:
    old = todo(n)
    new, expected = edit(old, random.Random(n))
    a, b = tmp / f"old{n}.vcontext.json", tmp / f"new{n}.vcontext.json"
    a.write_text(json.dumps(old, indent=2))
    b.write_text(json.dumps(new, indent=2))
    elapsed, out = best_of(3, "diff", str(a), str(b), "--format", "json")
    got: dict[str, set[str]] = {"add": set(), "remove": set(), "change": set(), "move": set()}
    for change in json.loads(out)["changes"]:
        got[change["op"]].add(change["id"])
    count = len(json.loads(out)["changes"])
    exact = got == expected and count == 180
    size = a.stat().st_size / 1e6
    verdict = "ok" if exact and elapsed < limit else "FAIL"
    print(
        f"diff {n:>6} items ({size:.1f} MB): {elapsed:.3f} s, {count} changes, "
        f"exact={exact} (target < {limit} s) {verdict}"
    )


def bench_textconv(tmp: Path) -> None:
    doc = todo(1)
    doc["todoList"]["items"] = [
        {
            "id": f"t{i}",
            "title": f"Task {i}",
            "status": "pending",
            "tags": ["a", "b"],
            "narrative": {"Background": "Some text that explains the task.\nSecond line."},
        }
        for i in range(5200)
    ]
    path = tmp / "big.vcontext.json"
    path.write_text(json.dumps(doc, indent=2))
    elapsed, out = best_of(3, "textconv", str(path))
    size = path.stat().st_size / 1e6
    verdict = "ok" if elapsed < 0.3 else "FAIL"
    lines = out.count(b"\n")
    print(f"textconv {size:.2f} MB: {elapsed:.3f} s, {lines} lines (target < 0.3 s) {verdict}")


def bench_deepdiff() -> None:
    from deepdiff import DeepDiff

    old = todo(5000)
    new, _ = edit(old, random.Random(5000))
    for label, ignore_order in (("default", False), ("ignore_order", True)):
        start = time.perf_counter()
        result = DeepDiff(old, new, ignore_order=ignore_order)
        elapsed = time.perf_counter() - start
        reported = sum(len(v) for v in result.values())
        print(f"deepdiff {label}: {elapsed:.2f} s, {reported} reported changes (180 real)")


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        start, _ = best_of(3, "--version")
        print(f"startup (--version): {start:.3f} s")
        bench_diff(5000, tmp, 0.5)
        bench_diff(50000, tmp, 3.0)
        bench_textconv(tmp)
    if "--deepdiff" in sys.argv:
        bench_deepdiff()


if __name__ == "__main__":
    main()
