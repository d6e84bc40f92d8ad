"""What each ``sync --push`` no longer does twice: check the remote and ``--into`` and
select the agents (``workflow.link.checked``, once, its result passed on to
``workflow.sync.sync``; before, ``link.connected`` checked them and ``sync`` checked them
again, for the command line and the MCP server alike).

Run: python tests/bench/bench_sync_checks.py [--agents 1 16] [--calls 300]

In a temporary repository with a bare remote (``origin``) and ``--agents`` agent branches,
prints per sync: the CPU (user + system, the median of 5 runs of ``--calls`` calls) of one
``checked`` — the agents named, and ``--all`` — and the processes one call starts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import load_average


def _repo(where: str, agents: int) -> None:
    subprocess.run(["git", "init", "-q", "--bare", f"{where}/remote.git"], check=True)
    subprocess.run(["git", "init", "-q", "-b", "main", f"{where}/repo"], check=True)
    git = ["git", "-C", f"{where}/repo", "-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "one"], check=True)
    subprocess.run([*git, "remote", "add", "origin", f"{where}/remote.git"], check=True)
    for i in range(agents):
        subprocess.run([*git, "branch", f"agents/a{i}"], check=True)


def _cpu(call: Callable[[], None], calls: int) -> float:
    runs = []
    for _ in range(5):
        start = time.process_time()
        for _ in range(calls):
            call()
        runs.append((time.process_time() - start) * 1e6 / calls)
    return statistics.median(runs)


def _processes(call: Callable[[], None]) -> int:
    started = []
    real = subprocess.Popen

    class Counted(real):  # type: ignore[valid-type,misc]
        def __init__(self, *args: object, **kwargs: object) -> None:
            started.append(args)
            super().__init__(*args, **kwargs)

    subprocess.Popen = Counted  # type: ignore[misc]
    try:
        call()
    finally:
        subprocess.Popen = real  # type: ignore[misc]
    return len(started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agents", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    import pygit2

    from git_vcontext.workflow.link import checked

    print(f"load average {load_average()}; {args.calls} calls, median of 5 runs")
    for agents in args.agents:
        with tempfile.TemporaryDirectory() as tmp:
            _repo(tmp, agents)
            repo = pygit2.Repository(os.path.join(tmp, "repo"))
            names = [f"a{i}" for i in range(agents)]
            for label, chosen, every in (("named", names, False), ("--all", [], True)):

                def one(
                    repo: pygit2.Repository = repo, chosen: list[str] = chosen, every: bool = every
                ) -> None:
                    checked(repo, "origin", "main", chosen, every).selected(repo)

                print(
                    f"{agents:3} agents, {label:5}: {_cpu(one, args.calls):7.1f} us CPU, "
                    f"{_processes(one)} processes saved per sync"
                )


if __name__ == "__main__":
    main()
