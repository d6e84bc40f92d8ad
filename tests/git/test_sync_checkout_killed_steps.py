"""The way out of a conflict (``sync --checkout``) SIGKILLed while it leaves the merge stopped.

PRODUCT.md, "Resolving conflicts" (``sync AGENT --checkout`` leaves a real merge in
progress; every conflict ends with the exact commands to run next) and "Sync at scale" (an
interrupted sync is safe to run again). bo's work on t1 conflicts with the person's
delete of it; bo's ``sync bo --push origin --checkout`` is killed (the product's kill
points, real git) at each step of stopping the merge in bo's work tree: from its
``git merge`` to the listing of the conflicted files. Then bo does only what the tool
says: ``git vcontext status`` and the ``next:`` blocks it leads to. bo's work lands on
the remote's main, the result is one every judge accepts (``validate``, ``check``, the
pre-push hook of a plain ``git push``), and nothing is left behind.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.faults import kill_env
from helpers.next_steps import follow_output
from helpers.team import TASKS, git, person_deletes_t1, remote_show, setup, vcx, works_on_t1

STOPPING = ["git merge --no-ff", "git add --", "git update-index --index-info", "git diff"]


@pytest.mark.parametrize("at", STOPPING)
def test_a_checkout_killed_while_stopping_the_merge_leads_out_by_status_advice(
    tmp_path: Path, at: str
) -> None:
    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    person_deletes_t1(team)
    works_on_t1(bo)
    killed = vcx(
        bo, "sync", "bo", "--push", "origin", "--checkout", env=kill_env(at=at, log=tmp_path / "n")
    )
    assert killed.returncode == -9, killed.stdout + killed.stderr

    said = vcx(bo, "status")  # (exit 1 while it lists a conflict)
    assert said.returncode in (0, 1), said.stdout + said.stderr
    out = said.stdout
    for _ in range(3):  # status's next:, then each next: the commands it names print
        assert "Traceback" not in out
        done = follow_output(out, bo, take="ours")
        command, code, out = done.last
        if command == "git vcontext sync bo --push origin":
            break
    assert command == "git vcontext sync bo --push origin", done.runs
    assert code == 0, out

    items = {
        i["id"]: i["status"] for i in remote_show(team.remote, "main", TASKS)["todoList"]["items"]
    }
    assert items == {"t1": "inProgress", "t2": "pending"}
    assert git(bo, "rev-parse", "main").stdout == git(team.remote, "rev-parse", "main").stdout
    assert git(bo, "status", "--porcelain").stdout == ""
    assert not (bo / ".git" / "MERGE_HEAD").exists()
    for args in (("validate",), ("check", "main")):
        judged = vcx(bo, *args)
        assert judged.returncode == 0, judged.stdout + judged.stderr
    for repo in (bo, team.remote):
        assert git(repo, "fsck", "--full", "--no-dangling").returncode == 0
    # a plain push through the pre-push hook takes the resolved history
    git(bo, "push", "-q", "origin", "agents/bo:refs/heads/bo-again")
    assert vcx(bo, "sync", "bo", "--push", "origin").returncode == 0
