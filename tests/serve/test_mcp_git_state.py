"""Git state around an agent's write: its commit, the person's index and work tree, merges.

PRODUCT.md, "Where agents' platforms run it": an agent's commit holds exactly the
agent's change on its parent; a person's staged and unstaged edits stay theirs, and
their next plain ``git commit`` never reverts the agent's change (the index entry kept
in step, as ``git commit --only`` does). A write during a stopped merge is staged into
it, or refused with the next step. "The write path": commits made for an agent have the
agent as author and the person as committer. Issue 37, finding 3; issue 27 (authors).
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from helpers.mcp_platform import show, stdio, tool_error
from helpers.mcp_support import documents_repo, in_process, read_json, run, text
from helpers.mcp_tour import agent_worktree
from helpers.run import run_cli, run_git

TODO = "todo.vcontext.json"


@pytest.fixture
def alice(git_repo: Path, tmp_path: Path) -> Path:
    """``agents/alice`` checked out in its own work tree: every write is a commit."""
    return agent_worktree(documents_repo(git_repo), tmp_path / "alice")


def _titles(data: Any) -> list[str]:
    return [i["title"] for i in data["todoList"]["items"]]


def _edit_title(path: Path, index: int, title: str) -> None:
    data = read_json(path)
    data["todoList"]["items"][index]["title"] = title
    path.write_text(json.dumps(data, indent=2) + "\n")


async def _agent_sets_t3(root: Path, status: str = "inProgress", *args: str) -> dict[str, Any]:
    async with stdio(root, *args) as client:
        done = await client.call_tool("vbrief_update_todo", {"id": "t3", "status": status})
        assert not done.is_error, text(done)
        data: dict[str, Any] = done.structured_content
        data["text"] = text(done)
        return data


@pytest.mark.parametrize("edits", ["staged", "unstaged", "staged-and-unstaged"])
def test_git_state_agent_commit_holds_only_the_agent_change(edits: str, alice: Path) -> None:
    """Issue 37, finding 3 (a): the agent's commit held the whole work-tree file (the
    person's staged and unstaged edits included) while the server said "the index was
    left alone"; the person's next plain ``git commit`` then silently reverted the
    agent's commit (``sequence`` decreased, its changeLog entry gone)."""
    todo = alice / TODO
    parent = run_git(alice, "rev-parse", "HEAD").stdout.strip()
    base = show(alice, f"HEAD:{TODO}")
    if edits in ("staged", "staged-and-unstaged"):
        _edit_title(todo, 0, "Write the parser (staged by the person)")
        run_git(alice, "add", TODO)
    if edits in ("unstaged", "staged-and-unstaged"):
        _edit_title(todo, 1, "Test the parser (unstaged by the person)")
    staged_before = show(alice, f":{TODO}")
    worktree_before = read_json(todo)

    answer = run(lambda: _agent_sets_t3(alice))
    commit = answer["commit"]
    assert "left alone" not in answer["text"]

    # the commit: the agent's change on its parent, nothing of the person's
    assert run_git(alice, "rev-parse", f"{commit}^").stdout.strip() == parent
    committed = show(alice, f"{commit}:{TODO}")
    assert _titles(committed) == _titles(base)
    assert committed["todoList"]["items"][2]["status"] == "inProgress"
    assert committed["todoList"]["sequence"] == base["todoList"]["sequence"] + 1
    assert run_git(alice, "diff", "--name-only", parent, commit).stdout.split() == [TODO]

    # the index: what the person staged, plus the agent's change
    staged = show(alice, f":{TODO}")
    assert _titles(staged) == _titles(staged_before)
    assert staged["todoList"]["items"][2]["status"] == "inProgress"
    # the work tree: everything the person had, plus the agent's change
    on_disk = read_json(todo)
    assert _titles(on_disk) == _titles(worktree_before)
    assert on_disk["todoList"]["items"][2]["status"] == "inProgress"

    # the person's next plain commit keeps the agent's change
    run_git(alice, "commit", "-q", "--allow-empty", "-m", "the person's commit")
    after = show(alice, f"HEAD:{TODO}")
    assert after["todoList"]["items"][2]["status"] == "inProgress"
    assert after["todoList"]["sequence"] >= committed["todoList"]["sequence"]
    assert committed["todoList"]["changeLog"][-1] in after["todoList"]["changeLog"]
    if edits != "unstaged":
        assert _titles(after)[0] == "Write the parser (staged by the person)"
    head = run_git(alice, "rev-parse", "HEAD").stdout.strip()
    pushed = f"refs/heads/agents/alice {head} refs/heads/agents/alice {parent}\n"
    checked = run_cli("hook", "pre-push", "origin", "url", cwd=alice, input=pushed.encode())
    assert checked.returncode == 0, checked.stdout.decode() + checked.stderr.decode()
    if edits != "staged":  # still the person's, still uncommitted
        assert run_git(alice, "diff", "--name-only").stdout.split() == [TODO]
        assert _titles(read_json(todo))[1] == "Test the parser (unstaged by the person)"


def test_git_state_clean_write_leaves_nothing_to_commit(alice: Path) -> None:
    """Without edits of the person's, an agent's write leaves ``git status`` clean."""
    run(lambda: _agent_sets_t3(alice))
    assert run_git(alice, "status", "--porcelain").stdout == ""


def _stopped_merge(alice: Path, repo: Path) -> None:
    """A merge of main into agents/alice stopped on a conflict in a plain file."""
    (repo / "notes.txt").write_text("main's notes\n")
    run_git(repo, "add", "notes.txt")
    run_git(repo, "commit", "-q", "-m", "notes on main")
    (alice / "notes.txt").write_text("alice's notes\n")
    run_git(alice, "add", "notes.txt")
    run_git(alice, "commit", "-q", "-m", "notes on alice")
    merging = run_git(alice, "merge", "main", check=False)
    assert merging.returncode != 0
    assert "CONFLICT" in merging.stdout, merging.stdout


def test_git_state_write_during_a_stopped_merge_is_staged_into_it(
    alice: Path, git_repo: Path
) -> None:
    """Issue 37, finding 3 (b): a write during a stopped merge was left out of the merge
    commit ("not committed: a merge is in progress"); after ``git commit --no-edit`` the
    file stayed modified and ``vcontext_sync`` refused. Now it goes into the merge."""
    _stopped_merge(alice, git_repo)
    answer = run(lambda: _agent_sets_t3(alice))
    assert "commit" not in answer
    assert "merge" in answer["text"]
    assert "staged" in answer["text"]
    assert TODO in run_git(alice, "diff", "--cached", "--name-only").stdout.split()
    assert run_git(alice, "diff", "--name-only", "--", TODO).stdout == ""
    assert show(alice, f":{TODO}")["todoList"]["items"][2]["status"] == "inProgress"

    (alice / "notes.txt").write_text("both notes\n")
    run_git(alice, "add", "notes.txt")
    run_git(alice, "commit", "-q", "--no-edit")
    assert run_git(alice, "status", "--porcelain").stdout == ""
    assert show(alice, f"HEAD:{TODO}")["todoList"]["items"][2]["status"] == "inProgress"
    assert len(run_git(alice, "log", "-1", "--format=%P").stdout.split()) == 2  # the merge
    synced = run_cli("sync", "alice", cwd=git_repo)
    assert synced.returncode == 0, synced.stdout.decode() + synced.stderr.decode()
    assert read_json(git_repo / TODO)["todoList"]["items"][2]["status"] == "inProgress"


def test_git_state_write_during_a_stopped_rebase_is_refused_with_the_next_step(
    alice: Path, git_repo: Path
) -> None:
    """A rebase replays commits one by one: a write now would land in someone else's
    replayed commit. Refused in one line naming how to go on; nothing written."""
    (git_repo / "notes.txt").write_text("main's notes\n")
    run_git(git_repo, "add", "notes.txt")
    run_git(git_repo, "commit", "-q", "-m", "notes on main")
    (alice / "notes.txt").write_text("alice's notes\n")
    run_git(alice, "add", "notes.txt")
    run_git(alice, "commit", "-q", "-m", "notes on alice")
    assert run_git(alice, "rebase", "main", check=False).returncode != 0
    before = (alice / TODO).read_bytes()

    async def main() -> None:
        async with stdio(alice) as client:
            refused = await client.call_tool("vbrief_update_todo", {"id": "t3", "status": "done"})
            assert refused.is_error  # the schema refuses 'done' first
            refused = await client.call_tool(
                "vbrief_update_todo", {"id": "t3", "status": "blocked"}
            )
            line = tool_error(refused)
            assert "rebase" in line
            # the agent has no shell: the step is said as a person's (PRODUCT.md, "MCP
            # server": an answer names tool calls, or a person's step as such)
            assert (
                "A PERSON MUST DO THIS (no MCP tool can): finish it (git rebase --continue) "
                "or abort it (git rebase --abort); then write again"
            ) in line

    run(main)
    assert (alice / TODO).read_bytes() == before


def test_git_state_agent_is_author_and_person_is_committer(alice: Path, git_repo: Path) -> None:
    """Issue 27: MCP commits carried the person's identity (the agent only in a trailer),
    so ``git log``, ``git blame`` and ``vcontext blame`` showed the person for every agent
    edit. Author: the agent, as ``git commit --author`` would set it (the environment's
    GIT_AUTHOR_NAME does not override it); committer: the person, found as git finds a
    committer (GIT_COMMITTER_NAME/EMAIL, else user.name/user.email)."""
    env = {"GIT_COMMITTER_NAME": "Pat Person", "GIT_COMMITTER_EMAIL": "pat@example.com"}

    async def write(status: str, extra: dict[str, str]) -> None:
        async with stdio(alice, env=extra) as client:
            done = await client.call_tool("vbrief_update_todo", {"id": "t3", "status": status})
            assert not done.is_error, text(done)

    def who() -> str:
        return run_git(alice, "log", "-1", "--format=%an <%ae> | %cn <%ce>").stdout.strip()

    run(lambda: write("inProgress", env))
    assert who() == "alice <alice@agents.invalid> | Pat Person <pat@example.com>"

    run_git(git_repo, "config", "vcontext.agent.alice.email", "alice-bot@example.com")
    run(lambda: write("blocked", env))
    assert who() == "alice <alice-bot@example.com> | Pat Person <pat@example.com>"

    unset = {"GIT_COMMITTER_NAME": "", "GIT_COMMITTER_EMAIL": ""}
    run(lambda: write("completed", unset))
    assert who() == "alice <alice-bot@example.com> | Test User <test@example.com>"

    blamed = run_cli("blame", TODO, "--format", "json", cwd=alice)
    assert blamed.returncode == 0, blamed.stderr.decode()
    t3 = next(i for i in json.loads(blamed.stdout)["items"] if i["id"] == "t3")
    assert "alice" in t3["author"]


def test_git_state_no_identity_but_git_environment_commits_as_git_would(
    alice: Path, git_repo: Path
) -> None:
    """Issue 27: with no ``user.name`` but GIT_COMMITTER_* set, git commits; the server
    said "no git identity"."""
    run_git(git_repo, "config", "--unset", "user.name")
    run_git(git_repo, "config", "--unset", "user.email")
    env = {"GIT_COMMITTER_NAME": "CI Runner", "GIT_COMMITTER_EMAIL": "ci@example.com"}

    async def main() -> str:
        async with stdio(alice, env=env) as client:
            done = await client.call_tool("vbrief_update_todo", {"id": "t3", "status": "blocked"})
            assert not done.is_error, text(done)
            return str(done.structured_content["commit"])

    commit = run(main)
    shown = run_git(alice, "log", "-1", "--format=%an|%cn <%ce>", commit).stdout.strip()
    assert shown == "alice|CI Runner <ci@example.com>"


def test_git_state_mcp_delete_of_what_the_last_sync_brought_is_not_refused_by_sync(
    git_repo: Path, tmp_path: Path
) -> None:
    """An MCP delete of an item that arrived in the agent's last sync is deliberate: its
    commit says so (a ``Vcontext-Drop:`` trailer), so sync's backstop against commits
    made on files an interrupted sync left behind (``sync-undone``) never refuses it."""
    repo = documents_repo(git_repo)
    alice = agent_worktree(repo, tmp_path / "alice")
    data = read_json(repo / TODO)  # a person adds a task on main, by hand (no changeLog)
    data["todoList"]["items"].append({"id": "t4", "title": "From main", "status": "pending"})
    (repo / TODO).write_text(json.dumps(data, indent=2) + "\n")
    run_git(repo, "commit", "-q", "-am", "t4 on main")
    done = run_cli("sync", "alice", cwd=repo)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
    assert "t4" in (alice / TODO).read_text()

    async def main() -> str:
        async with stdio(alice) as client:
            gone = await client.call_tool("vbrief_delete_todo", {"id": "t4"})
            assert not gone.is_error, text(gone)
            return str(gone.structured_content["commit"])

    commit = run(main)
    message = run_git(alice, "log", "-1", "--format=%B", commit).stdout
    assert "Vcontext-Drop: " in message
    done = run_cli("sync", "alice", cwd=repo)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
    assert "t4" not in {i["id"] for i in read_json(repo / TODO)["todoList"]["items"]}


def test_git_state_delete_of_a_document_with_uncommitted_edits_is_the_persons_step(
    alice: Path,
) -> None:
    """Deleting a document that holds a person's uncommitted edits would lose them: refused
    in one line, the way on said as a person's step (no MCP tool commits or discards a
    person's edits), nothing deleted; once the person committed, the delete goes."""
    plan = alice / "plans/release.vcontext.tron"
    plan.write_text(plan.read_text().replace("Release 1.0", "Release 1.0, edited"))

    async def main() -> None:
        async with stdio(alice) as client:
            refused = await client.call_tool("vbrief_delete_plan", {"id": "release"})
            line = tool_error(refused)
            assert (
                "plans/release.vcontext.tron has changes that are not committed: A PERSON "
                "MUST DO THIS (no MCP tool can): git diff -- plans/release.vcontext.tron, "
                "then commit or discard them; then delete it"
            ) in line, line
            assert plan.exists()
            run_git(alice, "commit", "-q", "-am", "the person's edit")  # the person's step
            deleted = await client.call_tool("vbrief_delete_plan", {"id": "release"})
            assert not deleted.is_error, text(deleted)

    run(main)
    assert not plan.exists()
    assert run_git(alice, "status", "--porcelain").stdout == ""


def _staged_without_t3(alice: Path, git_repo: Path) -> tuple[Path, bytes]:
    """A stopped merge whose index holds the document without t3 (the person staged it so)
    while the work tree keeps t3: the document's path and its work-tree bytes."""
    _stopped_merge(alice, git_repo)
    todo = alice / TODO
    worktree = todo.read_bytes()
    data = read_json(todo)
    data["todoList"]["items"] = [i for i in data["todoList"]["items"] if i["id"] != "t3"]
    todo.write_text(json.dumps(data, indent=2) + "\n")
    run_git(alice, "add", TODO)
    todo.write_bytes(worktree)  # the work tree keeps t3, the index has none
    return todo, worktree


def test_git_state_write_during_a_stopped_merge_the_staged_version_cannot_take_is_not_made(
    alice: Path, git_repo: Path
) -> None:
    """A stopped merge whose index holds a version of the document that cannot take the
    agent's change (the person staged it without t3): the write used to replace the file
    and then answer "refused" (the file changed all the same). It is decided before the
    replace now: refused, nothing written, with the person's step."""
    todo, worktree = _staged_without_t3(alice, git_repo)

    async def main() -> Any:
        async with stdio(alice) as client:
            return await client.call_tool("vbrief_update_todo", {"id": "t3", "status": "completed"})

    result = run(main)
    said = text(result)
    assert result.is_error, said
    assert todo.read_bytes() == worktree, said  # refused: nothing written
    assert "nothing written" in said
    assert f"git add -- {TODO}" in said  # the person's step
    assert "\n" not in said


def test_git_state_write_the_index_of_a_stopped_merge_no_longer_takes_says_written_not_staged(
    alice: Path, git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same, when the person stages such a version between the check and the replace
    (the check skipped here to stand for that moment): the answer says what happened —
    written to the file, not staged, why, the person's step — never "refused"."""
    from git_vcontext.mcp_server.gitside import GitSide

    todo, _ = _staged_without_t3(alice, git_repo)
    monkeypatch.setattr(GitSide, "refuse_unstageable", lambda *_: None)

    async def main() -> Any:
        async with in_process(alice, agent="alice") as client:
            return await client.call_tool("vbrief_update_todo", {"id": "t3", "status": "completed"})

    result = run(main)
    said = text(result)
    assert not result.is_error, said
    assert read_json(todo)["todoList"]["items"][2]["status"] == "completed"
    [note] = result.structured_content["notes"]
    assert note.startswith(f"written to {TODO}, not staged: "), note
    assert f"git add -- {TODO}" in note
    run_git(alice, "add", TODO)  # the person's step: the merge now takes the write
    assert show(alice, f":{TODO}")["todoList"]["items"][2]["status"] == "completed"


@pytest.mark.parametrize("title", ["R1", "it's $(touch pwned) `touch pwned`"])
def test_git_state_a_delete_staged_into_a_stopped_merge_names_the_trailer_its_commit_needs(
    alice: Path, git_repo: Path, tmp_path: Path, title: str
) -> None:
    """A plan deleted by MCP during a stopped merge is staged into the merge, not committed
    (the person's ``git commit`` makes the merge): a deleted document's records pass the
    checks only in a commit that says it means it (a ``Vcontext-Drop:`` trailer, which the
    server's own commits carry). The answer said nothing of it, and the merge committed
    as the person usually does was refused by check and the hook. Now the answer names
    the command (an agent's title in it quoted for the shell: running it runs nothing
    else); followed, the merge commit passes check and the pre-push hook."""
    run_cli("install", cwd=git_repo)

    async def updated() -> None:
        async with stdio(alice) as client:
            done = await client.call_tool("vbrief_update_plan", {"id": "release", "title": title})
            assert not done.is_error, text(done)

    run(updated)  # the plan holds a changeLog now
    _stopped_merge(alice, git_repo)

    async def deleted() -> str:
        async with stdio(alice) as client:
            gone = await client.call_tool("vbrief_delete_plan", {"id": "release"})
            assert not gone.is_error, text(gone)
            assert "commit" not in gone.structured_content
            return text(gone)

    said = run(deleted)
    trailer = f"Vcontext-Drop: deleted plan release: {title} (vbrief_delete_plan)"
    step = f"git commit --no-edit --trailer {shlex.quote(trailer)}"
    assert step in said, said
    run_git(alice, "add", "notes.txt")  # the person settles the merge's own conflict
    tree = run_git(alice, "write-tree").stdout.strip()
    plain = run_git(
        alice, "commit-tree", tree, "-p", "HEAD", "-p", "MERGE_HEAD", "-m", "Merge main"
    ).stdout.strip()  # the merge as committed without the trailer
    refused = run_cli("check", f"{plain}^..{plain}", cwd=alice)
    assert refused.returncode == 1, refused.stdout.decode() + refused.stderr.decode()

    done = subprocess.run(step, shell=True, cwd=alice, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert len(run_git(alice, "log", "-1", "--format=%P").stdout.split()) == 2
    assert trailer in run_git(alice, "log", "-1", "--format=%B").stdout.splitlines()
    assert not (alice / "pwned").exists()
    checked = run_cli("check", "HEAD^..HEAD", cwd=alice)
    assert checked.returncode == 0, checked.stdout.decode() + checked.stderr.decode()
    assert not (alice / "plans/release.vcontext.tron").exists()
    bare = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", str(bare))
    pushed = run_git(alice, "push", "-q", str(bare), "agents/alice", check=False)
    assert pushed.returncode == 0, pushed.stderr
    assert "git-vcontext" in (git_repo / ".git" / "hooks" / "pre-push").read_text()
