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


def baseline(src: str, folder: str) -> list[str]:
    """The command of another checkout's code (``src``: its ``src`` folder, e.g. main's, from
    ``git worktree add`` or ``git archive``), started as the installed ``git-vcontext``
    starts (``bin/git-vcontext``, ours: no ``re``; the checkout's folder first on
    ``sys.path``), so that old and new run side by side, in turn, started alike."""
    script = Path(folder) / "baseline-git-vcontext"
    script.write_text(
        f"#!{PYTHON}\n"
        "import sys\n"
        f"sys.path.insert(0, {str(Path(src).resolve())!r})\n"
        "from git_vcontext.entry import run\n"
        "if __name__ == '__main__':\n"
        "    sys.exit(run())\n"
    )
    script.chmod(0o755)
    return [str(script)]


def loaded_modules(
    cmd: Sequence[str],
    cwd: str | None = None,
    runs: int = 5,
    setup: Callable[[], None] | None = None,
) -> list[tuple[str, int]]:
    """``python -X importtime`` of a command (a Python script and its arguments): each module
    it loads that ``python -c pass`` does not, with its own import time in µs (the least of
    ``runs`` runs), slowest first. ``setup`` runs before each run (a merge driver's fresh
    ``%A``: a second merge into its own result takes another path)."""

    def once(args: Sequence[str]) -> dict[str, int]:
        if setup is not None and args is not bare_args:
            setup()
        out = subprocess.run(
            [PYTHON, "-X", "importtime", *args], cwd=cwd, env=env(), capture_output=True, text=True
        ).stderr
        found: dict[str, int] = {}
        for line in out.splitlines():
            parts = line.split("|")
            if (
                line.startswith("import time:")
                and len(parts) == 3
                and parts[0][12:].strip().isdigit()
            ):
                found[parts[2].strip()] = int(parts[0][12:])
        return found

    bare_args = ["-c", "pass"]
    bare = once(bare_args)
    best: dict[str, int] = {}
    for _ in range(runs):
        for name, spent in once(cmd).items():
            if name not in bare:
                best[name] = min(spent, best.get(name, spent))
    return sorted(best.items(), key=lambda kv: -kv[1])


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
    return [wall for wall, _ in alternating_times(jobs, runs)]


def alternating_times(
    jobs: Sequence[tuple[Sequence[str], Callable[[], None] | None, str | None]],
    runs: int = 31,
) -> list[tuple[float, float]]:
    """(median wall time, median CPU time) of whole processes run in turn, as
    ``alternating_medians``; the CPU time is the process's user + system time (``wait4``),
    which other work on a loaded machine changes far less than the wall time."""
    walls: list[list[float]] = [[] for _ in jobs]
    cpus: list[list[float]] = [[] for _ in jobs]
    for i in range(runs + 1):
        for (cmd, setup, cwd), wall, cpu in zip(jobs, walls, cpus, strict=True):
            if setup:
                setup()
            start = time.perf_counter()
            proc = subprocess.Popen(
                cmd, cwd=cwd, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
            if i:
                wall.append(time.perf_counter() - start)
                cpu.append(usage.ru_utime + usage.ru_stime)
    return [(statistics.median(w), statistics.median(c)) for w, c in zip(walls, cpus, strict=True)]


def load_average() -> str:
    """The machine's load averages over 1, 5 and 15 minutes, as ``uptime`` shows them."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def met(ratio: float, goal: float) -> str:
    """``met`` when a measured ratio is within its goal, else ``not met``."""
    return "met" if ratio <= goal else "not met"


def row(label: str, seconds: float, note: str = "") -> None:
    print(f"| {label} | {seconds * 1000:.1f} ms | {note} |")
