"""A server killed between replacing a document and committing it (PRODUCT.md "MCP server":
on an agent branch each write is a commit; "nothing lost"): found in trial9, the write
stayed a local change, ``vcontext_sync`` said "commit or stash them" (no tool does) and a
person's ``git commit -a`` made a commit the hook refused. The write is journaled under the
git directory first; the next server finishes it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from helpers.mcp_platform import stdio
from helpers.mcp_support import documents_repo, run, text
from helpers.mcp_tour import agent_worktree
from helpers.run import run_cli, run_git

TODO = "todo.vcontext.json"


@pytest.fixture
def repo(git_repo: Path) -> Path:
    return documents_repo(git_repo)


def _ok(result: Any) -> str:
    assert not result.is_error, text(result)
    return str(text(result))


def _killed_in_the_window(alice: Path) -> None:
    """The real server (the SDK's client over stdio) SIGKILLed by itself right after it
    replaced the todo list for ``vbrief_create_todo`` (``faults.step("mcp replaced")``):
    the call never answers."""
    answered: list[Any] = []

    async def killed() -> None:
        try:
            with anyio.fail_after(60):
                async with stdio(alice, env={"GIT_VCONTEXT_KILL_AT": "mcp replaced"}) as client:
                    answered.append(
                        await client.call_tool("vbrief_create_todo", {"title": "cut off"})
                    )
        except Exception:
            pass

    run(killed)
    assert answered == []


def test_a_write_killed_before_its_commit_is_committed_by_the_next_server(
    repo: Path, tmp_path: Path
) -> None:
    alice = agent_worktree(repo, tmp_path / "alice")
    head = run_git(alice, "rev-parse", "HEAD").stdout.strip()

    _killed_in_the_window(alice)
    assert run_git(alice, "rev-parse", "HEAD").stdout.strip() == head  # never committed
    assert run_git(alice, "status", "--porcelain").stdout.strip() == f"M {TODO}"
    assert "cut off" in (alice / TODO).read_text()

    async def goes_on() -> list[str]:
        async with stdio(alice) as client:
            said = _ok(await client.call_tool("vcontext_status", {}))
            _ok(await client.call_tool("vbrief_create_todo", {"title": "after"}))
            _ok(await client.call_tool("vcontext_sync", {}))
            return [said]

    said = run(goes_on)
    assert "is committed now, as it meant to be" in said[0], said
    assert run_git(alice, "status", "--porcelain").stdout == ""
    subjects = run_git(alice, "log", "--format=%s", f"{head}..HEAD").stdout
    assert "cut off" in subjects, subjects
    assert "after" in subjects, subjects
    assert run_cli("validate", cwd=alice).returncode == 0
    checked = run_cli("check", f"{head}..agents/alice", cwd=alice)
    assert checked.returncode == 0, checked.stdout.decode() + checked.stderr.decode()
    synced = run_cli("sync", "alice", cwd=repo)
    assert synced.returncode == 0, synced.stdout.decode() + synced.stderr.decode()
    on_main = (repo / TODO).read_text()
    assert "cut off" in on_main
    assert "after" in on_main


def test_a_killed_write_whose_file_a_person_changed_since_is_left_and_named(
    repo: Path, tmp_path: Path
) -> None:
    alice = agent_worktree(repo, tmp_path / "alice")

    _killed_in_the_window(alice)
    edited = (alice / TODO).read_text().replace("cut off", "cut off, edited")
    (alice / TODO).write_text(edited)

    async def status() -> str:
        async with stdio(alice) as client:
            return _ok(await client.call_tool("vcontext_status", {}))

    said = run(status)
    assert "was changed since: left as it is" in said, said
    # the agent has no shell: the way out is said as a person's step (PRODUCT.md, "MCP
    # server": a tool's answer names tool calls, or a person's step as such)
    assert f"(A PERSON MUST DO THIS (no MCP tool can): git diff -- {TODO}," in said, said
    assert (alice / TODO).read_text() == edited
    assert run(status).count("MCP write") == 0  # said once


def _planted(repo: Path, name: str, path: str, data: bytes) -> Path:
    """A journal entry as ``GitSide.intend`` writes one, of a process that is gone, naming
    ``path`` and a write of ``data`` on HEAD."""
    import json

    from git_vcontext.gitio.commits import blob_id

    folder = repo / ".git" / "vcontext" / "mcp-pending"
    folder.mkdir(parents=True, exist_ok=True)
    head = run_git(repo, "rev-parse", "HEAD").stdout.strip()
    entry = {
        "path": path,
        "head": head,
        "before": None,
        "after": str(blob_id(data)),
        "agent": "mcp",
        "message": "planted",
        "pid": 2**22 + 1,  # above any pid_max: no process has it
    }
    journal = folder / f"{name}.json"
    journal.write_text(json.dumps(entry))
    return journal


def test_a_journal_entry_naming_no_file_of_the_work_tree_is_dropped_never_committed(
    repo: Path, tmp_path: Path
) -> None:
    """PRODUCT.md "MCP server" (bad input: one clear line, no traceback; the server writes
    only inside its work tree): an entry naming ``../x``, an absolute path, or a document
    reached through a symbolic link to a file outside neither stops every tool call (and
    the server's start) with pygit2's "invalid path", nor commits the outside file's
    bytes: it is named and dropped, HEAD and the files as they were."""
    import pygit2

    from git_vcontext.mcp_server.gitside import GitSide

    outside = tmp_path / "outside.vcontext.json"
    secret = b'{"secret": 1}\n'
    outside.write_bytes(secret)
    (repo / "linked.vcontext.json").symlink_to(outside)
    (tmp_path / "x").write_bytes(secret)
    head = run_git(repo, "rev-parse", "HEAD").stdout.strip()
    side = GitSide(pygit2.Repository(str(repo)), commit=True)

    journals = [_planted(repo, "up", "../x", secret)]
    notes = side.finish_pending()  # (pygit2.GitError: invalid path '../x', every call)
    journals += [
        _planted(repo, "absolute", str(outside), secret),
        _planted(repo, "linked", "linked.vcontext.json", secret),
    ]
    notes += side.finish_pending()  # (the outside file's bytes committed on HEAD)

    assert len(notes) == 3, notes
    assert all("dropped" in note for note in notes), notes
    assert not any(journal.exists() for journal in journals)
    assert run_git(repo, "rev-parse", "HEAD").stdout.strip() == head
    assert outside.read_bytes() == secret
    assert side.finish_pending() == []


def test_a_write_killed_before_its_replace_is_said_never_made_not_to_be_committed_or_dropped(
    repo: Path,
) -> None:
    """PRODUCT.md "MCP server" ("nothing lost"): a server killed after journaling a write
    but before replacing the file leaves the file as it was, here with the person's own
    edit. The next server says the write was never made; it does not call the file "an
    MCP write ... changed since" with the advice to commit it or drop it (which would drop
    the person's edit, the only change there is)."""
    import json

    import pygit2

    from git_vcontext.gitio.commits import blob_id
    from git_vcontext.mcp_server.gitside import GitSide

    edited = (repo / TODO).read_bytes().replace(b"{", b"{ ", 1)
    (repo / TODO).write_bytes(edited)
    journal = _planted(repo, "cut", TODO, b'{"the agent": "write"}\n')
    entry = json.loads(journal.read_text())
    entry["before"] = str(blob_id(edited))  # what the write started from
    journal.write_text(json.dumps(entry))

    notes = GitSide(pygit2.Repository(str(repo)), commit=True).finish_pending()

    assert len(notes) == 1, notes
    assert "never made" in notes[0], notes
    assert "drop it" not in notes[0], notes
    assert (repo / TODO).read_bytes() == edited
    assert not journal.exists()


def test_a_journal_entry_with_a_pid_no_process_can_have_is_dropped(repo: Path) -> None:
    """Bad input, no traceback (PRODUCT.md "MCP server"): an entry whose pid is out of
    range made os.kill raise OverflowError out of finish_pending (every tool call and the
    server's start failed); one of 0 or -1 (a process group: "running") stayed forever.
    Each is dropped, the file untouched."""
    import json

    import pygit2

    from git_vcontext.mcp_server.gitside import GitSide

    kept = (repo / TODO).read_bytes()
    journals = []
    for n, pid in enumerate([10**30, 2**31, 0, -1]):
        journal = _planted(repo, f"pid{n}", TODO, b"{}\n")
        entry = json.loads(journal.read_text())
        entry["pid"] = pid
        journal.write_text(json.dumps(entry))
        journals.append(journal)

    side = GitSide(pygit2.Repository(str(repo)), commit=True)

    assert side.finish_pending() == []
    assert not any(journal.exists() for journal in journals)
    assert (repo / TODO).read_bytes() == kept


def test_two_servers_journal_one_document_apart_and_a_live_ones_entry_is_never_finished(
    repo: Path,
) -> None:
    """PRODUCT.md "The write path" (nothing lost): the journal held one entry per document,
    so a live server's entry for a document replaced a killed server's (or a server
    finishing the killed one's read the live one's and removed it: a later kill of the
    live server then left its write as a local change no tool could get past). Each
    server's entry is its own file, and finishing leaves a live server's alone."""
    import os

    import pygit2

    from git_vcontext.mcp_server.gitside import GitSide

    side = GitSide(pygit2.Repository(str(repo)), commit=True)
    before = (repo / TODO).read_bytes()
    live = side.intend(str((repo / TODO).resolve()), before, b'{"live": 1}\n', "live write")
    dead = _planted(repo, "killed", TODO, before)  # a killed server's, already committed

    assert live is not None
    assert Path(live).name.endswith(f".{os.getpid()}.json"), live
    assert Path(live) != dead
    assert side.finish_pending() == []
    assert Path(live).exists()  # this process is alive: its write is its own to commit
    assert not dead.exists()


def test_finishing_a_killed_write_holds_the_documents_lock_and_drops_one_a_later_commit_took(
    repo: Path,
) -> None:
    """PRODUCT.md "The write path": finishing a killed server's write takes the lock the
    writer holds from a file's replace to its commit (no live server is between the two
    meanwhile), and a write whose file a later write's commit took (the file as HEAD has
    it) is dropped without a note: "changed since ... commit it or drop it" led nowhere,
    there was nothing to commit."""
    import contextlib
    from collections.abc import Iterator

    import pygit2

    from git_vcontext.mcp_server.gitside import GitSide

    (repo / TODO).write_bytes((repo / TODO).read_bytes().replace(b"{", b"{ ", 1))
    run_git(repo, "commit", "-qam", "a later write, committed")
    journal = _planted(repo, "superseded", TODO, b'{"the killed": "write"}\n')
    held: list[str] = []

    @contextlib.contextmanager
    def hold(real: str) -> Iterator[None]:
        held.append(real)
        yield

    side = GitSide(pygit2.Repository(str(repo)), commit=True)
    side.hold = hold

    assert side.finish_pending() == []
    assert held == [str((repo / TODO).resolve())]
    assert not journal.exists()


def test_a_killed_write_is_never_committed_onto_a_branch_switched_to_since(
    repo: Path, tmp_path: Path
) -> None:
    """PRODUCT.md "MCP server" (an agent's commit holds exactly the agent's change, on the
    agent's branch): the write was journaled on agents/alice; the person then made a
    branch at the same commit and switched to it (git carries the uncommitted file). The
    entry was judged by HEAD's commit alone, so the next server committed alice's write
    onto ``other``; it is judged by branch too: left as it is, one line saying so."""
    alice = agent_worktree(repo, tmp_path / "alice")
    head = run_git(alice, "rev-parse", "HEAD").stdout.strip()
    _killed_in_the_window(alice)
    run_git(alice, "switch", "-q", "-c", "other")

    async def status() -> str:
        async with stdio(alice) as client:
            return _ok(await client.call_tool("vcontext_status", {}))

    said = run(status)
    assert "was made on branch agents/alice, and branch other is checked out now" in said
    assert "not committed here, left as it is" in said
    assert run_git(alice, "rev-parse", "other", "agents/alice").stdout.split() == [head, head]
    assert "cut off" in (alice / TODO).read_text()  # the write is still there, to decide on
    assert run(status).count("MCP write") == 0  # said once


PLAN_FILE = "plans/release.vcontext.tron"


def test_a_plan_deletion_killed_before_its_commit_is_committed_by_the_next_server(
    repo: Path, tmp_path: Path
) -> None:
    """PRODUCT.md "MCP server" (deleting plans has a tool; on an agent branch each write
    is a commit; nothing lost): vbrief_delete_plan removes the file, then commits the
    removal. A server killed between the two left a deleted file no commit explained (a
    person's ``git commit -a`` would make it theirs, without the Vcontext-Drop trailer).
    The removal is journaled as a write is, and the next server commits it."""
    alice = agent_worktree(repo, tmp_path / "alice")
    head = run_git(alice, "rev-parse", "HEAD").stdout.strip()
    answered: list[Any] = []

    async def killed() -> None:
        try:
            with anyio.fail_after(60):
                async with stdio(alice, env={"GIT_VCONTEXT_KILL_AT": "mcp removed"}) as client:
                    answered.append(await client.call_tool("vbrief_delete_plan", {"id": "release"}))
        except Exception:
            pass

    run(killed)
    assert answered == []
    assert not (alice / PLAN_FILE).exists()
    assert run_git(alice, "rev-parse", "HEAD").stdout.strip() == head  # never committed

    async def status() -> str:
        async with stdio(alice) as client:
            return _ok(await client.call_tool("vcontext_status", {}))

    said = run(status)
    assert f"{PLAN_FILE}: an MCP removal cut off before its commit" in said, said
    assert "is committed now, as it meant to be" in said, said
    assert run_git(alice, "status", "--porcelain").stdout == ""
    assert run_git(alice, "rev-parse", "HEAD~1").stdout.strip() == head
    removed = run_git(alice, "show", "--name-status", "--format=%B", "HEAD").stdout
    assert f"D\t{PLAN_FILE}" in removed, removed
    assert "Vcontext-Drop:" in removed, removed  # the message the killed server meant
    checked = run_cli("check", f"{head}..agents/alice", cwd=alice)
    assert checked.returncode == 0, checked.stdout.decode() + checked.stderr.decode()


def _start_time(pid: int) -> int:
    """Field 22 of ``/proc/PID/stat`` (``proc(5)``: starttime), after the ``(comm)`` field."""
    stat = Path(f"/proc/{pid}/stat").read_bytes()
    return int(stat[stat.rindex(b")") + 2 :].split()[19])


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="no /proc: pid alone judged")
@pytest.mark.parametrize("case", ["reused", "own", "elsewhere"])
def test_an_entry_whose_pid_another_process_has_now_is_finished(
    repo: Path, tmp_path: Path, case: str
) -> None:
    """The killed server's pid, given since to another process (here a ``sleep``): the
    entry was taken as its live server's for ever, the write never committed. The entry
    holds the server's start time (``/proc/PID/stat`` field 22): a process of that pid
    that started at another time is not it. The same pid with its own start time is the
    server, alive: its entry is left alone. An entry of a server in another pid namespace
    (a container sharing the repository: its pid and start time mean nothing here; the
    entry says its namespace) is left alone too (before: judged reused, finished under
    its live server)."""
    import json
    import subprocess

    alice = agent_worktree(repo, tmp_path / "alice")
    _killed_in_the_window(alice)
    folder = Path(run_git(alice, "rev-parse", "--git-path", "vcontext/mcp-pending").stdout.strip())
    (journal,) = (alice / folder if not folder.is_absolute() else folder).glob("*.json")
    entry = json.loads(journal.read_text())
    assert isinstance(entry["started"], int)  # what intend wrote
    assert isinstance(entry["namespace"], int)
    other = subprocess.Popen(["sleep", "60"])
    try:
        start = _start_time(other.pid)
        entry.update(pid=other.pid, started=start if case == "own" else start - 1)
        if case == "elsewhere":
            entry.update(namespace=entry["namespace"] + 1)
        journal.write_text(json.dumps(entry))

        async def status() -> str:
            async with stdio(alice) as client:
                return _ok(await client.call_tool("vcontext_status", {}))

        said = run(status)
    finally:
        other.kill()
        other.wait()
    if case == "reused":
        assert "is committed now, as it meant to be" in said, said
        assert run_git(alice, "status", "--porcelain").stdout == ""
        assert not journal.exists()
    else:
        assert "MCP write" not in said, said
        assert journal.exists()  # a live server's, its own to commit
