"""``sync AGENT --checkout``, and ``merge.vcontext.favor`` in sync ("Resolving conflicts").

A pair that ``sync`` stopped on is the agent's work, resolved where the agent works: the
merge of the current base into ``agents/AGENT`` is left stopped in the work tree where
that branch is checked out, and every conflict ends with the commands that lead out of it
(followed here as printed, with ``helpers.next_steps``).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from helpers.next_steps import follow, follow_output, next_commands
from helpers.run import run_cli, run_git
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
)


def _conflicted(repo: Path) -> None:
    """alice is synced into main (t1 completed); bob blocked t1 meanwhile."""
    conflicting_agents(repo)
    assert sync(repo, "alice")[0] == 0


def _bob_checked_out(repo: Path) -> Path:
    wt = repo.parent / "bob"
    run_git(repo, "worktree", "add", "-q", str(wt), "agents/bob")
    return wt


def _head_branch(wt: Path) -> str:
    return run_git(wt, "symbolic-ref", "--short", "HEAD").stdout.strip()


def test_a_conflict_of_sync_ends_with_the_command_that_leads_out_of_it(git_repo: Path) -> None:
    _conflicted(git_repo)
    code, out, _err = sync(git_repo, "bob")
    assert code == 1
    assert "CONFLICT" in out
    assert out.rstrip("\n").splitlines()[-1] == "  next: git vcontext sync bob --checkout"


def test_checkout_leaves_the_merge_of_the_base_stopped_where_the_agent_branch_is_checked_out(
    git_repo: Path,
) -> None:
    """Resolving conflicts: the merge of the current base into agents/AGENT, stopped in the
    agent's work tree (MERGE_HEAD, index stages); resolve, commit, and the next sync lands."""
    repo = git_repo
    _conflicted(repo)
    wt = _bob_checked_out(repo)
    main_before, bob_before = rev(repo, "main"), rev(repo, "agents/bob")
    code, out, err = sync(repo, "bob", "--checkout")
    assert code == 1, out + err
    assert f"left stopped in {wt}" in out
    assert "conflicted: todo.vcontext.json" in out
    assert run_git(wt, "rev-parse", "MERGE_HEAD").stdout.strip() == main_before
    assert (rev(repo, "main"), rev(repo, "agents/bob")) == (main_before, bob_before)
    assert _head_branch(repo) == "main"  # the person's work tree is left alone
    assert "UU todo.vcontext.json" in run_git(wt, "status", "--porcelain").stdout

    listing = json.loads(run_cli("conflicts", "--format", "json", cwd=wt).stdout)
    [f] = listing["files"]
    assert f["labels"] == {"ours": "agents/bob", "theirs": "main"}
    [c] = f["conflicts"]
    assert (c["where"], c["ours"], c["theirs"]) == (
        "todoList.items[t1].status",
        "blocked",
        "completed",
    )

    done = follow_output(out, repo, take="ours")
    assert done.cwd == wt
    command, code, output = done.last
    assert command == "git vcontext sync bob"
    assert code == 0, output
    assert "CONFLICT" not in output
    on_main = show(repo, "main", "todo.vcontext.json")["todoList"]
    assert on_main["items"][0]["status"] == "blocked"
    assert "fork" not in on_main  # M11 holds
    on_bob = show(repo, "agents/bob", "todo.vcontext.json")["todoList"]
    assert on_bob["items"][0]["status"] == "blocked"
    assert on_bob["fork"]["mergeStatus"] == "merged"  # its work reached the base
    assert on_bob["fork"]["parentSequence"] == on_main["sequence"]
    assert "Vcontext-Sync: bob" in run_git(repo, "log", "-1", "--format=%B", "agents/bob^").stdout
    assert sync(repo, "bob")[1].strip() == "agents/bob: up to date with main"


def test_checkout_switches_a_clean_work_tree_to_an_agent_branch_checked_out_nowhere(
    git_repo: Path,
) -> None:
    repo = git_repo
    _conflicted(repo)
    code, out, err = sync(repo, "bob", "--checkout")
    assert code == 1, out + err
    assert "agents/bob: checked out here for the merge (this work tree was on main)" in out
    assert _head_branch(repo) == "agents/bob"
    assert run_git(repo, "rev-parse", "MERGE_HEAD").stdout.strip() == rev(repo, "main")
    done = follow_output(out, repo, take="theirs")
    assert done.last[1] == 0, done.last
    assert show(repo, "main", "todo.vcontext.json")["todoList"]["items"][0]["status"] == (
        "completed"
    )
    assert _head_branch(repo) == "main"  # switched back by the sync that landed
    assert "switched this work tree back to main" in done.last[2]
    on_main = read(repo, "todo.vcontext.json")["todoList"]
    assert "fork" not in on_main  # the work tree holds main again (M11)
    assert on_main["items"][0]["status"] == "completed"
    agent = show(repo, "agents/bob", "todo.vcontext.json")["todoList"]
    assert agent["fork"]["mergeStatus"] == "merged"


def test_checkout_from_a_detached_head_goes_back_to_that_commit(git_repo: Path) -> None:
    repo = git_repo
    _conflicted(repo)
    at = rev(repo, "main")
    run_git(repo, "switch", "-q", "--detach", "main")
    code, out, err = sync(repo, "bob", "--checkout")
    assert code == 1, out + err
    assert f"(this work tree was on a detached HEAD at {at[:12]})" in out
    done = follow_output(out, repo, take="ours")
    assert done.last[1] == 0, done.last
    assert f"switched this work tree back to a detached HEAD at {at[:12]}" in done.last[2]
    assert run_git(repo, "rev-parse", "HEAD").stdout.strip() == at
    assert run_git(repo, "symbolic-ref", "-q", "HEAD", check=False).returncode == 1


def test_a_work_tree_switched_elsewhere_meanwhile_is_left_where_the_person_put_it(
    git_repo: Path,
) -> None:
    repo = git_repo
    _conflicted(repo)
    code, out, err = sync(repo, "bob", "--checkout")
    assert code == 1, out + err
    run_cli("resolve", "todo.vcontext.json", "--take", "ours", cwd=repo)
    run_git(repo, "commit", "-q", "--no-edit")
    run_git(repo, "switch", "-q", "-c", "feature")
    code, out, err = sync(repo, "bob")
    assert code == 0, out + err
    assert "switched" not in out
    assert _head_branch(repo) == "feature"
    assert not (repo / ".git" / "vcontext" / "switched.json").exists()


class _Died(BaseException):
    """The process killed at that point (nothing after it runs, no handler catches it)."""


def test_a_checkout_killed_as_it_notes_the_switch_never_leaves_a_work_tree_switched_unnoted(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README (``sync --checkout``): the sync that lands the agent's pair switches the work
    tree back. Where it was is noted before it is switched, so a process killed between the
    two never leaves it on the agent branch with no note (its landing sync would stay)."""
    import pygit2

    from git_vcontext.conflicts import checkout, switchback

    repo = git_repo
    _conflicted(repo)

    def killed(*_args: object, **_kwargs: object) -> None:
        raise _Died

    monkeypatch.setattr(switchback, "write_atomic", killed)
    with pytest.raises(_Died):
        checkout.worktree_for(pygit2.Repository(str(repo)), "agents/bob")
    assert _head_branch(repo) == "main"  # not switched: the note came first
    monkeypatch.undo()
    code, out, err = sync(repo, "bob", "--checkout")  # the person runs it again
    assert code == 1, out + err
    done = follow_output(out, repo, take="theirs")
    assert done.last[1] == 0, done.last
    assert _head_branch(repo) == "main"
    assert not (repo / ".git" / "vcontext" / "switched.json").exists()


def test_a_switch_that_fails_leaves_the_note_that_was_there(git_repo: Path) -> None:
    """A ``--checkout`` whose ``git switch`` fails notes nothing: a note already there (of an
    earlier switch) is kept as it was."""
    import pygit2

    from git_vcontext.conflicts import checkout

    repo = git_repo
    _conflicted(repo)
    note = repo / ".git" / "vcontext" / "switched.json"
    note.parent.mkdir(parents=True, exist_ok=True)
    earlier = b'{"branch": "agents/alice", "was": "main"}\n'
    note.write_bytes(earlier)
    where, was, why = checkout.worktree_for(pygit2.Repository(str(repo)), "agents/nobody")
    assert (where, was) == (None, None)
    assert "cannot switch to it" in why
    assert note.read_bytes() == earlier
    note.unlink()
    checkout.worktree_for(pygit2.Repository(str(repo)), "agents/nobody")
    assert not note.exists()


def test_checkout_with_the_branch_checked_out_nowhere_and_this_work_tree_busy_says_how(
    git_repo: Path,
) -> None:
    repo = git_repo
    _conflicted(repo)
    run_git(repo, "switch", "-q", "-c", "feature")
    (repo / "notes.txt").write_text("a person's edit\n")
    code, out, err = sync(repo, "bob", "--checkout")
    assert code == 1, out + err
    assert "agents/bob: not left stopped: agents/bob is checked out in no work tree" in out
    assert _head_branch(repo) == "feature"
    commands = next_commands(out)
    assert commands[0] == f"git worktree add {repo}-bob agents/bob"
    done = follow(commands, repo)
    _command, code, output = done.last
    assert code == 1
    assert "left stopped in" in output
    done = follow_output(output, done.cwd, take="ours")
    assert done.last[1] == 0, done.last
    assert (repo / "notes.txt").read_text() == "a person's edit\n"
    assert show(repo, "main", "todo.vcontext.json")["todoList"]["items"][0]["status"] == "blocked"


def test_checkout_refuses_an_agent_work_tree_with_local_changes_with_the_commands_that_fix_it(
    git_repo: Path,
) -> None:
    repo = git_repo
    _conflicted(repo)
    wt = _bob_checked_out(repo)
    edit(wt, "docs/plan.vcontext.json", lambda d: d["plan"].update(title="bob's edit"))
    code, out, err = sync(repo, "bob", "--checkout")
    assert code == 1, out + err
    assert f"agents/bob is checked out in {wt} with local changes (docs/plan.vcontext.json)" in out
    assert not (repo / ".git" / "worktrees" / "bob" / "MERGE_HEAD").exists()
    done = follow_output(out, repo)
    command, code, output = done.last
    assert command == "git vcontext sync bob --checkout"
    assert code == 1
    assert f"left stopped in {wt}" in output
    assert follow_output(output, repo, take="ours").last[1] == 0
    assert show(repo, "main", "docs/plan.vcontext.json")["plan"]["title"] == "bob's edit"


def test_sync_never_moves_an_agent_branch_while_a_merge_is_stopped_in_its_work_tree(
    git_repo: Path,
) -> None:
    repo = git_repo
    _conflicted(repo)
    wt = _bob_checked_out(repo)
    assert sync(repo, "bob", "--checkout")[0] == 1
    run_cli("resolve", "todo.vcontext.json", "--take", "ours", cwd=wt)  # staged, not committed
    bob_before = rev(repo, "agents/bob")
    code, out, _err = sync(repo, "bob")
    assert code == 1
    assert f"agents/bob is checked out in {wt}, where a merge of main is in progress" in out
    assert "git commit --no-edit" in out
    assert rev(repo, "agents/bob") == bob_before
    assert run_git(wt, "rev-parse", "MERGE_HEAD").returncode == 0


def test_a_sync_refused_while_a_merge_is_stopped_ends_with_the_commands_that_finish_it(
    git_repo: Path,
) -> None:
    """PRODUCT.md, "Resolving conflicts": every message of sync ends with the exact next
    command(s). A sync of an agent whose ``--checkout`` merge is still stopped (the agent
    ran sync again, or a kill cut the way out short) is refused with ``next:`` and the
    commands that finish it — the conflicted file named for ``resolve`` — then the sync
    (before: prose only, "finish it there (git vcontext conflicts, git vcontext resolve,
    git commit --no-edit)", without the file ``resolve`` needs)."""
    repo = git_repo
    _conflicted(repo)
    wt = _bob_checked_out(repo)
    assert sync(repo, "bob", "--checkout")[0] == 1
    code, out, _err = sync(repo, "bob")
    assert code == 1
    assert f"agents/bob is checked out in {wt}, where a merge of main is in progress" in out
    assert "or abort it (git merge --abort), then sync again" in out
    way_out = [
        f"cd {wt}",
        "git vcontext conflicts",
        "git vcontext resolve todo.vcontext.json --take <ours|theirs>",
        "git commit --no-edit",
        "git vcontext sync bob",
    ]
    assert next_commands(out) == way_out
    shown = run_cli("status", cwd=repo).stdout.decode()  # its row says "as next: says" too
    assert "where a merge of main is in progress" in shown
    assert next_commands(shown) == way_out
    done = follow_output(out, repo, take="ours")
    command, code, output = done.last
    assert (command, code) == ("git vcontext sync bob", 0), output
    assert show(repo, "main", "todo.vcontext.json")["todoList"]["items"][0]["status"] == "blocked"


def test_checkout_needs_a_real_run(git_repo: Path) -> None:
    _conflicted(git_repo)
    code, _out, err = sync(git_repo, "bob", "--checkout", "--dry-run")
    assert code == 2
    assert "--checkout" in err


def test_favor_settles_the_conflicts_of_sync_on_the_chosen_side(git_repo: Path) -> None:
    repo = git_repo
    _conflicted(repo)
    run_git(repo, "config", "merge.vcontext.favor", "theirs")  # theirs = the agent's work
    code, out, err = sync(repo, "bob")
    assert code == 0, out + err
    assert show(repo, "main", "todo.vcontext.json")["todoList"]["items"][0]["status"] == "blocked"
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "cancelled"))}, "again")
    code, out, err = sync(repo, "alice", env={"GIT_VCONTEXT_FAVOR": "ours"})  # ours = the base
    assert code == 0, out + err
    assert show(repo, "main", "todo.vcontext.json")["todoList"]["items"][0]["status"] == "blocked"


def test_favor_ours_keeps_the_base_on_both_branches_and_never_says_up_to_date_while_they_differ(
    git_repo: Path,
) -> None:
    """README sync: afterwards both branches hold the same data except the fork blocks;
    favor ours = the base's side in both directions of sync (the base into the agent too),
    so the agent's conflicting value is replaced, not left behind with "up to date"."""
    repo = git_repo
    _conflicted(repo)
    assert sync(repo, "bob", env={"GIT_VCONTEXT_FAVOR": "theirs"})[0] == 0
    edit(repo, "todo.vcontext.json", status(("t1", "cancelled"), sequence_bump=0))
    commit_all(repo, "main cancels t1")
    commit_on(repo, "agents/bob", {"todo.vcontext.json": status(("t1", "inProgress"), 0)}, "b2")
    code, out, err = sync(repo, "bob", env={"GIT_VCONTEXT_FAVOR": "ours"})
    assert code == 0, out + err
    assert "up to date" not in out, out
    on_main = show(repo, "main", "todo.vcontext.json")["todoList"]["items"]
    on_bob = show(repo, "agents/bob", "todo.vcontext.json")["todoList"]["items"]
    assert on_main[0]["status"] == on_bob[0]["status"] == "cancelled"


def test_a_bad_favor_in_sync_is_ignored_with_a_warning(git_repo: Path) -> None:
    """Said by the command from the syncer's warnings, not printed by the git layer."""
    repo = git_repo
    _conflicted(repo)
    run_git(repo, "config", "merge.vcontext.favor", "mine")
    code, out, err = sync(repo, "bob")
    assert code == 1, out + err  # ignored: the conflict stays
    assert "git-vcontext: warning: ignoring favor 'mine'" in err


def test_the_worktree_add_for_a_branch_named_with_shell_words_is_pasted_as_one_word(
    git_repo: Path,
) -> None:
    """PRODUCT.md, "Resolving conflicts (agents and people)": every conflict message ends
    with the exact next commands; and nothing from outside reaches a command line
    unchecked. An agent's name may hold what a shell reads (``$(…)``, a quote: git allows
    them in a branch name, and a remote may bring such a branch): the ``git worktree
    add`` printed for its branch quotes it (before: ``agents/b$(touch${IFS}PWNED)`` bare, which
    a pasted line ran, or split in two), as ``git vcontext sync`` quotes the agent."""
    repo = git_repo
    agent = "b$(touch${IFS}PWNED)'x"
    seed(repo)
    fork_by_hand(repo, "alice")
    fork_by_hand(repo, agent)
    commit_on(repo, "agents/alice", {"todo.vcontext.json": status(("t1", "completed"))}, "a")
    commit_on(repo, f"agents/{agent}", {"todo.vcontext.json": status(("t1", "blocked"))}, "b")
    assert sync(repo, "alice")[0] == 0
    run_git(repo, "switch", "-q", "-c", "feature")
    (repo / "notes.txt").write_text("a person's edit\n")
    code, out, err = sync(repo, agent, "--checkout")
    assert code == 1, out + err
    commands = next_commands(out)
    assert commands[0].startswith("git worktree add "), commands
    assert shlex.split(commands[0])[-1] == f"agents/{agent}", commands[0]
    done = follow(commands[:1], repo)
    assert done.last[1] == 0, done.last
    assert not (repo / "PWNED").exists()
    assert not (repo.parent / "PWNED").exists()


def test_a_switch_note_naming_no_branch_is_dropped_and_never_reaches_git(git_repo: Path) -> None:
    """Nothing from outside reaches a git command line unchecked (PRODUCT.md Command-line
    contract): the note ``--checkout`` leaves (``switched.json``) is a file, so where it
    names something that is no branch (an option, a control character) the sync that lands
    drops it and switches nothing."""
    from git_vcontext.conflicts import switchback

    repo = git_repo
    _conflicted(repo)
    code, out, err = sync(repo, "bob", "--checkout")
    assert code == 1, out + err
    note = repo / ".git" / "vcontext" / switchback.NOTE
    assert json.loads(note.read_text())["was"] == "main"
    note.write_text(json.dumps({"branch": "agents/bob", "was": "--orphan=x"}))
    said: list[str] = []
    switchback.switch_back(str(repo), {"agents/bob"}, said.append)
    assert said == []
    assert not note.exists()
    assert _head_branch(repo) == "agents/bob"
