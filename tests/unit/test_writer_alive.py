"""One judgement of a process a record names (``fsio.writer_alive``): a temporary's
writer (``remove_stale_temporaries``), an MCP journal entry's server and a sync lease's
holder are alive or gone alike (PRODUCT.md "Bad input": files written whole, a live
writer's temporary never removed; "MCP server": nothing lost). A pid no process has (0:
``os.kill`` would ask about this process's own group) is gone for each; a process of
another pid namespace is alive for each. Pure logic but for the OS's answer about pids."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from git_vcontext.fsio import pid_namespace, remove_stale_temporaries, started, writer_alive
from git_vcontext.remote.refs import Lease, breakable


def _lease(pid: int, namespace: int | None) -> Lease:
    return Lease("a1", socket.gethostname(), pid, "/here", 2e9, None, None, namespace)


def test_pid_zero_is_gone_for_a_temporary_as_for_a_lease(tmp_path: Path) -> None:
    """Before: a temporary named with pid 0 stayed for ever (``os.kill(0, 0)`` asks about
    this process's group: alive) while a lease naming pid 0 was broken."""
    zero = tmp_path / ".todo.vcontext.json.0.0123abcd.tmp"
    zero.write_text("half")
    assert remove_stale_temporaries(str(tmp_path)) == [str(zero)]
    assert breakable(_lease(0, None), "/here", 1e9)
    assert not writer_alive(0, None, None)


def test_another_pid_namespace_is_alive_for_a_temporary_as_for_a_lease(tmp_path: Path) -> None:
    ours = pid_namespace()
    if ours is None:
        return  # no /proc: no namespace is ever recorded
    other = ours + 1
    kept = tmp_path / f".todo.vcontext.json.0-1-{other}.0123abcd.tmp"
    kept.write_text("half")
    assert remove_stale_temporaries(str(tmp_path)) == []
    assert not breakable(_lease(0, other), "/here", 1e9)
    assert writer_alive(0, None, other)


def test_this_process_is_alive_by_its_start_and_not_by_another() -> None:
    start = started(os.getpid())
    assert writer_alive(os.getpid(), start, pid_namespace())
    if start is not None:
        assert not writer_alive(os.getpid(), start + 1, pid_namespace())
