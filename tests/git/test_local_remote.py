"""``sync --push`` reads a remote on this machine in process (PRODUCT.md, "Sync at scale": the
cost of each look at the remote). The in-process fetch and ref listing must give what
``git fetch`` and ``git ls-remote`` give, leave FETCH_HEAD alone, and step aside (None)
for everything that is not a plain local repository. Real repositories, real git.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pygit2
import pytest

from git_vcontext.gitio import remote as remotes
from git_vcontext.gitio.localremote import LocalRemote
from git_vcontext.remote.view import RemoteView
from helpers.run import run_git

NS = "refs/vcontext/remotes/origin/"


def _refs(repo: Path, prefix: str) -> dict[str, str]:
    out = run_git(repo, "for-each-ref", "--format=%(refname) %(objectname)", prefix).stdout
    return dict(line.split(" ", 1) for line in out.splitlines())


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A bare remote with main, two agent branches and a request ref; two clones of it."""
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    work = tmp_path / "work"
    run_git(tmp_path, "init", "-q", "-b", "main", str(work))
    for name, value in (("user.name", "T"), ("user.email", "t@example.com")):
        run_git(work, "config", name, value)
    (work / "a.txt").write_text("a\n")
    run_git(work, "add", "-A")
    run_git(work, "commit", "-q", "-m", "a")
    run_git(work, "push", "-q", str(remote), "main", "main:agents/x")
    run_git(work, "push", "-q", str(remote), "main:refs/vcontext/sync/main/agents/x")
    (work / "a.txt").write_text("b\n")
    run_git(work, "commit", "-q", "-am", "b")
    run_git(work, "push", "-q", str(remote), "main:agents/y")
    clones = []
    for name in ("git-clone", "in-process"):
        clone = tmp_path / name
        run_git(tmp_path, "clone", "-q", str(remote), str(clone))
        clones.append(clone)
    return remote, clones[0], clones[1]


SPECS = [
    f"+refs/heads/main:{NS}heads/main",
    f"+refs/heads/agents/y:{NS}heads/agents/y",
    f"+refs/heads/agents/gone:{NS}heads/agents/gone",
    f"+refs/vcontext/sync/main/*:{NS}sync/main/*",
]


def test_in_process_fetch_gives_what_git_fetch_gives(pair: tuple[Path, Path, Path]) -> None:
    _, by_git, in_process = pair
    (by_git / ".git" / "FETCH_HEAD").write_text("kept\n")
    (in_process / ".git" / "FETCH_HEAD").write_text("kept\n")
    local = LocalRemote.find(pygit2.Repository(str(in_process)), "origin")
    assert local is not None

    missing_git = remotes.fetch(str(by_git), "origin", SPECS, prune=True)
    missing_here = local.fetch(SPECS, prune=True)

    assert missing_here == missing_git == ["refs/heads/agents/gone"]
    assert _refs(in_process, NS) == _refs(by_git, NS)
    assert len(_refs(in_process, NS)) == 3
    assert (in_process / ".git" / "FETCH_HEAD").read_text() == "kept\n"
    # the objects came along: git can read the fetched commits
    run_git(in_process, "cat-file", "-e", f"{NS}heads/agents/y^{{tree}}")


def test_in_process_fetch_prunes_what_the_remote_deleted(pair: tuple[Path, Path, Path]) -> None:
    remote, by_git, in_process = pair
    local = LocalRemote.find(pygit2.Repository(str(in_process)), "origin")
    assert local is not None
    for clone in (by_git, in_process):
        run_git(clone, "update-ref", f"{NS}sync/main/agents/old", "HEAD")
    run_git(remote, "update-ref", "-d", "refs/vcontext/sync/main/agents/x")

    remotes.fetch(str(by_git), "origin", SPECS, prune=True)
    local.fetch(SPECS, prune=True)

    assert _refs(in_process, NS) == _refs(by_git, NS)
    assert not [r for r in _refs(in_process, NS) if "/sync/" in r]


def test_in_process_listing_gives_what_ls_remote_gives(pair: tuple[Path, Path, Path]) -> None:
    remote, by_git, in_process = pair
    names = ["refs/heads/main", "refs/vcontext/sync/main/agents/x", "refs/heads/nope"]
    local = LocalRemote.find(pygit2.Repository(str(in_process)), "origin")
    assert local is not None
    assert local.list_refs(names) == remotes.list_refs(str(by_git), "origin", names)
    run_git(remote, "update-ref", "-d", "refs/vcontext/sync/main/agents/x")  # seen at once
    assert local.list_refs(names) == remotes.list_refs(str(by_git), "origin", names)
    assert "refs/vcontext/sync/main/agents/x" not in local.list_refs(names)


def test_refs_to_blobs_and_tags_come_over_as_with_git(pair: tuple[Path, Path, Path]) -> None:
    """A marker blob (``install --server`` leaves one) and an annotated tag: the same refs
    and objects as git fetch brings."""
    remote, by_git, in_process = pair
    (remote / "mark").write_text("mark\n")
    blob = run_git(remote, "hash-object", "-w", "mark").stdout.strip()
    run_git(remote, "update-ref", "refs/vcontext/sync/main/mark", blob)
    run_git(by_git, "tag", "-a", "-m", "tagged", "v1", "origin/agents/y")
    run_git(by_git, "push", "-q", "origin", "v1")
    specs = [*SPECS, f"+refs/tags/*:{NS}tags/*"]
    local = LocalRemote.find(pygit2.Repository(str(in_process)), "origin")
    assert local is not None

    assert local.fetch(specs, prune=True) == remotes.fetch(str(by_git), "origin", specs, prune=True)

    assert _refs(in_process, NS) == _refs(by_git, NS)
    run_git(in_process, "cat-file", "-e", f"{NS}sync/main/mark")
    run_git(in_process, "cat-file", "-e", f"{NS}tags/v1^{{commit}}")
    assert run_git(in_process, "fsck", "--connectivity-only", check=False).returncode == 0


def test_a_ref_to_a_tree_is_left_to_git(pair: tuple[Path, Path, Path]) -> None:
    remote, _, in_process = pair
    tree = run_git(remote, "rev-parse", "main^{tree}").stdout.strip()
    run_git(remote, "update-ref", "refs/vcontext/sync/main/tree", tree)
    local = LocalRemote.find(pygit2.Repository(str(in_process)), "origin")
    assert local is not None
    assert local.fetch(SPECS, prune=True) is None


@pytest.mark.parametrize(
    ("url", "found"),
    [
        ("{remote}", True),
        ("file://{remote}", True),
        ("file://localhost{remote}", True),
        ("ssh://example.invalid/remote.git", False),
        ("example.invalid:remote.git", False),
        ("https://example.invalid/remote.git", False),
        ("remote.git", False),  # relative: git resolves it against its own directory
        ("{remote}-missing", False),
    ],
)
def test_only_a_local_repository_is_read_in_process(
    pair: tuple[Path, Path, Path], url: str, found: bool
) -> None:
    remote, _, in_process = pair
    run_git(in_process, "remote", "set-url", "origin", url.format(remote=remote))
    assert (LocalRemote.find(pygit2.Repository(str(in_process)), "origin") is not None) is found


def test_a_path_given_instead_of_a_remote_name_is_read_in_process(
    pair: tuple[Path, Path, Path],
) -> None:
    remote, _, in_process = pair
    assert LocalRemote.find(pygit2.Repository(str(in_process)), str(remote)) is not None


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("vcontext.inProcessFetch", "false"),
        ("remote.origin.uploadpack", "git-upload-pack"),
        ("remote.origin.vcs", "mirror"),
    ],
)
def test_configuration_sends_sync_back_to_git(
    pair: tuple[Path, Path, Path], key: str, value: str
) -> None:
    """``vcontext.inProcessFetch=false`` (or an upload-pack of the remote's own, or a
    remote helper, ``remote.<name>.vcs``: git talks to ``git-remote-mirror``, not to the
    path, as ``transport.remote_config`` reads it) keeps every fetch and look in git's
    hands: no lease written past what git would reach."""
    _, _, in_process = pair
    run_git(in_process, "config", key, value)
    assert LocalRemote.find(pygit2.Repository(str(in_process)), "origin") is None


def test_url_instead_of_is_followed(pair: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """``url.<base>.insteadOf`` rewrites the URL first, as git does."""
    remote, _, in_process = pair
    run_git(in_process, "remote", "set-url", "origin", "shared:remote.git")
    run_git(in_process, "config", f"url.{tmp_path}/.insteadOf", "shared:")
    local = LocalRemote.find(pygit2.Repository(str(in_process)), "origin")
    assert local is not None
    assert local.path == remote


def _signature() -> pygit2.Signature:
    return pygit2.Signature("T", "t@example.com", 0, 0)


def test_swap_is_a_compare_and_swap_of_the_remote_ref(pair: tuple[Path, Path, Path]) -> None:
    """The lease: created only when absent, replaced only from the value the caller saw."""
    remote, _, in_process = pair
    local = LocalRemote.find(pygit2.Repository(str(in_process)), "origin")
    assert local is not None
    assert local.may_write_refs()
    name = "refs/vcontext/lease/main"

    first = local.swap(name, None, "lease one\n", _signature())
    assert first is not None
    assert _refs(remote, name) == {name: str(first)}
    assert local.swap(name, None, "lease two\n", _signature()) is None  # it exists now
    stale = run_git(remote, "rev-parse", "main").stdout.strip()
    assert local.swap(name, stale, "lease two\n", _signature()) is None  # not what it holds
    second = local.swap(name, str(first), "lease two\n", _signature())
    assert second is not None
    assert _refs(remote, name) == {name: str(second)}
    message = run_git(remote, "log", "-1", "--format=%B", name).stdout
    assert message.strip() == "lease two"


def test_swap_writes_the_lease_on_the_base_it_was_taken_on(pair: tuple[Path, Path, Path]) -> None:
    """remote/refs.py's lease commit, written in process as over git: its parent the base's
    tip, its tree that tip's (it changes no file: an empty tree would read as every
    document deleted); without a base, a root commit of the empty tree. git fsck clean."""
    remote, _, in_process = pair
    local = LocalRemote.find(pygit2.Repository(str(in_process)), "origin")
    assert local is not None
    base = run_git(remote, "rev-parse", "main").stdout.strip()

    lease = local.swap(
        "refs/vcontext/lease/main", None, "lease\n", _signature(), pygit2.Oid(hex=base)
    )
    alone = local.swap("refs/vcontext/lease/other", None, "lease\n", _signature())

    assert lease is not None
    assert alone is not None
    shown = run_git(remote, "log", "-1", "--format=%P %T", str(lease)).stdout.split()
    assert shown == [base, run_git(remote, "rev-parse", "main^{tree}").stdout.strip()]
    root = run_git(remote, "log", "-1", "--format=%P|%T", str(alone)).stdout.strip()
    assert root == "|4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    assert run_git(remote, "fsck", "--no-dangling", check=False).returncode == 0


def _looking_clone(pair: tuple[Path, Path, Path], in_process: bool) -> tuple[Path, Path]:
    """The remote and the clone a look reads it from: in process, or through git
    (``vcontext.inProcessFetch=false``)."""
    remote, by_git, here = pair
    clone = here if in_process else by_git
    if not in_process:
        run_git(clone, "config", "vcontext.inProcessFetch", "false")
    return remote, clone


def _branch_of_its_own(remote: Path, branch: str) -> str:
    """A commit only ``branch`` has (a file of its own on main's tip), pushed there; its id."""
    work = remote.parent / "work"
    (work / f"{branch}.txt").write_text(f"{branch} only\n")
    run_git(work, "add", "-A")
    run_git(work, "commit", "-q", "-m", f"{branch} only")
    tip = run_git(work, "rev-parse", "HEAD").stdout.strip()
    run_git(work, "push", "-q", str(remote), f"{tip}:refs/heads/{branch}")
    return tip


def _lease_on(remote: Path, tip: str) -> str:
    """A lease commit on ``tip`` (its tree, ``tip`` its parent), as remote/refs.py writes one."""
    tree = run_git(remote, "rev-parse", f"{tip}^{{tree}}").stdout.strip()
    return run_git(remote, "commit-tree", tree, "-p", tip, "-m", "lease").stdout.strip()


@pytest.mark.parametrize("in_process", [True, False], ids=["in process", "through git"])
def test_a_look_fetches_its_own_base_s_lease_not_another_base_s_history(
    pair: tuple[Path, Path, Path], in_process: bool
) -> None:
    """remote/view.py: sync's look fetches its base's lease, not every base's: a lease
    commit sits on its base's tip (remote/refs.py), so another base's lease would bring that
    base's history into every clone that syncs this one."""
    remote, clone = _looking_clone(pair, in_process)
    release = _branch_of_its_own(remote, "release")
    for base, tip in (("main", "main"), ("release", release)):
        run_git(remote, "update-ref", f"refs/vcontext/lease/{base}", _lease_on(remote, tip))
    repo = pygit2.Repository(str(clone))
    view = RemoteView(repo, str(clone), "origin", "main", ["agents/x"])
    assert (view.local is not None) == in_process

    snap = view.fetch()

    assert snap.lease_id is not None
    assert (
        str(snap.lease_id)
        == run_git(remote, "rev-parse", "refs/vcontext/lease/main").stdout.strip()
    )
    assert list(_refs(clone, f"{NS}lease/")) == [f"{NS}lease/main"]
    assert run_git(clone, "cat-file", "-e", release, check=False).returncode != 0


@pytest.mark.parametrize(
    "setup",
    [
        "hooks/pre-receive",
        "hooks/update",
        "hooks/reference-transaction",
        "hooks/proc-receive",
        "shared",
    ],
)
def test_a_remote_that_watches_or_shares_its_refs_is_written_by_git_only(
    pair: tuple[Path, Path, Path], setup: str
) -> None:
    remote, _, in_process = pair
    if setup == "shared":
        run_git(remote, "config", "core.sharedRepository", "group")
    else:
        hook = remote / setup
        hook.write_text("#!/bin/sh\nexit 0\n")
        hook.chmod(0o755)
    local = LocalRemote.find(pygit2.Repository(str(in_process)), "origin")
    assert local is not None  # still read in process
    assert not local.may_write_refs()


def test_a_dangling_or_vanished_ref_is_skipped_as_git_fetch_skips_it(
    pair: tuple[Path, Path, Path],
) -> None:
    """A ref the remote lists but cannot resolve (deleted as we read, or a symbolic ref to
    nothing) is not there: the fetch goes on, as git fetch's does."""
    remote, by_git, in_process = pair
    run_git(remote, "symbolic-ref", "refs/vcontext/sync/main/agents/ghost", "refs/heads/none")
    local = LocalRemote.find(pygit2.Repository(str(in_process)), "origin")
    assert local is not None

    missing = local.fetch(SPECS, prune=True)

    assert missing == remotes.fetch(str(by_git), "origin", SPECS, prune=True)
    assert _refs(in_process, NS) == _refs(by_git, NS)


def test_the_remote_tracking_branches_follow_as_with_git_fetch(
    pair: tuple[Path, Path, Path],
) -> None:
    remote, by_git, in_process = pair
    work = remote.parent / "work"
    (work / "a.txt").write_text("c\n")
    run_git(work, "commit", "-q", "-am", "c")
    run_git(work, "push", "-q", str(remote), "HEAD:main")
    local = LocalRemote.find(pygit2.Repository(str(in_process)), "origin")
    assert local is not None

    local.fetch(SPECS, prune=True)
    remotes.fetch(str(by_git), "origin", SPECS, prune=True)

    tracking = "refs/remotes/origin/main"
    assert _refs(in_process, tracking) == _refs(by_git, tracking)
    assert (
        _refs(in_process, tracking)[tracking] == run_git(remote, "rev-parse", "main").stdout.strip()
    )


def test_a_swap_that_cannot_win_writes_nothing_into_the_remote(
    pair: tuple[Path, Path, Path],
) -> None:
    remote, _, in_process = pair
    local = LocalRemote.find(pygit2.Repository(str(in_process)), "origin")
    assert local is not None
    name = "refs/vcontext/lease/main"
    assert local.swap(name, None, "lease one\n", _signature()) is not None
    objects = run_git(remote, "count-objects", "-v").stdout

    assert local.swap(name, None, "lease two\n", _signature()) is None

    assert run_git(remote, "count-objects", "-v").stdout == objects


def test_a_stale_lock_on_the_lease_left_by_a_killed_process_is_removed(
    pair: tuple[Path, Path, Path],
) -> None:
    """A lock file left by a killed process on the lease (a ref only sync writes) is taken
    away once stale (issue 31 point 9): the swap goes through instead of blocking every
    later sync."""
    remote, _, in_process = pair
    lock = remote / "refs" / "vcontext" / "lease" / "main.lock"
    lock.parent.mkdir(parents=True)
    lock.write_text("")
    old = time.time() - 60
    os.utime(lock, (old, old))
    local = LocalRemote.find(pygit2.Repository(str(in_process)), "origin")
    assert local is not None

    assert local.swap("refs/vcontext/lease/main", None, "lease\n", _signature()) is not None

    assert not lock.exists()
    assert run_git(remote, "rev-parse", "--verify", "-q", "refs/vcontext/lease/main").stdout


def test_a_directory_inside_a_repository_is_not_that_repository(
    pair: tuple[Path, Path, Path],
) -> None:
    """git takes a remote path as it is (no search upwards): a folder of a work tree is no
    remote, so it is left to git, which says so."""
    _, by_git, in_process = pair
    (by_git / "sub").mkdir()
    run_git(in_process, "remote", "set-url", "origin", str(by_git / "sub"))
    assert LocalRemote.find(pygit2.Repository(str(in_process)), "origin") is None


def test_a_tag_of_a_tag_is_left_to_git(pair: tuple[Path, Path, Path]) -> None:
    _, by_git, in_process = pair
    run_git(by_git, "tag", "-a", "-m", "inner", "inner", "origin/main")
    run_git(by_git, "tag", "-a", "-m", "outer", "outer", "inner")
    run_git(by_git, "push", "-q", "origin", "outer")
    local = LocalRemote.find(pygit2.Repository(str(in_process)), "origin")
    assert local is not None
    assert local.fetch([f"+refs/tags/*:{NS}tags/*"], prune=True) is None


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("remote.origin.pushurl", "/elsewhere.git"),
        ("remote.origin.receivepack", "git-receive-pack"),
        ("url./elsewhere/.pushInsteadOf", "/"),
    ],
)
def test_pushes_that_may_go_elsewhere_take_the_lease_by_push(
    pair: tuple[Path, Path, Path], key: str, value: str
) -> None:
    """The lease is released by the integration's push: it must be taken where that push
    goes, so a push URL, a push rewrite or a receive-pack of the remote's own keep it a
    push."""
    _, _, in_process = pair
    run_git(in_process, "config", key, value)
    local = LocalRemote.find(pygit2.Repository(str(in_process)), "origin")
    assert local is not None
    assert not local.may_write_refs()


@pytest.mark.parametrize(
    ("key", "value"),
    [("remote.origin.pushurl", "/elsewhere.git"), ("url./elsewhere/.pushInsteadOf", "/")],
)
def test_pushes_that_may_go_elsewhere_by_git_dash_c_take_the_lease_by_push(
    pair: tuple[Path, Path, Path], key: str, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same given to one command (``git -c KEY=VALUE vcontext sync …``): pygit2 does
    not see ``GIT_CONFIG_PARAMETERS``; git's push would go elsewhere all the same."""
    _, _, in_process = pair
    quoted = f"'{key}'='{value}'"  # as git writes it (no quote in these values)
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", quoted)
    local = LocalRemote.find(pygit2.Repository(str(in_process)), "origin")
    assert local is not None
    assert not local.may_write_refs()


@pytest.mark.parametrize("in_process", [True, False], ids=["in process", "through git"])
def test_a_base_never_reads_the_lease_of_a_base_whose_name_starts_with_its_own(
    pair: tuple[Path, Path, Path], in_process: bool
) -> None:
    """remote/view.py: bases ``main`` and ``mainline`` on one remote. A look for ``main``
    fetches neither ``mainline``'s lease nor the history it sits on, whether ``main``'s
    lease is there or not (the lease glob ``lease/main*`` matched ``mainline`` too)."""
    remote, clone = _looking_clone(pair, in_process)
    mainline = _branch_of_its_own(remote, "mainline")
    other = _lease_on(remote, mainline)
    run_git(remote, "update-ref", "refs/vcontext/lease/mainline", other)
    run_git(remote, "update-ref", "refs/vcontext/lease/main.x", other)
    repo = pygit2.Repository(str(clone))
    view = RemoteView(repo, str(clone), "origin", "main", ["agents/x"])
    assert (view.local is not None) == in_process

    free = view.fetch()

    assert free.lease_id is None
    assert list(_refs(clone, f"{NS}lease/")) == []
    assert run_git(clone, "cat-file", "-e", mainline, check=False).returncode != 0
    own = _lease_on(remote, run_git(remote, "rev-parse", "main").stdout.strip())
    run_git(remote, "update-ref", "refs/vcontext/lease/main", own)

    held = view.fetch()

    assert str(held.lease_id) == own
    assert list(_refs(clone, f"{NS}lease/")) == [f"{NS}lease/main"]
    assert run_git(clone, "cat-file", "-e", mainline, check=False).returncode != 0
    run_git(remote, "update-ref", "-d", "refs/vcontext/lease/main")
    assert view.fetch().lease_id is None  # released: gone here too


@pytest.mark.parametrize("base", ["main@", "main", "ü", "-x", "a.b", "x{"])
def test_a_looks_lease_refspecs_are_ones_git_takes_for_any_branch_name(
    tmp_path: Path, base: str
) -> None:
    """remote/view.py ``lease_specs``: for any name git allows a branch (``main@``: a
    negative refspec ``^…/lease/main@{*`` is one git refuses, and the look fetched twice,
    the second time every lease whose base's name starts with this one's), one fetch
    through git brings this base's lease and no other's (PRODUCT.md "Sync at scale": a
    look costs one fetch)."""
    from git_vcontext.remote import refs as leases
    from git_vcontext.remote.view import lease_specs

    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", str(remote))
    tree = run_git(remote, "hash-object", "-t", "tree", "-w", "/dev/null").stdout.strip()
    commit = run_git(remote, "commit-tree", tree, "-m", "lease").stdout.strip()
    for name in (base, f"{base}x", f"{base}@x", f"{base}.x", f"{base}/x"):
        run_git(remote, "update-ref", leases.lease_ref(name), commit)
    here = tmp_path / "here"
    run_git(tmp_path, "init", "-q", str(here))

    fetched = run_git(here, "fetch", "-q", str(remote), *lease_specs(base, NS), check=False)

    assert fetched.returncode == 0, fetched.stderr
    assert list(_refs(here, f"{NS}lease/")) == [f"{NS}lease/{leases.encode_base(base)}"]
