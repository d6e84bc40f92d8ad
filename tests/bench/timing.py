"""Shared helpers for the benchmark scripts: time whole processes, print a table row."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

PYTHON = sys.executable
SCRIPT = str(Path(PYTHON).with_name("git-vcontext"))
if not Path(SCRIPT).exists():  # run from a checkout without the console script
    SCRIPT = ""


def cli(*args: str) -> list[str]:
    """The command line that starts git-vcontext as users do."""
    return [SCRIPT, *args] if SCRIPT else [PYTHON, "-m", "git_vcontext", *args]


def env() -> dict[str, str]:
    """Bytecode caching on, as after a normal install (some CI images turn it off)."""
    e = dict(os.environ)
    e.pop("PYTHONDONTWRITEBYTECODE", None)
    return e


def median_seconds(
    cmd: Sequence[str],
    runs: int = 21,
    setup: Callable[[], None] | None = None,
    cwd: str | None = None,
) -> float:
    """Median wall time of a whole process (one warm-up run first)."""
    return alternating_medians([(cmd, setup, cwd)], runs)[0]


def alternating_medians(
    jobs: Sequence[tuple[Sequence[str], Callable[[], None] | None, str | None]],
    runs: int = 31,
) -> list[float]:
    """Median wall times of whole processes run in turn (one of each, then again), so that
    a machine whose speed drifts during the measurement weighs on every job alike; one
    warm-up round first. Each job: (command, setup or None, working directory or None)."""
    times: list[list[float]] = [[] for _ in jobs]
    for i in range(runs + 1):
        for (cmd, setup, cwd), spent in zip(jobs, times, strict=True):
            if setup:
                setup()
            start = time.perf_counter()
            subprocess.run(
                cmd, cwd=cwd, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            if i:
                spent.append(time.perf_counter() - start)
    return [statistics.median(spent) for spent in times]


def row(label: str, seconds: float, note: str = "") -> None:
    print(f"| {label} | {seconds * 1000:.1f} ms | {note} |")
