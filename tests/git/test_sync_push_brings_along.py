"""``sync --all --push`` when the base does not move (PRODUCT.md "Branch-per-agent workflow":
with ``--push`` what the sync did is on the remote; "Sync at scale"): the agent branches it
merged the base into are pushed, each as a fast-forward of the remote's copy, so another
clone's ``status --fetch`` finds them up to date, not "needs sync". An agent branch is its
agent's own: a copy that moved on there is never overwritten; that branch is said in one line
and the round still succeeds.

Real git: a bare remote, a person's clone, the agents' clones, a watcher's clone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.team import TASKS, Team, edit, git, identity, setup, tip, vcx


def _add(clone: Path, item: str, message: str) -> None:
    edit(
        clone,
        TASKS,
        lambda d: d["todoList"]["items"].append({"id": item, "title": item, "status": "pending"}),
    )
    git(clone, "commit", "-qam", message)


def _team(root: Path) -> Team:
    """Each agent's work on the remote's main, then a person's commit pushed to main with
    plain git: every agent branch on the remote is behind main, none has work."""
    team = setup(root, ["ann", "bob"])
    for name, clone in team.agents.items():
        _add(clone, name, f"{name}'s work")
        done = vcx(clone, "sync", name, "--push", "origin")
        assert done.returncode == 0, done.stdout + done.stderr
    git(team.person, "pull", "-q")
    _add(team.person, "px", "the person's work")
    git(team.person, "push", "-q", "origin", "main")
    return team


def _watcher(root: Path, team: Team) -> Path:
    watcher = root / "watcher"
    git(root, "clone", "-q", str(team.remote), str(watcher))
    identity(watcher, "watcher")
    return watcher


def _rows(clone: Path) -> dict[str, dict[str, Any]]:
    done = vcx(clone, "status", "--fetch", "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    rows = data["agents"] if isinstance(data, dict) else data
    return {row["agent"]: row for row in rows}


def test_sync_all_push_pushes_the_agent_branches_it_brought_along(tmp_path: Path) -> None:
    team = _team(tmp_path)
    watcher = _watcher(tmp_path, team)
    before = _rows(watcher)
    assert {a: (r["state"], r["behind"] > 0) for a, r in before.items()} == {
        "ann": ("needs sync", True),
        "bob": ("needs sync", True),
    }
    main = team.base()

    done = vcx(team.person, "sync", "--all", "--push", "origin")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "pushed to origin: agents/ann, agents/bob" in done.stdout + done.stderr
    assert team.base() == main  # the base did not move
    for name in ("ann", "bob"):
        there = tip(team.remote, f"agents/{name}")
        assert there == tip(team.person, f"agents/{name}")
        assert git(team.remote, "merge-base", "--is-ancestor", main, there).returncode == 0
    after = _rows(watcher)
    assert {a: (r["state"], r["behind"]) for a, r in after.items()} == {
        "ann": ("up to date", 0),
        "bob": ("up to date", 0),
    }


# a remote whose copy of agents/ann moves on while the sync pushes: the agent's newer work
# (held under refs/heads/held) lands there just before the sync's push would
MOVES_ANN = """#!/bin/sh
unset GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
git update-ref refs/heads/agents/ann refs/heads/held
rm -f "$0"
"""


def test_an_agent_branch_that_moved_on_there_is_never_overwritten(tmp_path: Path) -> None:
    team = _team(tmp_path)
    ann = team.agents["ann"]
    _add(ann, "newer", "ann's newer work")
    git(ann, "push", "-q", "origin", "agents/ann:refs/heads/held")
    newer = tip(ann, "agents/ann")
    hook = team.remote / "hooks" / "pre-receive"
    hook.write_text(MOVES_ANN)
    hook.chmod(0o755)

    done = vcx(team.person, "sync", "--all", "--push", "origin")

    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    said = [line for line in out.splitlines() if "agents/ann not pushed to origin" in line]
    assert len(said) == 1, out
    assert "pushed to origin: agents/bob" in out
    assert tip(team.remote, "agents/ann") == newer  # the agent's newer work stands
    assert tip(team.remote, "agents/bob") == tip(team.person, "agents/bob")

    synced = vcx(ann, "sync", "ann", "--push", "origin")  # the agent's own next sync lands it
    assert synced.returncode == 0, synced.stdout + synced.stderr
    there = tip(team.remote, "agents/ann")
    assert git(team.remote, "merge-base", "--is-ancestor", newer, there).returncode == 0
    assert git(team.remote, "merge-base", "--is-ancestor", newer, "main").returncode == 0
    assert git(team.remote, "merge-base", "--is-ancestor", "main", there).returncode == 0


def test_a_sync_after_bringing_a_branch_along_twice_takes_no_lease_and_pushes_nothing(
    tmp_path: Path,
) -> None:
    """An agent branch ending in two merges of the base into it (brought along once by its
    own integration, once more after the base moved) holds no work: the next sync says up
    to date without taking the base's lease, publishing a request or pushing (as
    test_a_second_sync_with_nothing_new_takes_no_lease_and_pushes_nothing for one merge)."""
    team = _team(tmp_path)
    ann = team.agents["ann"]
    brought = vcx(ann, "sync", "ann", "--push", "origin")
    assert brought.returncode == 0, brought.stdout + brought.stderr
    assert "pushed to origin: agents/ann" in brought.stdout
    refs_before = git(team.remote, "for-each-ref").stdout
    git(team.remote, "config", "core.logAllRefUpdates", "always")

    again = vcx(ann, "sync", "ann", "--push", "origin")

    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stdout == "agents/ann: up to date with main\n"
    assert git(team.remote, "for-each-ref").stdout == refs_before
    assert not (team.remote / "logs" / "refs" / "vcontext").exists()  # no lease, no request
