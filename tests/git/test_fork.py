"""`git vcontext fork` in real repositories: one commit, fork blocks (M11), checkout untouched."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.codecs import parse
from helpers.run import run_cli, run_git
from helpers.team import TASKS, edit, setup, vcx

TODO = "memory/todo.vcontext.json"
PLAN = "memory/plan.vcontext.tron"
NO_UID = "notes/scratch.vcontext.json"
EPOCH = "1767225600"  # 2026-01-01T00:00:00Z
FORKED_AT = "2026-01-01T00:00:00Z"

PLAN_TRON = """\
# the release plan
class vContextInfo: version
class Plan: id, uid, title, status, narratives, items
class PlanItem: id, title, status

vContextInfo: vContextInfo("0.4")
plan: Plan("p1", "plan-uid-7", "Release", "inProgress", {proposal: "Cut and ship it."}, [
  PlanItem("p1.1", "Cut branch", "completed")
])
"""


def todo(*items: str, sequence: int = 3, **extra: Any) -> dict[str, Any]:
    return {
        "vContextInfo": {"version": "0.4"},
        "todoList": {
            "id": "tl",
            "uid": "todo-uid-1",
            "sequence": sequence,
            **extra,
            "items": [{"id": i, "title": i.upper(), "status": "pending"} for i in items],
        },
    }


def write(repo: Path, rel: str, text: str) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def write_json(repo: Path, rel: str, data: Any) -> None:
    write(repo, rel, json.dumps(data, indent=2) + "\n")


def commit(repo: Path, message: str) -> None:
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)


def show(repo: Path, rev: str, rel: str) -> Any:
    return parse(run_git(repo, "show", f"{rev}:{rel}").stdout.encode(), path=rel).data


def fork(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return run_cli("fork", *args, cwd=repo, env={"SOURCE_DATE_EPOCH": EPOCH})


@pytest.fixture
def repo(git_repo: Path) -> Path:
    """main with a JSON todo list (uid, sequence), a TRON plan (uid only) and a doc without uid."""
    write_json(git_repo, TODO, todo("t1", "t2"))
    write(git_repo, PLAN, PLAN_TRON)
    write_json(git_repo, NO_UID, {"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}})
    write(git_repo, "README.md", "hello\n")
    commit(git_repo, "base")
    return git_repo


def snapshot(repo: Path) -> dict[str, bytes]:
    """Every file of the work tree plus the index and HEAD, byte for byte."""
    files = {
        str(p.relative_to(repo)): p.read_bytes()
        for p in repo.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(repo).parts
    }
    files[".git/index"] = (repo / ".git" / "index").read_bytes()
    files[".git/HEAD"] = (repo / ".git" / "HEAD").read_bytes()
    files["main"] = run_git(repo, "rev-parse", "main").stdout.encode()
    return files


def test_fork_leaves_checkout_index_and_head_untouched(repo: Path) -> None:
    write(repo, "README.md", "local edit, not committed\n")
    write_json(repo, TODO, todo("t1", "t2", "staged"))
    run_git(repo, "add", TODO)
    before = snapshot(repo)
    proc = fork(repo, "alice")
    assert proc.returncode == 0, proc.stderr
    assert snapshot(repo) == before


def test_fork_makes_exactly_one_commit_on_the_base(repo: Path) -> None:
    assert fork(repo, "alice", "--reason", "try a queue").returncode == 0
    commits = run_git(repo, "rev-list", "main..agents/alice").stdout.split()
    assert len(commits) == 1
    parents = run_git(repo, "rev-list", "--parents", "-n1", "agents/alice").stdout.split()
    assert parents[1:] == [run_git(repo, "rev-parse", "main").stdout.strip()]
    message = run_git(repo, "log", "-1", "--format=%B", "agents/alice").stdout
    assert "alice" in message
    assert "try a queue" in message
    assert TODO in message
    assert PLAN in message
    assert NO_UID in message
    assert run_git(repo, "config", "vcontext.agent.alice.base").stdout.strip() == "main"


def test_m11_fork_block_in_the_json_container(repo: Path) -> None:
    assert fork(repo, "alice", "--reason", "try a queue").returncode == 0
    forked = show(repo, "agents/alice", TODO)
    assert forked["todoList"]["fork"] == {
        "parentUid": "todo-uid-1",
        "parentSequence": 3,
        "forkedAt": FORKED_AT,
        "forkReason": "try a queue",
        "mergeStatus": "unmerged",
    }
    del forked["todoList"]["fork"]
    assert forked == show(repo, "main", TODO)


def test_m11_fork_block_in_the_tron_container_keeps_the_header(repo: Path) -> None:
    assert fork(repo, "alice").returncode == 0
    text = run_git(repo, "show", f"agents/alice:{PLAN}").stdout
    assert text.startswith(PLAN_TRON[: PLAN_TRON.index("vContextInfo: vContextInfo")])
    forked = parse(text.encode(), path=PLAN).data
    assert forked["plan"]["fork"] == {
        "parentUid": "plan-uid-7",
        "parentSequence": 0,  # no sequence on the plan: a missing one counts as 0 (M8)
        "forkedAt": FORKED_AT,
        "mergeStatus": "unmerged",
    }


def test_documents_without_uid_and_other_files_are_left_alone(repo: Path) -> None:
    proc = fork(repo, "alice")
    assert f"left alone (no container uid): {NO_UID}" in proc.stdout.decode()
    changed = run_git(repo, "diff", "--name-only", "main", "agents/alice").stdout.split()
    assert sorted(changed) == sorted([TODO, PLAN])


def test_fork_of_a_fork_replaces_the_block(repo: Path) -> None:
    assert fork(repo, "alice").returncode == 0
    proc = fork(repo, "bob", "--from", "agents/alice", "--reason", "sub-task")
    assert proc.returncode == 0, proc.stderr
    block = show(repo, "agents/bob", TODO)["todoList"]["fork"]
    assert block["forkReason"] == "sub-task"
    assert block["parentUid"] == "todo-uid-1"
    assert run_git(repo, "config", "vcontext.agent.bob.base").stdout.strip() == "agents/alice"


def test_agent_prefix_comes_from_git_config(repo: Path) -> None:
    run_git(repo, "config", "vcontext.agentPrefix", "bots")
    assert fork(repo, "alice").returncode == 0
    assert run_git(repo, "rev-parse", "--verify", "-q", "bots/alice", check=False).returncode == 0


def test_worktree_path_with_spaces(repo: Path, tmp_path: Path) -> None:
    target = tmp_path / "agent trees" / "alice one"
    proc = fork(repo, "alice", "--worktree", str(target))
    assert proc.returncode == 0, proc.stderr
    head = run_git(target, "symbolic-ref", "--short", "HEAD").stdout.strip()
    assert head == "agents/alice"
    data = parse((target / TODO).read_bytes(), path=TODO).data
    assert data["todoList"]["fork"]["mergeStatus"] == "unmerged"
    assert run_git(target, "status", "--porcelain").stdout == ""


def test_worktree_path_that_is_not_empty_is_refused_before_anything(
    repo: Path, tmp_path: Path
) -> None:
    target = tmp_path / "busy"
    target.mkdir()
    (target / "file").write_text("x")
    proc = fork(repo, "alice", "--worktree", str(target))
    assert proc.returncode == 3
    assert b"already exists" in proc.stderr
    assert run_git(repo, "branch", "--list", "agents/*").stdout == ""


@pytest.mark.parametrize("name", ["bad name", "-x", "a..b", "x.lock", "a~1", ""])
def test_invalid_agent_names_are_usage_errors(repo: Path, name: str) -> None:
    proc = fork(repo, "--", name)
    assert proc.returncode == 2
    assert proc.stderr.decode().count("\n") == 1
    assert b"Traceback" not in proc.stderr


def test_existing_branch_is_refused_and_kept(repo: Path) -> None:
    assert fork(repo, "alice").returncode == 0
    tip = run_git(repo, "rev-parse", "agents/alice").stdout
    proc = fork(repo, "alice", "--reason", "again")
    assert proc.returncode == 3
    assert b"already exists" in proc.stderr
    assert b"sync alice" in proc.stderr
    assert run_git(repo, "rev-parse", "agents/alice").stdout == tip


def test_detached_head_needs_from(repo: Path) -> None:
    run_git(repo, "checkout", "-q", "--detach")
    proc = fork(repo, "alice")
    assert proc.returncode == 2
    assert b"--from" in proc.stderr
    assert fork(repo, "alice", "--from", "main").returncode == 0


def test_unknown_from_branch(repo: Path) -> None:
    proc = fork(repo, "alice", "--from", "nope")
    assert proc.returncode == 3
    assert b"nope" in proc.stderr


def test_not_a_repository(tmp_path: Path) -> None:
    proc = fork(tmp_path, "alice")
    assert proc.returncode == 3
    assert b"not a git repository" in proc.stderr


def test_no_commits_yet(git_repo: Path) -> None:
    proc = fork(git_repo, "alice")
    assert proc.returncode == 3
    assert b"no commits" in proc.stderr


def test_no_identity_is_a_clear_error(repo: Path) -> None:
    run_git(repo, "config", "--unset", "user.name")
    run_git(repo, "config", "--unset", "user.email")
    env = {"GIT_AUTHOR_NAME": "", "GIT_COMMITTER_NAME": "", "SOURCE_DATE_EPOCH": EPOCH}
    proc = run_cli("fork", "alice", cwd=repo, env=env)
    assert proc.returncode == 3
    assert b"user.name" in proc.stderr
    assert run_git(repo, "branch", "--list", "agents/*").stdout == ""


def test_identity_from_git_config(repo: Path) -> None:
    assert fork(repo, "alice").returncode == 0
    who = run_git(repo, "log", "-1", "--format=%an <%ae>", "agents/alice").stdout.strip()
    assert who == "Test Author <author@example.com>"  # GIT_AUTHOR_* win over user.*, as in git


def test_documents_found_by_content_and_modes_kept(repo: Path) -> None:
    write_json(repo, "state/agent.json", todo("s1"))  # no install pattern: found by content
    write_json(repo, "state/other.json", {"todoList": {"uid": "x", "items": []}})  # not vContext
    write_json(repo, "tools/run.vcontext.json", todo("r1"))
    (repo / "tools/run.vcontext.json").chmod(0o755)
    (repo / "link.vcontext.json").symlink_to(TODO)
    commit(repo, "more files")
    assert fork(repo, "alice").returncode == 0
    changed = run_git(repo, "diff", "--name-only", "main", "agents/alice").stdout.split()
    assert sorted(changed) == sorted([TODO, PLAN, "state/agent.json", "tools/run.vcontext.json"])
    tree = run_git(repo, "ls-tree", "-r", "agents/alice").stdout
    assert "100755 blob" in next(ln for ln in tree.splitlines() if "tools/run" in ln)
    assert "120000 blob" in next(ln for ln in tree.splitlines() if "link.vcontext" in ln)


def test_unparsable_documents_are_listed_and_left_alone(repo: Path) -> None:
    write(repo, "broken.vcontext.json", '{"vContextInfo": {"version": "0.4"}, "todoList": {')
    commit(repo, "broken")
    proc = fork(repo, "alice")
    assert proc.returncode == 0, proc.stderr
    assert "left alone (does not parse): broken.vcontext.json" in proc.stdout.decode()
    changed = run_git(repo, "diff", "--name-only", "main", "agents/alice").stdout.split()
    assert "broken.vcontext.json" not in changed
    assert TODO in changed


def test_no_document_with_uid_still_makes_the_one_commit(git_repo: Path) -> None:
    write(git_repo, "README.md", "no documents here\n")
    commit(git_repo, "base")
    proc = fork(git_repo, "alice")
    assert proc.returncode == 0
    assert b"no fork metadata written" in proc.stdout
    assert run_git(git_repo, "rev-list", "--count", "main..agents/alice").stdout.strip() == "1"


@pytest.mark.parametrize(
    "args",
    [["--", os.fsdecode(b"al\xffce")], ["alice", "--from", os.fsdecode(b"ma\xffn")]],
    ids=["agent", "from"],
)
def test_non_utf8_names_are_clear_errors_not_crashes(repo: Path, args: list[str]) -> None:
    proc = fork(repo, *args)
    assert proc.returncode in (2, 3), proc.stderr
    assert proc.stderr.decode().count("\n") == 1
    assert b"internal error" not in proc.stderr
    assert run_git(repo, "branch", "--list", "agents/*").stdout == ""


def test_non_utf8_reason_is_a_usage_error_and_creates_nothing(repo: Path) -> None:
    proc = fork(repo, "alice", "--reason", os.fsdecode(b"why \xff"))
    assert proc.returncode == 2
    assert b"--reason" in proc.stderr
    assert run_git(repo, "branch", "--list", "agents/*").stdout == ""


@pytest.mark.parametrize(("first", "second"), [("a/b", "a"), ("a", "a/b")])
def test_agent_names_clashing_as_ref_folders_are_clear_errors(
    repo: Path, first: str, second: str
) -> None:
    assert fork(repo, first).returncode == 0
    proc = fork(repo, second)
    assert proc.returncode == 3, proc.stderr
    assert b"cannot create branch" in proc.stderr
    assert b"internal error" not in proc.stderr
    assert run_git(repo, "config", f"vcontext.agent.{second}.base", check=False).stdout == ""


def test_an_agent_prefix_that_makes_no_branch_name_is_a_usage_error(repo: Path) -> None:
    run_git(repo, "config", "vcontext.agentPrefix", "../")
    proc = fork(repo, "alice")
    assert proc.returncode == 2
    assert b"vcontext.agentPrefix" in proc.stderr


def test_an_agent_prefix_git_takes_for_an_option_is_a_usage_error_everywhere(repo: Path) -> None:
    """Nothing from outside reaches a command line unchecked: ``vcontext.agentPrefix=-x``
    made ``fork alice`` create the branch ``-x/alice`` (git check-ref-format accepts it) and
    advise ``git switch -x/alice``, which git reads as an option; sync and status went on
    with it. Now every command that reads the prefix refuses it in one line, no branch made."""
    run_git(repo, "config", "vcontext.agentPrefix", "-x")
    for args in (("fork", "alice"), ("sync", "--all"), ("status",)):
        proc = run_cli(*args, cwd=repo)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        [line] = proc.stderr.decode().splitlines()
        assert "not a valid branch prefix: '-x'" in line, line
        assert "git config vcontext.agentPrefix agents/" in line, line
    assert run_git(repo, "for-each-ref", "--format=%(refname)", "refs/heads/-x").stdout == ""


def test_a_document_whose_file_name_is_not_utf8_is_forked_and_reported(repo: Path) -> None:
    name = os.fsdecode(b"notes-\xff.vcontext.json")
    write_json(repo, name, todo("t9"))
    commit(repo, "a file name in Latin-1")
    proc = run_cli(
        "fork", "alice", cwd=repo, env={"SOURCE_DATE_EPOCH": EPOCH, "PYTHONIOENCODING": "utf-8"}
    )
    assert proc.returncode == 0, proc.stderr
    assert b"fork metadata: notes-\xff.vcontext.json" in proc.stdout
    assert show(repo, "agents/alice", name)["todoList"]["fork"]["mergeStatus"] == "unmerged"


def test_worktree_path_with_a_newline_is_shown_on_one_line(repo: Path, tmp_path: Path) -> None:
    """The worktree fork reports is a name, quoted as git quotes one (core.quotePath=false):
    a newline in it cannot split the line; a plain path (spaces and all) is shown as is."""
    target = tmp_path / "agent\ntree"
    proc = fork(repo, "alice", "--worktree", str(target))
    assert proc.returncode == 0, proc.stderr
    assert run_git(target, "symbolic-ref", "--short", "HEAD").stdout.strip() == "agents/alice"
    last = proc.stdout.decode().splitlines()[-1]
    assert last == f'worktree: "{str(target).replace(chr(10), chr(92) + "n")}"'
    plain = tmp_path / "agent trees" / "bob one"
    shown = fork(repo, "bob", "--worktree", str(plain)).stdout.decode().splitlines()[-1]
    assert shown == f"worktree: {plain}"


def test_worktree_path_refused_with_a_newline_is_named_as_git_quotes_it(
    repo: Path, tmp_path: Path
) -> None:
    target = tmp_path / "busy\nplace"
    target.mkdir()
    (target / "file").write_text("x")
    proc = fork(repo, "alice", "--worktree", str(target))
    assert proc.returncode == 3
    assert proc.stderr.decode().count("\n") == 1, proc.stderr
    assert f'"{str(target).replace(chr(10), chr(92) + "n")}": already exists' in (
        proc.stderr.decode()
    )


def test_fork_in_an_agents_own_clone_says_the_switch_that_leads_onto_its_branch(
    tmp_path: Path,
) -> None:
    """Advice leads somewhere (session 15's closing note): ``fork bo`` in bo's own clone
    left the work tree on main and said nothing more; an agent that stayed there committed
    on main, and ``sync bo --push origin`` published that on the remote's main. Its last
    line now names the step onto the branch (PRODUCT.md, "Command-line contract": fork does
    not touch the current checkout); done literally, the agent's commit lands through
    agents/bo, never straight on the remote's main."""
    team = setup(tmp_path, [])
    bo = tmp_path / "bo"
    run_git(tmp_path, "clone", "-q", str(team.remote), str(bo))
    run_git(bo, "config", "user.name", "bo")
    run_git(bo, "config", "user.email", "bo@example.com")
    assert vcx(bo, "install").returncode == 0

    done = vcx(bo, "fork", "bo")

    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("next: git switch agents/bo (this work tree stays on main;"), last
    step = last.removeprefix("next: ").split(" (")[0]
    run_git(bo, *step.split()[1:])
    assert run_git(bo, "branch", "--show-current").stdout.strip() == "agents/bo"
    edit(
        bo,
        TASKS,
        lambda d: d["todoList"]["items"].append({"id": "b1", "title": "b1", "status": "pending"}),
    )
    run_git(bo, "commit", "-qam", "b1")
    mine = run_git(bo, "rev-parse", "HEAD").stdout.strip()
    synced = vcx(bo, "sync", "bo", "--push", "origin")
    assert synced.returncode == 0, synced.stdout + synced.stderr
    on_main = run_git(team.remote, "rev-list", "main").stdout.split()
    first_parents = run_git(team.remote, "rev-list", "--first-parent", "main").stdout.split()
    assert mine in on_main
    assert mine not in first_parents  # merged from agents/bo
    assert mine in run_git(team.remote, "rev-list", "agents/bo").stdout.split()


def test_fork_with_a_worktree_names_it_and_no_switch(tmp_path: Path) -> None:
    """With ``--worktree`` the branch is checked out there: no ``git switch`` to say."""
    team = setup(tmp_path, [])
    done = vcx(team.person, "fork", "al", "--worktree", str(tmp_path / "al"))

    assert done.returncode == 0, done.stderr
    assert "git switch" not in done.stdout
    assert done.stdout.strip().splitlines()[-1] == f"worktree: {tmp_path / 'al'}"
