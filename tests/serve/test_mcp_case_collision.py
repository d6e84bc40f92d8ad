"""The MCP server's ``vcontext_validate`` gives the ``case-collision`` note ``git vcontext
validate`` gives for the same files (PRODUCT.md M19, one truth: every part judges alike).

Two tracked paths differing only in case are one file on a case-insensitive file system
(macOS, Windows): validate notes it on both; the MCP tool said nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.mcp_support import TODO, in_process, run
from helpers.run import run_cli, run_git


def _notes(files: list[dict[str, Any]]) -> dict[str, list[Any]]:
    return {
        str(f["path"]): [n for n in f.get("notes", []) if n["rule"] == "case-collision"]
        for f in files
    }


def test_m19_mcp_validate_gives_validates_case_collision_note(git_repo: Path) -> None:
    for name, title in (("todo.vcontext.json", "lower"), ("TODO.vcontext.json", "upper")):
        doc = json.loads(json.dumps(TODO))
        doc["todoList"]["title"] = title
        (git_repo / name).write_text(json.dumps(doc, indent=2) + "\n")
    run_git(git_repo, "add", ".")
    run_git(git_repo, "commit", "-q", "-m", "twins")

    cli = run_cli("validate", "--format", "json", cwd=git_repo)
    assert cli.returncode == 0, cli.stderr
    want = _notes(json.loads(cli.stdout)["files"])
    assert len(want) == 2, want
    assert all(want.values()), want

    async def main() -> dict[str, list[Any]]:
        async with in_process(git_repo) as client:
            result = await client.call_tool("vcontext_validate", {})
            assert not result.is_error
            return _notes(result.structured_content["files"])

    assert run(main) == want
