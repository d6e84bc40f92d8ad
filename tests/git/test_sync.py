"""``git vcontext sync`` in real repositories (PRODUCT.md, "Branch-per-agent workflow", M11)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.run import run_git
from helpers.sync_repos import (
    commit_all,
    commit_on,
    conflicting_agents,
    edit,
    fork_by_hand,
    read,
    rev,
    seed,
    show,
    status,
    sync,
    without_fork,
)

MERGED_AT = "2026-01-01T00:00:00Z"


def _add_item(item_id: str, title: str) -> Any:
    def change(data: Any) -> None:
        data["todoList"]["items"].append({"id": item_id, "title": title, "status": "pending"})
        data["todoList"]["sequence"] += 1

    return change


def _plan_step(data: Any) -> None:
    data["plan"]["items"].append({"id": "p2", "title": "Step two", "status": "pending"})
    data["plan"]["sequence"] += 1


@pytest.fixture
def forked(git_repo: Path) -> Path:
    """main (checked out, clean) with two documents; agents/alice forked from it."""
    seed(git_repo)
    fork_by_hand(git_repo, "alice")
    return git_repo


def _refs(repo: Path, *names: str) -> list[str]:
    return [rev(repo, n) for n in names]


def test_sync_merges_both_ways_and_the_fork_block_stays_on_the_agent_branch_m11(
    forked: Path,
) -> None:
    repo = forked
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "tick")
    edit(repo, "todo.vcontext.json", _add_item("t4", "Four"))
    commit_all(repo, "main adds t4")
    before = _refs(repo, "main", "agents/alice")

    code, out, err = sync(repo, "alice")

    assert code == 0, err
    assert "agents/alice <-> main" in out
    base_todo, agent_todo = (
        show(repo, "main", "todo.vcontext.json"),
        show(repo, "agents/alice", "todo.vcontext.json"),
    )
    statuses = {i["id"]: i["status"] for i in base_todo["todoList"]["items"]}
    assert statuses == {"t1": "completed", "t2": "pending", "t3": "pending", "t4": "pending"}
    assert "fork" not in base_todo["todoList"]
    assert without_fork(agent_todo) == base_todo
    fork = agent_todo["todoList"]["fork"]
    assert fork["parentSequence"] == base_todo["todoList"]["sequence"]
    assert fork["mergeStatus"] == "merged"
    assert fork["mergedAt"] == MERGED_AT
    committer = {
        "id": "committer@example.com",
        "type": "human",  # a person ran sync here (main checked out): Ext 10's human
        "name": "Test Committer",
        "email": "committer@example.com",
    }
    assert fork["mergedBy"] == committer  # GIT_COMMITTER_* win over user.*, as in git
    # the plan only received the fork block on the agent branch: the base's plan is untouched
    assert show(repo, "main", "docs/plan.vcontext.json") == show(
        repo, before[0], "docs/plan.vcontext.json"
    )
    plan_fork = show(repo, "agents/alice", "docs/plan.vcontext.json")["plan"]["fork"]
    assert plan_fork["mergeStatus"] == "merged"
    # real merge commits, each naming the agent and the documents
    for branch, old, other in (("main", before[0], before[1]), ("agents/alice", before[1], None)):
        parents = run_git(repo, "log", "-1", "--format=%P", branch).stdout.split()
        assert len(parents) == 2
        assert parents[0] == old
        if other:
            assert parents[1] == other
        message = run_git(repo, "log", "-1", "--format=%B", branch).stdout
        assert "alice" in message
        assert "todo.vcontext.json" in message
    # main is checked out here and was clean: its files and index followed the merge
    assert read(repo, "todo.vcontext.json") == base_todo
    assert run_git(repo, "status", "--porcelain").stdout == ""


def test_a_document_only_the_agent_changed_reaches_the_base_without_its_fork_block_m11(
    forked: Path,
) -> None:
    repo = forked
    commit_on(repo, "agents/alice", {"docs/plan.vcontext.json": _plan_step}, "alice plans")
    code, _, err = sync(repo, "alice")
    assert code == 0, err
    base_plan = show(repo, "main", "docs/plan.vcontext.json")
    assert [i["id"] for i in base_plan["plan"]["items"]] == ["p1", "p2"]
    assert "fork" not in base_plan["plan"]
    assert "fork" not in show(repo, "main", "todo.vcontext.json")["todoList"]
    agent_plan = show(repo, "agents/alice", "docs/plan.vcontext.json")
    assert without_fork(agent_plan) == base_plan
    assert agent_plan["plan"]["fork"]["mergeStatus"] == "merged"


def test_second_sync_without_new_edits_moves_nothing(forked: Path) -> None:
    repo = forked
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t2", "completed"))}, "tick")
    assert sync(repo, "alice")[0] == 0
    after_first = _refs(repo, "main", "agents/alice")

    code, out, _ = sync(repo, "alice")

    assert code == 0
    assert "up to date" in out
    assert _refs(repo, "main", "agents/alice") == after_first


def test_sync_after_more_agent_edits_merges_only_the_new_work(forked: Path) -> None:
    repo = forked
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t2", "completed"))}, "one")
    assert sync(repo, "alice")[0] == 0
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t3", "completed"))}, "two")
    edit(repo, "docs/plan.vcontext.json", _plan_step)
    commit_all(repo, "main plans")

    code, _, err = sync(repo, "alice")

    assert code == 0, err
    base = show(repo, "main", "todo.vcontext.json")
    assert [i["status"] for i in base["todoList"]["items"]] == ["pending", "completed", "completed"]
    assert "fork" not in base["todoList"]
    for name in ("todo.vcontext.json", "docs/plan.vcontext.json"):
        assert without_fork(show(repo, "agents/alice", name)) == show(repo, "main", name)
    assert sync(repo, "alice")[1].strip().endswith("up to date with main")


def test_conflicting_agent_stops_its_pair_and_moves_no_ref(forked: Path) -> None:
    repo = forked
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "done")
    edit(repo, "todo.vcontext.json", status(("t1", "cancelled")))
    commit_all(repo, "main cancels t1")
    before = _refs(repo, "main", "agents/alice")

    code, out, _ = sync(repo, "alice")

    assert code == 1
    assert "CONFLICT" in out
    assert "todo.vcontext.json" in out
    assert "/todoList/items/0/status" in out
    assert _refs(repo, "main", "agents/alice") == before
    assert run_git(repo, "status", "--porcelain").stdout == ""


def test_conflict_in_an_ordinary_file_stops_the_pair(forked: Path) -> None:
    repo = forked
    commit_on(repo, "agents/alice", {"notes.txt": "line 1\nalice\nline 3\n"}, "alice notes")
    (repo / "notes.txt").write_text("line 1\nmain\nline 3\n")
    commit_all(repo, "main notes")
    before = _refs(repo, "main", "agents/alice")

    code, out, _ = sync(repo, "alice")

    assert code == 1
    assert "notes.txt" in out
    assert "CONFLICT" in out
    assert _refs(repo, "main", "agents/alice") == before


def test_ordinary_files_merge_by_lines_in_process(forked: Path) -> None:
    repo = forked
    commit_on(repo, "agents/alice", {"notes.txt": "line 1\nline 2\nalice\n"}, "alice notes")
    (repo / "notes.txt").write_text("main\nline 2\nline 3\n")
    commit_all(repo, "main notes")
    assert sync(repo, "alice")[0] == 0
    expected = "main\nline 2\nalice\n"
    assert run_git(repo, "show", "main:notes.txt").stdout == expected
    assert run_git(repo, "show", "agents/alice:notes.txt").stdout == expected


def test_a_checked_out_branch_with_local_changes_is_refused(forked: Path) -> None:
    repo = forked
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "tick")
    (repo / "notes.txt").write_text("uncommitted\n")
    before = _refs(repo, "main", "agents/alice")

    code, out, _ = sync(repo, "alice")

    assert code == 1
    assert "main is checked out in" in out
    assert str(repo) in out
    assert "local changes" in out
    assert _refs(repo, "main", "agents/alice") == before
    assert (repo / "notes.txt").read_text() == "uncommitted\n"


def _alice_ticks_t1_in_her_worktree(repo: Path) -> Path:
    wt = repo.parent / "alice-wt"
    run_git(repo, "worktree", "add", "-q", str(wt), "agents/alice")
    edit(wt, "todo.vcontext.json", status(("t1", "completed")))
    commit_all(wt, "alice ticks t1")
    return wt


def test_an_agent_checked_out_in_a_clean_worktree_follows_the_sync(forked: Path) -> None:
    repo = forked
    wt = _alice_ticks_t1_in_her_worktree(repo)
    edit(repo, "todo.vcontext.json", _add_item("t4", "Four"))
    commit_all(repo, "main adds t4")

    code, _, err = sync(wt, "alice")

    assert code == 0, err
    assert read(wt, "todo.vcontext.json") == show(repo, "agents/alice", "todo.vcontext.json")
    assert run_git(wt, "status", "--porcelain").stdout == ""
    assert [i["id"] for i in read(wt, "todo.vcontext.json")["todoList"]["items"]][-1] == "t4"


def test_merged_by_is_the_agent_when_an_agent_runs_sync(forked: Path) -> None:
    """From the agent's own worktree, or with GIT_VCONTEXT_AGENT, sync is an aiAgent's."""
    repo = forked
    wt = _alice_ticks_t1_in_her_worktree(repo)
    code, _, err = sync(wt, "alice")
    assert code == 0, err
    fork = read(wt, "todo.vcontext.json")["todoList"]["fork"]
    assert fork["mergedBy"] == {"id": "alice", "type": "aiAgent"}
    edit(wt, "todo.vcontext.json", status(("t2", "completed")))
    commit_all(wt, "alice ticks t2")
    code, _, err = sync(repo, "alice", env={"GIT_VCONTEXT_AGENT": "planner-7"})
    assert code == 0, err
    fork = show(repo, "agents/alice", "todo.vcontext.json")["todoList"]["fork"]
    assert fork["mergedBy"] == {"id": "planner-7", "type": "aiAgent"}


def test_dry_run_reports_and_moves_nothing(forked: Path) -> None:
    repo = forked
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "tick")
    before = _refs(repo, "main", "agents/alice")
    worktree_before = (repo / "todo.vcontext.json").read_bytes()

    code, out, _ = sync(repo, "alice", "--dry-run")

    assert code == 0
    assert "would merge 1 document into main" in out
    assert _refs(repo, "main", "agents/alice") == before
    assert (repo / "todo.vcontext.json").read_bytes() == worktree_before


def test_sync_all_merges_every_agent_and_later_agents_see_earlier_ones(git_repo: Path) -> None:
    repo = git_repo
    seed(repo)
    for agent, item in (("alice", "t1"), ("bob", "t2"), ("carol", "t3")):
        fork_by_hand(repo, agent)
        change = status((item, "completed"))
        commit_on(repo, f"agents/{agent}", {"todo.vcontext.json": change}, f"{agent} works")

    code, out, err = sync(repo, "--all")

    assert code == 0, err
    base = show(repo, "main", "todo.vcontext.json")
    assert {i["status"] for i in base["todoList"]["items"]} == {"completed"}
    assert "fork" not in base["todoList"]
    assert without_fork(show(repo, "agents/carol", "todo.vcontext.json")) == base
    assert out.count("<-> main") == 3


def test_one_conflicting_agent_does_not_stop_the_others(git_repo: Path) -> None:
    repo = git_repo
    conflicting_agents(repo)
    bob_before = rev(repo, "agents/bob")

    code, out, _ = sync(repo, "--all")

    assert code == 1
    assert show(repo, "main", "todo.vcontext.json")["todoList"]["items"][0]["status"] == (
        "completed"
    )
    assert rev(repo, "agents/bob") == bob_before
    assert "agents/bob <-> main: CONFLICT" in out


def test_unknown_agent_and_bad_usage_are_one_line_errors(forked: Path) -> None:
    code, _, err = sync(forked, "nobody")
    assert code == 3
    assert err.count("\n") == 1
    assert "agents/nobody" in err
    code, _, err = sync(forked)
    assert code == 2
    assert "--all" in err
    code, _, err = sync(forked, "alice", "--all")
    assert code == 2


def test_into_names_another_base(forked: Path) -> None:
    repo = forked
    run_git(repo, "branch", "release", "main")
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "tick")
    main_before = rev(repo, "main")
    code, _, err = sync(repo, "alice", "--into", "release")
    assert code == 0, err
    assert rev(repo, "main") == main_before
    released = show(repo, "release", "todo.vcontext.json")
    assert released["todoList"]["items"][0]["status"] == "completed"
    assert "fork" not in json.dumps(released)


TRON_BASE = """class vContextInfo: version
class Plan: id, uid, title, status, sequence, items
class PlanItem: id, title, status

vContextInfo: vContextInfo("0.4")

plan: Plan(
  "plan-1",
  "plan-uid-1",
  "Webhooks",
  "inProgress",
  5,
  [
    PlanItem("p1", "Diagnose", "inProgress")
  ]
)
"""


def _tron(repo: Path, rev_name: str, name: str = "plan.vcontext.tron") -> Any:
    from git_vcontext.codecs import parse

    raw = run_git(repo, "show", f"{rev_name}:{name}").stdout.encode()
    return raw, parse(raw, path=name).data


def _event(n: int, who: str) -> str:
    """A valid VerMAS event (sync makes no merge the hook would refuse: issue 26)."""
    stamp = f"2026-01-01T00:0{n}:00.000Z"
    record = {"event_id": f"evt-{who}-{n}", "event_type": "agent.noted", "timestamp": stamp}
    return json.dumps({**record, "actor": who, "data": {}}) + "\n"


def test_tron_documents_and_jsonl_event_logs_sync_both_ways_m11_m6(git_repo: Path) -> None:
    repo = git_repo
    (repo / "plan.vcontext.tron").write_text(TRON_BASE)
    (repo / ".work").mkdir()
    (repo / ".work" / "events.jsonl").write_text(_event(0, "seed"))
    commit_all(repo, "seed")
    forked = TRON_BASE.replace("sequence, items", "sequence, items, fork").replace(
        "class PlanItem: id, title, status\n",
        "class PlanItem: id, title, status\nclass Fork: parentUid, parentSequence, mergeStatus\n",
    )
    forked = forked.replace("  ]\n)\n", '  ],\n  Fork("plan-uid-1", 5, "unmerged")\n)\n')
    run_git(repo, "branch", "agents/alice")
    run_git(repo, "config", "vcontext.agent.alice.base", "main")
    alice_plan = forked.replace(
        '    PlanItem("p1", "Diagnose", "inProgress")\n',
        '    PlanItem("p1", "Diagnose", "inProgress"),\n    PlanItem("a1", "Alice", "pending")\n',
    )
    commit_on(
        repo,
        "agents/alice",
        {
            "plan.vcontext.tron": alice_plan,
            ".work/events.jsonl": _event(0, "seed") + _event(1, "alice"),
        },
        "alice forks and works",
    )
    (repo / "plan.vcontext.tron").write_text(
        TRON_BASE.replace('"Diagnose", "inProgress"', '"Diagnose", "completed"')
    )
    (repo / ".work" / "events.jsonl").write_text(_event(0, "seed") + _event(1, "main"))
    commit_all(repo, "main works")

    code, out, err = sync(repo, "alice")

    assert code == 0, out + err
    base_raw, base_plan = _tron(repo, "main")
    agent_raw, agent_plan = _tron(repo, "agents/alice")
    assert [(i["id"], i["status"]) for i in base_plan["plan"]["items"]] == [
        ("p1", "completed"),
        ("a1", "pending"),
    ]
    assert "fork" not in base_plan["plan"]
    assert b"Fork" not in base_raw
    assert agent_plan["plan"]["fork"]["mergeStatus"] == "merged"
    # the agent's document keeps its own TRON classes (its Plan class has the fork)
    assert b"class Plan: id, uid, title, status, sequence, items, fork\n" in agent_raw
    # the agent's document keeps its own TRON classes (its Plan class has the fork)
    assert b"class Plan: id, uid, title, status, sequence, items, fork\n" in agent_raw
    assert without_fork(agent_plan) == base_plan
    assert base_raw.startswith(b"class vContextInfo: version\n")  # still the TRON dialect
    events = run_git(repo, "show", "main:.work/events.jsonl").stdout.splitlines()
    assert sorted(json.loads(e)["event_id"] for e in events) == [
        "evt-alice-1",
        "evt-main-1",
        "evt-seed-0",
    ]
    assert run_git(repo, "show", "agents/alice:.work/events.jsonl").stdout.splitlines() == events


def test_files_with_the_vcontext_merge_attribute_are_merged_by_the_engine(forked: Path) -> None:
    repo = forked
    (repo / ".gitattributes").write_text("memory/*.json merge=vcontext\n")
    (repo / "memory").mkdir()
    (repo / "memory" / "notes.json").write_text('{"a": 1, "b": 2}\n')
    commit_all(repo, "notes")
    code, _, err = sync(repo, "alice")  # bring the notes to the agent
    assert code == 0, err
    commit_on(repo, "agents/alice", {"memory/notes.json": '{"a": 1, "b": 20}\n'}, "alice: b")
    (repo / "memory" / "notes.json").write_text('{"a": 10, "b": 2}\n')
    commit_all(repo, "main: a")

    code, out, err = sync(repo, "alice")  # one line changed on both sides: git would conflict

    assert code == 0, out + err
    assert json.loads(run_git(repo, "show", "main:memory/notes.json").stdout) == {"a": 10, "b": 20}


def test_a_checked_out_branch_whose_files_cannot_follow_is_not_moved(forked: Path) -> None:
    repo = forked
    commit_on(repo, "agents/alice", {"new.txt": "from alice\n"}, "alice adds a file")
    (repo / "new.txt").write_text("untracked here\n")  # main's work tree is in the way
    before = _refs(repo, "main", "agents/alice")

    code, out, _ = sync(repo, "alice")

    assert code == 1
    assert "cannot follow" in out
    assert "new.txt" in out
    assert _refs(repo, "main", "agents/alice") == before
    assert (repo / "new.txt").read_text() == "untracked here\n"
    assert run_git(repo, "status", "--porcelain").stdout == "?? new.txt\n"


def test_a_work_tree_a_killed_git_left_locked_is_named_with_the_command_that_frees_it(
    forked: Path,
) -> None:
    """A sync (or git) killed while updating a work tree leaves its ``index.lock``: the
    branch checked out there cannot follow, and sync says which file is in the way and
    the command that removes it, as it does for a ref's lock ("Sync at scale": a killed
    sync is safe to run again; advice that leads somewhere), never only git's words."""
    repo = forked
    commit_on(repo, "agents/alice", {"new.txt": "from alice\n"}, "alice adds a file")
    lock = repo / ".git" / "index.lock"
    lock.write_text("")
    before = _refs(repo, "main", "agents/alice")

    code, out, _ = sync(repo, "alice")

    assert code == 1
    assert "cannot follow" in out
    assert f"rm -f '{lock}'" in out
    assert _refs(repo, "main", "agents/alice") == before
    lock.unlink()  # what the message says: then sync again
    code, out, err = sync(repo, "alice")
    assert code == 0, out + err
    assert (repo / "new.txt").read_text() == "from alice\n"


def test_rounds_of_edits_and_syncs_keep_both_branches_equal_but_for_forks(git_repo: Path) -> None:
    import random

    repo = git_repo
    seed(repo)
    agents = ("alice", "bob")
    for agent in agents:
        fork_by_hand(repo, agent)
    rng = random.Random(7)
    names = ("todo.vcontext.json", "docs/plan.vcontext.json")
    written: set[str] = set()
    for round_no in range(4):
        for who in ("main", *agents):
            edits = {
                n: _appending(f"{who}-{round_no}-{i}", written)
                for i, n in enumerate(names)
                if rng.random() < 0.7
            }
            if edits:
                _commit_round(repo, who, edits, round_no)
        code, out, err = sync(repo, "--all")
        assert code == 0, out + err
        code, again, _ = sync(repo, "--all")
        assert code == 0, again
        assert again.count("up to date") == len(agents), again
        _assert_equal_but_for_forks(repo, names, agents)
    # nothing anyone wrote was lost
    on_main = set()
    for name in names:
        data = show(repo, "main", name)
        on_main |= {i["id"] for i in data.get("todoList", data.get("plan", {}))["items"]}
    assert written <= on_main
    assert len(written) > 10


def _appending(tag: str, written: set[str]) -> Any:
    """An edit that appends an item ``tag`` to a todo list or plan (noted in ``written``)."""
    written.add(tag)

    def change(data: Any) -> None:
        key = "todoList" if "todoList" in data else "plan"
        data[key]["items"].append({"id": tag, "title": tag, "status": "pending"})
        data[key]["sequence"] += 1

    return change


def _commit_round(repo: Path, who: str, edits: dict[str, Any], round_no: int) -> None:
    """``who``'s edits of one round, committed on main or on the agent's branch."""
    if who != "main":
        commit_on(repo, f"agents/{who}", edits, f"{who} round {round_no}")
        return
    for name, change in edits.items():
        edit(repo, name, change)
    commit_all(repo, f"main round {round_no}")


def _assert_equal_but_for_forks(
    repo: Path, names: tuple[str, ...], agents: tuple[str, ...]
) -> None:
    """Each agent's branch holds main's documents plus a fork block at main's sequence."""
    for name in names:
        base = show(repo, "main", name)
        assert "fork" not in json.dumps(base)
        for agent in agents:
            mine = show(repo, f"agents/{agent}", name)
            assert without_fork(mine) == base
            key = "todoList" if "todoList" in mine else "plan"
            assert mine[key]["fork"]["parentSequence"] == base[key]["sequence"]


def test_sync_follows_a_worktree_whose_path_holds_a_newline_and_spaces(forked: Path) -> None:
    """Bad input never produces a wrong error: an agent's work tree at a path with a
    newline (and spaces) is found as git lists it (``worktree list -z``), so sync moves
    it instead of failing with "git is not installed"."""
    repo = forked
    wt = repo.parent / "alice's\nwork tree"
    run_git(repo, "worktree", "add", "-q", str(wt), "agents/alice")
    edit(wt, "todo.vcontext.json", status(("t1", "completed")))
    commit_all(wt, "alice ticks t1")
    edit(repo, "todo.vcontext.json", _add_item("t4", "Four"))
    commit_all(repo, "main adds t4")

    code, _, err = sync(wt, "alice")

    assert code == 0, err
    assert "not installed" not in err
    assert read(wt, "todo.vcontext.json") == show(repo, "agents/alice", "todo.vcontext.json")
    assert run_git(wt, "status", "--porcelain").stdout == ""
    assert [i["id"] for i in read(wt, "todo.vcontext.json")["todoList"]["items"]][-1] == "t4"


def test_the_command_that_frees_a_branchs_lock_is_one_word_whatever_the_agents_name(
    git_repo: Path, tmp_path: Path
) -> None:
    """A branch's name may hold a quote and ``$(…)`` (``git check-ref-format`` allows
    both). The ``rm -f`` that sync prints for its stale lock was written as ``'PATH'``:
    pasted, the quote in the name ended the word and ``$(…)`` ran. PRODUCT.md's
    command-line contract (no value from outside read as anything but what it is), for
    the commands given to paste: the advice, run by a shell, removes that lock and
    nothing else runs; then sync lands (found in trial9)."""
    agent = "x'$(touch${IFS}pwned)'"
    seed(git_repo)
    fork_by_hand(git_repo, agent)
    commit_on(git_repo, f"agents/{agent}", {"todo.vcontext.json": status(("t1", "completed"))}, "t")
    lock = git_repo / ".git" / "refs" / "heads" / "agents" / f"{agent}.lock"
    lock.write_text("")
    before = _refs(git_repo, "main", f"agents/{agent}")

    code, out, err = sync(git_repo, agent)

    assert code == 3, out + err
    said = out + err
    command = said[said.index("remove it: ") + len("remove it: ") :].splitlines()[0]
    assert command.startswith("rm -f '"), command
    assert _refs(git_repo, "main", f"agents/{agent}") == before
    import subprocess

    subprocess.run(["sh", "-c", command], cwd=tmp_path, check=True)
    assert not lock.exists()
    assert not (tmp_path / "pwned").exists()
    assert not list(tmp_path.glob("*pwned*"))
    code, out, err = sync(git_repo, agent)
    assert code == 0, out + err


def test_a_document_whose_name_holds_a_newline_is_one_quoted_line_in_sync_and_status(
    git_repo: Path,
) -> None:
    """PRODUCT.md command-line contract (one line per fact; conflicts and resolve quote such
    a name as git does): status and sync listed a changed document's name as it is, so a
    newline in it split the line in two (the second looking like a path of its own)."""
    from helpers.run import run_cli
    from helpers.sync_repos import commit_all, edit, fork_by_hand, seed
    from helpers.sync_repos import status as set_status

    seed(git_repo)
    odd = "odd\nname.vcontext.json"
    (git_repo / odd).write_bytes((git_repo / "todo.vcontext.json").read_bytes())
    commit_all(git_repo, "a document with a newline in its name")
    fork_by_hand(git_repo, "alice")
    run_git(git_repo, "switch", "-q", "agents/alice")
    edit(git_repo, odd, set_status(("t1", "completed")))
    commit_all(git_repo, "alice ticks t1 in the odd one")
    run_git(git_repo, "switch", "-q", "main")

    shown = run_cli("status", cwd=git_repo).stdout.decode()
    code, out, err = sync(git_repo, "alice")

    assert code == 0, out + err
    for text in (shown, out):
        assert '  "odd\\nname.vcontext.json"\n' in text, text
        assert "\nname.vcontext.json" not in text, text
