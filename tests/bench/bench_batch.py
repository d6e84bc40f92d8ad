"""How much one integration can carry: N agents' requests merged by one ``sync --push``.

Run: python tests/bench/bench_batch.py [--requests 50 200] [--keep DIR]
For each N: a bare remote with the soak's documents, N agent branches each with one
round of the soak's edits (a todo item, a plan item, a playbook event) published as
requests, then one more agent's ``sync --push`` that takes the lease and merges them all
(its lease long enough not to cut the batch). Prints the integration's wall time and
CPU, the cost per request, what the fixed part costs (N = 0), the size of the remote's
ref advertisement, and what a waiting agent's look costs (``git ls-remote``, and read in
process as sync does for a remote on this machine). The figures feed the README's
1,000-agent plan.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the soak harness

from helpers import soak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, nargs="+", default=[0, 50, 200])
    parser.add_argument(
        "--grow", type=int, default=0, metavar="K",
        help="First grow the documents by K rounds' worth (items, events, changeLog entries).",
    )  # fmt: skip
    parser.add_argument("--profile", metavar="FILE", help="cProfile the integrating sync.")
    parser.add_argument("--keep", metavar="DIR", help="Run under DIR and keep the repositories.")
    args = parser.parse_args()
    os.environ.pop("SOURCE_DATE_EPOCH", None)
    print(f"cpus: {os.cpu_count()}, load average before: {_load()}")
    print("| requests | integration wall | CPU (sync + git + hook) | per request | refs on the "
          "remote | one look with git ls-remote / in process, CPU |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for n in args.requests:
        if args.keep:
            root = Path(args.keep) / f"n{n}"
            root.mkdir(parents=True, exist_ok=False)
            _one(root, n, args.grow, args.profile)
        else:
            with tempfile.TemporaryDirectory(prefix="bench-batch-") as tmp:
                _one(Path(tmp), n, args.grow, args.profile)
    print(f"load average after: {_load()}")
    return 0


def _one(root: Path, n: int, grow: int, profile: str | None) -> None:
    remote, [maker, integrator] = soak.setup(root, 2, hooks=True)
    if grow:
        _grow(maker, grow)
        soak.git(integrator, "fetch", "-q", "origin")
        soak.git(integrator, "merge", "-q", "origin/main")
    branches = _requests(maker, n)
    soak.git(integrator, "config", "vcontext.leaseSeconds", "100000")
    log = soak.AgentLog("agent-1")
    soak._edit_todo(integrator, "agent-1", 0, log)
    soak.git(integrator, "commit", "-q", "-am", "agent-1: round 0")
    start, used = time.perf_counter(), _children()
    command = ["sync", "agent-1", "--push", "origin"]
    if profile:
        command = [sys.executable, "-m", "cProfile", "-o", profile, "-m", "git_vcontext", *command]
        done = soak.run(command, integrator, check=False)
    else:
        done = soak.vcontext(integrator, *command, check=False)
    wall, cpu = time.perf_counter() - start, _children() - used
    if done.returncode != 0:
        raise RuntimeError(done.stdout + done.stderr)
    merged = len(done.stdout.split("merged with it into main:", 1)[-1].split(",")) if n else 0
    if merged != n:
        raise RuntimeError(f"merged {merged} of {n} requests: {done.stdout[-500:]}")
    refs = len(soak.git(remote, "for-each-ref").stdout.splitlines())
    poll, look = _poll_cpu(integrator), _look_cpu(integrator)
    per = f"{(wall - _fixed.get('wall', wall)) / n * 1000:.0f} ms wall" if n else "—"
    if n == 0:
        _fixed["wall"] = wall
    print(f"| {n} | {wall:.2f} s | {cpu:.2f} s | {per} | {refs} + {len(branches)} requests "
          f"published | {poll * 1000:.1f} ms / {look * 1000:.2f} ms |")  # fmt: skip


_fixed: dict[str, float] = {}


def _grow(maker: Path, rounds: int) -> None:
    """Main gets ``rounds`` rounds of a pretend agent's edits in one commit, pushed."""
    soak.git(maker, "switch", "-q", "main")
    soak.git(maker, "pull", "-q", "origin", "main")
    log = soak.AgentLog("grown")
    for r in range(rounds):
        soak._edit_todo(maker, "grown", r, log)
        soak._edit_plan(maker, "grown", r, log)
    for r in range(rounds):
        soak.vcontext(
            maker, "playbook", "add", soak.PLAYBOOK, "--target", f"grown-{r}", "--kind",
            "learning", "--title", f"grown {r}", "--text", f"Round {r}.",
        )  # fmt: skip
    soak.git(maker, "commit", "-q", "-am", f"grow by {rounds} rounds")
    soak.git(maker, "push", "-q", "--no-verify", "origin", "main")


def _requests(maker: Path, n: int) -> list[str]:
    """N agent branches forked from main, one soak round each, pushed with their requests."""
    import pygit2

    from git_vcontext.clock import now_rfc3339
    from git_vcontext.sync.fork import fork_agent

    repo = pygit2.Repository(str(maker))
    updates = []
    for i in range(n):
        agent = f"batch-{i}"
        fork_agent(repo, agent, from_branch="main", reason=None, now=now_rfc3339())
        branch = f"agents/{agent}"
        tip = _one_round(repo, branch, agent)
        updates += [f"{tip}:refs/heads/{branch}", f"{tip}:refs/vcontext/sync/main/{branch}"]
    for chunk in range(0, len(updates), 200):
        soak.git(maker, "push", "-q", "--no-verify", "origin", *updates[chunk : chunk + 200])
    return updates[::2]


def _one_round(repo: object, branch: str, agent: str) -> str:
    """A commit on ``branch`` adding a todo item (and its changeLog entry), as the soak does."""
    import pygit2

    from git_vcontext.codecs import parse

    assert isinstance(repo, pygit2.Repository)
    head = repo.branches[branch].peel(pygit2.Commit)
    blob = head.tree[soak.TODO]
    assert isinstance(blob, pygit2.Blob)
    parsed = parse(blob.data, path=soak.TODO)
    data = json.loads(json.dumps(parsed.data))
    todo = data["todoList"]
    todo["items"].append({"id": f"{agent}-t0", "title": f"{agent} task 0", "status": "pending"})
    todo["sequence"] += 1
    todo["changeLog"].append(
        {"sequence": todo["sequence"], "timestamp": "2026-01-02T00:00:00Z",
         "agent": {"id": agent, "type": "aiAgent"}, "operation": "update",
         "reason": f"{agent} adds {agent}-t0"}
    )  # fmt: skip
    new_blob = repo.create_blob(parsed.render(data).encode())
    folder = head.tree["memory"]
    assert isinstance(folder, pygit2.Tree)
    memory = repo.TreeBuilder(folder)
    memory.insert("todo.vcontext.json", new_blob, pygit2.GIT_FILEMODE_BLOB)
    root = repo.TreeBuilder(head.tree)
    root.insert("memory", memory.write(), pygit2.GIT_FILEMODE_TREE)
    sig = pygit2.Signature(agent, f"{agent}@example.com")
    commit = repo.create_commit(
        f"refs/heads/{branch}", sig, sig, f"{agent}: round 0", root.write(), [head.id]
    )
    return str(commit)


def _poll_cpu(clone: Path, times: int = 20) -> float:
    before = _children()
    for _ in range(times):
        soak.git(clone, "ls-remote", "origin", "refs/heads/main", "refs/vcontext/lease/main")
    return (_children() - before) / times


def _look_cpu(clone: Path, times: int = 200) -> float:
    """What a waiting agent's look costs when the remote is on this machine (read in
    process, as sync does: the lease and the agent's request)."""
    from git_vcontext.gitio import open_repo
    from git_vcontext.gitio.localremote import LocalRemote

    local = LocalRemote.find(open_repo(clone), "origin")
    assert local is not None
    names = ["refs/vcontext/lease/main", "refs/vcontext/sync/main/agents/agent-1"]
    before = time.process_time()
    for _ in range(times):
        local.list_refs(names)
    return (time.process_time() - before) / times


def _children() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


if __name__ == "__main__":
    sys.exit(main())
