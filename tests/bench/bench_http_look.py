"""One look of ``sync --push`` over HTTP, in process (libgit2, ``gitio.httpremote``) against
git's (``git fetch``), alternately: the CPU of the client and of the server, and the server's
requests, per look.

Run: python tests/bench/bench_http_look.py [--runs 20] [--requests 8] [--history 25]
     [--front auto|nginx|python] [--extra-refs 0,500,1000,5000]

A bare remote with a base and ``--requests`` agents' requests waiting, served by ``git
http-backend`` (nginx + fcgiwrap where installed); two clones, one looking in process, the
other through git (``vcontext.inProcessHttp false``), each with ``RemoteView.fetch`` as a
sync's look. Two cases: a look that finds nothing new (most of a waiting agent's), and one
after the base moved by a commit (a round landed). The client's CPU is this process's
(in process) or its children's (git fetch, git-remote-http, unpack-objects); the server's
is nginx's measured requests (with ``--front python``: its backend processes).

``--history``: commits on the base both clones hold before the first measured look (a
soak's clones hold more than 20 after a few rounds). libgit2 (protocol v0, stateless)
sends its haves 20 at a time, newest first: a clone whose refs reach fewer than 20 commits
sends them all with ``done`` in one request, any other first sends 20 without ``done``
(the server answers ``ACK … ready``) and then asks again with ``done`` for the pack: one
more request, and one more ``upload-pack`` run on the server, per look that downloads.

``--extra-refs``: the looks again with that many more refs on the remote, in turn (a
host's ``refs/pull/N/head``, each naming a commit of the base): libgit2's v0 ``info/refs``
lists them all at every look, git's v2 asks only for the refs sync wants (``ref-prefix``).
Where the in-process look stops being cheaper is where ``httpremote.MANY_REFS`` belongs.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the helpers

from helpers import git_servers as servers
from helpers import soak


def _cpu() -> float:
    """CPU seconds of this process and its waited-for children so far."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--requests", type=int, default=8)
    parser.add_argument(
        "--history", type=int, default=25,
        help="Commits on the base the clones hold before the first look (libgit2 sends 20 "
        "haves a request).",
    )  # fmt: skip
    parser.add_argument("--front", choices=("auto", "nginx", "python"), default="auto")
    parser.add_argument(
        "--extra-refs", default="0",
        help="Comma-separated counts of refs/pull/N/head on the remote, measured in turn.",
    )  # fmt: skip
    args = parser.parse_args()
    extras = sorted({int(n) for n in args.extra_refs.split(",")})
    import pygit2

    from git_vcontext.remote.view import RemoteView

    print(f"(uptime before: {os.getloadavg()})")
    with tempfile.TemporaryDirectory(prefix="bench-http-look-") as tmp:
        root = Path(tmp)
        (root / "srv").mkdir()
        front = servers.http_front(root / "srv", root / "front", args.front).start()
        try:
            remote = root / "srv" / "remote.git"
            _, (inside, gits) = soak.setup(root, 2, remote=remote, url=front.url(remote))
            soak.git(gits, "config", "vcontext.inProcessHttp", "false")
            main_tip = soak.git(remote, "rev-parse", "main").stdout.strip()
            soak.git(remote, "update-ref", "refs/heads/agent-0", main_tip)  # (pushed before)
            for i in range(args.requests):
                soak.git(remote, "update-ref", f"refs/vcontext/sync/main/agent-{i}", main_tip)
            for i in range(args.history):  # (history as a soak's clones hold it)
                _advance(remote, f"earlier round {i}")
            for clone in (inside, gits):  # (brought in, not measured)
                repo = pygit2.Repository(str(clone))
                RemoteView(repo, str(clone), "origin", "main", ["agent-0"]).fetch()
            figures: dict[str, list[tuple[float, float, float]]] = {}
            for extra in extras:
                _pulls(remote, extra)
                _measure(args.runs, extra, len(extras) > 1, front, remote, (inside, gits), figures)
        finally:
            front.stop()
    print(
        f"{args.runs} runs each, {args.requests} requests waiting, {args.history} commits "
        f"of history, front {args.front}"
    )
    print("| look | client CPU (median) | server CPU (median) | requests |")
    print("|---|---|---|---|")
    for key, rows in figures.items():
        client = statistics.median(r[0] for r in rows) * 1000
        server = statistics.median(r[1] for r in rows) * 1000
        requests = statistics.mean(r[2] for r in rows)
        print(f"| {key} | {client:.1f} ms | {server:.1f} ms | {requests:.1f} |")
    print(f"(uptime after: {os.getloadavg()}, {time.strftime('%H:%M:%S')})")
    return 0


def _measure(
    runs: int,
    extra: int,
    named: bool,
    front: servers.HttpFront | servers.NginxFront,
    remote: Path,
    clones: tuple[Path, Path],
    figures: dict[str, list[tuple[float, float, float]]],
) -> None:
    """``runs`` looks of each case by each clone, alternately, into ``figures``."""
    import pygit2

    from git_vcontext.gitio.httpremote import MANY_REFS
    from git_vcontext.remote.view import RemoteView

    remote_refs = f"{extra} extra refs, " if named else ""
    listed = len(soak.git(remote, "for-each-ref").stdout.splitlines()) + 1  # (and HEAD)
    for run in range(runs):
        for case in ("nothing new", "base moved"):
            if case == "base moved":  # (a round landed: both clones see it next)
                _advance(remote, f"round {extra} {run}")
            for name, clone in zip(("in process", "git"), clones, strict=True):
                repo = pygit2.Repository(str(clone))
                view = RemoteView(repo, str(clone), "origin", "main", ["agent-0"])
                view.present = {"agent-0"}
                asked, served, used = _requests(front), front.cpu_seconds(), _cpu()
                view.fetch()
                used = _cpu() - used
                served = front.cpu_seconds() - served
                n = _requests(front) - asked
                assert view.http is None or not view.http.failed or listed > MANY_REFS
                figures.setdefault(f"{remote_refs}{case}, {name}", []).append((used, served, n))


def _pulls(remote: Path, count: int) -> None:
    """``count`` refs ``refs/pull/N/head`` on the remote and no more, each naming one of the
    base's commits (as a host's pull requests: refs sync never asks for)."""
    commits = soak.git(remote, "rev-list", "main").stdout.split()
    have = soak.git(remote, "for-each-ref", "--format=%(refname)", "refs/pull/").stdout.split()
    wanted = {f"refs/pull/{n}/head": commits[n % len(commits)] for n in range(count)}
    lines = [f"delete {ref}\n" for ref in have if ref not in wanted]
    lines += [f"update {ref} {oid}\n" for ref, oid in wanted.items() if ref not in have]
    subprocess.run(
        ["git", "update-ref", "--stdin"], cwd=remote, input="".join(lines), text=True, check=True
    )
    soak.git(remote, "pack-refs", "--all")  # (as a host keeps them)


def _advance(remote: Path, message: str) -> None:
    """A commit on the remote's main (its tree), as a round that landed."""
    tip = soak.git(remote, "rev-parse", "main").stdout.strip()
    tree = soak.git(remote, "rev-parse", "main^{tree}").stdout.strip()
    made = soak.git(remote, "commit-tree", tree, "-p", tip, "-m", message).stdout.strip()
    soak.git(remote, "update-ref", "refs/heads/main", made)


def _requests(front: servers.HttpFront | servers.NginxFront) -> int:
    return front.requests() if isinstance(front, servers.NginxFront) else front.requests


if __name__ == "__main__":
    sys.exit(main())
