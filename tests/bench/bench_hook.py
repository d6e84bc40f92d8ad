"""The pre-push hook, whole process, on pushes of many commits touching many documents.

Run: python tests/bench/bench_hook.py          (PYTHONPATH=src from a checkout)
Prints the median wall time of `git-vcontext hook pre-push` with git's ref line on
stdin: cold (verdict cache emptied before each run) and cached (the same objects
again), next to the empty push (nothing to check) and `python -c pass`.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from timing import PYTHON, cli, env, median_seconds, row

ZERO = "0" * 40

STAMP = "2026-01-01T00:00:00Z"
AGENT = {"id": "bench", "type": "system"}


def build(
    repo_dir: Path, commits: int, documents: int, per_commit: int, routed: bool = False
) -> tuple[str, str]:
    """A repository whose first commit holds ``documents`` playbooks and todo lists, then
    ``commits`` commits that each append to ``per_commit`` of them (round robin).
    ``routed``: plain ``.json`` names that the committed .gitattributes sends to the
    driver (the hook reads each commit's attributes), not install's ``*.vcontext.json``.
    Returns (base commit, tip)."""
    import pygit2

    repo = pygit2.init_repository(str(repo_dir), bare=False, initial_head="main")
    sig = pygit2.Signature("Bench", "bench@example.com", 1_700_000_000, 0)
    docs: dict[str, dict] = {}
    suffix = ".json" if routed else ".vcontext.json"
    for i in range(documents):
        if i % 2:
            docs[f"d{i:03}{suffix}"] = {
                "vContextInfo": {"version": "0.4"},
                "todoList": {"sequence": 1, "items": [], "changeLog": []},
            }
        else:
            docs[f"p{i:03}{suffix}"] = {
                "vContextInfo": {"version": "0.4"},
                "playbook": {"sequence": 1, "items": []},
            }
    names = sorted(docs)

    def tree() -> pygit2.Oid:
        inner = repo.TreeBuilder()
        for name in names:
            blob = repo.create_blob((json.dumps(docs[name], indent=2) + "\n").encode())
            inner.insert(name, blob, pygit2.GIT_FILEMODE_BLOB)
        outer = repo.TreeBuilder()
        outer.insert("memory", inner.write(), pygit2.GIT_FILEMODE_TREE)
        if routed:
            attributes = repo.create_blob(b"memory/*.json merge=vcontext diff=vcontext\n")
            outer.insert(".gitattributes", attributes, pygit2.GIT_FILEMODE_BLOB)
        return outer.write()

    base = repo.create_commit("refs/heads/main", sig, sig, "base", tree(), [])
    parent, turn = base, 0
    for n in range(commits):
        for _ in range(per_commit):
            name = names[turn % len(names)]
            turn += 1
            doc = docs[name]
            if "playbook" in doc:
                items = doc["playbook"]["items"]
                i = len(items)  # five entries, each a chain: a creation, then updates
                event = {"eventId": f"{name[:4]}-e{i}", "targetId": f"r{i % 5}"}
                if i < 5:
                    event |= {"operation": "append", "kind": "rule"}
                else:
                    event |= {"operation": "update", "prevEventId": items[i - 5]["eventId"]}
                event |= {"text": f"Lesson {i} learned in commit {n}.", "createdAt": STAMP}
                items.append(event)
                doc["playbook"]["sequence"] += 1
            else:
                todo = doc["todoList"]
                todo["sequence"] += 1
                todo["items"].append(
                    {"id": f"t{len(todo['items'])}", "title": f"Task {n}", "status": "pending"}
                )
                change = {"sequence": todo["sequence"], "timestamp": STAMP, "agent": AGENT}
                todo["changeLog"].append(change | {"operation": "update", "reason": f"commit {n}"})
        parent = repo.create_commit("refs/heads/main", sig, sig, f"commit {n}", tree(), [parent])
    return str(base), str(parent)


def timed(cmd: list[str], cwd: Path, text: str, setup: Callable[[], None], runs: int) -> float:
    times = []
    for i in range(runs + 1):
        setup()
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, input=text.encode(), env=env(), capture_output=True)
        if i:
            times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            sys.exit(f"hook failed ({proc.returncode}): {proc.stderr.decode()}")
    return statistics.median(times)


def scenario(
    label: str, commits: int, documents: int, per_commit: int, runs: int, routed: bool = False
) -> None:
    work = Path(tempfile.mkdtemp())
    try:
        repo = work / "repo"
        base, tip = build(repo, commits, documents, per_commit, routed)
        line = f"refs/heads/main {tip} refs/heads/main {base}\n"
        cache = repo / ".git" / "vcontext"
        cmd = cli("hook", "pre-push", "origin", "url")

        def cold() -> None:
            shutil.rmtree(cache, ignore_errors=True)

        first = timed(cmd, repo, line, cold, runs)
        again = timed(cmd, repo, line, lambda: None, runs)
        row(f"{label}: cold", first, f"{commits * per_commit} file changes")
        row(f"{label}: cached", again, "the same objects again")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    print("| pre-push hook | median | note |")
    print("|---|---|---|")
    row("python -c pass", median_seconds([PYTHON, "-c", "pass"]), "floor")
    with tempfile.TemporaryDirectory() as empty:
        row(
            "empty push (nothing on stdin)",
            timed(cli("hook", "pre-push", "o", "u"), Path(empty), "", lambda: None, 21),
            "fast path: no click, no pygit2",
        )
    scenario("100 commits x 4 of 10 documents", 100, 10, 4, 5)
    scenario("50 commits touching 100 documents once each", 50, 100, 2, 5)
    scenario("50 commits x 10 of 100 documents", 50, 100, 10, 5)
    scenario("the same, routed by .gitattributes", 50, 100, 10, 5, routed=True)


if __name__ == "__main__":
    main()
