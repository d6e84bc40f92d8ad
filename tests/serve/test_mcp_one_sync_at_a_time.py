"""One sync at a time per MCP server, so libgit2's process-wide timeouts stay one sync's:
``httpremote._time_limit`` sets ``SET_SERVER_CONNECT_TIMEOUT``/``SET_SERVER_TIMEOUT`` for
the whole process before an in-process look (a sync's deadline: PRODUCT.md, "a sync never
hangs past its deadline"). Tools run in worker threads, and two ``vcontext_sync`` calls
may arrive together; every in-process look is inside a sync (``remote.view``: the
integration, its lease, ``--checkout``'s fetch), and every sync runs holding the server's
one ``GitSide`` lock, so one sync's deadline never reaches another's look. Shown here with
two calls made at once: both are running in the server before the first sync ends, and
the syncs do not overlap. SDK client, server in process."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from git_vcontext.errors import OperationalError
from git_vcontext.mcp_server.tools import sync as sync_tool
from helpers.mcp_support import in_process, run, text
from helpers.team import setup


def test_two_vcontext_sync_calls_at_once_run_one_after_the_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    team = setup(tmp_path, ["bo"])
    entered: list[float] = []  # each call reaching the tool (before any lock)
    spans: list[tuple[float, float]] = []  # each sync, start to end
    guard = threading.Lock()
    both_in = threading.Event()
    git_of = sync_tool._git

    def arrives(svc: Any) -> Any:
        with guard:
            entered.append(time.monotonic())
            if len(entered) == 2:
                both_in.set()
        return git_of(svc)

    def slow_sync(repo: Any, given: Any, **_: Any) -> Any:
        start = time.monotonic()
        # The first sync holds the server's lock until the second call is in the server
        # (a loaded machine may start the second worker thread late: CI at 18f581a).
        both_in.wait(timeout=30)
        time.sleep(0.5)  # (a look at a slow remote)
        with guard:
            spans.append((start, time.monotonic()))
        raise OperationalError("the remote did not answer")

    monkeypatch.setattr(sync_tool, "_git", arrives)
    monkeypatch.setattr(sync_tool, "run_sync", slow_sync)
    answers: list[Any] = []

    async def main() -> None:
        async with in_process(team.agents["bo"]) as client:

            async def call() -> None:
                answers.append(await client.call_tool("vcontext_sync", {}))

            async with anyio.create_task_group() as tg:
                tg.start_soon(call)
                tg.start_soon(call)

    run(main)
    assert [a.is_error for a in answers] == [True, True], [text(a) for a in answers]
    assert all("the remote did not answer" in text(a) for a in answers)
    assert len(entered) == 2
    assert len(spans) == 2
    first, second = sorted(spans)
    assert max(entered) < first[1]  # both calls were in the server while the first ran
    assert second[0] >= first[1]  # and the second sync waited for the first
