"""The server guard (``pre-receive``, ``git vcontext install --server --guard``) on big pushes.

Run: python tests/bench/bench_guard.py          (PYTHONPATH=src from a checkout)
Goal (PRODUCT.md, "The remote guards itself"): a push of 100 commits × 4 documents is
checked in ≤ 1 s on the server.

Prints median wall times of:
- the guard's process alone (``git vcontext hook pre-receive`` with git's
  ``<old> <new> <ref>`` line on stdin, in the bare repository that holds the pushed
  objects): cold (verdict cache emptied before each run) and cached;
- a whole ``git push`` of the same commits into a fresh bare repository, with the guard
  and without it (the difference is what the guard adds to a push, quarantine included).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_hook import build
from timing import PYTHON, cli, env, median_seconds, row

RUNS = 5


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _bare(where: Path, guard: bool) -> Path:
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(where)], check=True)
    if guard:
        done = subprocess.run(
            cli("install", "--server", "--guard"), cwd=where, capture_output=True, env=env()
        )
        if done.returncode != 0:
            sys.exit(f"install --server --guard failed: {done.stderr.decode()}")
    return where


def hook_alone(work: Path, commits: int, documents: int, per_commit: int, label: str) -> None:
    """The guard's process on objects already in the bare repository (no quarantine)."""
    source = work / "source"
    base, tip = build(source, commits, documents, per_commit)
    bare = _bare(work / "alone.git", guard=False)
    _git(source, "push", "-q", str(bare), f"{tip}:refs/heads/scratch")  # the objects
    _git(bare, "update-ref", "refs/heads/main", base)
    _git(bare, "update-ref", "-d", "refs/heads/scratch")  # the tip's commits are new again
    line = f"{base} {tip} refs/heads/main\n".encode()
    cache = bare / "vcontext"
    cmd = cli("hook", "pre-receive")
    hook_env = {**env(), "GIT_DIR": str(bare)}

    def once() -> float:
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=bare, input=line, env=hook_env, capture_output=True)
        spent = time.perf_counter() - start
        if done.returncode != 0:
            sys.exit(f"guard refused ({done.returncode}): {done.stderr.decode()}")
        return spent

    cold, cached = [], []
    once()  # warm-up (bytecode, page cache)
    for _ in range(RUNS):
        shutil.rmtree(cache, ignore_errors=True)
        cold.append(once())
        cached.append(once())
    changes = commits * per_commit
    row(f"guard process, {label}: cold", statistics.median(cold), f"{changes} file changes")
    row(f"guard process, {label}: cached", statistics.median(cached), "the same objects again")


def whole_push(work: Path, commits: int, documents: int, per_commit: int, label: str) -> None:
    """``git push`` into a fresh bare repository, with and without the guard."""
    source = work / "pushing"
    base, tip = build(source, commits, documents, per_commit)
    times: dict[bool, list[float]] = {True: [], False: []}
    for i in range(RUNS + 1):
        for guard in (False, True):
            remote = _bare(work / f"push-{i}-{guard}.git", guard)
            _git(source, "push", "-q", str(remote), f"{base}:refs/heads/main")
            start = time.perf_counter()
            done = subprocess.run(
                ["git", "push", "-q", str(remote), f"{tip}:refs/heads/main"],
                cwd=source,
                capture_output=True,
                env=env(),
            )
            spent = time.perf_counter() - start
            if done.returncode != 0:
                sys.exit(f"push refused: {done.stderr.decode()}")
            if i:  # the first round warms up
                times[guard].append(spent)
            shutil.rmtree(remote)
    without, with_guard = (statistics.median(times[g]) for g in (False, True))
    row(f"git push, {label}: without the guard", without, "fresh bare repository")
    row(
        f"git push, {label}: with the guard", with_guard, f"+{(with_guard - without) * 1000:.0f} ms"
    )


def main() -> None:
    print(
        f"| server guard | median | note |  (cpus: {os.cpu_count()}, load {os.getloadavg()[0]:.1f})"
    )
    print("|---|---|---|")
    row("python -c pass", median_seconds([PYTHON, "-c", "pass"]), "floor")
    with tempfile.TemporaryDirectory() as empty:
        bare = _bare(Path(empty) / "empty.git", guard=False)
        spent = []
        for _ in range(11):
            start = time.perf_counter()
            subprocess.run(cli("hook", "pre-receive"), cwd=bare, input=b"", env=env())
            spent.append(time.perf_counter() - start)
        row("nothing to check (empty input)", statistics.median(spent[1:]), "no pygit2")
    for commits, documents, per_commit in ((100, 10, 4), (50, 100, 10)):
        label = f"{commits} commits x {per_commit} of {documents} documents"
        work = Path(tempfile.mkdtemp(prefix="bench-guard-"))
        try:
            hook_alone(work, commits, documents, per_commit, label)
            whole_push(work, commits, documents, per_commit, label)
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
