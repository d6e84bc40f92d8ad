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
    assert f"git diff -- {TODO}" in said, said
    assert (alice / TODO).read_text() == edited
    assert run(status).count("MCP write") == 0  # said once
