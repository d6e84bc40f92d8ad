"""The remote-tracking refs an in-process look moves (``gitio.localremote.update_tracking``,
for a remote on this machine and over HTTP) move as ``git fetch`` moves them: a fetch
refspec without ``+`` only fast-forwards (git refuses the rest: "! [rejected]
(non-fast-forward)"), and a ref is moved only from the value the look read, never back
over what a concurrent ``git fetch`` of the user wrote meanwhile (compare-and-swap).

PRODUCT.md, "Sync at scale" (transports): over any transport sync does what git would do;
"nothing lost" (a newer ``origin/main`` a user fetched is not taken back). Before, both
looks set these refs unconditionally. Real git, a bare remote on disk or behind
``git http-backend`` (the ``http`` fixture).
"""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from git_vcontext.gitio import refs
from git_vcontext.gitio.httpremote import HttpRemote
from git_vcontext.gitio.localremote import LocalRemote
from helpers.run import run_git

NS = "refs/vcontext/remotes/origin/"
SPECS = [f"+refs/heads/main:{NS}heads/main"]  # sync's own refs: always forced
TRACKING = "refs/remotes/origin/main"


def _commit(work: Path, message: str, *, amend: bool = False) -> str:
    run_git(work, "commit", "-q", "--allow-empty", *(["--amend"] if amend else []), "-m", message)
    return run_git(work, "rev-parse", "HEAD").stdout.strip()


def _setup(tmp_path: Path, request: pytest.FixtureRequest, how: str) -> tuple[Path, Path, str]:
    """(the work repository that pushes to the bare remote ``srv/remote.git``, a clone of
    that remote (over ``how``) whose origin/main is the first commit, the first commit);
    a second clone beside it, ``by-git``, for git's own fetch."""
    srv = tmp_path / "srv"
    if how == "http":
        front = request.getfixturevalue("http")  # (it makes tmp_path/srv)
    else:
        srv.mkdir()
    remote = srv / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    work = tmp_path / "work"
    run_git(tmp_path, "init", "-q", "-b", "main", str(work))
    for name, value in (("user.name", "T"), ("user.email", "t@example.com")):
        run_git(work, "config", name, value)
    first = _commit(work, "a")
    run_git(work, "push", "-q", str(remote), "main")
    url = front.url(remote) if how == "http" else str(remote)
    clone = tmp_path / "clone"
    for name in ("clone", "by-git"):
        run_git(tmp_path, "clone", "-q", url, str(tmp_path / name))
    assert run_git(clone, "rev-parse", TRACKING).stdout.strip() == first
    return work, clone, first


def _look(clone: Path, how: str) -> LocalRemote | HttpRemote:
    repo = pygit2.Repository(str(clone))
    found = (HttpRemote if how == "http" else LocalRemote).find(repo, "origin")
    assert found is not None  # read in process
    return found


def _moved_as(clone: Path) -> str:
    """How origin/main's last reflog entry says it moved (git: "fetch ARGS: fast-forward":
    the action after the last ": ")."""
    said = run_git(clone, "reflog", "-1", "--format=%gs", TRACKING).stdout.strip()
    return said.rsplit(": ", 1)[-1]


def _tip(clone: Path, name: str) -> str:
    return run_git(clone, "rev-parse", name).stdout.strip()


@pytest.mark.parametrize("how", ["path", "http"])
@pytest.mark.parametrize("forced", [False, True], ids=["no +", "+"])
@pytest.mark.parametrize("rewritten", [False, True], ids=["advanced", "rewritten"])
def test_a_look_moves_origin_main_as_the_remotes_fetch_refspec_lets_git(
    tmp_path: Path, request: pytest.FixtureRequest, how: str, forced: bool, rewritten: bool
) -> None:
    """origin's main advanced or rewritten; the remote's fetch refspec with or without
    ``+``: sync's own ref always takes the remote's main, origin/main only where git's
    fetch moves it (the same fetch through git, beside, says so)."""
    work, clone, first = _setup(tmp_path, request, how)
    spec = f"{'+' if forced else ''}refs/heads/*:refs/remotes/origin/*"
    by_git = tmp_path / "by-git"
    for repo in (clone, by_git):
        run_git(repo, "config", "--replace-all", "remote.origin.fetch", spec)
    now = _commit(work, "b", amend=rewritten)
    run_git(work, "push", "-q", "-f", str(tmp_path / "srv" / "remote.git"), "main")

    _look(clone, how).fetch(SPECS)
    run_git(by_git, "fetch", "-q", "origin", *SPECS, check=False)  # (exit 1 when it refuses)

    assert _tip(clone, f"{NS}heads/main") == now
    moves = forced or not rewritten
    assert _tip(clone, TRACKING) == (now if moves else first)
    assert _tip(clone, TRACKING) == _tip(by_git, TRACKING)
    # the reflog names the move as git's fetch names it: "fast-forward" whenever the old
    # tip is in the new one's history, "forced-update" only for a rewrite under + (before:
    # every move under + said forced-update; the corpus review's sync --push did)
    assert _moved_as(clone) == _moved_as(by_git)
    if moves:
        assert _moved_as(clone) == ("forced-update" if rewritten else "fast-forward")


@pytest.mark.parametrize("how", ["path", "http"])
def test_a_look_never_moves_origin_main_back_over_a_concurrent_git_fetch(
    tmp_path: Path, request: pytest.FixtureRequest, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The look reads origin/main (the first commit) to move it to the remote's main as it
    saw it (b); between that read and its write the user's ``git fetch`` sets origin/main
    to the newer c. The look leaves c (before: it set b, taking c back)."""
    work, clone, _ = _setup(tmp_path, request, how)
    remote = str(tmp_path / "srv" / "remote.git")
    seen = _commit(work, "b")
    newer = _commit(work, "c")
    run_git(work, "push", "-q", remote, f"{seen}:refs/heads/main", f"{newer}:refs/heads/later")
    run_git(clone, "fetch", "-q", "origin", "later")  # (c's objects here, for the user's ref)
    look = _look(clone, how)
    read = refs.target

    raced: list[str] = []

    def racing(repo: pygit2.Repository, name: str) -> pygit2.Oid | None:
        found = read(repo, name)
        if name == TRACKING:  # the user's fetch, just after the look read the ref
            run_git(clone, "update-ref", TRACKING, newer)
            raced.append(name)
        return found

    monkeypatch.setattr(refs, "target", racing)

    look.fetch(SPECS)

    assert _tip(clone, f"{NS}heads/main") == seen
    assert _tip(clone, TRACKING) == newer
    assert raced == [TRACKING]  # (the look read it once, before its write)


@pytest.mark.parametrize("how", ["path", "http"])
def test_a_look_moves_the_tracking_refs_of_a_fetch_refspec_given_with_git_dash_c(
    tmp_path: Path, request: pytest.FixtureRequest, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``git -c remote.origin.fetch=…`` (git hands it on in the environment) adds a fetch
    refspec that git's fetch follows: the look reads the remote's refspecs as git does
    (``configread``), not as libgit2 (which sees no ``git -c``), so both move
    ``refs/remotes/mirror/main`` alike ("Sync at scale": over any transport sync does what
    git would do)."""
    work, clone, _ = _setup(tmp_path, request, how)
    now = _commit(work, "b")
    run_git(work, "push", "-q", str(tmp_path / "srv" / "remote.git"), "main")
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "remote.origin.fetch")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "+refs/heads/*:refs/remotes/mirror/*")
    by_git = tmp_path / "by-git"

    _look(clone, how).fetch(SPECS)
    run_git(by_git, "fetch", "-q", "origin", *SPECS)

    assert _tip(by_git, "refs/remotes/mirror/main") == now  # (what git does)
    assert _tip(clone, "refs/remotes/mirror/main") == now
    assert _tip(clone, TRACKING) == now


@pytest.mark.parametrize("how", ["path", "http"])
def test_a_look_reads_the_remotes_fetch_refspecs_once_for_all_its_refs(
    tmp_path: Path, request: pytest.FixtureRequest, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A look that brings several refs (the base and agents' requests, as sync's) reads
    ``remote.origin.fetch`` once, as git's fetch reads it once per command: each read of
    the settings checks every file they came from (seven ``stat`` calls, ~0.2 ms on a busy
    machine), and a sync's looks bring a ref per agent waiting (before: one read per ref).
    Every tracking ref still moves as git's fetch moves it."""
    from git_vcontext.gitio import configread

    work, clone, _ = _setup(tmp_path, request, how)
    remote = str(tmp_path / "srv" / "remote.git")
    now = _commit(work, "b")
    agents = [f"refs/heads/agents/a{i}" for i in range(4)]
    run_git(work, "push", "-q", remote, "main", *(f"main:{a}" for a in agents))
    by_git = tmp_path / "by-git"
    specs = [*SPECS, f"+refs/heads/agents/*:{NS}heads/agents/*"]
    read = configread.entries
    reads: list[str] = []

    def counted(cwd: str, *, given: bool = True) -> tuple[tuple[str, str | None], ...]:
        reads.append(cwd)
        return read(cwd, given=given)

    look = _look(clone, how)
    monkeypatch.setattr(configread, "entries", counted)

    look.fetch(specs)
    run_git(by_git, "fetch", "-q", "origin", *specs)

    assert len(reads) == 1
    for name in (TRACKING, *(a.replace("refs/heads/", "refs/remotes/origin/") for a in agents)):
        assert _tip(clone, name) == now == _tip(by_git, name)
