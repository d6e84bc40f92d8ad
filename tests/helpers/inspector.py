"""The MCP Inspector's CLI (npm ``@modelcontextprotocol/inspector``), as CI installs it.

``.ci/run`` installs it next to the TRON and mermaid tools and exports
``MCP_INSPECTOR_DIR``; elsewhere ``npx -y`` fetches it (cached in the npm cache). A test
that needs it is skipped with the reason when node is missing or the registry cannot be
reached.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

PACKAGE = "@modelcontextprotocol/inspector@2"
NPM_CACHE = os.environ.get("NPM_CONFIG_CACHE") or os.path.expanduser("~/.npm")  # before HOME moves


def inspector_command() -> list[str]:
    """How to start the Inspector (skips the test when there is no way)."""
    folder = os.environ.get("MCP_INSPECTOR_DIR")
    if folder:
        script = Path(folder) / "node_modules" / ".bin" / "mcp-inspector"
        if script.exists():
            return [str(script)]
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("npx (Node.js) is not installed: the MCP Inspector cannot run")
    return [npx, "-y", PACKAGE]


def run_inspector(
    *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``inspector --cli ARGS`` (skipped when npx cannot fetch it in time)."""
    command = [*inspector_command(), "--cli", *args]
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
            env={
                **os.environ,
                **(env or {}),
                "npm_config_cache": NPM_CACHE,
                "npm_config_update_notifier": "false",
            },
        )
    except subprocess.TimeoutExpired:
        pytest.skip("the MCP Inspector did not start within 300 s (npm registry too slow?)")
    if done.returncode != 0 and "npm" in done.stderr and "ERR!" in done.stderr:
        pytest.skip(f"npx could not fetch the MCP Inspector: {done.stderr.strip()[-200:]}")
    return done
