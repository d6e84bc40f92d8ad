"""A server started by a user who may not write the checkout (another user's repository, a
read-only mount, a CI cache) serves it read-only and says so in one line at start; a write
that meets a file it may not write is refused in one line, never an internal error. The
SDK's stdio client against the real server, run as the user nobody."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers.mcp_support import TODO, run, stdio_params, text
from helpers.run import run_git
from helpers.users import nobody_env, roots_folder


@pytest.fixture
def roots_checkout() -> Iterator[tuple[Path, list[str], dict[str, str]]]:
    """A repository root owns with a todo list; how to become nobody; nobody's env."""
    with roots_folder("vcontext-mcp-ro-") as (base, become):
        repo = base / "repo"
        repo.mkdir()
        run_git(repo, "init", "-q", "-b", "main")
        (repo / ".vcontext").mkdir()
        (repo / ".vcontext" / "todo.json").write_text(json.dumps(TODO, indent=2) + "\n")
        run_git(repo, "add", "-A")
        run_git(repo, "-c", "user.name=R", "-c", "user.email=r@example.com", "commit", "-qm", "t")
        yield repo, become, nobody_env(base, "*")


def _as(become: list[str], params: Any) -> Any:
    """The server's command line, run as the other user."""
    params.args = [*become[1:], params.command, *params.args]
    params.command = become[0]
    return params


def test_mcp_on_a_checkout_this_user_cannot_write_serves_it_read_only_and_says_so(
    roots_checkout: tuple[Path, list[str], dict[str, str]], tmp_path: Path
) -> None:
    repo, become, env = roots_checkout
    errlog = tmp_path / "stderr"

    async def main() -> tuple[set[str], str, str]:
        from mcp import ClientSession
        from mcp.client.stdio import stdio_client

        params = _as(become, stdio_params(repo, env=env))
        with errlog.open("w") as err:
            async with stdio_client(params, errlog=err) as (r, w), ClientSession(r, w) as s:
                await s.initialize()
                names = {t.name for t in (await s.list_tools()).tools}
                todos = await s.read_resource("vbrief://todos/main")
                status = await s.call_tool("vcontext_status", {})
                return names, text(todos), text(status)

    names, todos, status = run(main)
    said = errlog.read_text()
    assert "not writable by this user: serving read-only" in said, said
    assert said.count("\n") == 1, said
    assert "Traceback" not in said
    assert "vbrief_create_todo" not in names
    assert "vcontext_validate" in names
    assert "Write the parser" in todos
    assert status
    assert run_git(repo, "status", "--porcelain").stdout == ""


@pytest.mark.parametrize("denied", [".vcontext", ".git/vcontext"])
def test_mcp_a_write_denied_by_the_file_system_is_refused_in_one_line(
    roots_checkout: tuple[Path, list[str], dict[str, str]], tmp_path: Path, denied: str
) -> None:
    """The checkout and its git directory writable, one folder a write needs not (root's,
    mode 755: the document's, or the server's own under .git): the write is refused as
    denied, naming where; the document is unchanged."""
    repo, become, env = roots_checkout
    for folder in (repo, repo / ".vcontext", *[p for p in (repo / ".git").rglob("*") if p.is_dir()],
                   repo / ".git"):  # fmt: skip
        folder.chmod(0o777)
    for f in (repo / ".git").rglob("*"):
        if f.is_file():
            f.chmod(0o666)
    (repo / denied).mkdir(exist_ok=True)
    (repo / denied).chmod(0o755)
    document = repo / ".vcontext" / "todo.json"
    before = document.read_bytes()

    async def main() -> Any:
        from mcp import ClientSession
        from mcp.client.stdio import stdio_client

        params = _as(become, stdio_params(repo, env=env))
        with (tmp_path / "stderr").open("w") as err:
            async with stdio_client(params, errlog=err) as (r, w), ClientSession(r, w) as s:
                await s.initialize()
                return await s.call_tool("vbrief_update_todo", {"id": "t3", "status": "completed"})

    result = run(main)
    said = text(result)
    assert result.is_error, said
    assert "internal error" not in said
    assert "permission denied" in said.lower(), said
    assert denied.split("/")[-1] in said, said
    assert document.read_bytes() == before
