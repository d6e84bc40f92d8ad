"""Two ways past the pre-push hook, closed (issue 31, point 5; PRODUCT.md "Validation").

- Un-routing and breaking in one push: "The hook and the guard take the stricter of the
  commit's routing and the remote's (what the remote already has): a push that un-routes
  a file is still checked for it."
- Deleting a branch and pushing a rewritten one under the same name: compared with what
  the remote had before the deletion, when that is in the same push or known here (the
  remote-tracking ref, or the deletion this clone's hook saw).

A real bare remote, the installed hook, real pushes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import git_vcontext
from helpers.pre_push import (
    bare_remote,
    commit,
    event,
    installed_and_pushed,
    playbook,
    push,
    remote_sha,
    write,
)
from helpers.run import run_git

VBRIEF = "vbrief/pb.json"
ROUTE = "vbrief/*.json merge=vcontext\n"


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook git starts must import the code under test (absolute path: git changes cwd)."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return bare_remote(tmp_path)


@pytest.fixture
def routed(git_repo: Path, remote: Path) -> Path:
    """main on the remote routes vbrief/*.json to the driver and holds vbrief/pb.json with
    two events."""
    repo = installed_and_pushed(git_repo, remote)
    attributes = repo / ".gitattributes"
    attributes.write_text(attributes.read_text() + ROUTE)
    write(repo, VBRIEF, playbook(event("e1", "first"), event("e2", "second")))
    commit(repo, "route vbrief/ and keep a playbook there")
    assert push(repo, "origin", "main").returncode == 0
    return repo


def _unroute(repo: Path) -> None:
    attributes = repo / ".gitattributes"
    attributes.write_text(attributes.read_text().replace(ROUTE, ""))


def test_validation_a_commit_that_unroutes_a_file_and_drops_its_event_is_refused(
    routed: Path, remote: Path
) -> None:
    before = remote_sha(remote, "main")
    _unroute(routed)
    write(routed, VBRIEF, playbook(event("e1", "first")))  # e2 dropped in the same commit
    bad = commit(routed, "un-route vbrief/ and drop an event")

    proc = push(routed, "origin", "main")

    assert proc.returncode == 1, proc.stderr
    assert f"{VBRIEF}:" in proc.stderr
    assert "[history-event-removed]" in proc.stderr
    assert bad[:10] in proc.stderr
    assert remote_sha(remote, "main") == before


def test_validation_un_routing_first_then_dropping_the_event_in_one_push_is_refused(
    routed: Path, remote: Path
) -> None:
    _unroute(routed)
    commit(routed, "un-route vbrief/")
    write(routed, VBRIEF, playbook(event("e1", "first")))
    commit(routed, "then drop an event")

    proc = push(routed, "origin", "main")

    assert proc.returncode == 1, proc.stderr
    assert "[history-event-removed]" in proc.stderr


def test_validation_un_routing_a_file_without_breaking_it_is_pushed(
    routed: Path, remote: Path
) -> None:
    _unroute(routed)
    write(routed, VBRIEF, playbook(event("e1", "first"), event("e2", "second"), event("e3", "3")))
    head = commit(routed, "un-route vbrief/, add an event")

    proc = push(routed, "origin", "main")

    assert proc.returncode == 0, proc.stderr
    assert remote_sha(remote, "main") == head


def _feature(repo: Path) -> str:
    """A branch ``feature`` on the remote whose playbook has a second event."""
    run_git(repo, "switch", "-q", "-c", "feature")
    write(repo, "memory/playbook.vcontext.json", playbook(event("e1", "first"), event("e2", "2")))
    tip = commit(repo, "feature: a second lesson")
    assert push(repo, "origin", "feature").returncode == 0
    return tip


def _rewrite_without_the_event(repo: Path) -> None:
    run_git(repo, "reset", "-q", "--hard", "main")
    write(repo, "memory/playbook.vcontext.json", playbook(event("e1", "first"), event("e3", "3")))
    commit(repo, "feature, rewritten: e2 is gone")


def test_validation_a_branch_deleted_then_pushed_rewritten_is_compared_with_its_old_tip(
    git_repo: Path, remote: Path
) -> None:
    repo = installed_and_pushed(git_repo, remote)
    old = _feature(repo)
    assert push(repo, "origin", ":feature").returncode == 0  # git drops origin/feature too
    assert remote_sha(remote, "feature") is None
    _rewrite_without_the_event(repo)

    proc = push(repo, "origin", "feature")

    assert proc.returncode == 1, proc.stderr
    assert "[history-event-removed]" in proc.stderr
    assert f"forced update from {old[:10]}" in proc.stderr
    assert remote_sha(remote, "feature") is None


def test_validation_a_branch_deleted_elsewhere_is_compared_with_the_remote_tracking_ref(
    git_repo: Path, remote: Path, tmp_path: Path
) -> None:
    repo = installed_and_pushed(git_repo, remote)
    _feature(repo)
    other = tmp_path / "other"
    run_git(tmp_path, "clone", "-q", str(remote), str(other))
    run_git(other, "push", "-q", "origin", ":feature")  # (no hook there)
    assert run_git(repo, "rev-parse", "origin/feature").returncode == 0  # still known here
    _rewrite_without_the_event(repo)

    proc = push(repo, "origin", "feature")

    assert proc.returncode == 1, proc.stderr
    assert "[history-event-removed]" in proc.stderr


def test_validation_a_deleted_branch_pushed_again_with_its_history_kept_is_pushed(
    git_repo: Path, remote: Path
) -> None:
    repo = installed_and_pushed(git_repo, remote)
    _feature(repo)
    assert push(repo, "origin", ":feature").returncode == 0
    events = (event("e1", "first"), event("e2", "2"), event("e4", "4"))
    write(repo, "memory/playbook.vcontext.json", playbook(*events))
    head = commit(repo, "feature goes on")

    proc = push(repo, "origin", "feature")

    assert proc.returncode == 0, proc.stderr
    assert remote_sha(remote, "feature") == head
