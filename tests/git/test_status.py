"""``git vcontext status``: one row per agent branch (PRODUCT.md, command-line contract)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.run import run_cli, run_git
from helpers.sync_repos import (
    EPOCH,
    agent_against_main,
    commit_all,
    commit_on,
    conflicting_agents,
    edit,
    fork_by_hand,
    rev,
    seed,
    status,
    sync,
)


def _status(repo: Path) -> tuple[int, dict[str, Any]]:
    proc = run_cli("status", "--format", "json", cwd=repo, env=EPOCH)
    assert proc.stderr == b""
    return proc.returncode, {r["agent"]: r for r in json.loads(proc.stdout)["agents"]}


def test_status_rows_show_ahead_behind_documents_sequences_and_merge_status(
    git_repo: Path,
) -> None:
    repo = git_repo
    seed(repo)
    fork_by_hand(repo, "alice")
    fork_by_hand(repo, "bob")
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "a")
    edit(repo, "todo.vcontext.json", status(("t3", "blocked"), sequence_bump=2))
    commit_all(repo, "main moves on")

    code, rows = _status(repo)

    assert code == 0
    alice, bob = rows["alice"], rows["bob"]
    assert (alice["ahead"], alice["behind"]) == (2, 1)  # fork + edit; main's commit
    assert (bob["ahead"], bob["behind"]) == (1, 1)
    assert alice["documents"] == ["todo.vcontext.json"]
    assert bob["documents"] == []  # a fork block alone brings nothing to the base
    assert alice["state"] == "needs sync"
    assert alice["mergeStatus"] == "unmerged"
    todo_seq = next(s for s in alice["sequences"] if s["path"] == "todo.vcontext.json")
    assert (todo_seq["parentSequence"], todo_seq["baseSequence"]) == (3, 5)
    assert todo_seq["divergence"] == 2
    assert alice["conflicts"] == []


def test_status_after_sync_is_up_to_date_and_merged(git_repo: Path) -> None:
    repo = git_repo
    seed(repo)
    fork_by_hand(repo, "alice")
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "a")
    assert sync(repo, "alice")[0] == 0

    code, rows = _status(repo)

    alice = rows["alice"]
    assert code == 0
    assert alice["state"] == "up to date"
    assert (alice["ahead"], alice["behind"]) == (0, 0)  # sync's own merges are not counted
    assert alice["mergeStatus"] == "merged"
    assert all(s["divergence"] == 0 for s in alice["sequences"])


def test_status_predicts_a_conflict_and_moves_nothing(git_repo: Path) -> None:
    repo = git_repo
    agent_against_main(repo)
    before = (rev(repo, "main"), rev(repo, "agents/alice"))

    code, rows = _status(repo)

    assert code == 1
    assert rows["alice"]["state"] == "conflict"
    assert rows["alice"]["documents"] == ["todo.vcontext.json"]  # her work, though stopped
    [conflict] = rows["alice"]["conflicts"]
    assert conflict["path"] == "todo.vcontext.json"
    assert conflict["conflicts"][0]["path"] == "/todoList/items/0/status"
    assert (rev(repo, "main"), rev(repo, "agents/alice")) == before
    text = run_cli("status", cwd=repo).stdout.decode()
    assert "conflict: todo.vcontext.json" in text
    assert "alice" in text
    # the way out, as sync names it (a base tracking no remote: a plain sync's)
    assert text.splitlines()[-1] == "  next: git vcontext sync alice --checkout"


def test_status_without_agents(git_repo: Path) -> None:
    seed(git_repo)
    proc = run_cli("status", cwd=git_repo)
    assert proc.returncode == 0
    assert proc.stdout.decode().strip() == "no agent branches"


def test_status_predicts_conflicts_between_agents_that_sync_all_would_meet(
    git_repo: Path,
) -> None:
    """Each row is what ``sync AGENT`` would do now (issue 36 point 7); that the two clash,
    as ``sync --all`` meets it, is said in both rows, naming the other."""
    repo = git_repo
    conflicting_agents(repo)
    before = (rev(repo, "main"), rev(repo, "agents/alice"), rev(repo, "agents/bob"))

    code, rows = _status(repo)

    assert code == 1
    assert rows["alice"]["state"] == "needs sync"  # alone, each merges cleanly ...
    assert rows["bob"]["state"] == "needs sync"
    [clash] = rows["bob"]["clashes"]  # ... but not both: bob meets alice's t1 in sync --all
    assert clash["with"] == "agents/alice"
    assert clash["conflicts"][0]["conflicts"][0]["path"] == "/todoList/items/0/status"
    assert [c["with"] for c in rows["alice"]["clashes"]] == ["agents/bob"]
    code, out, _ = sync(repo, "--all", "--dry-run")
    assert code == 1
    assert "agents/bob <-> main: CONFLICT" in out
    assert (rev(repo, "main"), rev(repo, "agents/alice"), rev(repo, "agents/bob")) == before


def test_an_agent_whose_base_branch_was_deleted_is_refused_in_its_row_not_for_all(
    git_repo: Path,
) -> None:
    repo = git_repo
    seed(repo)
    run_git(repo, "branch", "gone", "main")
    fork_by_hand(repo, "alice")
    fork_by_hand(repo, "bob", base="gone")
    run_git(repo, "config", "vcontext.agent.bob.base", "gone")
    run_git(repo, "branch", "-D", "gone")

    code, rows = _status(repo)

    assert code == 0
    assert rows["alice"]["state"] == "up to date"
    assert rows["bob"]["state"] == "refused"
    assert rows["bob"]["base"] == "gone"
    assert "'gone'" in rows["bob"]["message"]
    assert "does not exist" in rows["bob"]["message"]


@pytest.mark.parametrize("command", [["status"], ["fork", "alice"]])
def test_a_config_file_git_cannot_parse_is_an_operational_error_not_a_crash(
    git_repo: Path, command: list[str]
) -> None:
    seed(git_repo)
    with open(git_repo / ".git" / "config", "a") as fh:
        fh.write("[vcontext\n")
    proc = run_cli(*command, cwd=git_repo)
    assert proc.returncode == 3
    err = proc.stderr.decode()
    assert err.count("\n") == 1
    assert "config" in err
    assert "internal error" not in err


def test_status_names_the_branch_that_deleted_a_document_in_a_clash(tmp_path: Path) -> None:
    """Resolving conflicts: a file one branch deleted and another changed is said by
    branch in ``status`` too (two agents that clash: "deleted on agents/ann, modified on
    agents/bo"), never "deleted by us", whose side depends on the direction of a merge."""
    from helpers.team import TASKS, git, identity, tasks, vcx, write

    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    identity(repo, "person")
    write(repo, TASKS, tasks("t1", "t2"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "seed")
    for agent in ("ann", "bo"):
        assert vcx(repo, "fork", agent).returncode == 0
    git(repo, "switch", "-q", "agents/ann")
    git(repo, "rm", "-q", TASKS)
    git(repo, "commit", "-qm", "ann: no task list")
    git(repo, "switch", "-q", "agents/bo")
    data = tasks("t1", "t2")
    data["todoList"]["items"][0]["status"] = "inProgress"
    write(repo, TASKS, data)
    git(repo, "commit", "-qam", "bo: t1 in progress")
    git(repo, "switch", "-q", "main")

    shown = vcx(repo, "status")

    assert shown.returncode == 1, shown.stdout + shown.stderr
    assert f"{TASKS}: deleted on agents/ann, modified on agents/bo" in shown.stdout
    assert "by us" not in shown.stdout
    assert "by them" not in shown.stdout


def test_a_clash_row_of_status_names_the_way_out_and_following_it_lands_both(
    git_repo: Path,
) -> None:
    """PRODUCT.md, "Resolving conflicts (agents and people)": every conflict message ends
    with the exact next commands. A row saying "clashes with agents/bob" named none (trial12):
    each agent syncs alone, so its row ends with its own sync (``sync.advice.clash_step``);
    pasted, it lands, and the other's row then says its conflict with the ``--checkout``
    way out, which pasted in turn lands too."""
    from helpers.next_steps import follow, follow_output, next_commands

    repo = git_repo
    conflicting_agents(repo)
    assert run_cli("install", cwd=repo).returncode == 0

    shown = run_cli("status", cwd=repo, env=EPOCH)
    assert shown.returncode == 1
    out = shown.stdout.decode()
    alice = out[out.index("agents/alice:\n") : out.index("agents/bob:\n")]
    assert alice.splitlines()[-1] == "  next: git vcontext sync alice"
    assert next_commands(out) == ["git vcontext sync bob"]  # bob's row, the last

    first = follow(next_commands(out), repo)
    assert "agents/bob <-> main: merge 1 document into main" in first.last[2]
    after = run_cli("status", cwd=repo, env=EPOCH).stdout.decode()
    assert "conflict: todo.vcontext.json" in after
    assert next_commands(after) == ["git vcontext sync alice --checkout"]
    stopped = follow(next_commands(after), repo)
    done = follow_output(stopped.last[2], stopped.cwd, take="ours")
    command, code, said = done.last
    assert command == "git vcontext sync alice"
    assert code == 0, said
    statuses = {i["id"]: i["status"] for i in show_todo(repo)["todoList"]["items"]}
    assert statuses["t1"] == "completed"  # alice's, as taken
    final = run_cli("status", cwd=repo, env=EPOCH)
    assert final.returncode == 0, final.stdout.decode()
    # bob lacks alice's resolution: its "needs sync" row names its sync (trial13b)
    assert next_commands(final.stdout.decode()) == ["git vcontext sync bob"]
    assert follow(next_commands(final.stdout.decode()), repo).last[1] == 0
    assert "next:" not in run_cli("status", cwd=repo, env=EPOCH).stdout.decode()


def show_todo(repo: Path) -> Any:
    return json.loads(run_git(repo, "show", "main:todo.vcontext.json").stdout)


def test_a_needs_sync_row_names_its_sync_in_text_and_json_and_following_it_lands(
    git_repo: Path,
) -> None:
    """PRODUCT.md, "Resolving conflicts (agents and people)": every message ends with the
    exact next commands. A "needs sync" row named none (trial13b): its details were the
    documents alone, while a clash, a conflict and a stopped merge each end with
    ``next:``. The row now ends with the agent's sync, the JSON row lists it as ``next``,
    and pasted it lands: the next status says up to date and names nothing."""
    from helpers.next_steps import follow, next_commands

    repo = git_repo
    seed(repo)
    fork_by_hand(repo, "alice")
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "a")
    edit(repo, "todo.vcontext.json", status(("t3", "blocked"), sequence_bump=2))
    commit_all(repo, "main moves on")

    shown = run_cli("status", cwd=repo, env=EPOCH)
    assert shown.returncode == 0
    out = shown.stdout.decode()
    assert out.splitlines()[-1] == "  next: git vcontext sync alice"
    _, rows = _status(repo)
    assert rows["alice"]["state"] == "needs sync"
    assert rows["alice"]["next"] == ["git vcontext sync alice"]

    done = follow(next_commands(out), repo)
    assert done.last[1] == 0, done.last[2]
    _, rows = _status(repo)
    assert rows["alice"]["state"] == "up to date"
    assert "next" not in rows["alice"]
    assert "next:" not in run_cli("status", cwd=repo, env=EPOCH).stdout.decode()
