"""``sync --push`` lands an agent's round while the local base has local changes.

README, "Many agents, one base": ``sync --push`` builds on the remote's base; local
branches move only once a push landed, and a local base that cannot follow (commits of
its own that conflict) does not stop the agents' round: it stays where it is, with a
warning. Found in trial 14: a person with an edit in progress on ``main`` resolved an
agent's conflict in a work tree of its own, as ``sync --checkout`` told them (theirs had
local changes), and the last command of that block, ``sync AGENT --push origin``, was
refused for those very local changes ("main is checked out in … with local changes:
commit or stash them, then sync again"): a clean work tree elsewhere was of no use. Now
the round lands, and the local base, which cannot follow, is named in a warning.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.team import TASKS, edit, git, read, remote_show, setup, tip, vcx


def test_an_agents_round_lands_while_main_is_checked_out_elsewhere_with_an_edit(
    tmp_path: Path,
) -> None:
    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    at_main = tmp_path / "bo-main"
    git(bo, "worktree", "add", "-q", str(at_main), "main")
    edit(at_main, TASKS, lambda d: d["todoList"]["items"][0].update(title="a person's edit"))
    mine = (at_main / TASKS).read_bytes()
    main_before = tip(bo, "main")

    def work(data: Any) -> None:
        data["todoList"]["items"][1]["status"] = "completed"
        data["todoList"]["sequence"] += 1

    edit(bo, TASKS, work)
    git(bo, "commit", "-q", "-am", "t2 done")

    done = vcx(bo, "sync", "bo", "--push", "origin")
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert "not synced" not in said
    assert remote_show(team.remote, "main", TASKS)["todoList"]["items"][1]["status"] == "completed"
    assert tip(team.remote, "agents/bo") == tip(bo, "agents/bo")
    # main here stays (it cannot follow), the person's edit untouched, and it says so
    assert tip(bo, "main") == main_before
    assert (at_main / TASKS).read_bytes() == mine
    assert read(at_main, TASKS)["todoList"]["items"][0]["title"] == "a person's edit"
    assert "main here was not moved" in done.stderr, said
    again = vcx(bo, "sync", "bo", "--push", "origin")
    assert again.returncode == 0, again.stdout + again.stderr
