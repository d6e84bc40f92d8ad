"""What a killed or dropped ``sync --push`` leaves behind: requests on the remote, and this
clone's copies of the remote's refs.

PRODUCT.md, "Sync at scale": an interrupted sync is safe to run again and every repository
the tool writes (clones, the remote) stays clean. A request (``refs/vcontext/sync/BASE/
BRANCH``) whose work the base holds waits for nothing: whoever syncs next removes it (with a
compare-and-swap: one its agent published again stays), also a sync that has nothing to
integrate, and so does the server's hook (``install --server``). A clone keeps no copy of a
request or lease its own push removed (``refs/vcontext/remotes/REMOTE/``), and never
touches git's own remote-tracking branches (``refs/remotes/REMOTE/*``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from git_vcontext.validation.files import check_bytes
from helpers import git_servers as servers
from helpers import soak
from helpers.faults import kill_env, steps_taken, sync_push

REQUEST = "refs/vcontext/sync/main/agents/agent-0"


def _team(
    tmp_path: Path, transport: str, request: pytest.FixtureRequest
) -> tuple[Path, list[Path]]:
    if transport == "path":
        remote, clones = soak.setup(tmp_path, 2)
    else:
        front: servers.HttpFront = request.getfixturevalue("http")
        where = tmp_path / "srv" / "remote.git"
        remote, clones = soak.setup(tmp_path, 2, remote=where, url=front.url(where))
    for clone in clones:
        soak.git(clone, "config", "vcontext.leaseSeconds", "3")  # a dead holder's lease
    return remote, clones


def _requests(repo: Path, prefix: str = "refs/vcontext/sync/") -> list[str]:
    out = soak.git(repo, "for-each-ref", "--format=%(refname)", prefix).stdout
    return out.split()


def _landed(clone: Path, agent: str) -> None:
    run = sync_push(clone, agent)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize("transport", ["path", "http"])
def test_sync_at_scale_a_killed_syncs_request_is_removed_by_the_next_sync(
    tmp_path: Path, transport: str, request: pytest.FixtureRequest
) -> None:
    """agent-0's sync is SIGKILLed at its kill point just before its integration push (over
    HTTP its request and its lease are out by then; on a path its lease); agent-1 lands a
    round (waiting out the dead holder's lease) and agent-0 its recovery. Then the request
    the killed sync pushed lands once more after its work is on the base (as a ``git push``
    of it that outlived it, or its recovery's publish before it looked, do): the next sync
    of another agent, with nothing new to integrate, removes it; nothing is lost, no
    request and no copy of one is left, ``git fsck`` is clean everywhere."""
    remote, (victim, other) = _team(tmp_path, transport, request)
    logs = [soak.AgentLog("agent-0"), soak.AgentLog("agent-1")]
    soak.work(victim, "agent-0", 0, logs[0])
    kill = "git push@1" if transport == "path" else "git push@2"  # (over HTTP: after the
    log = tmp_path / "steps"  # push that published and took the lease)
    killed = sync_push(victim, "agent-0", kill_env(at=kill, log=log))
    assert killed.returncode == -9, (steps_taken(log), killed.stdout + killed.stderr)
    if transport == "http":
        assert _requests(remote) == [REQUEST]  # out, not merged: its holder died
    work = soak.git(victim, "rev-parse", "agents/agent-0").stdout.strip()
    soak.work(other, "agent-1", 0, logs[1])
    _landed(other, "agent-1")
    _landed(victim, "agent-0")
    on_base = soak.git(remote, "merge-base", "--is-ancestor", work, "main", check=False)
    assert on_base.returncode == 0
    assert _requests(remote) == []

    soak.git(victim, "push", "-q", "--no-verify", "origin", f"{work}:{REQUEST}")  # late
    _landed(other, "agent-1")  # nothing new of its own

    assert _requests(remote) == []
    for clone in (victim, other):  # no copy of a request or a lease left either
        assert _requests(clone, "refs/vcontext/remotes/origin/sync/") == [], clone
        assert _requests(clone, "refs/vcontext/remotes/origin/lease/") == [], clone
    docs = soak.base_documents(remote, tmp_path / "base")
    run = soak.SoakRun(remote, [victim, other], logs, [], 0.0)
    assert soak.lost(run, docs) == {"items": [], "plan_items": [], "events": [], "changes": []}
    assert soak.duplicates(docs) == []
    for rel in soak.DOCUMENTS:
        assert check_bytes((tmp_path / "base" / rel).read_bytes(), rel).valid, rel
    for repo in (remote, victim, other):
        fsck = soak.git(repo, "fsck", "--strict", "--no-dangling", check=False)
        assert fsck.returncode == 0, (repo, fsck.stdout + fsck.stderr)


def test_sync_at_scale_an_agents_own_stale_request_goes_with_its_next_sync(tmp_path: Path) -> None:
    """A request of its own naming only a merge of the base (its branch after a sync) is
    removed by the agent's next sync, which has nothing new to publish; one it publishes
    again meanwhile would stay (the removal expects the stale commit)."""
    remote, (clone,) = soak.setup(tmp_path, 1)
    log = soak.AgentLog("agent-0")
    soak.work(clone, "agent-0", 0, log, playbook=False)
    _landed(clone, "agent-0")
    old = soak.git(clone, "rev-parse", "agents/agent-0").stdout.strip()
    soak.git(clone, "push", "-q", "--no-verify", "origin", f"{old}:{REQUEST}")
    run = sync_push(clone, "agent-0")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "up to date with main" in run.stdout
    assert "pushed to" not in run.stdout  # (a removal is no branch of the remote moved)
    assert _requests(remote) == []


def test_install_server_hook_removes_a_request_the_base_holds_already(tmp_path: Path) -> None:
    """The server's hook (``install --server``) merges nothing for a request whose commit
    its base holds, and removes it."""
    remote, (clone,) = soak.setup(tmp_path, 1, server=True)
    log = soak.AgentLog("agent-0")
    soak.work(clone, "agent-0", 0, log, playbook=False)
    _landed(clone, "agent-0")
    assert _requests(remote) == []
    base = soak.git(remote, "rev-parse", "main").stdout.strip()
    soak.git(clone, "push", "-q", "--no-verify", "origin", f"{base}:{REQUEST}")
    assert _requests(remote) == []
    assert soak.git(remote, "rev-parse", "main").stdout.strip() == base


@pytest.mark.parametrize("in_process", [True, False], ids=["in-process", "git-fetch"])
def test_sync_at_scale_an_integrator_keeps_no_copy_of_what_its_push_removed(
    tmp_path: Path, in_process: bool
) -> None:
    """The integrator's push removes agent-1's merged request and releases the lease: its
    clone's copies of both go with them (not only at its next fetch), under its own
    namespace alone: a branch of the remote's that git tracks in ``refs/remotes/origin/``
    and another clone deleted stays tracked (git's own ``fetch --prune`` is the user's)."""
    remote, clones = soak.setup(tmp_path, 2)
    for clone in clones:
        soak.git(clone, "config", "vcontext.inProcessFetch", str(in_process).lower())
    logs = [soak.AgentLog("agent-0"), soak.AgentLog("agent-1")]
    soak.git(clones[0], "push", "-q", "--no-verify", "origin", "main:refs/heads/topic")
    soak.git(clones[0], "fetch", "-q", "origin")
    soak.git(remote, "update-ref", "-d", "refs/heads/topic")  # another clone deleted it
    soak.work(clones[1], "agent-1", 0, logs[1], playbook=False)  # waits with its request out
    published = ["agents/agent-1", "agents/agent-1:refs/vcontext/sync/main/agents/agent-1"]
    soak.git(clones[1], "push", "-q", "--no-verify", "origin", *published)
    soak.work(clones[0], "agent-0", 0, logs[0], playbook=False)
    run = sync_push(clones[0], "agent-0")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "merged with it into main: agents/agent-1" in run.stdout
    assert _requests(remote) == []
    assert _requests(clones[0], "refs/vcontext/remotes/origin/sync/") == []
    assert _requests(clones[0], "refs/vcontext/remotes/origin/lease/") == []
    assert "refs/vcontext/remotes/origin/heads/main" in _requests(clones[0], "refs/vcontext/")
    tracked = soak.git(clones[0], "for-each-ref", "--format=%(refname)", "refs/remotes/").stdout
    assert "refs/remotes/origin/topic" in tracked.split()
