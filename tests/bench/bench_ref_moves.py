"""The CPU one ref move costs (``gitio.refs.move_refs``: the transaction sync makes for each
pair's refs, its lock files claimed while held), this tree against a baseline.

Run: python tests/bench/bench_ref_moves.py [--moves 1000] [--refs 2] [--runs 5]
     [--baseline OTHER/src]

In a temporary repository with one commit, ``--moves`` transactions each move ``--refs``
branches (to the commit they hold: the locks, the claim, the reflog, the commit of the
transaction, all as for a real move). Printed per code: the median over ``--runs`` of the
process's CPU (user + system: the claim is system calls) per move, in ms, with the load
average. Each code runs in its own process (the baseline's ``src`` first on ``sys.path``),
ours and the baseline's in turn, so the load weighs on both alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import load_average

ONE = """
import sys, time, pygit2
from git_vcontext.gitio.refs import RefUpdate, move_refs
repo = pygit2.Repository(sys.argv[1])
tip = repo.head.target
names = [f"refs/heads/b{i}" for i in range(int(sys.argv[3]))]
for name in names:
    repo.references.create(name, tip, force=True)
updates = [RefUpdate(name, tip, tip) for name in names]
move_refs(repo, updates, message="warm")
start = time.process_time()
for _ in range(int(sys.argv[2])):
    move_refs(repo, updates, message="bench")
print((time.process_time() - start) * 1000 / int(sys.argv[2]))
"""


def _run(src: str | None, repo: str, moves: int, refs: int) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if src is not None:
        env["PYTHONPATH"] = src
    out = subprocess.run(
        [sys.executable, "-c", ONE, repo, str(moves), str(refs)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=1000)
    parser.add_argument("--refs", type=int, default=2)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline")
    args = parser.parse_args()
    codes: dict[str, str | None] = {"this tree": None}
    if args.baseline:
        codes["baseline"] = args.baseline
    spent: dict[str, list[float]] = {name: [] for name in codes}
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, "repo")
        subprocess.run(["git", "init", "-q", "-b", "main", repo], check=True)
        subprocess.run(
            ["git", "-C", repo, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q",
             "--allow-empty", "-m", "one"],
            check=True,
        )  # fmt: skip
        for _ in range(args.runs):
            for name, src in codes.items():
                spent[name].append(_run(src, repo, args.moves, args.refs))
    print(
        f"load average {load_average()}; {args.moves} moves of {args.refs} refs, {args.runs} runs"
    )
    for name, figures in spent.items():
        print(f"{name:10} {statistics.median(figures):.3f} ms CPU per move (median)")


if __name__ == "__main__":
    main()
