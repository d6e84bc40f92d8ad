"""Every MCP tool argument is hostile input: nothing a client sends is ever run.

PRODUCT.md, "Command-line contract": every value from outside that reaches a git command
line (remote, branch and agent names, revisions, paths; from the command line or an MCP
tool argument) is validated as what it is and passed after ``--``: no value is ever read
by git as an option. Issue 31, point 1: ``vcontext_sync``'s ``push`` reached ``git fetch``
and ``git ls-remote`` as an option, so ``--upload-pack=…`` ran a command.

The walk takes the tools from the server's own list (the SDK's client, over stdio) and
gives each string argument of each tool (array items and map values too) each value of
``helpers.hostile``; no ``MARKER`` file may appear and every answer is a normal result or
a one-line refusal. The same over streamable HTTP is in ``test_mcp_http.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.hostile import attack, markers, result_text
from helpers.mcp_support import documents_repo, run, stdio_params
from helpers.mcp_tour import agent_worktree
from helpers.run import run_git


@pytest.fixture
def served(git_repo: Path, tmp_path: Path) -> Path:
    """An agent's work tree of a repository with a real bare remote ``origin``."""
    repo = documents_repo(git_repo)
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", str(remote))
    run_git(repo, "remote", "add", "origin", str(remote))
    run_git(repo, "push", "-q", "origin", "main")
    return agent_worktree(repo, tmp_path / "alice")


def test_no_mcp_tool_argument_ever_runs_a_command_over_stdio(served: Path, tmp_path: Path) -> None:
    from mcp import Client
    from mcp.client.stdio import stdio_client

    errors = (tmp_path / "stderr.txt").open("w+")

    async def main() -> int:
        async with Client(stdio_client(stdio_params(served), errlog=errors)) as client:
            calls = await attack(client, tmp_path)
            # the sync itself still works after all that, with a real remote
            done = await client.call_tool("vcontext_sync", {"push": "origin"})
            assert not done.is_error, result_text(done)
            return calls

    calls = run(main)
    assert calls > 500
    assert markers(tmp_path) == []
    errors.seek(0)
    assert "internal error" not in errors.read()


def test_the_reported_upload_pack_push_is_refused_in_one_line(served: Path, tmp_path: Path) -> None:
    """Issue 31's report, as sent: refused before git starts, saying why."""
    from mcp import Client
    from mcp.client.stdio import stdio_client

    pwn = tmp_path / "MARKER-PWN"
    args = {"agents": ["zz"], "push": f"--upload-pack=id > {pwn};"}

    async def main() -> str:
        async with Client(stdio_client(stdio_params(served))) as client:
            result = await client.call_tool("vcontext_sync", args)
            assert result.is_error
            return result_text(result)

    said = run(main)
    assert "starts with '-'" in said
    assert "\n" not in said
    assert not pwn.exists()
