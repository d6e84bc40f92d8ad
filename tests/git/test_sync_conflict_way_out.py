"""Issue 34: a conflict ``sync`` reports is resolved where the agent works, and the next
sync lands.

PRODUCT.md, "Resolving conflicts (agents and people)": a pair that ``sync`` stopped on is
the agent's work: ``sync AGENT --checkout`` (with or without ``--push``; the remote is
the base's upstream) fetches and leaves the merge of the current base into
``agents/AGENT`` stopped where that branch is checked out; after ``git commit`` the next
``sync --push`` lands. Every conflict message ends with the exact next commands; after a
``--push`` run the local base never holds a commit the remote's base lacks. The team
(a bare remote, a person's clone, agents' clones, every clone with the pre-push hook) is
``helpers.team``; each actor only runs what the tool printed (``helpers.next_steps``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from helpers import soak
from helpers.git_servers import HttpFront
from helpers.next_steps import follow, follow_output, next_commands
from helpers.team import (
    PLAYBOOK,
    TASKS,
    Team,
    bo_stopped_at_checkout,
    edit,
    git,
    identity,
    person_deletes_t1,
    person_diverges_local_base,
    read,
    remote_show,
    setup,
    tasks,
    tip,
    vcx,
    works_on_t1,
    write,
)


def _bo_works_on_t1_the_person_deleted(tmp_path: Path) -> tuple[Team, Path, str]:
    """The team (agent bo), the person's delete of t1 on the remote, bo's work on t1 (a
    delete/modify conflict for the next sync): the team, bo's clone, the remote's base."""
    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    person_deletes_t1(team)
    works_on_t1(bo)
    return team, bo, team.base()


def _statuses(remote: Path) -> dict[str, str]:
    items = remote_show(remote, "main", TASKS)["todoList"]["items"]
    return {i["id"]: i["status"] for i in items}


def _landed(team: Team, clone: Path) -> None:
    """The remote's base validates, fsck is clean, the clone's main is the remote's."""
    checkout = team.remote.parent / "check"
    git(team.remote.parent, "clone", "-q", str(team.remote), str(checkout))
    assert vcx(checkout, "validate").returncode == 0
    git(checkout, "rm", "-rfq", ".")
    git(team.remote.parent, "worktree", "prune", check=False)
    assert git(team.remote, "fsck", "--no-progress").returncode == 0
    assert git(clone, "fsck", "--no-progress").returncode == 0
    assert team.local_only(clone) == []


def test_issue_34_steps_1_to_3_the_way_out_as_printed_lands(tmp_path: Path) -> None:
    team, bo, base_before = _bo_works_on_t1_the_person_deleted(tmp_path)

    # 1. the conflict, and the command that leads out of it
    first = vcx(bo, "sync", "bo", "--push", "origin")
    assert first.returncode == 1, first.stdout + first.stderr
    assert "agents/bo <-> main: CONFLICT, nothing moved" in first.stdout
    assert "(delete/modify)" in first.stdout
    assert next_commands(first.stdout) == ["git vcontext sync bo --push origin --checkout"]
    assert team.base() == base_before
    assert team.local_only(bo) == []

    # 2. as printed: the merge of origin's main is left stopped where agents/bo is checked out
    stop = follow(next_commands(first.stdout), bo)
    command, code, out = stop.last
    assert code == 1, out
    assert f"the merge of origin/main into agents/bo is left stopped in {bo}" in out
    assert git(bo, "rev-parse", "MERGE_HEAD").stdout.strip() == team.base()
    assert git(bo, "symbolic-ref", "--short", "HEAD").stdout.strip() == "agents/bo"
    assert team.local_only(bo) == []  # nothing merged into the local main

    # 3. resolve (keep the agent's work on t1), commit, sync --push: it lands
    done = follow_output(out, bo, take="ours")
    command, code, out = done.last
    assert command == "git vcontext sync bo --push origin"
    assert code == 0, out
    assert "CONFLICT" not in out
    assert _statuses(team.remote) == {"t1": "inProgress", "t2": "pending"}
    assert "fork" not in remote_show(team.remote, "main", TASKS)["todoList"]
    assert read(bo, TASKS)["todoList"]["fork"]["mergeStatus"] == "merged"
    again = vcx(bo, "sync", "bo", "--push", "origin")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "CONFLICT" not in again.stdout
    _landed(team, bo)


def test_the_next_block_pasted_as_printed_into_a_shell_takes_no_side(tmp_path: Path) -> None:
    """PRODUCT.md, "Resolving conflicts (agents and people)": the conflict is the agent's to
    settle. The block after --checkout, pasted into a shell as printed, once read
    ``resolve … --take ours|theirs``: the shell ran ``--take ours`` piped into a command
    ``theirs`` (not found), and the commit and sync after it published the agent's side
    that nobody chose (found in trial11). Now ``--take <ours|theirs>``, which no shell runs:
    the pasted block stops there, the merge stays stopped, nothing reaches the remote."""
    import os
    import subprocess

    from helpers.run import cli_path

    team, bo, base_before = _bo_works_on_t1_the_person_deleted(tmp_path)
    first = vcx(bo, "sync", "bo", "--push", "origin")
    stop = follow(next_commands(first.stdout), bo)
    block = next_commands(stop.last[2])
    assert any("--take <ours|theirs>" in line for line in block), block

    bin_dir = os.path.dirname(cli_path()[0])
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    pasted = subprocess.run(
        ["sh", "-c", "\n".join(block)], cwd=bo, capture_output=True, text=True, env=env
    )

    assert pasted.returncode != 0, pasted.stdout + pasted.stderr
    assert git(bo, "rev-parse", "-q", "--verify", "MERGE_HEAD").returncode == 0
    unmerged = git(bo, "diff", "--name-only", "--diff-filter=U").stdout.split()
    assert unmerged == [TASKS], pasted.stdout + pasted.stderr
    assert team.base() == base_before


def test_issue_34_step_2_as_tried_checkout_from_main_still_resolves_on_the_agent_branch(
    tmp_path: Path,
) -> None:
    """The old advice (switch to main, then sync --checkout) no longer merges the agent into
    a stale local main: --checkout fetches origin's main and leaves the merge on agents/bo."""
    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    works_on_t1(bo)
    assert vcx(bo, "sync", "bo", "--push", "origin").returncode == 0
    works_on_t1(bo, "blocked")
    person_deletes_t1(team)
    assert vcx(bo, "sync", "bo", "--push", "origin").returncode == 1
    git(bo, "switch", "-q", "main")
    tried = vcx(bo, "sync", "bo", "--checkout")
    assert tried.returncode == 1, tried.stdout + tried.stderr
    assert "checked out here for the merge (this work tree was on main)" in tried.stdout
    assert "the merge of origin/main into agents/bo is left stopped" in tried.stdout
    assert team.local_only(bo) == []
    done = follow_output(tried.stdout, bo, take="theirs")  # the person's delete wins
    assert done.last[1] == 0, done.last
    assert _statuses(team.remote) == {"t2": "pending"}
    _landed(team, bo)


def test_issue_34_a_local_sync_into_a_base_behind_its_upstream_says_so_and_traps_nobody(
    tmp_path: Path,
) -> None:
    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    person_deletes_t1(team)
    works_on_t1(bo)
    git(bo, "fetch", "-q", "origin")
    local = vcx(bo, "sync", "bo")
    assert local.returncode == 0, local.stdout + local.stderr  # clean against the stale main
    assert "main is behind origin/main" in local.stderr
    assert "git vcontext sync bo --push origin" in local.stderr
    assert team.local_only(bo)  # a local sync may; the next --push must not trap

    # 3. (as it was: "could not merge origin/main into main", for good) now: the pair's own
    # conflict, with the way out
    pushed = vcx(bo, "sync", "bo", "--push", "origin")
    assert pushed.returncode == 1, pushed.stdout + pushed.stderr
    assert "could not merge" not in pushed.stdout + pushed.stderr
    assert "agents/bo <-> main: CONFLICT" in pushed.stdout
    assert team.local_only(bo) == []  # main is origin's again: agents/bo holds its merge
    stop = follow_output(pushed.stdout, bo)
    done = follow_output(stop.last[2], bo, take="ours")
    assert done.last[1] == 0, done.last
    assert _statuses(team.remote) == {"t1": "inProgress", "t2": "pending"}
    _landed(team, bo)


def test_a_persons_own_commit_on_the_local_base_that_conflicts_never_blocks_the_agent(
    tmp_path: Path,
) -> None:
    """A local base diverged by a person's own commit: the agent's round lands without it,
    the base stays, and the warning's commands publish it (through the pre-push hook)."""
    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    at_main = person_diverges_local_base(team, "bo", tmp_path)
    works_on_t1(bo)

    pushed = vcx(bo, "sync", "bo", "--push", "origin")
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    assert _statuses(team.remote)["t1"] == "inProgress"  # the agent's round landed
    assert "main here has 1 commit origin/main lacks" in pushed.stderr
    commands = next_commands(pushed.stderr)
    assert commands[0] == f"git -C {at_main} pull --no-rebase origin main"
    follow(commands, bo, take="ours")
    items = remote_show(team.remote, "main", TASKS)["todoList"]["items"]
    assert items[1]["title"] == "the person's title, here"
    assert items[0]["status"] == "inProgress"
    quiet = vcx(bo, "sync", "bo", "--push", "origin")
    assert quiet.returncode == 0, quiet.stdout + quiet.stderr
    assert "warning" not in quiet.stderr
    _landed(team, bo)


def test_a_conflict_with_the_remotes_copy_of_the_agent_branch_is_resolved_the_same_way(
    tmp_path: Path,
) -> None:
    """One agent working from two clones: its branch here and its copy on the remote
    conflict. --checkout leaves the merge of origin's copy into agents/bo stopped here."""
    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    assert vcx(bo, "sync", "bo", "--push", "origin").returncode == 0
    elsewhere = tmp_path / "bo-elsewhere"
    git(tmp_path, "clone", "-q", "-b", "agents/bo", str(team.remote), str(elsewhere))
    git(elsewhere, "branch", "-q", "--track", "main", "origin/main")
    git(elsewhere, "config", "vcontext.agent.bo.base", "main")
    identity(elsewhere, "bo")
    assert vcx(elsewhere, "install").returncode == 0
    works_on_t1(elsewhere, "completed")
    assert vcx(elsewhere, "sync", "bo", "--push", "origin").returncode == 0
    works_on_t1(bo, "blocked")

    first = vcx(bo, "sync", "bo", "--push", "origin")
    assert first.returncode == 1, first.stdout + first.stderr
    assert "CONFLICT" in first.stdout
    stop = follow_output(first.stdout, bo)
    _command, code, out = stop.last
    assert code == 1, out
    assert "the merge of origin/agents/bo into agents/bo is left stopped" in out
    done = follow_output(out, bo, take="ours")
    assert done.last[1] == 0, done.last
    assert _statuses(team.remote)["t1"] == "blocked"
    _landed(team, bo)


def test_checkout_after_a_push_run_of_several_agents_merges_the_base_that_landed(
    tmp_path: Path,
) -> None:
    """Three agents of one clone in one `sync --push --checkout`: al and cy land (one
    integration commit), bo conflicts with the base as it was after them; the merge left
    stopped on agents/bo is of origin's main as published, never of a commit the run
    planned and did not publish."""
    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    for name in ("al", "cy"):
        assert (
            vcx(bo, "fork", name, "--from", "main", "--worktree", str(tmp_path / name)).returncode
            == 0
        )

    def status_of(item: int, status: str) -> Any:
        def change(data: Any) -> None:
            data["todoList"]["items"][item]["status"] = status
            data["todoList"]["sequence"] += 1

        return change

    edit(tmp_path / "al", TASKS, status_of(1, "completed"))
    git(tmp_path / "al", "commit", "-q", "-am", "al completes t2")
    (tmp_path / "cy" / "notes.txt").write_text("cy's notes\n")
    git(tmp_path / "cy", "add", "notes.txt")
    git(tmp_path / "cy", "commit", "-q", "-m", "cy's notes")
    person_deletes_t1(team)
    works_on_t1(bo)

    run = vcx(bo, "sync", "al", "cy", "bo", "--push", "origin", "--checkout")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "agents/bo: the merge of origin/main into agents/bo is left stopped" in run.stdout
    assert git(bo, "rev-parse", "MERGE_HEAD").stdout.strip() == team.base()
    assert _statuses(team.remote) == {"t2": "completed"}
    done = follow_output(run.stdout, bo, take="ours")
    assert done.last[1] == 0, done.last
    assert _statuses(team.remote) == {"t1": "inProgress", "t2": "completed"}
    _landed(team, bo)


def test_the_diverged_base_advice_resolves_a_name_starting_with_a_dash(tmp_path: Path) -> None:
    """ "Every conflict message ends with the exact next commands": the warning for a local
    base whose own commit conflicts names a file '-plan…' as ./-plan… in its resolve
    command (as conflicts does); `resolve -plan…` was read as an option and failed."""
    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    dash = "-plan.vcontext.json"
    write(team.person, dash, tasks("p1"))
    git(team.person, "add", "--", dash)
    git(team.person, "commit", "-q", "-m", "a plan")
    git(team.person, "push", "-q", "origin", "main")
    at_main = tmp_path / "bo-main"
    git(bo, "worktree", "add", "-q", str(at_main), "main")
    git(at_main, "pull", "-q", "--no-rebase", "origin", "main")

    def title(text: str) -> Any:
        def change(data: Any) -> None:
            data["todoList"]["items"][0]["title"] = text
            data["todoList"]["sequence"] += 1

        return change

    edit(at_main, dash, title("the plan, here"))
    git(at_main, "commit", "-q", "-am", "a person's own commit on bo's clone")
    edit(team.person, dash, title("the plan, there"))
    git(team.person, "commit", "-q", "-am", "p1 renamed")
    git(team.person, "push", "-q", "origin", "main")
    works_on_t1(bo)

    pushed = vcx(bo, "sync", "bo", "--push", "origin")
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    commands = next_commands(pushed.stderr)
    assert f"git -C {at_main} vcontext resolve ./{dash} --take <ours|theirs>" in commands
    follow(commands, bo, take="ours")
    assert remote_show(team.remote, "main", dash)["todoList"]["items"][0]["title"] == (
        "the plan, here"
    )
    _landed(team, bo)


# -- a document deleted on one branch and changed on the other: named by branch ----------


def _person_deletes_the_tasks(team: Team) -> None:
    git(team.person, "pull", "-q", "--no-rebase", "origin", "main")
    git(team.person, "rm", "-q", TASKS)
    git(team.person, "commit", "-q", "-m", "person: the task list is not needed")
    git(team.person, "push", "-q", "origin", "main")


def test_resolving_delete_modify_sync_names_the_branch_that_deleted_not_us_or_them(
    tmp_path: Path,
) -> None:
    """PRODUCT.md, "Resolving conflicts": every conflict message of ``sync`` ends with the
    exact next commands, and after ``--checkout`` the merge is the agent's (ours: the agent
    branch). sync's own merge into the base has the base as ours, so "deleted by us" there
    meant the base: said by branch instead, both in sync's report and in ``conflicts``, so
    following the commands with the side the user reads keeps what the user meant."""
    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    _person_deletes_the_tasks(team)
    works_on_t1(bo)

    first = vcx(bo, "sync", "bo", "--push", "origin")
    assert first.returncode == 1, first.stdout + first.stderr
    assert f"  {TASKS}: deleted on main, modified on agents/bo" in first.stdout
    assert "by us" not in first.stdout
    assert "by them" not in first.stdout
    stop = follow(next_commands(first.stdout), bo)
    assert "by us" not in stop.last[2]
    assert "by them" not in stop.last[2]
    assert "(ours: agents/bo, theirs: origin/main)" in stop.last[2]
    listed = vcx(bo, "conflicts")
    assert listed.returncode == 1
    assert "theirs: (absent: deleted on origin/main)" in listed.stdout
    # the agent's work on the list is what bo means to keep: ours, as the labels say
    done = follow_output(stop.last[2], bo, take="ours")
    assert done.last[1] == 0, done.last
    assert _statuses(team.remote) == {"t1": "inProgress", "t2": "pending"}
    _landed(team, bo)


def test_resolving_delete_modify_taking_the_deleting_branch_deletes_it(tmp_path: Path) -> None:
    team, bo, first = bo_stopped_at_checkout(tmp_path, _person_deletes_the_tasks)
    assert "deleted on main, modified on agents/bo" in first.stdout
    done = follow_output(first.stdout, bo, take="theirs")  # origin/main: the deletion
    assert done.last[1] == 0, done.last
    listing = git(team.remote, "ls-tree", "--name-only", "main").stdout.split()
    assert TASKS not in listing
    _landed(team, bo)


def test_an_event_log_the_agent_deleted_is_restored_there_no_checkout_that_leads_nowhere(
    tmp_path: Path,
) -> None:
    """Branch-per-agent workflow: sync never deletes a document holding an event log. The
    agent's branch deleted it: there is no merge to resolve (``--checkout`` would merge
    nothing), so the message says where to restore it and the next step says so too."""
    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    git(bo, "rm", "-q", PLAYBOOK)
    git(bo, "commit", "-q", "-m", "agent drops the playbook")
    first = vcx(bo, "sync", "bo", "--push", "origin", "--checkout")
    assert first.returncode == 1, first.stdout + first.stderr
    assert f"{PLAYBOOK}: deleted on agents/bo, kept on main" in first.stdout
    assert "restore it on agents/bo" in first.stdout
    assert "not left stopped" not in first.stdout
    assert next_commands(first.stdout) == [
        "fix it as said, then git vcontext sync bo --push origin"
    ]
    # as said: the commit it names rewritten (here: dropped), then sync lands
    named = f"git log --diff-filter=D agents/bo -- {PLAYBOOK} names it"
    assert named in first.stdout
    deleting = git(bo, "log", "--format=%H", "--diff-filter=D", "agents/bo", "--", PLAYBOOK)
    assert deleting.stdout.split() == [git(bo, "rev-parse", "HEAD").stdout.strip()]
    git(bo, "reset", "-q", "--hard", "HEAD~1")
    again = vcx(bo, "sync", "bo", "--push", "origin")
    assert again.returncode == 0, again.stdout + again.stderr


def test_a_conflicted_row_of_status_names_the_way_out_sync_names(tmp_path: Path) -> None:
    """PRODUCT.md, "Resolving conflicts (agents and people)": every conflict message ends
    with the exact next commands. ``status`` said "conflict" and the files, and stopped
    there; ``sync`` said ``next: git vcontext sync AGENT --checkout`` (trial11). Now the
    row ends with the line sync prints (one code: ``sync.advice``): with ``--push REMOTE``
    when the base tracks one, as the base's own line under the table names it (trial12);
    followed as printed it leaves the merge stopped where the agent works, then lands."""
    team, bo, _ = _bo_works_on_t1_the_person_deleted(tmp_path)
    git(bo, "fetch", "-q", "origin", "main:main")  # status counts against main here
    base_before = team.base()

    shown = vcx(bo, "status")
    assert shown.returncode == 1, shown.stdout + shown.stderr
    assert "conflict: " in shown.stdout
    synced = vcx(bo, "sync", "bo", "--push", "origin", "--dry-run")  # main tracks origin
    assert next_commands(shown.stdout) == next_commands(synced.stdout)
    assert next_commands(shown.stdout) == ["git vcontext sync bo --push origin --checkout"]
    assert team.base() == base_before

    stop = follow(next_commands(shown.stdout), bo)
    _, code, out = stop.last
    assert code == 1, out
    assert f"the merge of origin/main into agents/bo is left stopped in {bo}" in out
    assert git(bo, "rev-parse", "MERGE_HEAD").stdout.strip() == team.base()
    done = follow_output(out, bo, take="ours")
    _, code, out = done.last
    assert code == 0, out
    assert _statuses(team.remote) == {"t1": "inProgress", "t2": "pending"}


@pytest.mark.parametrize("in_process", [False, True])
def test_taking_theirs_the_last_sync_says_it_pushed_the_agent_branch(
    tmp_path: Path, in_process: bool
) -> None:
    """PRODUCT.md, "Branch-per-agent workflow" / "Resolving conflicts": the way out as
    printed, taking the base's side (``--take theirs``). The agent's work then changes
    nothing on main, but the final ``sync --push`` still publishes the resolved merge on
    ``agents/bo``. Over git (HTTP, or a path without the in-process look) that push is the
    one that publishes the work before the lease (``_publish_unlooked``) and it said only
    "up to date with main" (kill walk, trial12): it now says what it moved, as over a path."""
    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    git(bo, "config", "vcontext.inProcessFetch", str(in_process).lower())
    works_on_t1(bo, "inProgress")
    landed = vcx(bo, "sync", "bo", "--push", "origin")  # agents/bo is on the remote
    assert landed.returncode == 0, landed.stdout + landed.stderr

    def title(words: str) -> Any:
        return lambda data: data["todoList"]["items"][1].update(title=words)

    git(team.person, "pull", "-q", "--no-rebase", "origin", "main")
    edit(team.person, TASKS, title("the person's"))
    git(team.person, "commit", "-q", "-am", "person: t2 renamed")
    git(team.person, "push", "-q", "origin", "main")
    edit(bo, TASKS, title("bo's"))
    git(bo, "commit", "-q", "-am", "bo: t2 renamed")
    first = vcx(bo, "sync", "bo", "--push", "origin")
    assert first.returncode == 1, first.stdout + first.stderr
    stop = follow(next_commands(first.stdout), bo)
    before = git(team.remote, "rev-parse", "agents/bo").stdout.strip()

    done = follow_output(stop.last[2], stop.cwd, take="theirs")

    command, code, out = done.last
    assert command == "git vcontext sync bo --push origin"
    assert code == 0, out
    there = git(team.remote, "rev-parse", "agents/bo").stdout.strip()
    assert there != before
    assert there == git(bo, "rev-parse", "agents/bo").stdout.strip()
    assert "agents/bo: up to date with main" in out
    assert "pushed to origin: agents/bo\n" in out
    titles = [i["title"] for i in remote_show(team.remote, "main", TASKS)["todoList"]["items"]]
    assert titles[1] == "the person's"  # theirs taken


def test_a_conflict_over_git_ends_with_its_next_step_though_its_branch_was_published(
    tmp_path: Path,
) -> None:
    """PRODUCT.md, "Resolving conflicts": every conflict message of ``sync`` ends with the
    exact next commands. Over git the agent's work is published before the look that finds
    the conflict; that push is not said after the stopped pair's ``next:`` line."""
    _, bo, _ = _bo_works_on_t1_the_person_deleted(tmp_path)
    git(bo, "config", "vcontext.inProcessFetch", "false")
    first = vcx(bo, "sync", "bo", "--push", "origin")
    assert first.returncode == 1, first.stdout + first.stderr
    assert first.stdout.rstrip().endswith("next: git vcontext sync bo --push origin --checkout")


def test_the_persons_clone_switched_by_checkout_is_back_on_main_when_the_way_out_lands(
    tmp_path: Path,
) -> None:
    """PRODUCT.md, "Resolving conflicts": ``sync AGENT --checkout`` — no ``git switch``.
    In the person's clone the agent branch is checked out nowhere, so ``--checkout``
    switches the (clean) work tree to it; the sync that lands the way out switches it back
    to main and says so, as ``git switch`` says where you are. Before, the person was left
    on ``agents/bo`` with no word of main, and ``status`` there spoke for bo alone (cy, only
    on the remote, left out as another clone's agent)."""
    team = setup(tmp_path, ["bo", "cy"])
    bo, cy, person = team.agents["bo"], team.agents["cy"], team.person
    works_on_t1(bo)
    assert vcx(bo, "sync", "bo", "--push", "origin").returncode == 0
    edit(cy, TASKS, lambda d: d["todoList"]["items"][1].update(status="completed"))
    git(cy, "commit", "-qam", "cy: t2 done")
    assert vcx(cy, "sync", "cy", "--push", "origin").returncode == 0
    works_on_t1(bo, "blocked")
    git(bo, "push", "-q", "origin", "agents/bo")
    person_deletes_t1(team)
    git(person, "fetch", "-q", "origin")  # the agents' branches, as origin/agents/…

    first = vcx(person, "sync", "bo", "--push", "origin")
    assert first.returncode == 1, first.stdout + first.stderr
    assert next_commands(first.stdout) == ["git vcontext sync bo --push origin --checkout"]
    tried = follow_output(first.stdout, person)
    command, code, output = tried.last
    assert code == 1, output
    assert "agents/bo: checked out here for the merge (this work tree was on main)" in output
    assert "the sync that lands it switches back" in output
    done = follow_output(output, person, take="theirs")  # the person's delete wins
    command, code, output = done.last
    assert (command, code) == ("git vcontext sync bo --push origin", 0), output
    assert "switched this work tree back to main, where it was before sync --checkout" in output
    assert git(person, "symbolic-ref", "--short", "HEAD").stdout.strip() == "main"
    assert git(person, "status", "--porcelain").stdout == ""
    assert not (person / ".git" / "vcontext" / "switched.json").exists()
    assert _statuses(team.remote) == {"t2": "completed"}
    shown = vcx(person, "status")
    assert "not listed" not in shown.stdout, shown.stdout
    assert "cy " in shown.stdout, shown.stdout
    assert "bo " in shown.stdout, shown.stdout
    _landed(team, person)


def test_over_http_the_agents_next_sync_after_the_persons_way_out_brings_it_along(
    tmp_path: Path, http: HttpFront
) -> None:
    """PRODUCT.md, "Resolving conflicts": the way out lands, and the agent's next sync
    lands without another conflict. Over HTTP a sync publishes its work before it looks
    (the last look said the remote's ``agents/agent-0`` was behind it); here a person
    resolved agent-0's conflict in another clone (taking the delete) and pushed its branch
    since. agent-0's next ``sync --push`` merged its stale tip into main under the lease
    it won: "CONFLICT, nothing moved" (exit 1), though the remote's copy holds that tip and
    the way out (the sync after it said up to date). Its integration's look now takes the
    remote's copy in first, as a sync that looks first does: brought along, up to date,
    its request removed and the lease given back in the same push."""
    where = tmp_path / "srv" / "remote.git"
    remote, (clone,) = soak.setup(tmp_path, 1, remote=where, url=http.url(where))
    person = tmp_path / "person"
    git(tmp_path, "clone", "-q", http.url(where), str(person))
    identity(person, "person")
    assert vcx(person, "install").returncode == 0

    def items(repo: Path, change: Any) -> None:
        edit(repo, soak.TODO, lambda d: change(d["todoList"]["items"]))

    items(person, lambda i: i.append({"id": "t1", "title": "Write docs", "status": "pending"}))
    git(person, "commit", "-qam", "add t1")
    git(person, "push", "-q", "origin", "main")
    assert vcx(clone, "sync", "agent-0", "--push", "origin").returncode == 0
    items(clone, lambda i: i[-1].update(status="inProgress", title="Write the docs"))
    git(clone, "commit", "-qam", "agent: working on t1")
    git(person, "pull", "-q", "origin", "main")
    items(person, lambda i: i.pop())
    git(person, "commit", "-qam", "person: drop t1")
    git(person, "push", "-q", "origin", "main")
    stopped = vcx(clone, "sync", "agent-0", "--push", "origin")
    assert stopped.returncode == 1, stopped.stdout + stopped.stderr
    git(clone, "push", "-q", "origin", "agents/agent-0")  # for the person to resolve
    git(person, "fetch", "-q", "origin")
    first = vcx(person, "sync", "agent-0", "--push", "origin")
    assert first.returncode == 1, first.stdout + first.stderr
    tried = follow_output(first.stdout, person)
    done = follow_output(tried.last[2], person, take="theirs")
    assert done.last[:2] == ("git vcontext sync agent-0 --push origin", 0), done.last

    again = vcx(clone, "sync", "agent-0", "--push", "origin")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "brought along from origin: agents/agent-0" in again.stdout
    assert tip(clone, "agents/agent-0") == tip(remote, "agents/agent-0")
    assert git(remote, "for-each-ref", "refs/vcontext/").stdout == ""
    assert "t1" not in {i["id"] for i in soak.documents(clone)[soak.TODO]["todoList"]["items"]}


def test_an_agent_the_persons_clone_never_fetched_is_looked_for_on_the_push_remote(
    tmp_path: Path,
) -> None:
    """PRODUCT.md: bad input is one clear line; every message leads somewhere. A person's
    clone that only pulled main has no ``origin/agents/bo``: ``sync bo --push origin`` said
    "no branch agents/bo for agent 'bo'" (exit 3) with nothing to run, while the remote had
    it; then it named ``git fetch``. Now ``--push`` looks at that remote for the branch
    first (one fetch) and takes it as a fetched one: the sync lands at once. (An agent the
    remote lacks too keeps the refusal with ``git fetch``:
    ``test_sync_person_clone.py``.)"""
    team = setup(tmp_path, ["bo"])
    bo, person = team.agents["bo"], team.person
    works_on_t1(bo)
    assert vcx(bo, "sync", "bo", "--push", "origin").returncode == 0
    again = vcx(person, "sync", "bo", "--push", "origin")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "agents/bo: created from origin/agents/bo" in again.stdout


def _cy_pushes_t1_from_its_own_clone(team: Team, tmp_path: Path) -> None:
    """The person forks cy and publishes it with a plain ``git push`` (no upstream); cy
    clones, completes t1 on agents/cy and pushes it."""
    person = team.person
    assert vcx(person, "fork", "cy", "--reason", "agent cy").returncode == 0
    git(person, "push", "-q", "origin", "agents/cy")
    cy = tmp_path / "cy"
    git(tmp_path, "clone", "-q", str(team.remote), str(cy))
    identity(cy, "cy")
    assert vcx(cy, "install").returncode == 0
    git(cy, "switch", "-q", "agents/cy")
    works_on_t1(cy, "completed")
    git(cy, "push", "-q", "origin", "agents/cy")


def _status_names_cys_commit_and_its_sync_lands(team: Team, *status: str) -> None:
    """The person's ``git vcontext STATUS…`` names cy's commit on origin/agents/cy with the
    ``sync --push`` that merges it; following it lands t1, and status says it no more."""
    person = team.person
    shown = vcx(person, *status)
    line = (
        "  origin/agents/cy has 1 commit agents/cy lacks (as last fetched; this row counts "
        "without it): git vcontext sync cy --push origin merges it"
    )
    assert line in shown.stdout.splitlines(), shown.stdout + shown.stderr
    command = line.rsplit(": ", 1)[1].removesuffix(" merges it")
    done = follow([command], person)
    assert done.last[1] == 0, done.last
    assert _statuses(team.remote)["t1"] == "completed"
    again = vcx(person, "status")
    assert "origin/agents/cy has" not in again.stdout, again.stdout


def test_status_in_the_persons_clone_names_work_of_the_remotes_copy_of_an_agent_branch(
    tmp_path: Path,
) -> None:
    """PRODUCT.md: each actor does only what the tool's messages say. The person forks cy
    and publishes it with a plain ``git push`` (no upstream); cy works in its own clone and
    pushes. After ``git fetch`` the person's ``status`` counted the stale local agents/cy
    ("needs sync", AHEAD 0) and said nothing of origin/agents/cy's commit; its row now names
    it with the ``sync --push`` that merges it, which lands."""
    team = setup(tmp_path, [])
    person = team.person
    _cy_pushes_t1_from_its_own_clone(team, tmp_path)
    git(person, "fetch", "-q", "origin")

    _status_names_cys_commit_and_its_sync_lands(team, "status")


def test_one_truth_status_names_the_remotes_copy_sync_brings_forward_in_a_single_branch_clone(
    tmp_path: Path,
) -> None:
    """PRODUCT.md, M19 (one truth): status judges the remote's copy of an agent branch as
    sync does (``tracking.known_tip``: git's remote-tracking branch or sync's own copy,
    the newer). A person's clone whose fetch refspec names main alone keeps no
    origin/agents/cy; ``status --fetch`` fetches cy's branch into sync's own copy, which
    ``sync --push`` brings agents/cy forward to; status read git's tracking branch alone
    and said nothing of cy's commit."""
    team = setup(tmp_path, [])
    person = team.person
    git(person, "config", "remote.origin.fetch", "+refs/heads/main:refs/remotes/origin/main")
    git(person, "update-ref", "-d", "refs/remotes/origin/agents/cy")
    _cy_pushes_t1_from_its_own_clone(team, tmp_path)

    _status_names_cys_commit_and_its_sync_lands(team, "status", "--fetch")
