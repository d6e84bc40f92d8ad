"""``vcontext_conflicts`` and ``vcontext_resolve`` through the SDK's own client, on a real
stopped merge: the same code as ``git vcontext conflicts`` / ``resolve`` (PRODUCT.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conflict_repos import TODO, installed, status_of, two_conflicts
from conftest import run_git
from mcp_support import in_process, run, text


def test_mcp_lists_the_conflicts_of_a_stopped_merge_and_resolves_them(git_repo: Path) -> None:
    repo = installed(git_repo)
    two_conflicts(repo)
    assert run_git(repo, "merge", "--no-edit", "feat", check=False).returncode == 1

    async def main() -> None:
        async with in_process(repo, agent="alice") as client:
            listed = await client.call_tool("vcontext_conflicts", {})
            assert not listed.is_error, text(listed)
            [f] = listed.structured_content["files"]
            assert f["labels"] == {"ours": "main", "theirs": "feat"}
            status, item = f["conflicts"]
            value = {"id": "t2", "title": "Docs", "status": "inProgress"}
            one: Any = await client.call_tool(
                "vcontext_resolve", {"path": TODO, "conflict": item["id"], "value": value}
            )
            assert not one.is_error and "1 left" in text(one)
            bad = await client.call_tool(
                "vcontext_resolve", {"path": TODO, "conflict": "nope", "take": "ours"}
            )
            assert bad.is_error and status["id"] in text(bad) and "\n" not in text(bad)
            last = await client.call_tool(
                "vcontext_resolve", {"path": TODO, "conflict": status["pointer"], "take": "theirs"}
            )
            assert not last.is_error and last.structured_content["staged"] is True

    run(main)
    items = json.loads((repo / TODO).read_text())["todoList"]["items"]
    assert items[0]["status"] == "completed" and items[1]["status"] == "inProgress"
    assert status_of(repo) == "M "
