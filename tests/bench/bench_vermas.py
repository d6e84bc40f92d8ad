"""Benchmark: a VerMAS ``.work/`` directory: projections rebuilt and checked, templates merged.

Run: ``python tests/bench/bench_vermas.py [EVENTS]`` (default 100,000 events: 20,000 work
orders created and moved on, 20,000 messages sent, and other events). Prints whole-process
times (median of 3, and the CPU time of one run: steadier on a loaded machine) of
``vermas project`` (a rebuild from nothing, then ``--check`` of the result), ``validate`` of
the event log and of a projection (drift against the log included), and the in-process
time of merging a 500-step template changed on both sides.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[2] / "src"
sys.path.insert(0, str(SRC))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import cli, env, median_seconds, row  # noqa: E402


def cpu_seconds(cmd: list[str], cwd: str) -> float:
    """CPU time (user + system) of one run: steadier than wall time on a loaded machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, cwd=cwd, env=env(), capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def timed(label: str, cmd: list[str], cwd: str, setup: Any = None) -> None:
    wall = median_seconds(cmd, runs=3, setup=setup, cwd=cwd)
    if setup:
        setup()
    row(label, wall, f"CPU {cpu_seconds(cmd, cwd):.2f} s")


def events(n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(n // 5):
        wo, minute = f"wo-{i}", f"{i % 60:02d}"

        def ev(kind: str, etype: str, hour: int, **data: Any) -> dict[str, Any]:
            stamp = f"2026-01-06T{hour}:{minute}:00.000Z"  # noqa: B023 (called at once)
            return {"event_id": f"evt-{kind}{i}", "event_type": etype,  # noqa: B023
                    "timestamp": stamp, "actor": "agent", "data": data}  # fmt: skip

        out += [
            ev("c", "work_order.created", 10, work_order_id=wo, title=f"T{i}", issue_type="task"),
            ev("s", "work_order.status_changed", 11, work_order_id=wo, to_status="in_progress"),
            ev("m", "mail.sent", 12, message_id=f"msg-{i}", to="b", subject="WORKER_DONE"),
            ev("w", "agent.working", 13, work_order_id=wo),
            ev("p", "process.step_started", 14, process_id=f"proc-{i}", step_id="implement"),
        ]
    return out


def template(n: int, mark: str = "") -> str:
    steps = [
        f'[[steps]]\nid = "s{i}"\ntitle = "Step {i}{mark if i % 50 == 0 else ""}"\n'
        f'needs = ["s{max(i - 1, 0)}"]\ndescription = """\nDo step {i}.\n\nCarefully.\n"""\n'
        for i in range(n)
    ]
    return 'template = "big"\ndescription = "d"\nversion = 1\n\n' + "\n".join(steps)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    work = Path(tempfile.mkdtemp()) / ".work"
    work.mkdir()
    log = work / "events.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in events(n)))
    size = log.stat().st_size / 1e6

    def no_projections() -> None:
        for name in ("work_orders.jsonl", "messages.jsonl"):
            (work / name).unlink(missing_ok=True)

    cwd = str(work.parent)
    label = f"vermas project, {n:,} events ({size:.1f} MB), projections from nothing"
    timed(label, cli("vermas", "project"), cwd, setup=no_projections)
    timed(
        "vermas project --check of the result (up to date)",
        cli("vermas", "project", "--check"),
        cwd,
    )
    timed(f"validate of the event log ({n:,} events)", cli("validate", ".work/events.jsonl"), cwd)
    label = f"validate of work_orders.jsonl ({n // 5:,} records), drift included"
    timed(label, cli("validate", ".work/work_orders.jsonl"), cwd)

    from git_vcontext.merging.files import merge_files

    base = template(500).encode()
    ours = template(500, " (ours)").encode()
    theirs = base.replace(b"Do step 7.", b"Do step seven.")
    start, cpu = time.perf_counter(), time.process_time()
    outcome = merge_files(base, ours, theirs, path=".work/templates/big.toml")
    took, cpu = time.perf_counter() - start, time.process_time() - cpu
    label = f"merge of a 500-step template ({len(base) // 1024} KB), in process"
    row(label, took, f"CPU {cpu:.2f} s, {outcome.status}")


if __name__ == "__main__":
    main()
