"""Ref locks a killed sync leaves: removed only when proven stale (``gitio.locks``).

PRODUCT.md, "Sync at scale" (an interrupted sync is safe to run again) and "MCP server",
"Where agents' platforms run it" (an agent with MCP tools alone has a way out): a lock
file left on a branch by a killed sync is removed by the next sync without anyone running
``rm -f``; and never a lock a live process holds. The proof: the sync that took the locks
claimed them (pid, start time, pid namespace, host; each file's device, inode and change
time), and that process is gone while the lock file is still that very file. Each test
takes real locks with libgit2 in a real process and kills it with SIGKILL.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pygit2
import pytest

from git_vcontext.gitio import locks
from git_vcontext.gitio.refs import RefLocked, RefUpdate, move_refs, set_ref_from
from helpers import soak

HOLDER = """
import sys, time
import pygit2
from git_vcontext.gitio import refs
repo = pygit2.Repository(sys.argv[1])
tip = repo.head.target
def hold(name):
    if name == "refs locked":
        print("held", flush=True)
        time.sleep(600)
refs.step = hold
name = sys.argv[2] if len(sys.argv) > 2 else "refs/heads/main"
refs.move_refs(repo, [refs.RefUpdate(name, tip, tip)], message="hold")
"""
"""A process that takes main's lock as sync does (``refs.move_refs``) and holds it."""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    where = tmp_path / "repo"
    soak.git(tmp_path, "init", "-q", "-b", "main", str(where))
    soak.identity(where, "someone")
    soak.git(where, "commit", "-q", "--allow-empty", "-m", "one")
    return where


def _holding(repo: Path, ref: str = "refs/heads/main") -> subprocess.Popen[str]:
    """A process holding ``ref``'s lock (``refs/heads/main.lock``), claimed as sync claims it."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(repo), ref], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "held\n"
    return proc


def _killed(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait()


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lock held this long is old enough to judge (age alone proves nothing). Aging the
    file instead (``os.utime``) would change its change time: no longer the claimed file."""
    monkeypatch.setattr(locks, "STALE_AFTER", 0.2)


def _settle(repo: Path, lock: Path) -> bool:
    """``locks.settle`` of a lock file in ``repo`` (its git directory given, as sync gives it)."""
    return locks.settle(str(lock), str(repo / ".git"))


def _claims(repo: Path) -> list[Path]:
    return sorted((repo / ".git/vcontext/reflocks").glob("*.json"))


def test_a_killed_holders_lock_is_removed_at_once_and_its_claim_swept(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proc = _holding(repo)
    lock = repo / ".git/refs/heads/main.lock"
    [claim] = _claims(repo)
    assert str(lock) in json.loads(claim.read_text())["locks"]
    _killed(proc)
    assert lock.exists()  # fresh: age alone would wait, then name it to a person
    aside = claim.parent / f"{proc.pid}.0badf00d.stale"  # (as a remover killed midway sets it)
    aside.write_text("")
    # At once: no pause for the lock to age, however slow the machine (this was "took
    # < 1.0 s", which a starved process can miss and a settle that waited for age, 0.2 s
    # here, passed; an hour to age now, and a pause fails the test).
    monkeypatch.setattr(locks, "STALE_AFTER", 3600.0)

    def no_pause(_seconds: float) -> None:
        raise AssertionError("settle waited for a lock its killed holder's claim proves stale")

    assert locks.settle(str(lock), str(repo / ".git"), sleep=no_pause) is True
    assert not lock.exists()
    assert _claims(repo) == []
    folder = repo / ".git/vcontext/reflocks"
    assert list(folder.iterdir()) == [folder / "remover.lock"]  # nothing set aside left
    # (the removers' turn: a flock the kernel drops with its holder, never stale)
    tip = pygit2.Repository(str(repo)).head.target
    move_refs(pygit2.Repository(str(repo)), [RefUpdate("refs/heads/main", tip, tip)], message="x")


def test_a_removal_reads_each_claim_once_to_find_and_once_in_its_turn(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sync at scale (a killed sync is safe to run again): the proof is made once to find a
    killed sync's lock and once more in the remover's turn, whose claims the sweep then
    uses (it read the folder a third time, every claim's file and process again)."""
    soak.git(repo, "branch", "other")
    live = _holding(repo)  # (a claim the sweep keeps)
    other = repo / ".git/refs/heads/other.lock"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER.replace("refs/heads/main", "refs/heads/other"), str(repo)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "held\n"
        _killed(proc)
        reads: list[str] = []
        read = locks._read_claim

        def counted(where: str) -> object:
            reads.append(where)
            return read(where)

        monkeypatch.setattr(locks, "_read_claim", counted)
        assert _settle(repo, other) is True
        assert not other.exists()
        assert len(_claims(repo)) == 1  # the killed one's swept, the live one's kept
        assert sorted(Counter(reads).values()) == [2, 2], reads  # (was 3 each)
    finally:
        _killed(live)


def test_a_live_holders_lock_is_never_removed_however_old(repo: Path) -> None:
    proc = _holding(repo)
    lock = repo / ".git/refs/heads/main.lock"
    try:
        assert _settle(repo, lock) is False
        assert lock.exists()
        assert "rm -f" in locks.advice(str(lock))  # a person's to judge, as before
    finally:
        _killed(proc)
    assert _settle(repo, lock) is True  # its holder gone: proven now


def test_a_lock_made_anew_after_the_holder_died_is_not_its_and_stays(repo: Path) -> None:
    """The dead holder's lock was removed and someone (a live git) took the ref since: the
    file at that path is another file (inode, change time), which the claim does not prove."""
    proc = _holding(repo)
    lock = repo / ".git/refs/heads/main.lock"
    _killed(proc)
    lock.unlink()
    time.sleep(0.01)
    lock.write_text("")  # a live git's
    assert _settle(repo, lock) is False
    assert lock.exists()


@pytest.mark.parametrize("field", ["ns", "host"])
def test_a_claim_made_in_another_pid_namespace_or_host_proves_nothing(
    repo: Path, field: str
) -> None:
    """A pid read in another namespace (a container sharing the repository) or on another
    machine (a repository on a network disk) says nothing about the process here."""
    proc = _holding(repo)
    lock = repo / ".git/refs/heads/main.lock"
    [claim] = _claims(repo)
    _killed(proc)
    body = json.loads(claim.read_text())
    body[field] = 1 if field == "ns" else "another-machine"
    claim.write_text(json.dumps(body))
    assert _settle(repo, lock) is False
    assert lock.exists()


def test_a_claim_cut_short_by_a_kill_proves_nothing(repo: Path) -> None:
    proc = _holding(repo)
    lock = repo / ".git/refs/heads/main.lock"
    [claim] = _claims(repo)
    _killed(proc)
    claim.write_text(claim.read_text()[:20])
    assert _settle(repo, lock) is False
    assert lock.exists()


def test_moving_refs_claims_nothing_once_done(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sync that finished leaves no claim behind (one file written and removed per ref
    move: nothing piles up); while it held the locks, its claim named them (without the
    look at the kill point, no claim ever written would pass this too)."""
    from git_vcontext.gitio import refs

    held: list[list[str]] = []

    def look(name: str) -> None:
        if name == "refs locked":
            held.extend(list(json.loads(c.read_text())["locks"]) for c in _claims(repo))

    monkeypatch.setattr(refs, "step", look)
    git_repo = pygit2.Repository(str(repo))
    tip = git_repo.head.target
    for _ in range(3):
        move_refs(git_repo, [RefUpdate("refs/heads/main", tip, tip)], message="x")
    assert held == [[str(repo / ".git/refs/heads/main.lock")]] * 3
    assert _claims(repo) == []


def test_a_lock_a_live_claimant_names_too_is_kept(repo: Path) -> None:
    """The dead claimant's file and a live claimant's are one (a file made anew on a reused
    inode within the clock's tick would look so): any live claim of it keeps it."""
    proc = _holding(repo)
    lock = repo / ".git/refs/heads/main.lock"
    _killed(proc)
    live = locks.claim(str(repo / ".git"), [str(lock)])  # this process: alive
    assert live is not None
    try:
        assert _settle(repo, lock) is False
        assert lock.exists()
    finally:
        locks.release(live)
    assert _settle(repo, lock) is True


# -- review (speed): what still removed or touched a lock a live process holds -----------


def _dead_lock(repo: Path) -> tuple[Path, Path]:
    """main's lock, left by a killed holder, and its claim."""
    proc = _holding(repo)
    lock = repo / ".git/refs/heads/main.lock"
    [claim] = _claims(repo)
    _killed(proc)
    return lock, claim


def _stamp(path: Path) -> tuple[int, int, int]:
    info = path.lstat()
    return info.st_dev, info.st_ino, info.st_ctime_ns


def test_a_remover_late_with_its_proof_never_touches_the_lock_taken_since(repo: Path) -> None:
    """Two syncs prove the same dead lock at once: one removes it, a live git takes the ref
    (its new lock file often on the very inode just freed), then the other goes on with its
    proof. It must leave the live lock alone: not removed (an inode alone says nothing),
    not moved aside and back (its change time, and so its own claim, would change; the ref
    free meanwhile for a third taker)."""
    lock, _ = _dead_lock(repo)
    late = locks.proven_stale(str(lock), str(repo / ".git"))  # the late remover's proof
    assert late is not None
    assert _settle(repo, lock) is True  # the other remover
    lock.write_text("")  # a live git's lock
    before = _stamp(lock)
    assert locks._remove_proven(str(lock), late, str(repo / ".git/vcontext/reflocks")) is False
    assert lock.exists()
    assert _stamp(lock) == before


@pytest.mark.parametrize("boot", ["another-boot", None])
def test_a_claim_from_another_boot_of_a_kernel_proves_nothing(repo: Path, boot: str | None) -> None:
    """Two machines sharing a repository (a network disk) may share a host name, and in
    their first pid namespace the namespace's inode is the same number on every Linux
    machine: only the kernel's boot id tells a pid read there from one read here."""
    lock, claim = _dead_lock(repo)
    body = json.loads(claim.read_text())
    if boot is None:
        body.pop("boot", None)
    else:
        body["boot"] = boot
    claim.write_text(json.dumps(body))
    assert _settle(repo, lock) is False
    assert lock.exists()


def test_a_claim_without_a_pid_namespace_proves_nothing_where_there_is_one(repo: Path) -> None:
    """A claim written where ``/proc`` could not be read (``ns`` null) was written in
    another world than this one, which reads its namespace: its pid means nothing here."""
    lock, claim = _dead_lock(repo)
    body = json.loads(claim.read_text())
    body["ns"] = None
    claim.write_text(json.dumps(body))
    assert _settle(repo, lock) is False
    assert lock.exists()


@pytest.mark.parametrize("pid", [0, -1])
def test_a_claim_whose_pid_is_no_process_proves_nothing(repo: Path, pid: int) -> None:
    """A lock no sync claimed (a git process's), named by a claim whose pid no process has:
    hostile or broken, it proves nothing."""
    lock = repo / ".git/refs/heads/main.lock"
    lock.write_text("")
    here = locks.claim(str(repo / ".git"), [str(lock)])
    assert here is not None
    body = json.loads(Path(here).read_text())
    Path(here).unlink()
    body["pid"] = pid
    (Path(here).parent / "forged.json").write_text(json.dumps(body))
    assert _settle(repo, lock) is False
    assert lock.exists()


@pytest.mark.parametrize("kind", ["fifo", "deep", "huge", "symlink"])
def test_hostile_files_in_the_claims_folder_neither_hang_nor_crash_nor_prove(
    repo: Path, kind: str
) -> None:
    """The claims folder is in the repository: its files are untrusted. A named pipe (an
    open would block for ever), JSON nested past the parser's depth, a huge file, a link to
    a claim elsewhere: each proves nothing, and the dead holder's own claim still does."""
    import os
    import threading

    lock, claim = _dead_lock(repo)
    folder = claim.parent
    bad = folder / "bad.json"
    if kind == "fifo":
        os.mkfifo(bad)
    elif kind == "deep":
        bad.write_text("[" * 200_000)
    elif kind == "huge":
        with bad.open("wb") as fh:
            fh.truncate(1 << 30)  # sparse: 1 GiB read whole would be the memory
    else:
        elsewhere = repo.parent / "elsewhere.json"
        elsewhere.write_text(claim.read_text())
        claim.unlink()
        bad.symlink_to(elsewhere)
    said: list[bool] = []
    worker = threading.Thread(target=lambda: said.append(_settle(repo, lock)), daemon=True)
    worker.start()
    worker.join(10)
    if kind == "fifo" and worker.is_alive():
        with open(bad, "wb"):  # (let the stuck reader go)
            pass
    assert not worker.is_alive()
    assert said == [kind != "symlink"]
    assert lock.exists() is (kind == "symlink")


def test_set_aside_locks_are_swept_only_once_no_remover_is_at_work(repo: Path) -> None:
    """A lock set aside (``.stale``) by a remover still at work, in another pid namespace
    (its pid means nothing here), is that remover's to put back: removers take turns
    (one at a time, on a lock the kernel drops with its process), and what is set aside
    is swept only between turns."""
    import fcntl
    import os
    import threading

    lock, claim = _dead_lock(repo)
    aside = claim.parent / "999999999.0badf00d.stale"
    aside.write_text("")  # (as a remover elsewhere sets it aside, mid-turn)
    fd = os.open(claim.parent / "remover.lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)  # that remover's turn
    said: list[bool] = []
    worker = threading.Thread(target=lambda: said.append(_settle(repo, lock)), daemon=True)
    try:
        worker.start()
        time.sleep(0.3)
        assert aside.exists()
    finally:
        os.close(fd)  # its turn ends (it put the file back, or was killed)
    worker.join(10)
    assert said == [True]
    assert not lock.exists()
    assert not aside.exists()


def test_moving_a_worktrees_own_ref_never_claims_the_main_worktrees_lock(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A linked work tree's own refs (``refs/bisect/…``, ``refs/worktree/…``) are locked in
    its own git folder, not the common one: a claim naming the common folder's file of that
    name would claim a live git's lock there (the main work tree's) as this process's —
    proven stale, and removed, once this process is gone."""
    from git_vcontext.gitio import refs

    linked = tmp_path / "linked"
    soak.git(repo, "worktree", "add", "-q", "--detach", str(linked))
    theirs = repo / ".git/refs/worktree/x.lock"  # a live git's, in the main work tree
    theirs.parent.mkdir(parents=True, exist_ok=True)
    theirs.write_text("")
    git_repo = pygit2.Repository(str(linked))
    tip = git_repo.head.target
    git_repo.references.create("refs/worktree/x", tip)
    named: list[list[list[int]]] = []

    def look(name: str) -> None:
        if name == "refs locked":
            named.extend(list(json.loads(c.read_text())["locks"].values()) for c in _claims(repo))

    monkeypatch.setattr(refs, "step", look)
    move_refs(git_repo, [RefUpdate("refs/worktree/x", tip, tip)], message="x")
    info = theirs.lstat()
    assert [info.st_dev, info.st_ino, info.st_ctime_ns] not in [i for c in named for i in c]


# -- review 12 (speed): claims left behind once syncs ended ------------------------------


def test_a_dead_claim_whose_locks_went_another_way_is_dropped_by_the_next_ref_move(
    repo: Path,
) -> None:
    """README "sync" (a killed sync's ref locks): sync "drops the claim once the refs
    moved". A sync killed with its locks held, whose lock files then went another way than
    the next sync's proof (a person's ``rm -f``, as git's own message says when a plain
    git command meets the lock), left its claim in ``.git/vcontext/reflocks/`` for good:
    no lock was left for a sync to prove, so none swept it. The next ref move drops it
    (a dead claimant's, none of whose lock files is left: it proves nothing any more);
    a live claimant's claim stays."""
    lock, claim = _dead_lock(repo)
    lock.unlink()  # a person's rm -f
    live = locks.claim(str(repo / ".git"), [str(repo / ".git/refs/heads/x.lock")])
    assert live is None  # (no such file: nothing claimed)
    (repo / ".git/refs/heads/x.lock").write_text("")  # a live process's lock, claimed
    live = locks.claim(str(repo / ".git"), [str(repo / ".git/refs/heads/x.lock")])
    assert live is not None
    try:
        git_repo = pygit2.Repository(str(repo))
        tip = git_repo.head.target
        move_refs(git_repo, [RefUpdate("refs/heads/main", tip, tip)], message="x")
        assert _claims(repo) == [Path(live)]  # the dead one dropped, the live one kept
        assert not claim.exists()
    finally:
        locks.release(live)
        (repo / ".git/refs/heads/x.lock").unlink()
    assert _claims(repo) == []


def test_a_killed_holders_lock_on_a_branch_with_a_refs_folder_in_its_name_is_proven(
    repo: Path,
) -> None:
    """A ref's name may hold any folder name: ``a/refs/main`` next to a branch
    ``a/vcontext/reflocks/z``. The claims are found in the repository's git directory, as
    the ref transaction knows it; a walk up the lock's path to a folder named ``refs``
    stopped at ``refs/heads/a/refs`` and looked for claims in ``refs/heads/a/vcontext/
    reflocks`` (a branch's folder): the killed sync's lock was never proven, and the next
    ref move stopped on it."""
    tip = pygit2.Repository(str(repo)).head.target
    soak.git(repo, "branch", "a/refs/main")
    soak.git(repo, "branch", "a/vcontext/reflocks/z")
    proc = _holding(repo, "refs/heads/a/refs/main")
    lock = repo / ".git/refs/heads/a/refs/main.lock"
    assert lock.exists()
    _killed(proc)

    update = RefUpdate("refs/heads/a/refs/main", tip, tip)
    move_refs(pygit2.Repository(str(repo)), [update], message="next sync")

    assert not lock.exists()
    assert _claims(repo) == []
    assert not (repo / ".git/refs/heads/a/vcontext/reflocks/remover.lock").exists()


def test_a_branch_named_like_refs_vcontext_is_not_ours_its_aged_lock_stays(repo: Path) -> None:
    """Only a lock of a ref under ``refs/vcontext/`` (sync's own refs) is removed for its age
    alone; a branch ``x/refs/vcontext/y`` is a person's, its lock git's (no claim proves
    it): named with what to do, never removed. The path's ``/refs/vcontext/`` once made it
    ours."""
    import os

    from git_vcontext.errors import RefLocked

    tip = pygit2.Repository(str(repo)).head.target
    soak.git(repo, "branch", "x/refs/vcontext/y")
    lock = repo / ".git/refs/heads/x/refs/vcontext/y.lock"
    lock.write_text("")
    os.utime(lock, (time.time() - 60, time.time() - 60))  # a git process's, a minute old

    update = RefUpdate("refs/heads/x/refs/vcontext/y", tip, tip)
    with pytest.raises(RefLocked, match=r"y\.lock"):
        move_refs(pygit2.Repository(str(repo)), [update], message="sync")

    assert lock.exists()
    assert _settle(repo, repo / ".git/refs/vcontext/mine.lock") is True  # (gone: nothing to do)


COMMITTED = """
import sys, time
import pygit2
from git_vcontext.gitio import locks, refs
repo = pygit2.Repository(sys.argv[1])
tip = repo.head.target
def killed_here(claimed):
    print("committed", flush=True)  # the refs moved, the claim not dropped yet
    time.sleep(600)
locks.release = killed_here
who = pygit2.Signature("t", "t@example.com")
new = repo.create_commit(None, who, who, "next", repo.head.peel().tree.id, [tip])
refs.move_refs(repo, [refs.RefUpdate("refs/heads/main", tip, new)], message="moved")
"""
"""A sync killed after its ref transaction committed, before it dropped its claim."""


def test_a_new_lock_matching_the_claim_of_a_sync_killed_after_committing_stays(
    repo: Path,
) -> None:
    """A sync killed between libgit2's commit (the lock renamed onto the ref) and dropping
    its claim leaves a claim naming a lock file that is now the ref. A live git's new lock
    made on the freed inode within the clock's tick has the claimed identity (written into
    the claim here: the kernel's coincidence, made certain): it is not the killed sync's,
    and the ref file the claim saw is gone (committed over), so nothing proves it stale:
    it stays (it was removed as proven, under a live git)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", COMMITTED, str(repo)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "committed\n"
    _killed(proc)
    lock = repo / ".git/refs/heads/main.lock"
    assert not lock.exists()
    [claim] = _claims(repo)
    lock.write_text("")  # a live git's lock, on the inode the claimed one had
    body = json.loads(claim.read_text())
    body["locks"] = {str(lock): list(_stamp(lock))}
    claim.write_text(json.dumps(body))

    assert _settle(repo, lock) is False

    assert lock.exists()


CUT_SHORT = """
import os, signal, sys
import pygit2
from git_vcontext.gitio import refs
repo = pygit2.Repository(sys.argv[1])
tip = repo.head.target
write = os.write
def killed_midway(fd, data):
    write(fd, data[: len(data) // 2])
    os.kill(os.getpid(), signal.SIGKILL)
os.write = killed_midway
refs.move_refs(repo, [refs.RefUpdate("refs/heads/main", tip, tip)], message="cut short")
"""
"""A sync killed while writing its claim, its lock held."""


def test_a_claim_cut_short_by_a_kill_is_swept_once_its_writer_is_gone_never_its_lock(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PRODUCT.md "Sync at scale" (an interrupted sync is safe to run again, the repository
    stays clean): a claim cut short by a kill proves nothing, so its lock stays a person's;
    the claim file itself goes with the next ref move once its writer (named by the
    claim's name) is gone. A cut-short claim of a live writer stays, and so does a
    nameless file in the folder until it is old; it was never swept."""
    import os

    from git_vcontext.fsio import this_process

    monkeypatch.setattr(locks, "WRITTEN_WITHIN", 0.0, raising=False)
    tip = pygit2.Repository(str(repo)).head.target
    soak.git(repo, "branch", "other")
    killed = subprocess.run([sys.executable, "-c", CUT_SHORT, str(repo)], check=False)
    assert killed.returncode == -signal.SIGKILL
    lock = repo / ".git/refs/heads/main.lock"
    [cut] = _claims(repo)
    with pytest.raises(json.JSONDecodeError, match=r"Expecting|Unterminated"):
        json.loads(cut.read_text())
    assert _settle(repo, lock) is False  # proves nothing
    pid, start, ns = this_process()
    live = cut.parent / f"{pid}-{start}-{ns}.0123abcd.json"
    live.write_text('{"pid": ')
    nameless, old = cut.parent / "nameless.json", cut.parent / "old.json"
    nameless.write_text("")
    old.write_text("")
    os.utime(old, (time.time() - 60, time.time() - 60))

    move_refs(pygit2.Repository(str(repo)), [RefUpdate("refs/heads/other", tip, tip)], message="x")

    assert lock.exists()
    assert _claims(repo) == sorted([live, nameless])


def test_a_compare_and_swap_move_waits_for_a_killed_holders_lock_and_names_one_that_stays(
    repo: Path,
) -> None:
    """``refs.set_ref_from`` (a fetch's move of a remote-tracking ref) meets locks as every
    ref move does (``locks.settle``): a killed sync's lock is removed and the move made; an
    old lock nothing proves stale stays, and the move says so (RefLocked naming the file),
    never a silent False that reads as "another writer moved it"."""
    git = pygit2.Repository(str(repo))
    tip = git.head.peel(pygit2.Commit).id
    ref = "refs/remotes/origin/main"
    proc = _holding(repo, ref)
    _killed(proc)
    assert set_ref_from(git, ref, None, tip, message="fetch origin: storing head") is True
    assert git.references[ref].target == tip

    lock = repo / ".git/refs/remotes/origin/main.lock"
    lock.write_text("")
    time.sleep(0.3)  # (older than STALE_AFTER here: judged, never proven)
    with pytest.raises(RefLocked) as raised:
        set_ref_from(git, ref, tip, tip, message="fetch origin: fast-forward")
    assert raised.value.lock_files == (str(lock),)
    assert lock.exists()
    assert set_ref_from(git, "refs/heads/main", None, tip, message="x") is False  # (it is there)
