"""``sync --push`` of an agent branch whose only new commits are merges that change the base.

PRODUCT.md, "Sync at scale": ``sync --push`` exiting 0 means that agent's round is on the
remote base; "Resolving conflicts": after a ``--push`` run the local base never holds a
commit the remote's base lacks. A conflict's resolution is a merge commit, and what it
chose is work (found in trial 14: a person resolved an agent's conflict, the agent
resolved it too, and the person's branch then held only merges whose result differs from
the base). The sync took such a branch for one "with nothing the base lacks" (its new
commits are all merges), yet its own merge of it moved the base here: it said "merge 1
document into main", exited 0 and pushed the agent branch alone — the remote's main never
got that merge, the local main held a commit the remote's lacked, and every later sync
did the same again. Now that merge is integrated like any work.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.team import TASKS, edit, git, remote_show, setup, tip, vcx


def _round(clone: Path, agent: str, change: Any) -> None:
    edit(clone, TASKS, change)
    git(clone, "commit", "-q", "-am", f"{agent}: a round")
    done = vcx(clone, "sync", agent, "--push", "origin")
    assert done.returncode == 0, done.stdout + done.stderr


def _status(index: int, status: str) -> Any:
    def change(data: Any) -> None:
        data["todoList"]["items"][index]["status"] = status
        data["todoList"]["sequence"] += 1

    return change


def test_a_merge_that_resolved_something_reaches_the_remotes_base(tmp_path: Path) -> None:
    team = setup(tmp_path, ["al", "bo"])
    al, bo = team.agents["al"], team.agents["bo"]
    _round(bo, "bo", _status(1, "inProgress"))
    _round(al, "al", _status(0, "completed"))

    # bo merges the remote's base itself and settles something in that merge (a resolution)
    git(bo, "fetch", "-q", "origin")
    git(bo, "merge", "-q", "--no-ff", "--no-commit", "origin/main", check=False)
    edit(bo, TASKS, lambda d: d["todoList"]["items"][0].update(title="Task 1, as settled"))
    git(bo, "add", TASKS)
    git(bo, "commit", "-q", "--no-edit")
    assert len(git(bo, "rev-list", "--no-merges", "agents/bo", "^origin/main").stdout.split()) == 0
    settled = tip(bo, "agents/bo")

    done = vcx(bo, "sync", "bo", "--push", "origin")
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    items = remote_show(team.remote, "main", TASKS)["todoList"]["items"]
    assert items[0]["title"] == "Task 1, as settled", said
    assert items[0]["status"] == "completed"
    assert tip(bo, "main") == tip(team.remote, "main"), said  # nothing local the remote lacks
    landed = git(team.remote, "merge-base", "--is-ancestor", settled, "main", check=False)
    assert landed.returncode == 0, said  # the merge itself is on the remote's base
    again = vcx(bo, "sync", "bo", "--push", "origin")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "into main" not in again.stdout, again.stdout
    assert tip(bo, "main") == tip(team.remote, "main")
