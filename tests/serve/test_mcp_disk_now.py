"""Every MCP call sees the served files as they are on disk now, not as the watcher last
looked (PRODUCT.md, "MCP server": a document changed on disk "by anyone — a checkout, a
merge, another agent"; and the rule "One truth": what another part wrote is what the
server works on). The SDK's own client, the server in this process with its watcher
slowed to one look an hour, so only the call's own look can see the change."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from helpers.mcp_support import in_process, run, text
from helpers.run import run_git


def _plan(plan_id: str, title: str | None = None) -> str:
    plan = {"id": plan_id, "title": title or plan_id.title(), "status": "inProgress",
            "items": [{"id": "i1", "title": "one", "status": "pending"}]}  # fmt: skip
    return json.dumps({"vBRIEFInfo": {"version": "0.5"}, "plan": plan}, indent=2) + "\n"


@pytest.fixture
def slow_watcher(monkeypatch: pytest.MonkeyPatch) -> None:
    from git_vcontext.mcp_server import app, notify

    async def hourly(svc: Any, notifier: Any) -> None:
        await notify.watch(svc, notifier, interval=3600)

    monkeypatch.setattr(app, "watch", hourly)


@asynccontextmanager
async def _served(repo: Path) -> AsyncIterator[Any]:
    async with in_process(repo, commit=True) as client:
        yield client


def _uris(listed: Any) -> list[str]:
    return sorted(str(r.uri) for r in listed.resources if "plans/" in str(r.uri))


def _replace(path: Path, content: str) -> None:
    """Another writer's save: a temporary renamed over the file (git, an editor, the CLI)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(content)
    os.replace(tmp, path)


def test_a_plan_replaced_and_committed_by_another_writer_is_served_on_the_next_call(
    git_repo: Path, slow_watcher: None
) -> None:
    plan = git_repo / ".vcontext" / "plan.json"
    plan.parent.mkdir()
    plan.write_text(_plan("alpha"))
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-q", "-m", "alpha")

    async def main() -> None:
        async with _served(git_repo) as client:
            assert _uris(await client.list_resources()) == [
                "vbrief://plans/alpha",
                "vbrief://plans/current",
            ]
            _replace(plan, _plan("beta"))
            run_git(git_repo, "commit", "-q", "-am", "beta")
            assert _uris(await client.list_resources()) == [
                "vbrief://plans/beta",
                "vbrief://plans/current",
            ]
            listing = json.loads(text(await client.read_resource("vbrief://plans")))
            assert listing["current"] == "beta"
            assert [p["id"] for p in listing["plans"]] == ["beta"]
            named = await client.call_tool(
                "vbrief_update_plan_item", {"planId": "beta", "itemId": "i1", "status": "completed"}
            )
            assert not named.is_error, text(named)
            assert "of plan beta" in text(named)
            current = await client.call_tool(
                "vbrief_update_plan_item",
                {"planId": "current", "itemId": "i1", "status": "blocked"},
            )
            assert not current.is_error, text(current)
            assert "of plan beta" in text(current)
            gone = await client.call_tool(
                "vbrief_update_plan_item", {"planId": "alpha", "itemId": "i1", "status": "pending"}
            )
            assert gone.is_error
            assert "known ids are beta" in text(gone)

    run(main)
    data = json.loads(plan.read_text())
    assert data["plan"]["id"] == "beta"
    assert data["plan"]["items"][0]["status"] == "blocked"
    assert data["plan"]["sequence"] == 2


def test_an_in_place_rewrite_of_the_same_size_that_keeps_the_mtime_is_seen(
    git_repo: Path, slow_watcher: None
) -> None:
    """``cp -p`` (or any tool that keeps times) over the file: the same inode, the same size,
    the same mtime; only its ctime tells, as in git's index."""
    plan = git_repo / ".vcontext" / "plan.json"
    plan.parent.mkdir()
    plan.write_text(_plan("alpha", "Aaaa"))
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-q", "-m", "alpha")
    before = os.stat(plan)

    async def main() -> None:
        async with _served(git_repo) as client:
            first = json.loads(text(await client.read_resource("vbrief://plans/current")))
            assert first["plan"]["title"] == "Aaaa"
            with open(plan, "r+", encoding="utf-8") as fh:  # in place: the same inode
                fh.write(_plan("alpha", "Bbbb"))
            os.utime(plan, ns=(before.st_atime_ns, before.st_mtime_ns))
            now = os.stat(plan)
            assert (now.st_ino, now.st_size, now.st_mtime_ns) == (
                before.st_ino,
                before.st_size,
                before.st_mtime_ns,
            )
            again = json.loads(text(await client.read_resource("vbrief://plans/current")))
            assert again["plan"]["title"] == "Bbbb"
            listed = [r.name for r in (await client.list_resources()).resources]
            assert "Bbbb" in listed
            assert "Aaaa" not in listed

    run(main)


def test_a_plan_made_in_the_tick_of_its_folders_listing_is_served(
    git_repo: Path, slow_watcher: None
) -> None:
    """A file made in a folder within the timestamps' tick of the server's listing leaves
    the folder's mtime as it was (simulated: the mtime set back): the listing was racy, so
    the folder is listed again, as git does with racily clean entries."""
    memory = git_repo / ".vcontext"
    memory.mkdir()
    (memory / "plan.json").write_text(_plan("alpha"))
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-q", "-m", "alpha")

    async def main() -> None:
        async with _served(git_repo) as client:
            (memory / "notes.txt").write_text("x\n")  # the folder changes: listed again now
            assert _uris(await client.list_resources()) == [
                "vbrief://plans/alpha",
                "vbrief://plans/current",
            ]
            listed = os.stat(memory)
            (memory / "plan-gamma.json").write_text(_plan("gamma"))
            os.utime(memory, ns=(listed.st_atime_ns, listed.st_mtime_ns))
            assert _uris(await client.list_resources()) == [
                "vbrief://plans/alpha",
                "vbrief://plans/current",
                "vbrief://plans/gamma",
            ]

    run(main)


def test_a_gitattributes_line_a_person_adds_or_changes_is_seen_on_the_next_call(
    git_repo: Path, slow_watcher: None
) -> None:
    """PRODUCT.md, "MCP server": the documents are the files the install patterns and
    ``.gitattributes`` route to the driver, and every call sees the disk as it is now. A
    person routes ``notes/*.json`` while the server runs: the next call serves the plan
    there (before, the attributes were read once for the server's life); then rewrites the
    line in place, the same size and mtime (another driver): the plan is no longer served."""
    notes = git_repo / "notes"
    notes.mkdir()
    (notes / "plan.json").write_text(_plan("alpha"))
    attributes = git_repo / ".gitattributes"
    attributes.write_text("*.txt text\n")
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-q", "-m", "alpha, not routed")

    async def main() -> None:
        async with _served(git_repo) as client:
            assert _uris(await client.list_resources()) == []
            with open(attributes, "a", encoding="utf-8") as fh:  # in place: the same inode
                fh.write("notes/*.json merge=vcontext\n")
            assert _uris(await client.list_resources()) == [
                "vbrief://plans/alpha",
                "vbrief://plans/current",
            ]
            before = os.stat(attributes)
            with open(attributes, "r+", encoding="utf-8") as fh:
                fh.write("*.txt text\nnotes/*.json merge=vcontexz\n")
            os.utime(attributes, ns=(before.st_atime_ns, before.st_mtime_ns))
            assert os.stat(attributes).st_size == before.st_size
            assert _uris(await client.list_resources()) == []

    run(main)


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every folder listing and file read is past its timestamps' tick at once (as seconds
    after it): only a changed stat makes the server look again."""
    from git_vcontext.mcp_server import files

    monkeypatch.setattr(files, "RACY_NS", 0)


def test_a_gitattributes_line_added_after_the_tick_is_seen_on_the_next_call(
    git_repo: Path, slow_watcher: None, settled: None
) -> None:
    """PRODUCT.md, "MCP server": the documents are what ``.gitattributes`` routes, and every
    call sees the disk now. The line is added seconds after the folder holding the file was
    listed: its mtime is the same, so only the attributes' change can say to list it again
    (before, the folder was looked at only when its own mtime moved or within its tick)."""
    notes = git_repo / "notes"
    notes.mkdir()
    (notes / "plan.json").write_text(_plan("alpha"))
    attributes = git_repo / ".gitattributes"
    attributes.write_text("*.txt text\n")

    async def main() -> None:
        async with _served(git_repo) as client:
            assert _uris(await client.list_resources()) == []
            with open(attributes, "a", encoding="utf-8") as fh:
                fh.write("notes/*.json merge=vcontext\n")
            assert _uris(await client.list_resources()) == [
                "vbrief://plans/alpha",
                "vbrief://plans/current",
            ]

    run(main)


def test_a_gitignore_line_a_person_adds_or_changes_is_seen_on_the_next_call(
    git_repo: Path, slow_watcher: None, settled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PRODUCT.md, "Where agents' platforms run it" (one rule: nothing in a folder git
    ignores is served) and "MCP server" (every call sees the disk now). A person ignores
    ``notes/`` seconds after the server listed it: the next call no longer serves the plan
    there (before, a folder was judged once, when listed: its mtime had not moved); then
    rewrites the line in place within the tick, the same size and mtime (``notez/``): the
    plan is served again (libgit2 keeps an ignore file rewritten so, as attributes)."""
    from git_vcontext.mcp_server import files

    notes = git_repo / "notes"
    notes.mkdir()
    (notes / "plan.vcontext.json").write_text(_plan("alpha"))
    ignore = git_repo / ".gitignore"
    ignore.write_text("*.log\n")
    served = ["vbrief://plans/alpha", "vbrief://plans/current"]

    async def main() -> None:
        async with _served(git_repo) as client:
            assert _uris(await client.list_resources()) == served
            with open(ignore, "a", encoding="utf-8") as fh:  # in place: the same inode
                fh.write("notes/\n")
            assert _uris(await client.list_resources()) == []
            monkeypatch.setattr(files, "RACY_NS", 2_000_000_000)  # within the tick again
            before = os.stat(ignore)
            with open(ignore, "r+", encoding="utf-8") as fh:
                fh.write("*.log\nnotez/\n")
            os.utime(ignore, ns=(before.st_atime_ns, before.st_mtime_ns))
            assert os.stat(ignore).st_size == before.st_size
            assert _uris(await client.list_resources()) == served

    run(main)
