"""One truth across this round's changes (PRODUCT.md "Branch-per-agent workflow", M19: whatever
one part writes, every other part accepts; "Resolving conflicts"; "The remote guards itself";
"Sync at scale"; M8).

A team that acts only as the README and the tool's own messages say, through real git: a bare
remote guarding itself (``install --server --guard``), a person on main and three agents in
their own clones, every clone with the pre-push hook. Several rounds of edits and ``sync
--push`` (the base on the remote is the person's ``@{upstream}``), one conflict left by the
advised steps (the next commands, run as printed), a person's cherry-pick that replays an
edit onto a main that moved (M8), then ``validate``, ``check`` and ``status --fetch`` in
every clone and the person's final push: the hook and the guard accept all of it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.next_steps import follow, next_commands
from helpers.team import TASKS, Team, edit, git, remote_show, setup, vcx

AGENTS = ("ann", "bob", "cat")


def _commit(clone: Path, change: Any, message: str) -> None:
    def bumped(data: Any) -> None:
        change(data["todoList"])
        data["todoList"]["sequence"] += 1

    edit(clone, TASKS, bumped)
    git(clone, "commit", "-qam", message)


def _item(todo: Any, item: str) -> Any:
    return next(i for i in todo["items"] if i["id"] == item)


def _add(item: str) -> Any:
    return lambda todo: todo["items"].append({"id": item, "title": item, "status": "pending"})


def _sync(clone: Path, agent: str) -> str:
    done = vcx(clone, "sync", agent, "--push", "origin")
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "Traceback" not in out
    return out


def _accepted_everywhere(team: Team, clone: Path, *, agents: bool) -> None:
    """validate, check (the range the hook and the guard judge) and status --fetch agree."""
    validated = vcx(clone, "validate")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    checked = vcx(clone, "check", "origin/main")  # the remote's base, its whole history
    assert checked.returncode == 0, checked.stdout + checked.stderr
    if agents:  # the agent branch as the hook would judge its next push
        mine = vcx(clone, "check")  # @{upstream}..HEAD
        assert mine.returncode == 0, mine.stdout + mine.stderr
    status = vcx(clone, "status", "--fetch", "--all", "--format", "json")  # every agent
    assert status.returncode == 0, status.stdout + status.stderr
    found = json.loads(status.stdout)["agents"]
    rows = {r["agent"]: (r["state"], r["ahead"], r["behind"]) for r in found}
    assert rows == {a: ("up to date", 0, 0) for a in AGENTS}, (clone.name, rows)


def test_a_team_doing_only_what_the_tool_says_ends_on_one_truth(tmp_path: Path) -> None:
    team = setup(tmp_path, list(AGENTS), items=("t1", "t2", "t3"))
    guard = vcx(team.remote, "install", "--server", "--guard")
    assert guard.returncode == 0, guard.stderr
    ann, person = team.agents["ann"], team.person

    # round 1: every agent adds an item; the person retitles t2 and pushes through the hook
    for name, clone in team.agents.items():
        _commit(clone, _add(f"{name}-1"), f"{name}: {name}-1")
        _sync(clone, name)
    git(person, "pull", "-q", "--no-rebase")
    _commit(person, lambda t: _item(t, "t2").update(title="Task two"), "person: t2's title")
    git(person, "push", "-q")  # @{upstream}: origin/main

    # round 2: the person drops t1 while ann works on it; bob and cat go on
    git(person, "pull", "-q", "--no-rebase")
    _commit(person, lambda t: t.update(items=[i for i in t["items"] if i["id"] != "t1"]), "drop t1")
    git(person, "push", "-q")
    _commit(ann, lambda t: _item(t, "t1").update(status="inProgress"), "ann: t1")
    for name in ("bob", "cat"):
        _commit(team.agents[name], _add(f"{name}-2"), f"{name}: {name}-2")
        _sync(team.agents[name], name)
    stopped = vcx(ann, "sync", "ann", "--push", "origin")
    assert stopped.returncode == 1, stopped.stdout + stopped.stderr
    assert "CONFLICT" in stopped.stdout
    way = follow(next_commands(stopped.stdout), ann)  # the merge left where ann works
    followed = follow(next_commands(way.last[2]), ann, take="ours")  # resolve, commit, sync
    command, code, out = followed.last
    assert command.startswith("git vcontext sync ann --push"), followed.runs
    assert code == 0, out
    t1 = _item(remote_show(team.remote, "main", TASKS)["todoList"], "t1")
    assert t1["status"] == "inProgress"  # "ours": ann's work on it

    # round 3: the person cherry-picks a fix made on an older main onto main that moved
    git(person, "pull", "-q", "--no-rebase")
    git(person, "switch", "-q", "-c", "fix")
    _commit(person, lambda t: _item(t, "t3").update(status="blocked"), "person: t3 blocked")
    git(person, "switch", "-q", "main")
    for name, clone in team.agents.items():
        _commit(clone, _add(f"{name}-3"), f"{name}: {name}-3")
        _sync(clone, name)
    git(person, "pull", "-q", "--no-rebase")
    picked = git(person, "cherry-pick", "fix", check=False)
    assert picked.returncode == 0, picked.stdout + picked.stderr
    git(person, "push", "-q")  # the hook, then the guard, accept the replay

    # every agent brings its branch along to the cherry-pick (nothing of its own to publish)
    for name, clone in team.agents.items():
        _sync(clone, name)
    # the person moves main once more, then brings every agent along as the README shows
    # (sync --all --push origin): the agent branches on the remote hold that main too
    git(person, "pull", "-q", "--no-rebase")
    _commit(person, lambda t: _item(t, "t2").update(status="inProgress"), "person: t2 begun")
    git(person, "push", "-q")
    along = vcx(person, "sync", "--all", "--push", "origin")
    assert along.returncode == 0, along.stdout + along.stderr
    assert "pushed to origin: agents/ann, agents/bob, agents/cat" in along.stdout
    for name, clone in team.agents.items():  # each agent's next sync finds nothing to do
        assert "pushed" not in _sync(clone, name)
    for clone in team.agents.values():
        _accepted_everywhere(team, clone, agents=True)
    _accepted_everywhere(team, person, agents=False)
    todo = remote_show(team.remote, "main", TASKS)["todoList"]
    ids = {i["id"] for i in todo["items"]}
    assert ids == {"t1", "t2", "t3"} | {f"{a}-{n}" for a in AGENTS for n in (1, 3)} | {
        "bob-2",
        "cat-2",
    }
    assert (_item(todo, "t2")["title"], _item(todo, "t3")["status"]) == ("Task two", "blocked")
    assert "fork" not in todo

    # the person's final push, through the pre-push hook and the guard
    _commit(person, lambda t: _item(t, "t2").update(status="completed"), "person: t2 done")
    pushed = git(person, "push", check=False)
    assert pushed.returncode == 0, pushed.stderr
    assert git(team.remote, "fsck", "--no-progress").returncode == 0
