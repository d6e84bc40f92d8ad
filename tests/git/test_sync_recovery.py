"""Recovering from faults (issue 31, points 3 and 9; PRODUCT.md "Sync at scale"): lock files
left by killed processes, a sync killed while holding the lease, a full disk, a read-only
repository. Each is recovered, or said in one line with what to do; doing what it says
lands the round. Real git, a real bare remote, real kill -9, real tmpfs (skipped where the
machine does not allow mounting one).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import soak
from helpers.faults import kill_env, obey, sync_push


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(the bare remote, agent-0's clone, agent-1's clone), hooks installed."""
    remote, (a0, a1) = soak.setup(tmp_path, 2)
    return remote, a0, a1


def _stale_lock(path: Path) -> Path:
    """A lock file as a killed process leaves it (a minute old)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    old = time.time() - 60
    os.utime(path, (old, old))
    return path


def _round(clone: Path, agent: str, r: int, log: soak.AgentLog) -> None:
    soak.work(clone, agent, r, log, playbook=False)


def _on_base(remote: Path, where: Path, items: list[str]) -> None:
    docs = soak.base_documents(remote, where)
    have = {i["id"] for i in docs[soak.TODO]["todoList"]["items"]}
    assert set(items) <= have


def _fsck_clean(*repos: Path) -> None:
    for repo in repos:
        out = soak.git(repo, "fsck", "--no-dangling", check=False)
        assert out.returncode == 0, (repo, out.stderr)
        assert "missing" not in out.stderr, (repo, out.stderr)


# -- point 3: the lease's empty tree ------------------------------------------------------


@pytest.mark.parametrize("in_process", [True, False], ids=["lease-swapped", "lease-pushed"])
def test_sync_at_scale_killed_holding_the_lease_leaves_every_repository_fsck_clean(
    team: tuple[Path, Path, Path], tmp_path: Path, in_process: bool
) -> None:
    remote, a0, a1 = team
    for clone in (a0, a1):
        soak.git(clone, "config", "vcontext.inProcessFetch", str(in_process).lower())
        soak.git(clone, "config", "vcontext.leaseSeconds", "2")
    log0, log1 = soak.AgentLog("agent-0"), soak.AgentLog("agent-1")
    _round(a0, "agent-0", 0, log0)
    push = "git push" if in_process else "git push@2"  # (pushed, the lease is the first)
    killed = sync_push(a0, "agent-0", kill_env(at=push, log=tmp_path / "steps"))
    assert killed.returncode == -9  # at the integration push, holding the lease
    assert soak.git(remote, "for-each-ref", "refs/vcontext/lease/").stdout
    _fsck_clean(a0, remote)

    _round(a1, "agent-1", 0, log1)  # waits for the lease to expire, breaks it, lands
    assert sync_push(a1, "agent-1").returncode == 0

    _fsck_clean(a0, a1, remote)
    assert sync_push(a0, "agent-0").returncode == 0
    _on_base(remote, tmp_path / "check", log0.items + log1.items)
    _fsck_clean(a0, a1, remote)


# -- point 9: lock files ------------------------------------------------------------------


def test_sync_at_scale_a_stale_lock_of_a_fetched_lease_ref_is_recovered(
    team: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """The issue's `.git/refs/vcontext/remotes/origin/lease/main.lock`: a ref only sync
    writes, so its stale lock is removed and the sync lands."""
    remote, a0, _ = team
    lock = _stale_lock(a0 / ".git/refs/vcontext/remotes/origin/lease/main.lock")
    log = soak.AgentLog("agent-0")
    _round(a0, "agent-0", 0, log)

    out = sync_push(a0, "agent-0")

    assert out.returncode == 0, out.stdout + out.stderr
    assert not lock.exists()
    _on_base(remote, tmp_path / "check", log.items)


def test_sync_at_scale_a_stale_lock_on_the_remote_is_not_retried_and_git_s_lines_are_shown(
    team: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    remote, a0, _ = team
    lock = _stale_lock(remote / "refs/heads/main.lock")
    log = soak.AgentLog("agent-0")
    _round(a0, "agent-0", 0, log)

    started = time.monotonic()
    out = sync_push(a0, "agent-0")

    said = out.stdout + out.stderr
    assert out.returncode == 1, said
    assert "retry" not in said  # a lock that stays is not transient
    assert time.monotonic() - started < 30
    assert "remote: error: cannot lock ref 'refs/heads/main'" in said
    assert "remove the file manually" in said  # git's own words, shown
    assert f"rm -f '{remote}" in said
    assert obey(a0, said)
    assert not lock.exists()
    assert sync_push(a0, "agent-0").returncode == 0
    _on_base(remote, tmp_path / "check", log.items)


def _behind_a_stale_branch_lock(
    team: tuple[Path, Path, Path],
) -> tuple[soak.AgentLog, soak.AgentLog, Path]:
    """agent-1's round landed; agent-0 made its round, and a killed git left
    ``agents/agent-0``'s ref lock in its clone: the two logs and the lock."""
    _, a0, a1 = team
    log0, log1 = soak.AgentLog("agent-0"), soak.AgentLog("agent-1")
    _round(a1, "agent-1", 0, log1)
    assert sync_push(a1, "agent-1").returncode == 0
    _round(a0, "agent-0", 0, log0)
    return log0, log1, _stale_lock(a0 / ".git/refs/heads/agents/agent-0.lock")


@pytest.mark.parametrize("push", [True, False], ids=["sync-push", "sync"])
def test_sync_at_scale_a_stale_lock_on_a_local_branch_is_an_error_naming_it(
    team: tuple[Path, Path, Path], tmp_path: Path, push: bool
) -> None:
    """Never "up to date", exit 0, while the branch stays behind: exit 3, the lock named with
    the command that removes it; doing that, the next sync brings the branch along."""
    remote, a0, _ = team
    log0, log1, lock = _behind_a_stale_branch_lock(team)
    if push:
        out = sync_push(a0, "agent-0")
    else:
        out = subprocess.run(
            [*soak.cli(), "sync", "agent-0"], cwd=a0, capture_output=True, text=True
        )

    said = out.stdout + out.stderr
    assert out.returncode == 3, said
    assert "up to date" not in said
    assert f"rm -f '{lock}'" in said
    assert len(out.stderr.strip().splitlines()) == 1
    obey(a0, said)
    again = sync_push(a0, "agent-0")
    assert again.returncode == 0, again.stdout + again.stderr
    local = soak.git(a0, "rev-parse", "agents/agent-0").stdout
    assert local == soak.git(remote, "rev-parse", "agents/agent-0").stdout
    assert soak.git(a0, "status", "--porcelain").stdout == ""
    _on_base(remote, tmp_path / "check", log0.items + log1.items)


def test_sync_at_scale_the_sync_after_a_removed_lock_says_what_it_brought_along(
    team: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """PRODUCT.md "Sync at scale" (the agent recovers by doing what it says, and what it
    says is true): the round landed on the remote but a lock kept the local branches back
    ("then sync again (it brings them along)"). The person removes the lock as printed; the
    next sync moved main and agents/agent-0 to the remote's and said only "up to date with
    main" (kill walk, trial12): it now names what it brought along."""
    remote, a0, _ = team
    log0, log1, lock = _behind_a_stale_branch_lock(team)
    out = sync_push(a0, "agent-0")
    said = out.stdout + out.stderr
    assert out.returncode == 3, said
    assert "pushed to origin: main, agents/agent-0, but the local branches were not moved" in said
    assert "then sync again (it brings them along)" in said
    before = {b: soak.git(a0, "rev-parse", b).stdout for b in ("main", "agents/agent-0")}
    obey(a0, said)
    assert not lock.exists()

    again = sync_push(a0, "agent-0")

    assert again.returncode == 0, again.stdout + again.stderr
    for branch in ("main", "agents/agent-0"):
        here = soak.git(a0, "rev-parse", branch).stdout
        assert here == soak.git(remote, "rev-parse", branch).stdout
        assert here != before[branch]
    assert "brought along from origin: main, agents/agent-0\n" in again.stdout + again.stderr
    _on_base(remote, tmp_path / "check", log0.items + log1.items)


def test_sync_at_scale_a_stale_lock_when_a_conflict_pushed_nothing_never_says_pushed(
    team: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """Sync at scale: the agent "recovers by doing what it says", and what it says is true.
    Its pair conflicts (nothing of it pushed) while the local base, which follows the
    remote's, is left locked by a killed git: exit 3 naming the lock, never "pushed to
    origin" (its work did not land); doing what it says, the next sync shows the conflict."""
    remote, a0, _ = team
    log0 = soak.AgentLog("agent-0")
    _round(a0, "agent-0", 0, log0)
    assert sync_push(a0, "agent-0").returncode == 0
    item = log0.items[-1]
    todo = json.loads((a0 / soak.TODO).read_text())
    for it in todo["todoList"]["items"]:
        if it["id"] == item:
            it["title"] = "renamed by the agent"
    (a0 / soak.TODO).write_text(json.dumps(todo, indent=2) + "\n")
    soak.git(a0, "commit", "-qam", "agent-0: renames its task")
    person = tmp_path / "person"  # deletes it on the base, a plain git push
    soak.git(tmp_path, "clone", "-q", str(remote), str(person))
    soak.identity(person, "person")
    todo = json.loads((person / soak.TODO).read_text())
    todo["todoList"]["items"] = [i for i in todo["todoList"]["items"] if i["id"] != item]
    (person / soak.TODO).write_text(json.dumps(todo, indent=2) + "\n")
    soak.git(person, "commit", "-qam", "person: deletes the task")
    soak.git(person, "push", "-q", "origin", "main")
    lock = _stale_lock(a0 / ".git/refs/heads/main.lock")

    out = sync_push(a0, "agent-0")
    said = out.stdout + out.stderr
    assert out.returncode == 3, said
    assert "CONFLICT" in said
    assert "pushed to origin" not in said
    assert f"rm -f '{lock}'" in said
    obey(a0, said)
    again = sync_push(a0, "agent-0")
    assert again.returncode == 1, again.stdout + again.stderr
    assert "CONFLICT" in again.stdout
    assert "--checkout" in again.stdout


def test_sync_at_scale_killed_holding_a_ref_lock_the_next_sync_lands_with_no_one_removing_it(
    team: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """A real kill while the local branches are locked (the locks stay behind). The killed
    sync had claimed them (``gitio.locks``): the next sync proves them its, removes them and
    lands, at once; no ``rm -f`` for anyone to run (an agent with MCP tools alone has no
    shell: PRODUCT.md, "Where agents' platforms run it"), no claim left behind."""
    remote, a0, a1 = team
    log0, log1 = soak.AgentLog("agent-0"), soak.AgentLog("agent-1")
    _round(a1, "agent-1", 0, log1)
    assert sync_push(a1, "agent-1").returncode == 0
    _round(a0, "agent-0", 0, log0)
    log = tmp_path / "steps"
    killed = sync_push(a0, "agent-0", kill_env(step=_local_lock_step(a0, log), log=log))
    assert killed.returncode == -9
    assert len(list((a0 / ".git/refs/heads").rglob("*.lock"))) == 2  # main, agents/agent-0

    out = sync_push(a0, "agent-0")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "rm -f" not in out.stdout + out.stderr
    assert not list((a0 / ".git/refs/heads").rglob("*.lock"))
    left = [p.name for p in (a0 / ".git/vcontext/reflocks").iterdir()]
    assert left == ["remover.lock"]  # no claim, nothing set aside (the removers' turn stays)
    assert soak.git(a0, "rev-parse", "main").stdout == soak.git(remote, "rev-parse", "main").stdout
    _on_base(remote, tmp_path / "check", log0.items + log1.items)
    _fsck_clean(a0, a1, remote)


def _local_lock_step(clone: Path, log: Path) -> int:
    """The step number of the last "refs locked" of a sync (its local branches), found by a
    dry count: a copy of the clone synced with kill points counting but never reached."""
    probe = clone.parent / "probe"
    shutil.copytree(clone, probe, symlinks=True)
    remote_copy = clone.parent / "probe-remote.git"
    url = soak.git(clone, "remote", "get-url", "origin").stdout.strip()
    shutil.copytree(url, remote_copy, symlinks=True)
    soak.git(probe, "remote", "set-url", "origin", str(remote_copy))
    counted = log.with_name("probe-steps")
    assert sync_push(probe, "agent-0", kill_env(step=10_000, log=counted)).returncode == 0
    names = counted.with_name(counted.name + ".log").read_text().splitlines()
    return max(int(n.split(" ", 1)[0]) for n in names if n.endswith("refs locked"))


# -- point 9: a full disk, a read-only repository ------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 MiB tmpfs (skipped where mounting one is not allowed)."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mnt)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def _clone_on(team: tuple[Path, Path, Path], disk: Path) -> Path:
    _, a0, _ = team
    moved = disk / "agent-0"
    shutil.copytree(a0, moved, symlinks=True)
    return moved


@pytest.mark.parametrize("push", [True, False], ids=["sync-push", "sync"])
def test_sync_at_scale_a_full_disk_is_said_in_one_line_and_the_next_sync_lands(
    team: tuple[Path, Path, Path], tmp_path: Path, small_disk: Path, push: bool
) -> None:
    remote, _, a1 = team
    a0 = _clone_on(team, small_disk)
    log0, log1 = soak.AgentLog("agent-0"), soak.AgentLog("agent-1")
    _round(a1, "agent-1", 0, log1)
    assert sync_push(a1, "agent-1").returncode == 0
    _round(a0, "agent-0", 0, log0)
    filler = small_disk / "filler"
    _fill(filler)
    args = ["sync", "agent-0", *(["--push", "origin"] if push else [])]

    out = subprocess.run([*soak.cli(), *args], cwd=a0, capture_output=True, text=True)

    assert out.returncode == 3, out.stdout + out.stderr
    [line] = out.stderr.strip().splitlines()
    assert "is full" in line
    assert "free some space, then run git vcontext sync again" in line
    assert "internal error" not in line
    filler.unlink()
    again = sync_push(a0, "agent-0")
    assert again.returncode == 0, again.stdout + again.stderr
    _on_base(remote, tmp_path / "check", log0.items + log1.items)
    _fsck_clean(a0, remote)


def _fill(filler: Path) -> None:
    """Write until the disk is full."""
    with open(filler, "wb") as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise


def test_sync_at_scale_a_read_only_repository_is_said_in_one_line(
    team: tuple[Path, Path, Path], tmp_path: Path, small_disk: Path
) -> None:
    remote, _, a1 = team
    a0 = _clone_on(team, small_disk)
    log0, log1 = soak.AgentLog("agent-0"), soak.AgentLog("agent-1")
    _round(a1, "agent-1", 0, log1)
    assert sync_push(a1, "agent-1").returncode == 0
    _round(a0, "agent-0", 0, log0)
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)

    out = sync_push(a0, "agent-0")

    assert out.returncode == 3, out.stdout + out.stderr
    [line] = out.stderr.strip().splitlines()
    assert "read-only file system" in line
    assert "make the repository writable" in line
    subprocess.run(["mount", "-o", "remount,rw", str(small_disk)], check=True)
    assert sync_push(a0, "agent-0").returncode == 0
    _on_base(remote, tmp_path / "check", log0.items + log1.items)
