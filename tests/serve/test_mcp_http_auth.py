"""A wrong or missing bearer token over HTTP: 401 that says why and how to send it.

PRODUCT.md, "The write path, as an agent and a reviewer see it": the answer carries
``WWW-Authenticate: Bearer error="invalid_token"`` (RFC 6750) and a JSON body saying how
to send the token, so a client that tries OAuth on a bare 401 (the MCP Inspector does)
shows the reason instead. Only 127.0.0.1 is used.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from helpers.inspector import NPM_CACHE, inspector_command, run_inspector
from helpers.mcp_support import documents_repo
from helpers.run import cli_path

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


@contextmanager
def serving(repo: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[str]:
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


def _post(url: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
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
            return int(response.status), dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return int(exc.code), dict(exc.headers), exc.read()


def test_mcp_http_401_says_invalid_token_and_how_to_send_it(git_repo: Path) -> None:
    repo = documents_repo(git_repo)
    with serving(repo, "--token-env", "MCP_TOKEN", env={"MCP_TOKEN": "s3cret"}) as url:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic eDp5"}):
            status, got, body = _post(url, headers)
            assert status == 401, headers
            challenge = {k.lower(): v for k, v in got.items()}["www-authenticate"]
            assert challenge.startswith("Bearer "), challenge
            assert 'error="invalid_token"' in challenge, challenge
            assert {k.lower(): v for k, v in got.items()}["content-type"].startswith(
                "application/json"
            )
            said = json.loads(body)
            assert said["error"] == "invalid_token"
            assert "Authorization: Bearer" in said["error_description"]
            assert "MCP_TOKEN" in said["error_description"]  # where the server reads it
            assert "s3cret" not in body.decode()
        status, _, _ = _post(url, {"Authorization": "Bearer s3cret"})
        assert status == 200


def _in_a_terminal(command: list[str], timeout: float = 120) -> str:
    """What ``command`` prints on a pseudo-terminal (as a person runs it), until it ends."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the command, with the pty as its terminal
        env = {**os.environ, "TERM": "dumb", "npm_config_cache": NPM_CACHE}
        os.execvpe(command[0], command, {**env, "npm_config_update_notifier": "false"})
    screen = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                break
            screen += chunk
    os.waitpid(pid, 0)
    return screen.decode("utf-8", "replace")


def test_mcp_http_inspector_shows_why_a_wrong_token_is_refused(git_repo: Path) -> None:
    """The MCP Inspector's CLI with a wrong token: run by a person (a terminal), it tries
    OAuth and reports the server's reason; run non-interactively as its own message
    advises (``--stored-auth-only``), it reports the reason too, never a bare 401."""
    repo = documents_repo(git_repo)
    with serving(repo, "--token-env", "MCP_TOKEN", env={"MCP_TOKEN": "s3cret"}) as url:
        args = [url, "--transport", "http", "--header", "Authorization: Bearer wrong"]
        done = run_inspector(*args, "--method", "tools/list", "--stored-auth-only")
        assert done.returncode != 0
        assert "invalid_token" in done.stdout + done.stderr
        assert "Authorization: Bearer" in done.stdout + done.stderr
        screen = _in_a_terminal([*inspector_command(), "--cli", *args, "--method", "tools/list"])
    assert "requires a TTY" not in screen, screen
    assert "invalid_token" in screen, screen
    assert "MCP_TOKEN" in screen, screen
