"""Ref moves with an old-value check, and the sync plan that commits them all or none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pygit2
import pytest

from git_vcontext.gitio import refs
from git_vcontext.sync.syncer import MERGED, Syncer
from helpers.run import run_git


def _commit(repo: Path, name: str, text: str, message: str) -> str:
    (repo / name).write_text(text)
    run_git(repo, "add", name)
    run_git(repo, "commit", "-qm", message)
    return run_git(repo, "rev-parse", "HEAD").stdout.strip()


def test_move_refs_moves_all_when_every_old_value_holds(git_repo: Path) -> None:
    first = _commit(git_repo, "a.txt", "1\n", "one")
    second = _commit(git_repo, "a.txt", "2\n", "two")
    run_git(git_repo, "branch", "other", first)
    repo = pygit2.Repository(str(git_repo))
    refs.move_refs(
        repo,
        [
            refs.RefUpdate("refs/heads/main", pygit2.Oid(hex=second), pygit2.Oid(hex=first)),
            refs.RefUpdate("refs/heads/other", pygit2.Oid(hex=first), pygit2.Oid(hex=second)),
        ],
        message="test",
    )
    assert str(refs.target(repo, "main")) == first
    assert str(refs.target(repo, "other")) == second


def test_move_refs_moves_nothing_when_one_ref_changed_meanwhile(git_repo: Path) -> None:
    first = _commit(git_repo, "a.txt", "1\n", "one")
    second = _commit(git_repo, "a.txt", "2\n", "two")
    run_git(git_repo, "branch", "other", second)  # we believe it is at `first`
    repo = pygit2.Repository(str(git_repo))
    with pytest.raises(refs.RefMoved, match="other moved"):
        refs.move_refs(
            repo,
            [
                refs.RefUpdate("refs/heads/main", pygit2.Oid(hex=second), pygit2.Oid(hex=first)),
                refs.RefUpdate("refs/heads/other", pygit2.Oid(hex=first), pygit2.Oid(hex=first)),
            ],
            message="test",
        )
    assert str(refs.target(repo, "main")) == second
    assert str(refs.target(repo, "other")) == second


def test_a_planned_sync_moves_nothing_when_the_base_moved_before_commit(git_repo: Path) -> None:
    doc: dict[str, Any] = {
        "vContextInfo": {"version": "0.4"},
        "todoList": {"uid": "u", "items": []},
    }
    _commit(git_repo, "t.vcontext.json", json.dumps(doc), "seed")
    run_git(git_repo, "branch", "agents/alice")
    run_git(git_repo, "checkout", "-q", "agents/alice")
    doc["todoList"]["items"].append({"id": "t1", "title": "T1", "status": "pending"})
    agent_tip = _commit(git_repo, "t.vcontext.json", json.dumps(doc), "alice")
    run_git(git_repo, "checkout", "-q", "--detach")
    repo = pygit2.Repository(str(git_repo))
    syncer = Syncer(repo, now="2026-01-01T00:00:00Z")

    planned = syncer.sync_pair("alice", "main")
    assert planned.state == MERGED
    moved_by_someone = _commit(git_repo, "other.txt", "x\n", "meanwhile")  # detached HEAD
    run_git(git_repo, "update-ref", "refs/heads/main", moved_by_someone)

    with pytest.raises(refs.RefMoved):
        syncer.commit()
    assert str(refs.target(repo, "main")) == moved_by_someone
    assert str(refs.target(repo, "agents/alice")) == agent_tip


def test_sync_pairs_falls_back_to_one_pair_at_a_time_when_the_batch_loses_a_race(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc: dict[str, Any] = {
        "vContextInfo": {"version": "0.4"},
        "todoList": {"uid": "u", "items": []},
    }
    _commit(git_repo, "t.vcontext.json", json.dumps(doc), "seed")
    for agent in ("alice", "bob"):
        run_git(git_repo, "branch", f"agents/{agent}", "main")
        run_git(git_repo, "checkout", "-q", f"agents/{agent}")
        _commit(git_repo, f"{agent}.txt", agent, agent)
    run_git(git_repo, "checkout", "-q", "--detach")
    repo = pygit2.Repository(str(git_repo))
    real_move, calls = refs.move_refs, []

    def first_attempt_loses(repo: object, updates: list[refs.RefUpdate], **kw: object) -> None:
        calls.append(len(updates))
        if len(calls) == 1:
            raise refs.RefMoved("main moved while syncing")
        real_move(repo, updates, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(refs, "move_refs", first_attempt_loses)
    syncer = Syncer(repo, now="2026-01-01T00:00:00Z")

    results = syncer.sync_pairs([("alice", "main"), ("bob", "main")])

    assert [r.state for r in results] == [MERGED, MERGED]
    assert calls == [3, 2, 2]  # main + both agents at once, then each pair on its own
    assert any("one at a time" in w for w in syncer.warnings)
    main = repo.branches.local["main"].peel()
    assert {e.name for e in main.tree} == {"t.vcontext.json", "alice.txt", "bob.txt"}
