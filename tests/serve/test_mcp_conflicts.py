"""``vcontext_conflicts`` and ``vcontext_resolve`` through the SDK's own client, on a real
stopped merge: the same code as ``git vcontext conflicts`` / ``resolve`` (PRODUCT.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.conflict_repos import TODO, diverge, installed, pretty, status_of, todo, two_conflicts
from helpers.mcp_support import in_process, run, text
from helpers.run import run_git


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
            assert not one.is_error
            assert "1 left" in text(one)
            bad = await client.call_tool(
                "vcontext_resolve", {"path": TODO, "conflict": "nope", "take": "ours"}
            )
            assert bad.is_error
            assert status["id"] in text(bad)
            assert "\n" not in text(bad)
            last = await client.call_tool(
                "vcontext_resolve", {"path": TODO, "conflict": status["pointer"], "take": "theirs"}
            )
            assert not last.is_error
            assert last.structured_content["staged"] is True

    run(main)
    items = json.loads((repo / TODO).read_text())["todoList"]["items"]
    assert items[0]["status"] == "completed"
    assert items[1]["status"] == "inProgress"
    assert status_of(repo) == "M "


def test_mcp_resolve_writes_only_the_kinds_allow_names(git_repo: Path) -> None:
    """PRODUCT.md MCP: `--allow todos,plans,playbook` limits which kinds may be written;
    vcontext_resolve writes (and stages) the document, so a server allowed plans only
    must not resolve a todo list."""
    repo = installed(git_repo)
    two_conflicts(repo)
    assert run_git(repo, "merge", "--no-edit", "feat", check=False).returncode == 1
    before = (repo / TODO).read_bytes()

    async def main() -> None:
        async with in_process(repo, allow=frozenset({"plan"})) as client:
            refused = await client.call_tool("vcontext_resolve", {"path": TODO, "take": "ours"})
            assert refused.is_error, text(refused)
            assert "not allowed" in text(refused), text(refused)
            listed = await client.call_tool("vcontext_conflicts", {})  # reading stays open
            assert not listed.is_error

    run(main)
    assert (repo / TODO).read_bytes() == before
    assert status_of(repo) == "UU"


def test_mcp_resolve_never_stages_a_result_validate_rejects(git_repo: Path) -> None:
    """PRODUCT.md M19 One truth (no resolve produces a commit the hook refuses) and "MCP
    server" (every step an answer names is a tool call or a person's, marked): ours'
    delete of t2 taken while theirs made t1 depend on it is written but not staged, so no
    merge commit follows; the answer names the finding, the other side's tool call and the
    person's step; taking theirs then stages it."""
    repo = installed(git_repo)
    diverge(repo, pretty(todo()), pretty(todo(t2=None)), pretty(todo(t1={"dependencies": ["t2"]})))
    assert run_git(repo, "merge", "--no-edit", "feat", check=False).returncode == 1

    async def main() -> tuple[Any, Any]:
        async with in_process(repo, agent="alice") as client:
            ours = await client.call_tool("vcontext_resolve", {"path": TODO, "take": "ours"})
            unmerged = run_git(repo, "diff", "--name-only", "--diff-filter=U").stdout.split()
            assert unmerged == [TODO]
            theirs = await client.call_tool("vcontext_resolve", {"path": TODO, "take": "theirs"})
            return ours, theirs

    ours, theirs = run(main)
    said = text(ours)
    assert not ours.is_error, said
    assert ours.structured_content["staged"] is False
    assert "[dependency-missing]" in said, said
    assert "take the other side (vcontext_resolve)" in said, said
    assert f"A PERSON MUST DO THIS (no MCP tool can): mend {TODO} and stage it" in said, said
    assert theirs.structured_content["staged"] is True, text(theirs)
    assert status_of(repo) == "M "
