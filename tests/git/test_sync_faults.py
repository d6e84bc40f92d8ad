"""Fault injection: ``sync --push`` killed (SIGKILL) at every step it takes, in turn.

PRODUCT.md, "Sync at scale" (issue 31): an interrupted sync is safe to run again; exit 0
means the round is on the remote base; every repository the tool writes stays clean
under ``git fsck``. A step is each git command the sync starts and each in-process ref
move (the product's kill points, ``git_vcontext.faults``). Round K kills the victim's
sync at step K, lets another agent land a round while it lies dead (its lease, its lock
files and its half-done work tree left as they are), then the victim does only what the
tool's messages say (sync again; a command it prints, literally) until a sync exits 0 —
which is only syncing again: the lock files a killed sync held are its own, claimed, and
the next sync removes them (an agent with MCP tools alone has no shell to run ``rm -f``).
After every round: every round any sync acknowledged is on the remote base, nothing any
agent wrote is lost, the base validates, and ``git fsck`` is clean in the clones and the
remote. The rounds end when a sync takes fewer steps than K (it was not killed).

Three agents, each clone with the pre-push hook installed, one real bare remote, read in
process or through git (``vcontext.inProcessFetch``): the two walk different steps.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from git_vcontext.validation.files import check_bytes
from helpers import soak
from helpers.faults import kill_env, steps_taken, sync_push, until_synced

LIMIT = 40  # rounds at most (a sync of this test takes about 15 steps)


@pytest.mark.slow
@pytest.mark.parametrize("in_process", [True, False], ids=["in-process", "git-fetch"])
def test_sync_at_scale_killed_at_every_step_loses_nothing_and_stays_fsck_clean(
    tmp_path: Path, in_process: bool
) -> None:
    remote, clones = soak.setup(tmp_path, 3)
    for clone in clones:
        soak.git(clone, "config", "vcontext.inProcessFetch", str(in_process).lower())
        soak.git(clone, "config", "vcontext.leaseSeconds", "3")  # a dead holder's lease
    victim, before, during = clones
    logs = [soak.AgentLog(f"agent-{i}") for i in range(3)]
    acknowledged: list[str] = []  # the todo item of every round a sync said landed
    killed_at: list[str] = []
    followed: list[str] = []  # what the victim did as told, besides syncing again
    for k in range(1, LIMIT + 1):
        _land(before, "agent-1", k, logs[1], acknowledged)  # something to merge and follow
        soak.work(victim, "agent-0", k - 1, logs[0])  # (round k - 1: soak counts from 0)
        log = tmp_path / f"steps-{k}"
        run = sync_push(victim, "agent-0", kill_env(step=k, log=log))
        taken = steps_taken(log)
        if run.returncode != -9:  # fewer steps than k: every step has been killed once
            assert run.returncode == 0, run.stdout + run.stderr
            acknowledged.append(logs[0].items[-1])
            break
        killed_at.append(taken[-1])
        _land(during, "agent-2", k, logs[2], acknowledged)  # while the victim lies dead
        recovery = until_synced(victim, "agent-0")
        assert recovery.landed, (k, taken[-1], recovery)
        followed += recovery.followed
        acknowledged.append(logs[0].items[-1])
        _check(tmp_path / f"base-{k}", remote, clones, logs, acknowledged, (k, taken[-1]))
    else:
        pytest.fail(f"a sync still took {LIMIT}+ steps: {steps_taken(log)}")
    _check(tmp_path / "base-end", remote, clones, logs, acknowledged, "end")
    print(  # the figures the README quotes (pytest -s)
        f"\n{len(killed_at)} kills, at {killed_at}; {len(acknowledged)} acknowledged rounds, "
        f"0 lost, fsck clean; followed: {followed}"
    )
    assert len(killed_at) >= 8, killed_at
    assert any("refs locked" in s for s in killed_at)  # killed holding ref locks
    assert followed == []  # its own locks proven stale by the next sync: no rm -f for anyone
    assert any("read-tree -m" in s for s in killed_at)  # between a ref move and its files
    assert any("git push" in s for s in killed_at)


def _land(clone: Path, agent: str, k: int, log: soak.AgentLog, acknowledged: list[str]) -> None:
    """Another agent's round: it must land too (doing what it is told, if anything)."""
    soak.work(clone, agent, k, log, playbook=False)
    recovery = until_synced(clone, agent)
    assert recovery.landed, (agent, k, recovery)
    acknowledged.append(log.items[-1])


def _check(
    where: Path,
    remote: Path,
    clones: list[Path],
    logs: list[soak.AgentLog],
    acknowledged: list[str],
    when: object,
) -> None:
    docs = soak.base_documents(remote, where)
    have = {i["id"] for i in docs[soak.TODO]["todoList"]["items"]}
    assert [i for i in acknowledged if i not in have] == [], when
    run = soak.SoakRun(remote, clones, logs, [], 0.0)
    assert soak.lost(run, docs) == {"items": [], "plan_items": [], "events": [], "changes": []}
    assert soak.duplicates(docs) == [], when
    for rel in soak.DOCUMENTS:
        report = check_bytes((where / rel).read_bytes(), rel)
        assert report.valid, (when, report.lines())
    for repo in [*clones, remote]:
        fsck = soak.git(repo, "fsck", "--no-dangling", check=False)
        assert fsck.returncode == 0, (when, repo, fsck.stderr)
        assert "missing" not in fsck.stderr, (when, repo, fsck.stderr)
