"""``git vcontext mcp --http``: streamable HTTP at /mcp on loopback, bearer token, Origin check.

PRODUCT.md, "MCP server (seed 003)": ``--http [HOST:]PORT`` (127.0.0.1 unless a host
is given; another host requires ``--token-env VAR``, sent as ``Authorization: Bearer``);
a browser page from another origin is refused even on loopback. Only 127.0.0.1 is used.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import pytest

from helpers.mcp_support import documents_repo, read_json, run, text
from helpers.mcp_tour import agent_worktree, tour
from helpers.run import cli_path, run_cli

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"},
    },
}


@pytest.fixture
def repo(git_repo: Path) -> Path:
    return documents_repo(git_repo)


@contextmanager
def serving(repo: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """Start ``git-vcontext mcp --http 127.0.0.1:0`` and yield its URL (read from stderr)."""
    proc = subprocess.Popen(
        [*cli_path(), "mcp", "--http", "127.0.0.1:0", *args],
        cwd=repo,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        found = re.search(r"at (http://\S+/mcp)", line)
        assert found, line + proc.stderr.read()
        yield found.group(1)
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _post(url: str, headers: dict[str, str]) -> int:
    request = urllib.request.Request(
        url,
        data=json.dumps(INITIALIZE).encode(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_mcp_http_serves_tools_and_resources_to_the_sdk_client(repo: Path) -> None:
    from mcp import Client

    with serving(repo) as url:
        assert url.startswith("http://127.0.0.1:")

        async def main() -> None:
            for mode in ("auto", "legacy"):
                async with Client(url, mode=mode) as client:
                    names = {t.name for t in (await client.list_tools()).tools}
                    assert "vbrief_create_todo" in names
                    result = await client.call_tool(
                        "vbrief_create_todo", {"title": f"over http ({mode})"}
                    )
                    assert not result.is_error, text(result)
                    read = await client.read_resource("vbrief://todos/current")
                    assert f"over http ({mode})" in text(read)

        run(main)
    titles = [i["title"] for i in read_json(repo / "todo.vcontext.json")["todoList"]["items"]]
    assert titles[-2:] == ["over http (auto)", "over http (legacy)"]


def test_mcp_http_every_tool_resource_and_refusal_on_real_files(repo: Path, tmp_path: Path) -> None:
    """Issue 14, Done when: the same pass as over stdio, over streamable HTTP."""
    from mcp import Client

    alice = agent_worktree(repo, tmp_path / "alice")
    with serving(alice) as url:

        async def main() -> None:
            async with Client(url) as client:
                await tour(client, alice)

        run(main)
    assert "Announce" in (repo / "plans/release.vcontext.tron").read_text()


def test_mcp_http_token_required_without_it_401(repo: Path) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    with serving(repo, "--token-env", "MCP_TOKEN", env={"MCP_TOKEN": "s3cret"}) as url:
        assert _post(url, {}) == 401
        assert _post(url, {"Authorization": "Bearer wrong"}) == 401
        assert _post(url, {"Authorization": "Bearer s3cret"}) == 200

        async def main() -> None:
            http = httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret"})
            async with http, Client(streamable_http_client(url, http_client=http)) as client:
                assert (await client.list_tools()).tools

        run(main)


def test_mcp_http_page_from_another_origin_is_refused_on_loopback(repo: Path) -> None:
    with serving(repo) as url:
        port = url.split(":")[2].split("/")[0]
        assert _post(url, {"Origin": "http://evil.example"}) == 403
        assert _post(url, {"Origin": "http://localhost.evil.example"}) == 403
        assert _post(url, {"Origin": f"http://localhost:{port}"}) == 200
        assert _post(url, {}) == 200


def test_mcp_http_other_host_needs_a_token_and_bad_options_are_usage_errors(
    repo: Path,
) -> None:
    for args, words in (
        (["--http", "0.0.0.0:8765"], "--token-env"),
        (["--http", "0.0.0.0:8765", "--token-env", "NOT_SET_ANYWHERE"], "not set"),
        (["--http", "localhost:http"], "[HOST:]PORT"),
        (["--allow", "todos,secrets"], "--allow"),
        (["--todo", "../outside.json"], "outside"),
    ):
        done = run_cli("mcp", *args, cwd=repo)
        err = done.stderr.decode()
        assert done.returncode == 2, (args, err)
        assert words in err, err
        assert "Traceback" not in err, err
        assert err.count("\n") == 1, err


def test_mcp_http_listen_stream_gets_resource_updates(repo: Path) -> None:
    import anyio
    from mcp import Client

    with serving(repo) as url:

        async def main() -> None:
            async with (
                Client(url) as client,
                client.listen(resource_subscriptions=["vbrief://todos/main"]) as sub,
            ):
                await anyio.sleep(0.6)
                data = read_json(repo / "todo.vcontext.json")
                data["todoList"]["items"][0]["title"] = "changed by someone else"
                (repo / "todo.vcontext.json").write_text(json.dumps(data, indent=2) + "\n")
                with anyio.fail_after(5):
                    async for event in sub:
                        if getattr(event, "uri", "") == "vbrief://todos/main":
                            return
            raise AssertionError("no notification over HTTP")

        run(main)


def test_mcp_http_a_write_by_one_client_is_notified_to_another_within_a_second(
    repo: Path,
) -> None:
    """Seed 003, "Real-Time Collaboration": agent A updates a todo through the server, the
    server notifies every subscriber (PRODUCT.md MCP: a change by anyone, within a second)."""
    import time

    import anyio
    from mcp import Client

    with serving(repo) as url:

        async def main() -> float:
            async with (
                Client(url) as alice,
                Client(url) as bob,
                bob.listen(resource_subscriptions=["vbrief://todos/current"]) as sub,
            ):
                await anyio.sleep(0.6)  # the watcher has looked once
                start = time.monotonic()
                done = await alice.call_tool(
                    "vbrief_update_todo", {"id": "t3", "status": "blocked"}
                )
                assert not done.is_error, text(done)
                with anyio.fail_after(5):
                    async for event in sub:
                        if getattr(event, "uri", "") == "vbrief://todos/current":
                            took = time.monotonic() - start
                            assert '"blocked"' in text(
                                await bob.read_resource("vbrief://todos/current")
                            )
                            return took
            raise AssertionError("bob heard nothing of alice's write")

        assert run(main) < 1.0


def test_mcp_http_announces_the_same_resource_capabilities_as_stdio(repo: Path) -> None:
    """PRODUCT.md MCP: subscribers get resources/updated and list_changed; the 2025
    handshake over HTTP must say so (subscribe, listChanged), as it does over stdio."""
    from mcp import Client

    from helpers.mcp_support import stdio_params

    async def capabilities(target: object) -> object:
        async with Client(target, mode="legacy") as client:  # type: ignore[arg-type]
            return client.server_capabilities.resources

    with serving(repo) as url:
        over_http = run(lambda: capabilities(url))
    over_stdio = run(lambda: capabilities(stdio_params(repo)))
    assert over_stdio.subscribe
    assert over_stdio.list_changed
    assert over_http.subscribe
    assert over_http.list_changed


def test_no_tool_argument_runs_a_command_over_http(repo: Path, tmp_path: Path) -> None:
    """Issue 31, point 1, over HTTP on loopback (no token needed there, and with --allow
    todos): no argument of ``vcontext_sync`` runs anything (every tool: over stdio, in
    test_mcp_hostile_arguments.py)."""
    from mcp import Client

    from helpers.hostile import attack, hostile_values, markers

    alice = agent_worktree(repo, tmp_path / "alice")
    with serving(alice, "--allow", "todos") as url:

        async def main() -> None:
            async with Client(url) as client:
                for value in hostile_values(tmp_path):
                    result = await client.call_tool(
                        "vcontext_sync", {"agents": ["alice"], "push": value}
                    )
                    assert result.is_error, text(result)
                assert await attack(client, tmp_path, only={"vcontext_sync"}) > 50

        run(main)
    assert markers(tmp_path) == []


def _open_session(url: str) -> tuple[int, str | None]:
    """An ``initialize`` that is never followed by a DELETE: (HTTP status, session id)."""
    request = urllib.request.Request(
        url,
        data=json.dumps(INITIALIZE).encode(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            response.read()
            return int(response.status), response.headers.get("mcp-session-id")
    except urllib.error.HTTPError as exc:
        return int(exc.code), None


def _ping(url: str, session: str) -> int:
    request = urllib.request.Request(
        url,
        data=json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}).encode(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Mcp-Session-Id": session,
            "Mcp-Protocol-Version": "2025-06-18",
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            response.read()
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_mcp_http_session_table_is_bounded_and_idle_sessions_expire(repo: Path) -> None:
    """Issue 31, point 10: 2,600 sessions never closed grew the server from 100 MB to
    350 MB. Sessions are at most --max-sessions (more: 503 until one ends) and each ends
    after --session-timeout seconds without a request (its id then answers 404)."""
    from mcp import Client

    with serving(repo, "--session-timeout", "1.5", "--max-sessions", "5") as url:
        opened = [_open_session(url) for _ in range(40)]  # a client that never closes any
        statuses = [status for status, _ in opened]
        assert statuses[:5] == [200] * 5
        assert set(statuses[5:]) == {503}
        first = opened[0][1]
        assert first is not None
        assert _ping(url, first) == 200  # alive while used
        time.sleep(3)
        assert _ping(url, first) == 404  # expired: the table has room again
        assert [_open_session(url)[0] for _ in range(5)] == [200] * 5

        async def main() -> None:
            await anyio.sleep(2)  # the five above expire too
            async with Client(url) as client:  # a client that keeps working keeps its session
                for _ in range(3):
                    assert (await client.list_tools()).tools
                    await anyio.sleep(1)

        run(main)


def test_mcp_session_options_are_for_http_only(repo: Path) -> None:
    done = run_cli("mcp", "--max-sessions", "3", cwd=repo)
    assert done.returncode == 2
    assert b"--max-sessions is for --http" in done.stderr
