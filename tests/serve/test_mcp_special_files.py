"""Only regular files are ever opened where the tool finds documents itself; the stdio server
ends with its client.

PRODUCT.md, "MCP server": every bad input gets an answer, never a hang. Issue 31, point 8:
a FIFO named ``notes.json`` in a plain (non-git) served folder hung ``mcp --root DIR`` at
start (sniffing its first bytes waited for a writer forever), and the server outlived its
client. Files are opened with ``O_NONBLOCK`` and checked with ``fstat`` before a read; the
same holds for ``validate DIR``, ``doctor`` and ``vermas project``.
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import time
from pathlib import Path

import anyio
import pytest

from helpers.mcp_support import TODO, run, stdio_params, text
from helpers.run import cli_path, run_cli, run_git

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
def folder(tmp_path: Path) -> Path:
    """A plain folder: a todo list, and named pipes (and a socket) with document names."""
    root = tmp_path / "plain"
    (root / ".vcontext").mkdir(parents=True)
    (root / "todo.vcontext.json").write_text(json.dumps(TODO, indent=2) + "\n")
    os.mkfifo(root / "notes.json")
    os.mkfifo(root / "plan.vcontext.json")
    os.mkfifo(root / ".vcontext" / "playbook.json")
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(root / "socket.vcontext.json"))
    except OSError:  # a path too long for AF_UNIX: the pipes are the point
        pass
    finally:
        sock.close()
    return root


def _line(proc: subprocess.Popen[bytes], timeout: float) -> bytes:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "no answer: the server hangs"
    return proc.stdout.readline()


def test_named_pipes_in_a_plain_folder_neither_hang_nor_are_served(folder: Path) -> None:
    proc = subprocess.Popen(
        [*cli_path(), "mcp", "--root", str(folder)],
        cwd=folder,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdin is not None
        proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        proc.stdin.flush()
        answer = json.loads(_line(proc, 20))
        assert answer["result"]["serverInfo"]["name"] == "git-vcontext"
        # the client goes away (its end of both pipes closes): the server ends too
        proc.stdin.close()
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_sdk_client_reads_and_writes_beside_named_pipes(folder: Path) -> None:
    from mcp import Client
    from mcp.client.stdio import stdio_client

    async def main() -> None:
        with anyio.fail_after(60):  # (a server that hangs at start fails, not blocks, the test)
            await session()

    async def session() -> None:
        async with Client(stdio_client(stdio_params(folder, "--root", str(folder)))) as client:
            listed = {r.uri for r in (await client.list_resources()).resources}
            assert "vbrief://todos/main" in listed
            assert not any(u.startswith(("vbrief://plans/", "vbrief://notes")) for u in listed)
            done = await client.call_tool("vbrief_create_todo", {"title": "beside a pipe"})
            assert not done.is_error, text(done)
            # the current playbook's conventional path is a named pipe: refused, not hung
            learned = await client.call_tool(
                "vbrief_add_learning",
                {"targetId": "x", "kind": "learning", "narrative": {"Overview": "y"}},
            )
            assert learned.is_error, text(learned)
            assert "\n" not in text(learned)
            checked = await client.call_tool("vcontext_validate", {})
            assert not checked.is_error, text(checked)

    started = time.monotonic()
    run(main)
    assert time.monotonic() - started < 60
    assert (folder / ".vcontext" / "playbook.json").is_fifo()  # never replaced
    assert "beside a pipe" in (folder / "todo.vcontext.json").read_text()


def test_the_stdio_server_ends_when_its_client_is_killed(folder: Path, tmp_path: Path) -> None:
    """A client killed with SIGKILL closes nothing itself: the kernel closes its pipe ends,
    and the server, reading EOF, ends."""
    script = (
        "import subprocess, sys, time\n"
        f"p = subprocess.Popen({[*cli_path(), 'mcp', '--root', str(folder)]!r},"
        " stdin=subprocess.PIPE, stdout=subprocess.PIPE)\n"
        f"p.stdin.write({(json.dumps(INITIALIZE) + chr(10)).encode()!r}); p.stdin.flush()\n"
        "p.stdout.readline()\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    client = subprocess.Popen(["python3", "-c", script], stdout=subprocess.PIPE)
    assert client.stdout is not None
    server = int(client.stdout.readline())
    client.kill()
    client.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and _alive(server):
        time.sleep(0.1)
    alive = _alive(server)
    if alive:
        os.kill(server, 9)
    assert not alive, "the server outlived its client"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (not reaped yet by its dead parent's init) has ended
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


def test_validate_a_folder_skips_named_pipes(folder: Path) -> None:
    done = subprocess.run([*cli_path(), "validate", str(folder)], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert b"todo.vcontext.json" not in done.stderr


def test_vermas_project_refuses_a_named_pipe_for_a_projection(tmp_path: Path) -> None:
    work = tmp_path / ".work"
    work.mkdir()
    (work / "events.jsonl").write_text("")
    os.mkfifo(work / "work_orders.jsonl")
    done = subprocess.run(
        [*cli_path(), "vermas", "project", str(work)], capture_output=True, timeout=60
    )
    assert done.returncode == 3, done.stderr
    assert b"work_orders.jsonl: not a regular file (a named pipe)" in done.stderr
    assert done.stderr.count(b"\n") == 1


def test_doctor_does_not_open_a_tracked_name_that_became_a_named_pipe(git_repo: Path) -> None:
    (git_repo / "notes.json").write_text('{"vContextInfo": {"version": "0.4"}}\n')
    run_git(git_repo, "add", ".")
    run_git(git_repo, "commit", "-q", "-m", "notes")
    (git_repo / "notes.json").unlink()
    os.mkfifo(git_repo / "notes.json")
    done = subprocess.run([*cli_path(), "doctor"], cwd=git_repo, capture_output=True, timeout=60)
    assert done.returncode in (0, 1), done.stderr
    assert b"internal error" not in done.stderr
    assert run_cli("validate", cwd=git_repo).returncode in (0, 1)
