"""What the tools and prompts say matches what the server does (issue 37, the small points).

PRODUCT.md, "The write path": new documents take ``VCONTEXT_FORMAT`` (json|tron) or git
config ``vcontext.format``; "Where agents' platforms run it": prompts tell the truth.
Driven by the SDK's own client over stdio.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from git_vcontext.codecs import parse
from helpers.mcp_platform import new_repo, stdio
from helpers.mcp_support import prompt_text, run, text
from helpers.run import run_cli


def test_new_documents_tool_descriptions_do_not_promise_json_under_tron(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    found: dict[str, str] = {}

    async def session() -> None:
        async with stdio(repo, env={"VCONTEXT_FORMAT": "tron"}) as client:
            tools = await client.list_tools()
            found.update({t.name: t.description or "" for t in tools.tools})
            made = await client.call_tool("vbrief_create_todo", {"title": "First"})
            assert not made.is_error
            plan = await client.call_tool(
                "vbrief_create_plan", {"title": "Ship", "narratives": {"proposal": "P."}}
            )
            assert not plan.is_error

    run(session)
    for name in ("vbrief_create_todo", "vbrief_create_plan"):
        assert ".json" not in found[name], found[name]
        assert "VCONTEXT_FORMAT" in found[name]
        assert "tron" in found[name]
    assert (repo / ".vcontext" / "todo.tron").is_file()
    assert list((repo / ".vcontext").glob("plan-*.tron"))


def _prompts(repo: Path, *args: str) -> dict[str, str]:
    said: dict[str, str] = {}

    async def session() -> None:
        async with stdio(repo, *args) as client:
            said["gotchas"] = prompt_text(
                await client.get_prompt("vbrief_add_learning", {"category": "gotchas"})
            )
            said["testing"] = prompt_text(
                await client.get_prompt("vbrief_add_learning", {"category": "testing"})
            )
            said["review"] = prompt_text(await client.get_prompt("vbrief_plan_review", {}))
            said["start"] = prompt_text(await client.get_prompt("vbrief_session_start", {}))

    run(session)
    return said


def test_add_learning_prompt_offers_category_and_content_as_the_tool_takes_them(
    tmp_path: Path,
) -> None:
    repo = new_repo(tmp_path / "repo")
    said = _prompts(repo)
    assert "vbrief_add_learning with category 'gotchas', content (" in said["gotchas"]
    assert "kind '" not in said["gotchas"]
    # a category seed 003 does not name: the entry kind it becomes, and content too
    assert "vbrief_add_learning with kind 'learning', content (" in said["testing"]


def test_plan_prompts_name_the_plan_tools_the_server_offers(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    said = _prompts(repo)
    for tool in (
        "vbrief_update_plan_item",
        "vbrief_add_plan_item",
        "vbrief_delete_plan_item",
        "vbrief_update_plan",
    ):
        assert tool in said["review"], said["review"]
    assert "parentId" in said["review"]
    assert "vbrief_add_plan_item" in said["start"]
    limited = _prompts(repo, "--allow", "todos")  # no plan writes: none named
    assert "vbrief_delete_plan_item" not in limited["review"]
    assert "vbrief_add_plan_item" not in limited["start"]


def test_delete_plan_refuses_current_and_names_the_real_id(tmp_path: Path) -> None:
    """Deleting a whole document names it: "current" moves under an agent's feet."""
    repo = new_repo(tmp_path / "repo")
    answers: dict[str, Any] = {}

    async def session() -> None:
        async with stdio(repo) as client:
            made = await client.call_tool(
                "vbrief_create_plan", {"title": "Ship it", "narratives": {"proposal": "P."}}
            )
            assert not made.is_error
            answers["current"] = await client.call_tool("vbrief_delete_plan", {"id": "current"})
            answers["files"] = sorted(p.name for p in (repo / ".vcontext").iterdir())
            answers["real"] = await client.call_tool("vbrief_delete_plan", {"id": "plan-ship-it"})

    run(session)
    refused = answers["current"]
    assert refused.is_error
    said = text(refused)
    assert "\n" not in said.strip()
    assert "'plan-ship-it'" in said
    assert ".vcontext/plan-ship-it.json" in said
    assert answers["files"] == ["plan-ship-it.json"]  # nothing deleted
    assert not answers["real"].is_error, text(answers["real"])
    assert not (repo / ".vcontext" / "plan-ship-it.json").exists()


@pytest.mark.parametrize("fmt", ["json", "tron"])
def test_plan_item_narrative_block_removed_with_null(tmp_path: Path, fmt: str) -> None:
    """PRODUCT.md: every write the CLI can make has a tool (narratives); a block given as
    null goes, the others stay; the last one gone takes the narrative with it."""
    repo = new_repo(tmp_path / "repo")
    got: dict[str, Any] = {}

    async def session() -> None:
        async with stdio(repo, env={"VCONTEXT_FORMAT": fmt}) as client:
            plan = await client.call_tool(
                "vbrief_create_plan", {"title": "Ship", "narratives": {"proposal": "P."}}
            )
            assert not plan.is_error, text(plan)
            item = {"id": "i1", "title": "Do", "narrative": {"Approach": "a", "Risks": "r"}}
            added = await client.call_tool(
                "vbrief_add_plan_item", {"planId": "current", "item": item}
            )
            assert not added.is_error, text(added)
            call = {"planId": "current", "itemId": "i1"}
            got["one"] = await client.call_tool(
                "vbrief_update_plan_item", {**call, "narrative": {"Risks": None}}
            )
            got["after_one"] = _item(repo, fmt)
            got["last"] = await client.call_tool(
                "vbrief_update_plan_item", {**call, "narrative": {"Approach": None}}
            )
            got["after_last"] = _item(repo, fmt)
            got["bad"] = await client.call_tool(
                "vbrief_update_plan_item", {**call, "narrative": {"Approach": 5}}
            )
            got["valid"] = await client.call_tool("vcontext_validate", {})

    run(session)
    assert not got["one"].is_error, text(got["one"])
    assert got["after_one"]["narrative"] == {"Approach": "a"}
    assert not got["last"].is_error, text(got["last"])
    assert "narrative" not in got["after_last"]
    assert got["bad"].is_error
    assert "a string or null" in text(got["bad"])
    assert not got["valid"].is_error, text(got["valid"])
    for path in (repo / ".vcontext").glob("plan-*"):
        checked = run_cli("validate", str(path.relative_to(repo)), cwd=repo)
        assert checked.returncode == 0, checked.stdout + checked.stderr


def _item(repo: Path, fmt: str) -> Any:
    (path,) = (repo / ".vcontext").glob(f"plan-*.{fmt}")
    data = parse(path.read_bytes(), path=str(path)).data
    return data["plan"]["items"][0]
