"""The MCP Inspector (the protocol's reference tool, npm) lists and calls our tools (CLI mode).

Skipped with a reason when node is missing or the npm registry cannot be reached (CI
installs the Inspector: ``MCP_INSPECTOR_DIR``).
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers.inspector import run_inspector
from helpers.mcp_support import documents_repo
from helpers.run import cli_path


def _inspector(repo: Path, *args: str) -> dict[str, object]:
    done = run_inspector(*cli_path(), "mcp", *args, cwd=repo)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_mcp_inspector_cli_lists_and_calls_the_tools(git_repo: Path) -> None:
    repo = documents_repo(git_repo)
    listed = _inspector(repo, "--method", "tools/list")
    names = {t["name"] for t in listed["tools"]}  # type: ignore[attr-defined]
    assert {"vbrief_create_todo", "vbrief_query_playbook", "vcontext_sync"} <= names
    called = _inspector(
        repo,
        "--method",
        "tools/call",
        "--tool-name",
        "vbrief_query_playbook",
        "--tool-arg",
        "kind=rule",
    )
    assert called.get("isError") in (None, False), called
    entries = called["structuredContent"]["entries"]  # type: ignore[index]
    assert [e["targetId"] for e in entries] == ["tests-in-tmp"]
