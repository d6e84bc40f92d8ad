"""Running ``git vcontext mcp`` as agent platforms do: the SDK's stdio client from any folder,
its stderr kept, its CPU time read, and a raw JSON-RPC line pipe for what no client sends.

Issue 37 ("the MCP server where agents' platforms really run it") drives the server
through these: desktop clients start servers from ``/`` or ``$HOME``, people edit the
files the server writes, and a line on stdin may be anything.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any

from helpers.run import cli_path, run_git

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "issue-37", "version": "0"},
    },
}


def params(cwd: Path | str, *args: str, env: dict[str, str] | None = None) -> Any:
    """How a platform starts the server: the console script, in ``cwd``, with ``args``."""
    from mcp import StdioServerParameters

    command, *prefix = cli_path()
    return StdioServerParameters(
        command=command,
        args=[*prefix, "mcp", *args],
        cwd=str(cwd),
        env={**os.environ, **(env or {})},
    )


@asynccontextmanager
async def stdio(
    cwd: Path | str,
    *args: str,
    errlog: IO[str] | None = None,
    env: dict[str, str] | None = None,
    mode: str = "auto",
) -> AsyncIterator[Any]:
    """The SDK's ``Client`` over stdio to ``git-vcontext mcp ARGS`` started in ``cwd``."""
    from mcp import Client
    from mcp.client.stdio import stdio_client

    log: Any = errlog or sys.stderr  # the SDK types it TextIO; a text file handle is one
    transport = stdio_client(params(cwd, *args, env=env), errlog=log)
    async with Client(transport, mode=mode) as client:
        yield client


def stderr_file(tmp_path: Path, name: str = "stderr.txt") -> IO[str]:
    """A file to hand to ``stdio(errlog=...)``, read back with ``said``."""
    return (tmp_path / name).open("w+", encoding="utf-8")


def said(errlog: IO[str]) -> str:
    """Everything the server wrote on stderr so far."""
    errlog.flush()
    errlog.seek(0)
    return errlog.read()


def server_pids() -> list[int]:
    """The ``git-vcontext mcp`` processes this test process started (its children)."""
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as fh:
                stat = fh.read()
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmdline = fh.read().split(b"\0")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == me and b"mcp" in cmdline:
            found.append(int(entry))
    return found


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time the process has used so far."""
    with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return ticks / os.sysconf("SC_CLK_TCK")


class RawServer:
    """``git-vcontext mcp`` on pipes, spoken to line by line (what no SDK client sends)."""

    def __init__(self, cwd: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [*cli_path(), "mcp", *args],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.rstrip(b"\n") + b"\n")
        self.proc.stdin.flush()

    def request(self, message: dict[str, Any]) -> None:
        self.send(json.dumps(message).encode())

    def answer(self, timeout: float = 10.0) -> dict[str, Any] | None:
        """The next message the server writes, None when it says nothing for ``timeout``."""
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.proc.stdout.readline()
        return json.loads(line) if line else None

    def initialize(self) -> dict[str, Any]:
        self.request(INITIALIZE)
        answer = self.answer(30)
        assert answer is not None
        assert "result" in answer, answer
        self.request({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def close(self) -> str:
        """End the server (its stdin closes); what it said on stderr."""
        assert self.proc.stdin is not None
        assert self.proc.stderr is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        return self.proc.stderr.read().decode("utf-8", "replace")


def todo_document(titles: list[str], *, list_id: str = "main") -> dict[str, Any]:
    """A todo list of pending items ``t1``, ``t2``, ... with these titles."""
    return {
        "vContextInfo": {"version": "0.4"},
        "todoList": {
            "id": list_id,
            "sequence": 1,
            "items": [
                {"id": f"t{n}", "title": title, "status": "pending"}
                for n, title in enumerate(titles, 1)
            ],
        },
    }


def write_json(path: Path, data: Any) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = (json.dumps(data, indent=2) + "\n").encode()
    path.write_bytes(raw)
    return raw


def new_repo(path: Path, files: dict[str, Any] | None = None, *, branch: str = "main") -> Path:
    """A git repository at ``path`` with ``files`` (JSON documents) committed."""
    path.mkdir(parents=True, exist_ok=True)
    run_git(path, "init", "-q", "-b", branch)
    run_git(path, "config", "user.name", "Test User")
    run_git(path, "config", "user.email", "test@example.com")
    run_git(path, "config", "commit.gpgsign", "false")
    for name, data in (files or {}).items():
        write_json(path / name, data)
    if files:
        run_git(path, "add", ".")
        run_git(path, "commit", "-q", "-m", "documents")
    return path


def show(repo: Path, spec: str) -> Any:
    """``git show SPEC`` parsed as JSON (``HEAD:path``, ``:path`` for the index)."""
    return json.loads(run_git(repo, "show", spec).stdout)


def tool_error(result: Any) -> str:
    """The one line of a refused tool call."""
    assert result.is_error, result
    line = "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")
    assert "\n" not in line, line
    assert "Traceback" not in line, line
    return line
