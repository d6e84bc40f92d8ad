"""``sync --all`` of 32 agent branches, each changing 5 documents, against ``git merge`` + driver.

Run: python tests/bench/bench_sync.py [--agents 32] [--docs 10] [--items 40] [--runs 3]
[--baseline OTHER/src] [--profile]

Both sides start from copies of one repository: main with DOCS todo lists (each
with a container uid), AGENTS branches forked from it (a fork block in every
document, as ``fork`` writes), each agent changing 5 documents, and main changing
every document after the forks (so ``git merge`` calls the driver for each of
them). Then:

- in process: ``git vcontext sync --all`` (one process; both directions per agent);
- baseline: ``git merge --no-ff agents/X`` for each agent in the same order, with
  the driver installed (one driver process per document both sides changed).

Prints the wall and the CPU time (user + system of the process and every process it
waited for: git's driver processes count on git's side) of both, each the median of
``--runs`` runs on fresh copies, and the ratios; the wall ratio is the figure the README
shows, the CPU ratio the one a loaded machine changes least. The two are not the same
work: sync merges both ways (each agent branch receives main, keeping its fork blocks,
which ``git merge`` cannot do: main into an agent branch is a fast-forward there), git
merges into main only, so the comparison is at sync's expense. The system part of
each side's CPU is printed apart: on a disk file system most of sync's is the loose
objects it creates, one file each (a few hundred), which a tmpfs copy of the repository
nearly removes.

Checks that main's tree is the same in both repositories, byte for byte (its data
printed by document when it is not). ``--baseline OTHER/src``: another checkout's
``sync --all`` runs in turn with ours on fresh copies, and every branch's tree must be
byte-identical between the two (fork metadata included: ``SOURCE_DATE_EPOCH`` fixes
the time written).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from timing import PYTHON, baseline, cli, env, load_average

EPOCH = "1767225600"


def _git(repo: Path, *args: str) -> str:
    e = {**env(), "SOURCE_DATE_EPOCH": EPOCH}
    out = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, env=e)
    if out.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} failed: {out.stderr}")
    return out.stdout


def _doc(i: int, items: int) -> dict[str, Any]:
    return {
        "vContextInfo": {"version": "0.4", "author": "bench"},
        "todoList": {
            "id": f"todo-{i}",
            "uid": f"uid-{i}",
            "title": f"Work list {i}",
            "sequence": 1,
            "items": [
                {
                    "id": f"t{j}",
                    "title": f"Task {j} of list {i}",
                    "status": "pending",
                    "tags": ["bench"],
                    "narrative": {"Background": f"Why task {j} matters."},
                }
                for j in range(items)
            ],
        },
    }


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def _edit(path: Path, change: Any) -> None:
    data = json.loads(path.read_text())
    change(data)
    _write(path, data)


def build(work: Path, agents: int, docs: int, items: int) -> Path:
    repo = work / "seed"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.name", "Bench")
    _git(repo, "config", "user.email", "bench@example.com")
    names = [f"lists/list-{i:02d}.vcontext.json" for i in range(docs)]
    for i, name in enumerate(names):
        _write(repo / name, _doc(i, items))
    (repo / "README.txt").write_text("bench\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "seed")
    for k in range(agents):
        agent = f"a{k:02d}"
        _git(repo, "checkout", "-q", "-b", f"agents/{agent}", "main")
        for name in names:  # what fork writes: a fork block in every document with a uid

            def fork(data: Any, agent: str = agent) -> None:
                data["todoList"]["fork"] = {
                    "parentUid": data["todoList"]["uid"],
                    "parentSequence": data["todoList"]["sequence"],
                    "forkedAt": "2025-12-31T00:00:00Z",
                    "forkReason": f"bench agent {agent}",
                    "mergeStatus": "unmerged",
                }

            _edit(repo / name, fork)
        _git(repo, "commit", "-qam", f"fork {agent}")
        for j in range(5):
            name = names[(k + j) % docs]

            def agent_work(data: Any, k: int = k, j: int = j, agent: str = agent) -> None:
                todo = data["todoList"]
                todo["items"][k % items]["status"] = "completed"
                todo["items"].append(
                    {"id": f"{agent}-{j}", "title": f"Found by {agent}", "status": "pending"}
                )
                todo["sequence"] += 1

            _edit(repo / name, agent_work)
        _git(repo, "commit", "-qam", f"{agent} works")
        _git(repo, "config", f"vcontext.agent.{agent}.base", "main")
    _git(repo, "checkout", "-q", "main")
    for name in names:

        def main_work(data: Any) -> None:
            data["todoList"]["items"].append(
                {"id": "from-main", "title": "Added on main", "status": "pending"}
            )
            data["todoList"]["sequence"] += 1

        _edit(repo / name, main_work)
    _git(repo, "commit", "-qam", "main works")
    return repo


def copy(seed: Path, name: str) -> Path:
    dest = seed.parent / name
    shutil.copytree(seed, dest, symlinks=True)
    return dest


def main_data(repo: Path) -> dict[str, Any]:
    names = _git(repo, "ls-tree", "-r", "--name-only", "main").split()
    return {n: json.loads(_git(repo, "show", f"main:{n}")) for n in names if n.endswith(".json")}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _children_sys() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_stime


SYSTEM: dict[str, list[float]] = {"sync": [], "git": []}
"""The system part of each run's CPU (the kernel's: files created, read, renamed), by side."""


def run_sync(repo: Path, profile: bool, command: list[str] | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of one ``sync --all`` (``command``: another checkout's)."""
    e = {**env(), "SOURCE_DATE_EPOCH": EPOCH}
    cmd = [*(command or cli()), "sync", "--all"]
    if profile:
        cmd = [PYTHON, "-m", "cProfile", "-s", "tottime", "-m", "git_vcontext", "sync", "--all"]
    cpu, system = _children_cpu(), _children_sys()
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=repo, capture_output=True, text=True, env=e)
    seconds = time.perf_counter() - start
    cpu = _children_cpu() - cpu
    if command is None:
        SYSTEM["sync"].append(_children_sys() - system)
    if out.returncode != 0:
        raise SystemExit(f"sync failed ({out.returncode}): {out.stdout[-2000:]} {out.stderr}")
    if profile:
        lines = out.stdout.splitlines()
        at = next(i for i, ln in enumerate(lines) if "function calls" in ln)
        print("\n".join(lines[at : at + 60]))
    return seconds, cpu


def run_git_merges(repo: Path, agents: int) -> tuple[float, float]:
    """(wall, CPU) seconds of ``git merge --no-ff`` of each agent into main, one by one."""
    e = {**env(), "SOURCE_DATE_EPOCH": EPOCH}
    subprocess.run(cli("install", "--local", "--no-hooks"), cwd=repo, check=True, env=e,
                   capture_output=True)  # fmt: skip
    cpu, system = _children_cpu(), _children_sys()
    start = time.perf_counter()
    for k in range(agents):
        out = subprocess.run(
            ["git", "merge", "--no-ff", "--no-edit", "-q", f"agents/a{k:02d}"],
            cwd=repo,
            capture_output=True,
            text=True,
            env=e,
        )
        if out.returncode != 0:
            raise SystemExit(f"git merge agents/a{k:02d} failed: {out.stdout} {out.stderr}")
    SYSTEM["git"].append(_children_sys() - system)
    return time.perf_counter() - start, _children_cpu() - cpu


def run_git_back(repo: Path, agents: int) -> tuple[float, float]:
    """(wall, CPU) seconds of the other direction with git, after ``run_git_merges``: each
    agent branch checked out and main merged into it (``--no-ff``; no driver runs: the
    agent's tip is the merge base, so git takes main's files, and the fork blocks sync
    keeps are lost: git has no way to give sync's result there)."""
    e = {**env(), "SOURCE_DATE_EPOCH": EPOCH}
    cpu = _children_cpu()
    start = time.perf_counter()
    for k in range(agents):
        for args in (["checkout", "-q", f"agents/a{k:02d}"], ["merge", "--no-ff", "--no-edit",
                     "-q", "main"]):  # fmt: skip
            out = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, env=e)
            if out.returncode != 0:
                raise SystemExit(f"git {' '.join(args)} failed: {out.stdout} {out.stderr}")
    seconds, cpu = time.perf_counter() - start, _children_cpu() - cpu
    _git(repo, "checkout", "-q", "main")
    return seconds, cpu


def trees(repo: Path) -> dict[str, str]:
    """Every branch's tree id."""
    out = _git(repo, "for-each-ref", "--format=%(refname) %(objectname)^{tree}", "refs/heads")
    names = [line.split()[0] for line in out.splitlines()]
    ids = _git(repo, "rev-parse", *(f"{n}^{{tree}}" for n in names)).split()
    return dict(zip(names, ids, strict=True))


def _same_trees(before: Path, after: Path) -> None:
    """Stop unless every branch has the same tree in both repositories."""
    theirs, ours = trees(before), trees(after)
    if theirs != ours:
        print("baseline and ours differ:")
        for name in sorted(set(ours) | set(theirs)):
            if ours.get(name) != theirs.get(name):
                print(f"  {name}")
        raise SystemExit(1)


def _median(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def _shown(runs: list[tuple[float, float]]) -> str:
    return ", ".join(f"{w * 1000:.0f}/{c * 1000:.0f}" for w, c in runs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, default=32)
    parser.add_argument("--docs", type=int, default=10)
    parser.add_argument("--items", type=int, default=40)
    parser.add_argument("--runs", type=int, default=3, help="runs of each, on fresh copies")
    parser.add_argument("--baseline", help="another checkout's src folder, run in turn")
    parser.add_argument("--profile", action="store_true", help="cProfile the sync process")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-sync-"))
    try:
        seed = build(work, args.agents, args.docs, args.items)
        other = baseline(args.baseline, str(work)) if args.baseline else None
        print(f"load before: {load_average()}")
        ours_runs: list[tuple[float, float]] = []
        base_runs: list[tuple[float, float]] = []
        git_runs: list[tuple[float, float]] = []
        back_runs: list[tuple[float, float]] = []
        runs = 1 if args.profile else args.runs
        for i in range(runs):  # in turn, each on a fresh copy
            in_process = copy(seed, f"sync-{i}")
            ours_runs.append(run_sync(in_process, args.profile))
            if other is not None:
                before = copy(seed, f"baseline-{i}")
                base_runs.append(run_sync(before, False, other))
                _same_trees(before, in_process)
            merged = copy(seed, f"git-merge-{i}")
            git_runs.append(run_git_merges(merged, args.agents))
            ours_main = main_data(merged)  # (before the other direction moves nothing on main)
            back = copy(merged, f"git-back-{i}")
            back_runs.append(run_git_back(back, args.agents))
        print(f"load after: {load_average()}")
        (t_sync, c_sync), (t_git, c_git) = _median(ours_runs), _median(git_runs)
        ours, theirs = main_data(in_process), ours_main
        same = trees(in_process)["refs/heads/main"] == trees(merged)["refs/heads/main"]
        leaked = [n for n, d in ours.items() if "fork" in d.get("todoList", {})]
        print(f"agents: {args.agents}, documents: {args.docs} ({args.items} items), 5 per agent")
        print("| | wall (median) | CPU (median) | runs, wall/CPU ms |")
        print(
            f"| sync --all (both directions, one process) | {t_sync * 1000:.0f} ms "
            f"| {c_sync * 1000:.0f} ms | {_shown(ours_runs)} |"
        )
        if base_runs:
            t_base, c_base = _median(base_runs)
            print(
                f"| baseline sync --all ({args.baseline}) | {t_base * 1000:.0f} ms "
                f"| {c_base * 1000:.0f} ms | {_shown(base_runs)} |"
            )
        print(
            f"| git merge + driver, one by one (into main only) | {t_git * 1000:.0f} ms "
            f"| {c_git * 1000:.0f} ms | {_shown(git_runs)} |"
        )
        t_back, c_back = _median(back_runs)
        print(
            f"| git, then main into each agent branch (checkout + merge --no-ff; no driver, "
            f"fork blocks lost) | {t_back * 1000:.0f} ms | {c_back * 1000:.0f} ms "
            f"| {_shown(back_runs)} |"
        )
        print(f"ratio: {t_git / t_sync:.1f}x faster (wall), {c_git / c_sync:.1f}x (CPU)")
        s_sync, s_git = (statistics.median(SYSTEM[k]) for k in ("sync", "git"))
        print(
            f"system part of the CPU (median; files written, read, renamed): sync "
            f"{s_sync * 1000:.0f} ms of {c_sync * 1000:.0f} ms, git {s_git * 1000:.0f} ms "
            f"of {c_git * 1000:.0f} ms"
        )
        both, both_cpu = (t_git + t_back) / t_sync, (c_git + c_back) / c_sync
        print(f"both directions with git too: {both:.1f}x (wall), {both_cpu:.1f}x (CPU)")
        if base_runs:
            print(
                f"baseline's ratio: {t_git / t_base:.1f}x (wall), {c_git / c_base:.1f}x (CPU); "
                "every branch's tree the same as the baseline's: True"
            )
        print(f"main's tree byte-identical: {same}; fork blocks on main after sync: {len(leaked)}")
        if not same:
            for name in sorted(ours):
                if ours[name] != theirs.get(name):
                    print(f"  differs: {name}")
            raise SystemExit(1)
    finally:
        if not os.environ.get("KEEP_BENCH"):
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"kept {work}")


if __name__ == "__main__":
    main()
