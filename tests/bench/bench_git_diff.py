"""git's own diff commands with git-vcontext installed ("Installing never breaks git"), whole
processes in fresh clones (no cache of any kind).

Run: python tests/bench/bench_git_diff.py [--documents 1000] [--items 200] [--versions 100]
[--rounds 5] [--baseline OTHER_SRC] (PYTHONPATH=src from a checkout). Two repositories, each
cloned fresh before it is timed:

- ``--documents`` small todo lists (10 items) and one commit that changes every one:
  ``git vcontext diff HEAD~1 HEAD`` (the structural diff in one process: target 3 s);
  ``git show HEAD`` (raw, git alone); ``git diff HEAD~1 HEAD > file`` (git's patch, one
  external-diff process per document: the raw patch path), and the same with a no-op
  external diff (``true``): what git itself spends per file (two temporary copies and a
  shell), the floor of any external diff;
- a ``--items``-item todo list with ``--versions`` commits, each changing one item:
  ``git log -p --ext-diff`` read by a person (git's pager: the structural view, one
  process per version, unavoidable) against ``--versions + 1`` starts of ``python -c
  pass`` (target: 2x); with the textconv opt-in, ``git log -p`` (one process per blob);
  ``git log -p`` (raw, git alone).

Prints one line per figure, with the machine's load average (the machine is shared).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from timing import PYTHON, cli, env, met

WHO = ["-c", "user.name=Bench", "-c", "user.email=bench@example.com"]


def _git(repo: Path, *args: str, **kw: Any) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, **kw)


def _todo(prefix: str, items: int, done: set[int]) -> str:
    rows = [
        {
            "id": f"{prefix}{n}",
            "title": f"Task {n} of {prefix}: make part {n} work",
            "status": "completed" if n in done else "pending",
            "tags": ["bench", f"area-{n % 7}"],
        }
        for n in range(items)
    ]
    doc = {"vContextInfo": {"version": "0.4"}, "todoList": {"items": rows}}
    return json.dumps(doc, indent=2) + "\n"


def _installed_clone(source: Path, where: Path) -> Path:
    """A fresh clone with git-vcontext installed (nothing converted or cached yet)."""
    subprocess.run(["git", "clone", "-q", str(source), str(where)], check=True)
    subprocess.run(cli("install", "--no-hooks"), cwd=where, check=True, capture_output=True)
    return where


def _many_documents(root: Path, documents: int) -> Path:
    source = root / "many"
    source.mkdir()
    _git(source, "init", "-q", "-b", "main")
    for n in range(documents):
        (source / f"d{n:04}.vcontext.json").write_text(_todo("t", 10, set()))
    _git(source, "add", "-A")
    _git(source, *WHO, "commit", "-q", "-m", "documents")
    for n in range(documents):
        (source / f"d{n:04}.vcontext.json").write_text(_todo("t", 10, {n % 10}))
    _git(source, *WHO, "commit", "-q", "-am", "every document changed")
    return source


def _long_history(root: Path, items: int, versions: int) -> Path:
    source = root / "history"
    source.mkdir()
    _git(source, "init", "-q", "-b", "main")
    doc = source / "todo.vcontext.json"
    done: set[int] = set()
    for n in range(versions):
        done.add((n * 37) % items)
        doc.write_text(_todo("t", items, done))
        _git(source, "add", "-A")
        _git(source, *WHO, "commit", "-q", "-m", f"v{n}")
    return source


def _timed(cmd: list[str], cwd: Path, **kw: Any) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, check=True, env=kw.pop("env", env()), **kw)
    return time.perf_counter() - start


def _person() -> dict[str, str]:
    """git's pager (a pipe, GIT_PAGER_IN_USE): what a person at a terminal gets."""
    return {**env(), "GIT_PAGER_IN_USE": "true", "NO_COLOR": "1"}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--versions", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5, help="git log -p rounds, in turn")
    parser.add_argument("--baseline", help="another checkout's src folder, in the same rounds")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        many = _many_documents(root, args.documents)
        out = subprocess.DEVNULL
        clone = _installed_clone(many, root / "c1")
        vc = _timed(cli("diff", "HEAD~1", "HEAD"), clone, stdout=out)
        print(f"{args.documents} documents, one commit: git vcontext diff HEAD~1 HEAD  {vc:.2f} s")
        clone = _installed_clone(many, root / "c2")
        show = _timed(["git", "show", "HEAD"], clone, stdout=out)
        print(f"  git show HEAD (raw: git alone)                                 {show:.2f} s")
        clone = _installed_clone(many, root / "c3")
        with (root / "patch").open("wb") as fh:
            raw = _timed(["git", "diff", "HEAD~1", "HEAD"], clone, stdout=fh)
        print(f"  git diff HEAD~1 HEAD > file (git's patch, a process each)      {raw:.2f} s")
        with (root / "patch").open("wb") as fh:
            noop = ["git", "-c", "diff.vcontext.command=true", "diff", "HEAD~1", "HEAD"]
            floor = _timed(noop, clone, stdout=fh)
        print(f"  the same with a no-op external diff (git's own cost per file)  {floor:.2f} s")

        history = _long_history(root, args.items, args.versions)
        clone = _installed_clone(history, root / "h1")
        # in turn, --rounds times (the machine is shared): the log, the starts, the baseline's
        # log (the installed script with the other checkout's package first on sys.path)
        logs, starts_, old_logs = [], [], []
        loop = f'for i in $(seq {args.versions + 1}); do "{PYTHON}" -c pass; done'
        for _ in range(args.rounds):
            logs.append(_timed(["git", "log", "-p", "--ext-diff"], clone,
                               stdout=subprocess.PIPE, env=_person()))  # fmt: skip
            starts_.append(_timed(["sh", "-c", loop], clone))
            if args.baseline:
                old = {**_person(), "PYTHONPATH": str(Path(args.baseline).resolve())}
                old_logs.append(_timed(["git", "log", "-p", "--ext-diff"], clone,
                                       stdout=subprocess.PIPE, env=old))  # fmt: skip
        log, starts = statistics.median(logs), statistics.median(starts_)
        runs = f"{args.versions + 1} python -c pass ({starts:.2f} s)"
        print(
            f"{args.items} items, {args.versions} versions: git log -p --ext-diff (a person)"
            f"  {log:.2f} s = {log / starts:.2f}x {runs} (goal 2x: {met(log / starts, 2.0)};"
            f" medians of {args.rounds} rounds in turn)"
        )
        if old_logs:
            old_log = statistics.median(old_logs)
            print(f"  the same, baseline: {old_log:.2f} s = {old_log / starts:.2f}x")
        clone = _installed_clone(history, root / "h2")
        textconv = " ".join(cli("textconv"))
        _git(clone, "config", "diff.vcontext.textconv", textconv)
        tc = _timed(["git", "log", "-p"], clone, stdout=out)
        print(f"  git log -p, textconv opted in: {tc:.2f} s = {tc / starts:.2f}x")
        clone = _installed_clone(history, root / "h3")
        plain = _timed(["git", "log", "-p"], clone, stdout=out)
        print(f"  git log -p (raw: git alone)     {plain:.2f} s")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
