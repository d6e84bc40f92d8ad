"""The MCP Inspector (the protocol's reference tool, npm) lists and calls our tools (CLI mode).

Skipped with a reason when ``npx`` is missing or the npm registry cannot be reached.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import cli_path
from mcp_support import documents_repo

INSPECTOR = "@modelcontextprotocol/inspector@2"
NPM_CACHE = os.environ.get("NPM_CONFIG_CACHE") or os.path.expanduser("~/.npm")  # before HOME moves


def _inspector(repo: Path, *args: str) -> dict[str, object]:
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("npx (Node.js) is not installed")
    command = [npx, "-y", INSPECTOR, "--cli", *cli_path(), "mcp", *args]
    try:
        done = subprocess.run(
            command,
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=300,
            env={
                **os.environ,
                "npm_config_cache": NPM_CACHE,
                "npm_config_update_notifier": "false",
            },
        )
    except subprocess.TimeoutExpired:
        pytest.skip("the MCP Inspector did not start within 300 s (npm registry too slow?)")
    if done.returncode != 0 and ("npm" in done.stderr and "ERR" in done.stderr):
        pytest.skip(f"npx could not fetch the MCP Inspector: {done.stderr.strip()[-200:]}")
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
