"""What the tools and prompts say matches what the server does (issue 37, the small points).

PRODUCT.md, "The write path": new documents take ``VCONTEXT_FORMAT`` (json|tron) or git
config ``vcontext.format``; "Where agents' platforms run it": prompts tell the truth.
Driven by the SDK's own client over stdio.
"""

from __future__ import annotations

from pathlib import Path

from helpers.mcp_platform import new_repo, stdio
from helpers.mcp_support import run


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
