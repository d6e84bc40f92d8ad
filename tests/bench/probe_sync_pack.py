"""Probe, not a feature: how much of ``sync --all``'s CPU one pack instead of loose objects
would save (bench_sync's repository).

Run: python tests/bench/probe_sync_pack.py [--runs 3] [--agents 32]

``sync --all`` of bench_sync's repository creates a few hundred objects (each merged
document, each agent document carried back, two trees and a commit per merge), each a
loose object: a file created, linked into place and its temporary name removed. On a disk
file system that is most of the system part of sync's CPU. Here, in turn on fresh copies:
``sync --all`` as shipped, and the same code with libgit2's in-memory object store
(``git_mempack``, reached through cffi in pygit2's own libgit2) in front of the
repository's, the objects written as one pack (``git index-pack --stdin``) just before
the refs move. Prints user, system and wall of each (the pack's writing counts on its
side) and checks that every branch's tree is the same in both.

Why this is no feature yet (what the probe skips): a repository opened again in the same
process (``gitio.fileset``'s attribute reader) has an object store of its own, which does
not see the objects held in memory; every ``git`` process that reads a new commit before
the refs move (``worktrees.can_follow``) needs the pack written first; libgit2 cannot take
a backend back out of an object store, so every later write must be flushed too; the MCP
server keeps its repository for long.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_sync import EPOCH, build, copy, trees
from timing import PYTHON, cli, env, load_average

CHILD = "--in-memory-child"


def _child() -> None:
    """``git vcontext sync --all`` in this process, new objects held in memory, one pack."""
    import glob

    import cffi  # type: ignore[import-untyped]  # (pygit2's own dependency)
    import pygit2

    ffi: Any = cffi.FFI()
    ffi.cdef(
        "typedef struct git_odb git_odb; typedef struct git_odb_backend git_odb_backend;"
        "typedef struct git_repository git_repository;"
        "typedef struct { char *ptr; size_t reserved; size_t size; } git_buf;"
        "int git_mempack_new(git_odb_backend **out);"
        "int git_mempack_dump(git_buf *pack, git_repository *repo, git_odb_backend *backend);"
        "int git_mempack_reset(git_odb_backend *backend);"
        "int git_odb_add_backend(git_odb *odb, git_odb_backend *backend, int priority);"
        "int git_repository_odb(git_odb **out, git_repository *repo);"
        "void git_buf_dispose(git_buf *buffer);"
    )
    folder = os.path.dirname(pygit2.__file__) + ".libs"  # (a wheel's bundled libgit2)
    found = glob.glob(os.path.join(folder, "libgit2-*.so*"))
    if not found:
        raise SystemExit("no bundled libgit2 found next to pygit2")
    lib = ffi.dlopen(found[0])
    from git_vcontext.sync import syncer

    held: dict[str, Any] = {}
    init, commit = syncer.Syncer.__init__, syncer.Syncer.commit

    def in_memory(self: Any, repo: Any, *args: Any, **kwargs: Any) -> None:
        init(self, repo, *args, **kwargs)
        pointer = ffi.cast("git_repository *", int.from_bytes(repo._pointer, sys.byteorder))
        odb, backend = ffi.new("git_odb **"), ffi.new("git_odb_backend **")
        if lib.git_repository_odb(odb, pointer) or lib.git_mempack_new(backend):
            raise SystemExit("mempack unavailable")
        if lib.git_odb_add_backend(odb[0], backend[0], 999):
            raise SystemExit("mempack not added")
        held.update(repo=pointer, backend=backend[0], path=repo.path)

    def packed(self: Any) -> None:
        if held:
            buf = ffi.new("git_buf *")
            if lib.git_mempack_dump(buf, held["repo"], held["backend"]):
                raise SystemExit("mempack dump failed")
            data = bytes(ffi.buffer(buf.ptr, buf.size))
            lib.git_buf_dispose(buf)
            subprocess.run(
                ["git", "index-pack", "--stdin"], input=data, cwd=held["path"], check=True,
                capture_output=True,
            )  # fmt: skip
            lib.git_mempack_reset(held["backend"])
        commit(self)

    syncer.Syncer.__init__ = in_memory  # type: ignore[method-assign]
    syncer.Syncer.commit = packed  # type: ignore[method-assign]
    from git_vcontext.entry import main

    sys.exit(main(["sync", "--all"]))


def _run(repo: Path, command: list[str]) -> tuple[float, float, float]:
    """(user, system, wall) seconds of one ``sync --all``, the processes it waited for too."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    e = {**env(), "SOURCE_DATE_EPOCH": EPOCH}
    out = subprocess.run(command, cwd=repo, capture_output=True, text=True, env=e)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"sync failed ({out.returncode}): {out.stdout[-2000:]} {out.stderr}")
    return after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime, wall


def _shown(name: str, runs: list[tuple[float, float, float]]) -> str:
    user, system, wall = (statistics.median(run[i] for run in runs) for i in range(3))
    return (
        f"| {name} | {user * 1000:.0f} ms | {system * 1000:.0f} ms | "
        f"{(user + system) * 1000:.0f} ms | {wall * 1000:.0f} ms |"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agents", type=int, default=32)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="probe-sync-pack-"))
    try:
        seed = build(work, args.agents, 10, 40)
        print(f"load before: {load_average()}")
        loose: list[tuple[float, float, float]] = []
        packed: list[tuple[float, float, float]] = []
        for i in range(args.runs):
            shipped = copy(seed, f"loose-{i}")
            loose.append(_run(shipped, cli("sync", "--all")))
            in_memory = copy(seed, f"packed-{i}")
            packed.append(_run(in_memory, [PYTHON, __file__, CHILD]))
            if trees(shipped) != trees(in_memory):
                raise SystemExit("the branches' trees differ between the two")
        print(f"load after: {load_average()}")
        print(f"agents: {args.agents}; medians of {args.runs} runs on fresh copies")
        print("| sync --all | user | system | CPU | wall |")
        print(_shown("as shipped (loose objects)", loose))
        print(_shown("objects in memory, one pack before the refs move (probe)", packed))
        print("every branch's tree the same in both: True")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1:] == [CHILD]:
        _child()
    else:
        main()
