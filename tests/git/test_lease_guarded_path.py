"""``sync --push`` to a remote on this machine whose only hook is our guard (``install --server
--guard``): the lease is written in process, as where no hook watches, once it passes the
guard's own judgement of a lease (PRODUCT.md "Sync at scale": nothing lost, exit 0 = the
round is on the remote base; "The remote guards itself": every push, ``sync --push``'s
included, goes through the guard, which takes a lease as a lease). Any other hook, or a
lease the guard might judge otherwise, is pushed as before."""

from __future__ import annotations

import os
from pathlib import Path

import pygit2
import pytest

from git_vcontext.gitio.localremote import LocalRemote, NotAccepted
from git_vcontext.remote.lease import guard_accepts
from git_vcontext.setup.server import only_our_guard
from helpers import soak
from helpers.run import run_git

LEASE = "refs/vcontext/lease/main"


@pytest.fixture
def guarded(tmp_path: Path) -> tuple[Path, list[Path]]:
    """A bare remote with the guard alone and two agents' clones (pre-push hook on)."""
    return soak.setup(tmp_path, 2, guard=True)


def _signature() -> pygit2.Signature:
    return pygit2.Signature("T", "t@example.com", 0, 0)


def _local(clone: Path) -> LocalRemote:
    local = LocalRemote.find(pygit2.Repository(str(clone)), "origin")
    assert local is not None
    return local


def _base(remote: Path) -> pygit2.Oid:
    return pygit2.Oid(hex=run_git(remote, "rev-parse", "main").stdout.strip())


def test_the_guard_as_install_writes_it_is_the_only_watcher(
    guarded: tuple[Path, list[Path]],
) -> None:
    remote, clones = guarded
    assert only_our_guard(pygit2.Repository(str(remote)))
    local = _local(clones[0])
    assert not local.may_write_refs()  # a hook watches
    assert local.may_write_leases(only_our_guard)


@pytest.mark.parametrize(
    "change",
    ["install --server", "chained", "reference-transaction", "hook from config", "edited"],
)
def test_any_other_hook_keeps_the_lease_pushed(
    guarded: tuple[Path, list[Path]], change: str
) -> None:
    """The integration of ``install --server``, a hook chained before the guard, another
    hook that sees ref updates, hooks from git config, a guard not as install wrote it: the
    lease goes through git, for every hook to see."""
    remote, clones = guarded
    hooks = remote / "hooks"
    if change == "install --server":
        soak.vcontext(remote, "install", "--server")
    elif change == "chained":
        (hooks / "pre-receive.legacy").write_text("#!/bin/sh\nexit 0\n")
        (hooks / "pre-receive.legacy").chmod(0o755)
    elif change == "reference-transaction":
        (hooks / change).write_text("#!/bin/sh\nexit 0\n")
        (hooks / change).chmod(0o755)
    elif change == "hook from config":
        run_git(remote, "config", "hook.audit.command", "true")
        run_git(remote, "config", "hook.audit.event", "pre-receive")
    else:
        guard = hooks / "pre-receive"
        guard.write_text(guard.read_text() + "# mine\n")
    assert not only_our_guard(pygit2.Repository(str(remote)))
    assert not _local(clones[0]).may_write_leases(only_our_guard)


def test_hooks_from_a_global_config_libgit2_does_not_read_keep_the_lease_pushed(
    guarded: tuple[Path, list[Path]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``GIT_CONFIG_GLOBAL`` naming another file (libgit2 does not read it, the remote's
    ``receive-pack`` does) whose ``hook.*`` runs a hook at a push (git 2.46 and later): the
    lease goes through git for it to see (PRODUCT.md "The remote guards itself"), as with
    hooks in the remote's own config; a ``git -c hook.…`` of this command, which git clears
    for that ``receive-pack``, does not."""
    remote, _ = guarded
    elsewhere = tmp_path / "global.gitconfig"
    elsewhere.write_text('[hook "audit"]\n\tcommand = true\n\tevent = pre-receive\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(elsewhere))
    assert not only_our_guard(pygit2.Repository(str(remote)))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "none"))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'hook.audit.event'='pre-receive'")
    assert only_our_guard(pygit2.Repository(str(remote)))


def test_hooks_given_with_git_c_keep_the_pre_push_hook_run(
    guarded: tuple[Path, list[Path]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``git -c hook.audit.event=pre-push vcontext sync --push``: the ``git push`` sync runs
    sees that setting (git passes it on), so the pre-push hook is no longer only our shim
    and is run (PRODUCT.md "Sync at scale": sync pre-fills the hook's verdict cache so its
    own pushes do not pay for a second check; the hook is skipped only when it is that
    check alone)."""
    from git_vcontext.setup.hooks import only_our_shim

    _, clones = guarded
    assert only_our_shim(pygit2.Repository(str(clones[0])))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'hook.audit.event'='pre-push'")
    assert not only_our_shim(pygit2.Repository(str(clones[0])))


def test_a_hooks_folder_given_with_git_c_does_not_hide_the_remotes_guard(
    guarded: tuple[Path, list[Path]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``git -c core.hooksPath=EMPTY vcontext sync --push`` (a way to skip the client's own
    hooks): git clears this command's ``-c`` settings for the ``receive-pack`` of a push to
    a path, so the remote's guard still runs there; the lease is then no ref to write as
    where no hook watches (it is judged as the guard would, ``guard_accepts``), and a
    chained hook beside the guard still keeps it pushed (PRODUCT.md "The remote guards
    itself": every push goes through the guard)."""
    remote, clones = guarded
    empty = tmp_path / "no-hooks"
    empty.mkdir()
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.hookspath'='{empty}'")
    local = _local(clones[0])
    assert not local.may_write_refs()
    assert local.may_write_leases(only_our_guard)
    (remote / "hooks" / "pre-receive.legacy").write_text("#!/bin/sh\nexit 1\n")
    (remote / "hooks" / "pre-receive.legacy").chmod(0o755)
    blocked = run_git(clones[1], "push", "--no-verify", "origin", f"main:{LEASE}", check=False)
    assert blocked.returncode != 0  # git ran the remote's hooks, not the empty folder's
    again = _local(clones[1])
    assert not again.may_write_refs()
    assert not again.may_write_leases(only_our_guard)


def test_a_system_hooks_folder_git_does_not_read_does_not_hide_the_remotes_guard(
    guarded: tuple[Path, list[Path]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``GIT_CONFIG_NOSYSTEM`` (set for every test here): git reads no system settings,
    libgit2 reads them all the same; a ``core.hooksPath`` there (an empty folder) is not
    where the remote's ``receive-pack`` runs its hooks from, so the guard still watches and
    the lease is no ref to write unjudged (PRODUCT.md "The remote guards itself")."""
    from pygit2.enums import ConfigLevel

    _, clones = guarded
    system = tmp_path / "system"
    system.mkdir()
    (system / "gitconfig").write_text(f"[core]\n\thooksPath = {tmp_path / 'none'}\n")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    before = pygit2.settings.search_path[ConfigLevel.SYSTEM]
    pygit2.settings.search_path[ConfigLevel.SYSTEM] = str(system)
    try:
        local = _local(clones[0])
        assert not local.may_write_refs()
        assert local.may_write_leases(only_our_guard)
    finally:
        pygit2.settings.search_path[ConfigLevel.SYSTEM] = before


def test_a_lease_written_in_process_is_one_the_guard_lets_in(
    guarded: tuple[Path, list[Path]],
) -> None:
    """The lease swapped in process (after ``guard_accepts``) is then pushed through the
    guard itself, the same update: let in."""
    remote, clones = guarded
    local = _local(clones[0])
    lease = local.swap(LEASE, None, "lease\n", _signature(), _base(remote), guard_accepts)
    assert lease is not None
    clone = clones[1]
    run_git(clone, "fetch", "-q", "origin", f"{LEASE}:refs/lease-copy")
    run_git(remote, "update-ref", "-d", LEASE)  # as before the swap (no hook runs)

    pushed = run_git(clone, "push", "--no-verify", "origin", f"{lease}:{LEASE}", check=False)

    assert pushed.returncode == 0, pushed.stderr
    assert run_git(remote, "rev-parse", LEASE).stdout.strip() == str(lease)
    # an expired lease taken over: the ref moving from one lease commit to the next
    again = local.swap(LEASE, str(lease), "again\n", _signature(), _base(remote), guard_accepts)
    assert again is not None
    run_git(clone, "fetch", "-q", "origin", f"{LEASE}:refs/lease-again")
    run_git(remote, "update-ref", LEASE, str(lease))  # as before the swap
    moved = run_git(clone, "push", "--no-verify", "origin", f"+{again}:{LEASE}", check=False)
    assert moved.returncode == 0, moved.stderr
    assert run_git(remote, "rev-parse", LEASE).stdout.strip() == str(again)


def test_a_lease_the_guard_might_judge_otherwise_is_pushed(
    guarded: tuple[Path, list[Path]],
) -> None:
    """The guard remembers the tip a push deleted and compares a ref pushed again with it:
    once the lease ref held a commit with documents (pushed and deleted through the guard),
    a lease is not its to write in process (NotAccepted: sync pushes it)."""
    remote, clones = guarded
    clone = clones[0]
    run_git(clone, "push", "-q", "origin", f"origin/main:{LEASE}")
    run_git(clone, "push", "-q", "origin", f":{LEASE}")

    with pytest.raises(NotAccepted):
        _local(clone).swap(LEASE, None, "lease\n", _signature(), _base(remote), guard_accepts)

    assert run_git(remote, "rev-parse", "--verify", "-q", LEASE, check=False).returncode != 0


def test_a_lease_on_a_commit_no_ref_reaches_is_pushed_for_the_guard_to_judge(
    guarded: tuple[Path, list[Path]],
) -> None:
    """A commit in the remote's store that no ref reaches (a branch deleted or rewound, an
    object put there by hand) may never have been judged: the guard judges it as a new
    commit of a lease pushed on it, and refuses it when a document in it is broken. Such a
    lease is not written in process (NotAccepted: sync pushes it, for the guard to judge).
    PRODUCT.md "The remote guards itself": a lease ref is no way around the rules."""
    remote, clones = guarded
    theirs = pygit2.Repository(str(remote))
    main = theirs.references["refs/heads/main"].peel(pygit2.Commit)
    memory = theirs.TreeBuilder(main.tree["memory"].id)
    memory.insert("todo.vcontext.json", theirs.create_blob(b"{ not json"), pygit2.GIT_FILEMODE_BLOB)
    top = theirs.TreeBuilder(main.tree)
    top.insert("memory", memory.write(), pygit2.GIT_FILEMODE_TREE)
    sig = _signature()
    stray = theirs.create_commit(None, sig, sig, "broken\n", top.write(), [main.id])
    local = _local(clones[0])

    with pytest.raises(NotAccepted):
        local.swap(LEASE, None, "lease\n", sig, stray, guard_accepts)

    assert run_git(remote, "rev-parse", "--verify", "-q", LEASE, check=False).returncode != 0
    # the same lease through git: the guard refuses it
    lease = local.swap(LEASE, None, "lease\n", sig, stray)  # (no judge: as no hook watched)
    assert lease is not None
    run_git(remote, "update-ref", "-d", LEASE)
    run_git(clones[1], "fetch", "-q", str(remote), str(lease))
    pushed = run_git(clones[1], "push", "--no-verify", "origin", f"{lease}:{LEASE}", check=False)
    assert pushed.returncode != 0
    assert "invalid JSON" in pushed.stderr
    # on the base's history (it moved on since the sync looked): written in process
    moved = theirs.create_commit(None, sig, sig, "on\n", main.tree_id, [main.id])
    theirs.references["refs/heads/main"].set_target(moved)
    assert local.swap(LEASE, None, "lease\n", sig, main.id, guard_accepts) is not None


def _pushes(clone: Path, agent: str, traces: Path) -> tuple[int, dict[str, object]]:
    done = soak.sync(clone, agent, env={soak.TRACE_ROOT: str(traces)})
    assert done["exit"] == 0, done["output"]
    ops = done["ops"]
    assert isinstance(ops, dict)
    return int(ops["push"]), done


@pytest.mark.parametrize("only_guard", [True, False], ids=["guard alone", "another hook"])
def test_sync_takes_the_lease_without_a_push_when_the_guard_alone_watches(
    guarded: tuple[Path, list[Path]], tmp_path: Path, only_guard: bool
) -> None:
    """An agent alone: its round lands in one push (the integration) where the guard alone
    watches, two (the lease with its request, then the integration) with another hook; its
    round is on the base either way, and the lease was released."""
    remote, clones = guarded
    if not only_guard:
        hook = remote / "hooks" / "reference-transaction"
        hook.write_text("#!/bin/sh\nexit 0\n")
        hook.chmod(0o755)
    for i, clone in enumerate(clones):
        agent = f"agent-{i}"
        soak.work(clone, agent, 0, soak.AgentLog(agent))
        work = run_git(clone, "rev-parse", "HEAD").stdout.strip()
        pushes, _ = _pushes(clone, agent, tmp_path / "traces")
        assert pushes == (1 if only_guard else 2)
        landed = run_git(remote, "merge-base", "--is-ancestor", work, "main", check=False)
        assert landed.returncode == 0
    assert run_git(remote, "rev-parse", "--verify", "-q", LEASE, check=False).returncode != 0
    assert run_git(remote, "fsck", "--no-dangling", check=False).returncode == 0
    assert not os.path.exists(remote / "hooks" / "pre-receive.legacy")


def test_a_team_with_a_fixed_clock_agrees_with_the_guard_and_validate(tmp_path: Path) -> None:
    """Three agents, two rounds each, at once, every commit at one fixed time
    (``SOURCE_DATE_EPOCH``, ``GIT_COMMITTER_DATE``: ``clock.commit_time``), leases written
    in process under the guard: every sync exits 0 and nothing is lost (PRODUCT.md "Sync at
    scale"), and what landed is what every other part accepts ("One truth"): git fsck,
    validate, check of the whole base, and a plain push of an agent branch (pre-push hook,
    then the guard)."""
    epoch = "1924992000"  # (2031: later than now, so every commit looks newest)
    env = {"SOURCE_DATE_EPOCH": epoch, "GIT_COMMITTER_DATE": f"@{epoch} +0000"}
    run = soak.soak(tmp_path, 3, 2, guard=True, env=env)

    assert all(s["exit"] == 0 for log in run.logs for s in log.syncs)
    assert all(s["exit"] == 0 for s in run.final_syncs)
    docs = soak.base_documents(run.remote, tmp_path / "end")
    assert soak.lost(run, docs) == {"items": [], "plan_items": [], "events": [], "changes": []}
    assert soak.duplicates(docs) == []
    times = set(run_git(run.remote, "log", "--format=%ct", "--merges", "main").stdout.split())
    assert times == {epoch}  # (the integrations took the fixed time)
    assert run_git(run.remote, "fsck", "--no-dangling", check=False).returncode == 0
    clone = run.clones[0]
    assert soak.vcontext(clone, "validate", check=False).returncode == 0
    root = run_git(run.remote, "rev-list", "--max-parents=0", "main").stdout.split()[0]
    assert soak.vcontext(clone, "check", f"{root}..origin/main", check=False).returncode == 0
    soak.work(clone, "agent-0", 2, soak.AgentLog("agent-0"))
    pushed = run_git(clone, "push", "origin", "HEAD:refs/heads/agents/agent-0", check=False)
    assert pushed.returncode == 0, pushed.stderr


def test_a_guarded_remote_set_as_doctor_advises_loses_nothing(tmp_path: Path) -> None:
    """``doctor`` in a bare repository advises ``git config receive.unpackLimit 1`` (each of
    sync's small pushes kept as the pack it came in); a remote set so, with the guard, takes
    a team's rounds as it takes them with git's default: the pushes arrive packed (the
    guard reads them in its quarantine as packs, not loose objects), no sync gives up,
    nothing is lost, every document validates, and doctor notes nothing more (one truth,
    PRODUCT.md "The remote guards itself", "Sync at scale")."""
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("SOURCE_DATE_EPOCH", raising=False)  # event ids need their entropy
        run = soak.soak(tmp_path, 3, 3, guard=True, remote_config={"receive.unpackLimit": "1"})
    assert run_git(run.remote, "config", "receive.unpackLimit").stdout.strip() == "1"
    outputs = [s["output"] for log in run.logs for s in log.syncs] + [
        s["output"] for s in run.final_syncs
    ]
    exits = [s["exit"] for log in run.logs for s in log.syncs] + [
        s["exit"] for s in run.final_syncs
    ]
    assert exits == [0] * len(exits), [o for o, e in zip(outputs, exits, strict=True) if e]
    assert not [o for o in outputs if "Traceback" in o or "CONFLICT" in o]
    assert soak.last_rounds_missing(run, run.at_end) == []
    fresh = soak.fresh_clone(run, tmp_path)
    docs = soak.documents(fresh)
    assert soak.lost(run, docs) == {"items": [], "plan_items": [], "events": [], "changes": []}
    assert soak.duplicates(docs) == []
    checked = soak.vcontext(fresh, "validate", check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    packs = list((run.remote / "objects" / "pack").glob("*.pack"))
    assert len(packs) > 3, "the pushes were kept as packs"
    doctor = soak.vcontext(run.remote, "doctor", check=False)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "unpackLimit" not in doctor.stdout
