"""MCP writes stay in the served folder, respect read-only documents and leave no debris.

PRODUCT.md, "MCP server": nothing is ever read or written outside the repository (or
directory) the server serves, and a document whose real path (through symlinks) lies
outside it is not served, nor written through. Issue 31, point 4: with
``.vcontext/todo.json`` or ``.vcontext/playbook.json`` a symlink to a document outside the
repository, ``vbrief_create_todo`` and ``vbrief_add_learning`` wrote the outside file.
Point 10: a read-only (0444) document is refused, as git refuses to overwrite without
``-f``; a write killed half way leaves nothing in ``git status``, and the temporaries of
a dead server are removed when the next one starts.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from helpers.mcp_support import PLAYBOOK, TODO, in_process, run, stdio_params, text
from helpers.run import cli_path, in_another_pid_namespace, run_git

WRITE_TODO = ("vbrief_create_todo", {"title": "through the link"})
WRITE_LEARNING = (
    "vbrief_add_learning",
    {"targetId": "linked", "kind": "learning", "narrative": {"Overview": "through the link"}},
)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the repository, holding a todo list and a playbook."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "todo.json").write_text(json.dumps(TODO, indent=2) + "\n")
    (folder / "playbook.json").write_text(json.dumps(PLAYBOOK, indent=2) + "\n")
    return folder


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.mark.parametrize(
    ("link", "target", "call"),
    [
        (".vcontext/todo.json", "todo.json", WRITE_TODO),
        (".vcontext/playbook.json", "playbook.json", WRITE_LEARNING),
        (".vcontext/todo.json", "missing.json", WRITE_TODO),  # a dangling link
        (".vcontext/playbook.json", "missing.json", WRITE_LEARNING),
        (
            ".vcontext/plan-x.json",
            "plan.json",
            ("vbrief_create_plan", {"title": "x", "id": "x", "narratives": {"proposal": "x"}}),
        ),
    ],
    ids=["todo", "playbook", "dangling-todo", "dangling-playbook", "new-plan"],
)
def test_mcp_never_writes_through_a_link_leading_outside_the_served_folder(
    git_repo: Path, outside: Path, link: str, target: str, call: tuple[str, dict[str, Any]]
) -> None:
    (git_repo / ".vcontext").mkdir()
    (git_repo / link).symlink_to(outside / target)
    before = _files(outside)
    tool, args = call

    async def main() -> Any:
        async with in_process(git_repo) as client:
            return await client.call_tool(tool, args)

    result = run(main)
    assert result.is_error, text(result)
    assert "\n" not in text(result)
    assert "outside" in text(result) or "already taken" in text(result)  # (the plan's id)
    assert _files(outside) == before  # neither changed nor created
    assert (git_repo / link).is_symlink()


def test_mcp_refuses_over_stdio_too_and_keeps_serving(git_repo: Path, outside: Path) -> None:
    from mcp import Client
    from mcp.client.stdio import stdio_client

    (git_repo / ".vcontext").mkdir()
    (git_repo / ".vcontext/todo.json").symlink_to(outside / "todo.json")
    (git_repo / ".vcontext/playbook.json").symlink_to(outside / "playbook.json")
    before = _files(outside)

    async def main() -> None:
        async with Client(stdio_client(stdio_params(git_repo))) as client:
            for tool, args in (WRITE_TODO, WRITE_LEARNING):
                result = await client.call_tool(tool, args)
                assert result.is_error, text(result)
            assert (await client.list_tools()).tools

    run(main)
    assert _files(outside) == before


def test_mcp_resolve_never_writes_through_a_link_leading_outside(
    git_repo: Path, outside: Path
) -> None:
    conflicted = outside / "conflicted.vcontext.json"
    conflicted.write_text(
        '{"vContextInfo": {"version": "0.4"}, "todoList": {"items": [\n'
        "<<<<<<< ours\n"
        '{"id": "t1", "title": "a", "status": "pending"}\n'
        "=======\n"
        '{"id": "t1", "title": "b", "status": "pending"}\n'
        ">>>>>>> theirs\n"
        "]}}\n"
    )
    run_git(git_repo, "commit", "-q", "--allow-empty", "-m", "start")
    (git_repo / "linked.vcontext.json").symlink_to(conflicted)
    before = conflicted.read_bytes()

    async def main() -> Any:
        async with in_process(git_repo) as client:
            return await client.call_tool(
                "vcontext_resolve", {"path": "linked.vcontext.json", "take": "ours"}
            )

    result = run(main)
    assert result.is_error, text(result)
    assert conflicted.read_bytes() == before


def test_mcp_a_link_inside_the_served_folder_is_written_through(git_repo: Path) -> None:
    (git_repo / "lists").mkdir()
    (git_repo / "lists/todo.vcontext.json").write_text(json.dumps(TODO, indent=2) + "\n")
    (git_repo / ".vcontext").mkdir()
    (git_repo / ".vcontext/todo.json").symlink_to("../lists/todo.vcontext.json")

    async def main() -> Any:
        async with in_process(git_repo) as client:
            return await client.call_tool("vbrief_create_todo", {"title": "inside"})

    result = run(main)
    assert not result.is_error, text(result)
    assert "inside" in (git_repo / "lists/todo.vcontext.json").read_text()
    assert (git_repo / ".vcontext/todo.json").is_symlink()


def test_mcp_refuses_to_rewrite_a_read_only_document(git_repo: Path) -> None:
    todo = git_repo / "todo.vcontext.json"
    todo.write_text(json.dumps(TODO, indent=2) + "\n")
    todo.chmod(0o444)
    before = todo.read_bytes()

    async def main() -> Any:
        async with in_process(git_repo) as client:
            return await client.call_tool("vbrief_create_todo", {"title": "nope"})

    result = run(main)
    assert result.is_error, text(result)
    assert "read-only" in text(result)
    assert "\n" not in text(result)
    assert todo.read_bytes() == before
    assert todo.stat().st_mode & 0o777 == 0o444


@pytest.mark.skipif(shutil.which("strace") is None, reason="needs strace to kill at a syscall")
def test_a_write_killed_half_way_leaves_nothing_in_git_status(git_repo: Path) -> None:
    """The server is killed for real (SIGKILL, which nothing can catch) at the moment its
    new document is written whole and about to replace the old one: strace injects the
    signal into its first rename. Its temporary is in the git directory, never in ``git
    status``; the next server removes it."""
    todo = git_repo / "todo.vcontext.json"
    todo.write_text(json.dumps(TODO, indent=2) + "\n")
    run_git(git_repo, "add", ".")
    run_git(git_repo, "commit", "-q", "-m", "todo")
    before = todo.read_bytes()
    renames = "rename,renameat,renameat2"
    strace = ["strace", "-f", "--seccomp-bpf", "-qq", "-o", os.devnull, f"-etrace={renames}"]
    strace.append(f"-einject={renames}:signal=KILL")

    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "0"},
        },
    }
    calls = [
        init,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "vbrief_create_todo", "arguments": {"title": "killed"}},
        },
    ]
    proc = subprocess.Popen(
        [*strace, *cli_path(), "mcp"],
        cwd=git_repo,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},  # no other rename before
    )
    assert proc.stdin is not None
    proc.stdin.write("".join(json.dumps(c) + "\n" for c in calls).encode())
    proc.stdin.flush()  # (kept open: the server works until it is killed)
    try:
        code = proc.wait(timeout=120)
    finally:
        proc.kill()
        proc.stdin.close()
    said = proc.stderr.read() if proc.stderr else b""
    if code != -9 and b"ptrace" in said:
        pytest.skip("strace cannot trace here (ptrace not permitted)")
    assert code == -9, said  # strace ends as its child did: killed
    assert todo.read_bytes() == before  # the old document whole
    assert run_git(git_repo, "status", "--porcelain").stdout == ""
    scratch = git_repo / ".git" / "vcontext" / "tmp"
    left = list(scratch.iterdir())
    assert len(left) == 1, left  # the dead server's temporary, out of git's sight

    async def main() -> None:
        async with in_process(git_repo) as client:
            assert (await client.list_tools()).tools

    run(main)
    assert list(scratch.iterdir()) == []


def test_a_new_server_removes_only_its_kind_of_temporaries_of_dead_processes(
    git_repo: Path,
) -> None:
    (git_repo / "todo.vcontext.json").write_text(json.dumps(TODO, indent=2) + "\n")
    dead = _dead_pid()
    stale = git_repo / f".todo.vcontext.json.{dead}.0123abcd.tmp"  # an older version's
    live = git_repo / f".todo.vcontext.json.{os.getpid()}.0123abcd.tmp"  # still writing
    other = git_repo / f".notes.{dead}.tmp"  # not named as ours are
    for path in (stale, live, other):
        path.write_text("half\n")

    async def main() -> None:
        async with in_process(git_repo) as client:
            assert (await client.list_tools()).tools

    run(main)
    assert not stale.exists()
    assert live.exists()
    assert other.exists()


def test_a_temporary_whose_pid_another_process_was_given_since_is_removed(
    git_repo: Path,
) -> None:
    """A temporary's name says its writer's start time besides its pid (``/proc``): one
    whose pid another process was given since (here this test's own, alive, with a start
    time one tick off) is a dead writer's, removed; with the live process's own start
    time it is kept (still being written), as is an older version's name (pid alone). A
    name whose pid no process can have (beyond a C long) is a dead writer's too, removed
    without a traceback (os.kill raised OverflowError before: the server did not start)."""
    from git_vcontext.fsio import started, temporary_name

    start = started(os.getpid())
    if start is None:
        pytest.skip("no /proc: temporaries are judged by their pid alone")
    (git_repo / "todo.vcontext.json").write_text(json.dumps(TODO, indent=2) + "\n")
    name = ".todo.vcontext.json"
    reused = git_repo / f"{name}.{os.getpid()}-{start + 1}.0123abcd.tmp"
    live = Path(temporary_name(str(git_repo), "todo.vcontext.json"))
    assert live.name.startswith(f"{name}.{os.getpid()}-{start}-")  # what write_atomic names
    older = git_repo / f"{name}.{os.getpid()}.4567abcd.tmp"
    beyond = git_repo / f"{name}.{10**20}-{start}.89abcdef.tmp"
    for path in (reused, live, older, beyond):
        path.write_text("half\n")

    async def main() -> None:
        async with in_process(git_repo) as client:
            assert (await client.list_tools()).tools

    run(main)
    assert not reused.exists()
    assert not beyond.exists()
    assert live.exists()
    assert older.exists()


def test_a_temporary_of_a_writer_in_another_pid_namespace_is_left_be(tmp_path: Path) -> None:
    """A live writer's temporary is never removed: one writing in a container that shares
    the folder (a writer under ``unshare --pid``, pid 1 there, this machine's init here)
    names its pid namespace too, and is left be while it writes (before: judged by a pid
    and start time that mean nothing here, a pid given since, removed under the writer).
    A name without the namespace (an earlier version's) is judged as before."""
    from git_vcontext.fsio import remove_stale_temporaries

    writer = (
        "import sys\n"
        "from git_vcontext.fsio import temporary_name\n"
        f"path = temporary_name({str(tmp_path)!r}, 'todo.vcontext.json')\n"
        "open(path, 'w').write('half')\n"
        "print(path, flush=True)\n"
        "print('end', flush=True)\n"
        "sys.stdin.read()\n"
    )
    with in_another_pid_namespace(writer) as said:
        path = Path(said.strip())
        assert path.name.startswith(".todo.vcontext.json.1-")  # pid 1 in its namespace
        assert remove_stale_temporaries(str(tmp_path)) == []
        assert path.exists()


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid
