"""Documents to serve, and ways to reach ``git vcontext mcp`` with the SDK's own client."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio

import git_vcontext as gv
from helpers.run import cli_path, run_git

TODO = {
    "vContextInfo": {"version": "0.4"},
    "todoList": {
        "id": "main",
        "uid": "u-todo",
        "sequence": 3,
        "items": [
            {"id": "t1", "title": "Write the parser", "status": "completed"},
            {"id": "t2", "title": "Test the parser", "status": "inProgress"},
            {"id": "t3", "title": "Document it", "status": "pending", "dependencies": ["t2"]},
        ],
    },
}
PLAN = {
    "vContextInfo": {"version": "0.4"},
    "plan": {
        "id": "release",
        "uid": "u-plan",
        "title": "Release 1.0",
        "status": "inProgress",
        "sequence": 7,
        "narratives": {"Proposal": "Ship the parser first."},
        "items": [
            {"id": "p1", "title": "Parser", "status": "completed"},
            {"id": "p2", "title": "Docs", "status": "pending"},
        ],
    },
}
PLAYBOOK = {
    "vContextInfo": {"version": "0.4"},
    "playbook": {
        "version": 2,
        "created": "2025-01-01T00:00:00Z",
        "updated": "2025-01-02T00:00:00Z",
        "items": [
            {
                "eventId": "e1",
                "targetId": "tests-in-tmp",
                "operation": "append",
                "kind": "rule",
                "title": "Tests run git in temporary repos",
                "narrative": {"Overview": "Never touch the developer's own repository."},
                "tags": ["testing", "git"],
                "createdAt": "2025-01-01T00:00:00Z",
            },
            {
                "eventId": "e2",
                "targetId": "atomic-writes",
                "operation": "append",
                "kind": "learning",
                "narrative": {"Overview": "Write files atomically (rename over the old one)."},
                "tags": ["io"],
                "createdAt": "2025-01-02T00:00:00Z",
            },
        ],
    },
}
FILES = {
    "todo.vcontext.json": TODO,
    "plans/release.vcontext.tron": PLAN,
    "playbook.vcontext.json": PLAYBOOK,
}


def write_documents(root: Path, files: dict[str, Any] | None = None) -> None:
    """The documents, JSON or TRON after their names."""
    for name, data in (files or FILES).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith(".tron"):
            path.write_text(gv.dumps(data, "tron"))
        else:
            path.write_text(json.dumps(data, indent=2) + "\n")


def documents_repo(repo: Path) -> Path:
    """``git_repo`` with the documents committed on main."""
    write_documents(repo)
    run_git(repo, "add", ".")
    run_git(repo, "commit", "-q", "-m", "documents")
    return repo


def read_json(path: Path) -> Any:
    return json.loads(path.read_text())


def read_any(path: Path) -> Any:
    return gv.load(str(path)).data


def stdio_params(root: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    """How the SDK's client starts ``git-vcontext mcp`` (the installed console script)."""
    from mcp import StdioServerParameters

    command, *prefix = cli_path()
    return StdioServerParameters(
        command=command,
        args=[*prefix, "mcp", *args],
        cwd=str(root),
        env={**os.environ, **(env or {})},
    )


@asynccontextmanager
async def in_process(root: Path, *, mode: str = "auto", **options: Any) -> AsyncIterator[Any]:
    """The SDK's client connected to a server running in this process (fast; same code)."""
    from mcp import Client

    from git_vcontext.mcp_server import startup as setup
    from git_vcontext.mcp_server.app import VContextServer
    from git_vcontext.mcp_server.service import Options

    where, repo = setup.find_root(str(root))
    svc = setup.service(Options(root=where, **options), repo)
    async with Client(VContextServer(svc), mode=mode) as client:
        yield client


def run(main: Callable[[], Awaitable[Any]]) -> Any:
    """Run an async test body."""
    return anyio.run(main)


def prompt_text(result: Any) -> str:
    """The text of a prompt's first message."""
    return str(result.messages[0].content.text)


def text(result: Any) -> str:
    """The text of a tool result (or of a resource's first content)."""
    if hasattr(result, "contents"):
        return str(result.contents[0].text)
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")
