"""One status change is one changed row, through clients nobody here wrote.

PRODUCT.md, "The write path, as an agent and a reviewer see it", last point: the MCP
Inspector's CLI (``npx @modelcontextprotocol/inspector --cli``) and the official SDK's
client (over stdio, the server a separate process) each set one status in real files
of ``../shared/corpus`` — class-style TRON, a hand-laid-out JSON plan, the same plan
minified, PowerShell's BOM file and a CRLF checkout — and ``git diff --no-textconv``
shows the item's row as the only changed row (besides the container's bookkeeping).
The Inspector's ``--strict`` schema lint finds nothing. Skipped with a reason without
node or the npm registry.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers.inspector import run_inspector
from helpers.mcp_support import run, stdio_params, text
from helpers.run import cli_path
from helpers.write_path import (
    AGENT,
    BOM_JSON,
    COMPACT_JSON,
    EPOCH,
    MINIMAL_TRON,
    Diff,
    assert_one_row_changed,
    assert_only_the_item_changed,
    commit_all,
    raw_diff,
)

pytestmark = pytest.mark.corpus


@dataclass(frozen=True)
class Case:
    """A corpus file as a work tree holds it, the call that sets one status, and how to
    judge the diff."""

    name: str
    source: str
    rel: str
    shape: Callable[[str], bytes]  # the corpus text -> the file's bytes
    tool: str
    arguments: dict[str, str]
    judge: Callable[[str, str, Diff], None]  # before, after (LF text), diff


def _as_is(text: str) -> bytes:
    return text.encode("utf-8")


def _minified(text: str) -> bytes:
    return json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False).encode()


def _crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode()


def _bom(text: str) -> bytes:
    return b"\xef\xbb\xbf" + text.encode()


def _compact_titles(before: str) -> list[str]:
    return [i["title"] for i in json.loads(before)["plan"]["items"]]


def _judge_minimal(before: str, after: str, diff: Diff) -> None:
    markers = ["Implement authentication", "Write API documentation"]
    assert_one_row_changed(before, after, diff, markers, "Write API documentation")
    assert "todoList: TodoList([" in after
    assert diff.size <= 14, after


def _judge_compact(before: str, after: str, diff: Diff) -> None:
    titles = _compact_titles(before)
    assert_one_row_changed(before, after, diff, titles, titles[2])
    assert diff.size <= 10, after


def _judge_minified(before: str, after: str, diff: Diff) -> None:
    assert len(diff.removed) == 1
    assert len(diff.added) == 1
    assert "\n" not in after.rstrip("\n")
    assert json.loads(after)["plan"]["items"][2]["status"] == "blocked"


def _judge_bom(before: str, after: str, diff: Diff) -> None:
    ids = ['"id":  "t1"', '"id":  "t2"', '"id":  "t3"']
    assert_only_the_item_changed(before, diff, ids, '"id":  "t2"', most=1)


CASES = [
    Case(
        "class-style-tron",
        MINIMAL_TRON,
        "todo.vcontext.tron",
        _as_is,
        "vbrief_update_todo",
        {"id": "/todoList/items/1", "status": "inProgress"},
        _judge_minimal,
    ),
    Case(
        "compact-json",
        COMPACT_JSON,
        "plan.vbrief.json",
        _as_is,
        "vbrief_update_plan_item",
        {"planId": "plan", "itemId": "411-3", "status": "blocked"},
        _judge_compact,
    ),
    Case(
        "minified-json",
        COMPACT_JSON,
        "plan.vbrief.json",
        _minified,
        "vbrief_update_plan_item",
        {"planId": "plan", "itemId": "411-3", "status": "blocked"},
        _judge_minified,
    ),
    Case(
        "crlf-json",
        COMPACT_JSON,
        "plan.vbrief.json",
        _crlf,
        "vbrief_update_plan_item",
        {"planId": "plan", "itemId": "411-3", "status": "blocked"},
        _judge_compact,
    ),
    Case(
        "bom-json",
        BOM_JSON,
        "plan.vbrief.json",
        _as_is,
        "vbrief_update_plan_item",
        {"planId": "plan", "itemId": "t2", "status": "blocked"},
        _judge_bom,
    ),
]


def _prepare(git_repo: Path, shared_dir: Path, case: Case) -> str:
    raw = (shared_dir / "corpus" / case.source).read_bytes()
    source = raw.decode("utf-8-sig")
    path = git_repo / case.rel
    path.write_bytes(_bom(source) if raw.startswith(b"\xef\xbb\xbf") else case.shape(source))
    (git_repo / ".gitattributes").write_text("* -text\n")  # the bytes as they are
    commit_all(git_repo)
    return source


def _judge(git_repo: Path, case: Case, before: str) -> None:
    raw = (git_repo / case.rel).read_bytes()
    if case.shape is _crlf:
        assert raw.count(b"\n") == raw.count(b"\r\n"), "a line lost its CRLF"
    after = raw.decode("utf-8-sig").replace("\r\n", "\n")
    diff = raw_diff(git_repo, case.rel)
    lf = Diff(
        [(n, s.rstrip("\r")) for n, s in diff.removed],
        [(n, s.rstrip("\r")) for n, s in diff.added],
    )
    case.judge(before, after, lf)


def _inspector(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_inspector(
        *cli_path(), "mcp", "--agent", AGENT, *args, cwd=cwd, env={"SOURCE_DATE_EPOCH": EPOCH}
    )


def _plan_id(case: Case, git_repo: Path) -> dict[str, str]:
    """The call's arguments with the plan's real id (the document's own ``plan.id``, else
    its file name)."""
    args = dict(case.arguments)
    if "planId" in args:
        raw = (git_repo / case.rel).read_bytes().decode("utf-8-sig")
        args["planId"] = json.loads(raw)["plan"].get("id") or "plan"
    return args


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_write_path_inspector_one_status_change_is_one_row(
    git_repo: Path, shared_dir: Path, case: Case
) -> None:
    before = _prepare(git_repo, shared_dir, case)
    args = _plan_id(case, git_repo)
    pairs = [f"{k}={v}" for k, v in args.items()]
    done = _inspector(
        git_repo, "--method", "tools/call", "--tool-name", case.tool, "--tool-arg", *pairs
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    assert result.get("isError") in (None, False), result
    _judge(git_repo, case, before)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_write_path_sdk_stdio_one_status_change_is_one_row(
    git_repo: Path, shared_dir: Path, case: Case
) -> None:
    from mcp import Client
    from mcp.client.stdio import stdio_client

    before = _prepare(git_repo, shared_dir, case)
    args = _plan_id(case, git_repo)

    async def main() -> None:
        params = stdio_params(git_repo, "--agent", AGENT, env={"SOURCE_DATE_EPOCH": EPOCH})
        async with Client(stdio_client(params)) as client:
            result = await client.call_tool(case.tool, args)
            assert not result.is_error, text(result)

    run(main)
    _judge(git_repo, case, before)


def test_write_path_inspector_strict_schema_lint_finds_nothing(git_repo: Path) -> None:
    """``--strict``: every tool's input schema is portable (no untyped ``value``)."""
    done = _inspector(git_repo, "--method", "tools/list", "--strict")
    assert done.returncode == 0, done.stderr
    assert "Schema portability" not in done.stderr, done.stderr
    assert "Warning: tool" not in done.stderr, done.stderr
    names = {t["name"] for t in json.loads(done.stdout)["tools"]}
    assert {"vbrief_create_fork", "vbrief_merge_fork"} <= names
