"""``conflicts`` and ``resolve``, whole process, on a stopped merge of a large todo list.

Run: python tests/bench/bench_resolve.py [--items N] [--conflicts K]
A real `git merge` stops on a todo list of N items (default 1,000) where both branches
changed the status of K items (default 20) differently. Prints the median wall time of
`git vcontext conflicts --format json`, of `resolve --conflict ID --take theirs` (one,
with K-1 left: re-merge, apply, write with markers, save the choices) and of `resolve
--take theirs` (all at once: write, validate, stage), next to `python -c pass` and the
merge driver on the same three versions. The CPU time of each process (user + system) is
printed too: on a loaded machine it tells more than the wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from timing import PYTHON, cli, env, median_seconds

DOC = "todo.vcontext.json"


def git(repo: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=check)
    return proc.stdout


def todo(n: int, status: dict[int, str]) -> str:
    items = [
        {"id": f"t{i}", "title": f"Task {i}", "status": status.get(i, "pending"), "tags": ["x"]}
        for i in range(n)
    ]
    data = {"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}}
    return json.dumps(data, indent=2) + "\n"


def stopped_merge(n: int, k: int) -> Path:
    repo = Path(tempfile.mkdtemp()) / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "Bench")
    git(repo, "config", "user.email", "bench@example.com")
    subprocess.run(cli("install", "--no-hooks"), cwd=repo, capture_output=True, check=True)
    picked = range(0, n, max(1, n // k))[:k]
    for branch, status in (("main", None), ("feat", "completed"), ("main", "blocked")):
        if branch == "feat":
            git(repo, "switch", "-q", "-c", "feat")
        elif status is not None:
            git(repo, "switch", "-q", "main")
        (repo / DOC).write_text(todo(n, {i: status for i in picked} if status else {}))
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"{branch} {status}")
    git(repo, "merge", "-q", "feat", check=False)
    return repo


def cpu_seconds(cmd: Sequence[str], cwd: Path, setup: Callable[[], None], runs: int) -> float:
    """Median CPU time (user + system) of a whole process."""
    times = []
    for _ in range(runs):
        setup()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env(), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)  # fmt: skip
        _, _, usage = os.wait4(proc.pid, 0)
        times.append(usage.ru_utime + usage.ru_stime)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--conflicts", type=int, default=20)
    args = parser.parse_args()
    repo = stopped_merge(args.items, args.conflicts)
    saved = Path(tempfile.mkdtemp())
    shutil.copy(repo / DOC, saved / DOC)
    shutil.copy(repo / ".git" / "index", saved / "index")
    first = json.loads(subprocess.run(cli("conflicts", "--format", "json"), cwd=repo,
                                      capture_output=True, text=True).stdout)  # fmt: skip
    ident = first["files"][0]["conflicts"][0]["id"]

    def restart() -> None:  # the stopped merge as git left it, no choice recorded
        shutil.copy(saved / DOC, repo / DOC)
        shutil.copy(saved / "index", repo / ".git" / "index")
        shutil.rmtree(repo / ".git" / "vcontext" / "resolve", ignore_errors=True)

    runs = 7
    print(f"stopped merge: {args.items} items, {len(first['files'][0]['conflicts'])} conflicts")
    print("| what | wall (median) | CPU (median) |")
    print("|---|---|---|")
    commands = {
        "python -c pass": [PYTHON, "-c", "pass"],
        "conflicts --format json": cli("conflicts", "--format", "json"),
        "resolve one conflict": cli("resolve", DOC, "--conflict", ident, "--take", "theirs"),
        "resolve all, stage": cli("resolve", DOC, "--take", "theirs"),
    }
    for label, cmd in commands.items():
        wall = median_seconds(cmd, runs=runs, cwd=str(repo), setup=restart)
        cpu = cpu_seconds(cmd, repo, restart, runs)
        print(f"| {label} | {wall * 1000:.0f} ms | {cpu * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
