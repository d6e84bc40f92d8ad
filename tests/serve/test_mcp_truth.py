"""What the agent is told: prompts and results tell the truth about the documents.

PRODUCT.md, "Where agents' platforms run it": a document that does not parse is named
so, with ``vcontext_conflicts``/``vcontext_resolve``; concurrent heads are shown and
found by search; ``--read-only`` prompts offer no writes; errors use JSON-RPC/MCP codes
(-32602 invalid params, -32002 resource not found), never a traceback; every bad input
gets an answer; prompts are capped ("N more", the resource to read). Issue 37,
findings 5 and 6 (the cap).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers.mcp_platform import (
    RawServer,
    new_repo,
    said,
    stderr_file,
    stdio,
    todo_document,
    tool_error,
    write_json,
)
from helpers.mcp_support import PLAYBOOK, documents_repo, prompt_text, run, text
from helpers.run import REPO_ROOT, run_cli, run_git

WRITE_TOOLS = (
    "vbrief_create_todo",
    "vbrief_update_todo",
    "vbrief_delete_todo",
    "vbrief_create_plan",
    "vbrief_update_plan",
    "vbrief_add_plan_item",
    "vbrief_update_plan_item",
    "vbrief_add_learning",
    "vbrief_delete_plan",
    "vbrief_delete_plan_item",
    "vbrief_deprecate_learning",
    "vbrief_rate_learning",
    "vcontext_resolve",
    "vcontext_sync",
)
CONFLICTED = """{
  "vContextInfo": {"version": "0.4"},
  "todoList": {
    "id": "main",
    "items": [
<<<<<<< HEAD
      {"id": "t1", "title": "Ours", "status": "pending"}
=======
      {"id": "t1", "title": "Theirs", "status": "pending"}
>>>>>>> agents/bob
    ]
  }
}
"""


@pytest.fixture
def repo(git_repo: Path) -> Path:
    return documents_repo(git_repo)


@pytest.mark.parametrize("broken", ["conflict-markers", "half-saved"])
def test_truth_a_list_that_does_not_parse_is_named_so_with_the_tools_that_fix_it(
    broken: str, git_repo: Path
) -> None:
    """Issue 37, finding 5: the session-start prompt said "No todo list yet: add tasks with
    vbrief_create_todo" when the list existed but did not parse; following it was refused,
    and the refusal pointed to the command line instead of the tools."""
    todo = git_repo / ".vcontext" / "todo.json"
    todo.parent.mkdir()
    if broken == "conflict-markers":
        todo.write_text(CONFLICTED)
    else:
        todo.write_text(json.dumps(todo_document(["a", "b"]), indent=2)[:70])

    async def main() -> None:
        async with stdio(git_repo) as client:
            start = prompt_text(await client.get_prompt("vbrief_session_start"))
            assert "No todo list yet" not in start
            assert "vbrief_create_todo" not in start.split("## Current Plan")[0]
            section = start.split("## Current Tasks")[1].split("##")[0]
            assert ".vcontext/todo.json" in section
            assert "does not parse" in section
            assert "vcontext_conflicts" in section
            assert "vcontext_resolve" in section
            refused = await client.call_tool("vbrief_create_todo", {"title": "x"})
            line = tool_error(refused)
            assert "does not parse" in line
            assert "vcontext_conflicts" in line or "vcontext_validate" in line
            assert "git vcontext" not in line
            end = prompt_text(await client.get_prompt("vbrief_session_end", {"summary": "s"}))
            assert "does not parse" in end

    run(main)


def _concurrent_playbook() -> dict[str, Any]:
    events = [
        {
            "eventId": "e1",
            "targetId": "retries",
            "operation": "append",
            "kind": "rule",
            "narrative": {"Overview": "Retry failed calls."},
            "createdAt": "2025-01-01T00:00:00Z",
        },
        {
            "eventId": "e2",
            "targetId": "retries",
            "operation": "update",
            "prevEventId": "e1",
            "narrative": {"Overview": "Retry with exponential backoff."},
            "createdAt": "2025-01-03T00:00:00Z",
        },
        {
            "eventId": "e3",
            "targetId": "retries",
            "operation": "update",
            "prevEventId": "e1",
            "narrative": {"Overview": "Retry behind a circuit breaker."},
            "createdAt": "2025-01-02T00:00:00Z",
        },
    ]
    return {
        "vContextInfo": {"version": "0.4"},
        "playbook": {"version": 3, "items": events},
    }


def test_truth_concurrent_heads_are_shown_with_both_texts_and_found_by_search(
    git_repo: Path,
) -> None:
    """Issue 37, finding 5: concurrent playbook heads were invisible to
    ``vbrief_query_playbook`` and the prompt (``searchText`` on the losing head found
    nothing)."""
    write_json(git_repo / ".vcontext" / "playbook.json", _concurrent_playbook())
    view = run_cli("view", ".vcontext/playbook.json", "--format", "json", cwd=git_repo)
    entry = json.loads(view.stdout)["entries"][0]
    assert entry["heads"] == ["e3", "e2"]  # concurrent, e2 wins (the later one)

    async def main() -> None:
        async with stdio(git_repo) as client:
            found = await client.call_tool("vbrief_query_playbook", {"searchText": "circuit"})
            assert not found.is_error, text(found)
            assert found.structured_content["matched"] == 1
            shown = text(found)
            assert "circuit breaker" in shown
            assert "exponential backoff" in shown
            (hit,) = found.structured_content["entries"]
            heads = {h["eventId"]: h for h in hit["openHeads"]}
            assert set(heads) == {"e2", "e3"}
            assert "circuit breaker" in json.dumps(heads["e3"])
            start = prompt_text(await client.get_prompt("vbrief_session_start"))
            learned = start.split("## Recent Learnings")[1]
            assert "circuit breaker" in learned
            assert "exponential backoff" in learned
            assert "concurrent" in learned

            settled = await client.call_tool(
                "vbrief_add_learning",
                {
                    "targetId": "retries",
                    "kind": "rule",
                    "narrative": {"Overview": "Retry with backoff, behind a circuit breaker."},
                },
            )
            assert not settled.is_error, text(settled)
            start = prompt_text(await client.get_prompt("vbrief_session_start"))
            assert "concurrent" not in start.split("## Recent Learnings")[1]

    run(main)


def test_truth_prompt_argument_errors_are_invalid_params_without_a_traceback(
    repo: Path, tmp_path: Path
) -> None:
    """Issue 37, finding 5: ``prompts/get`` with a missing, unknown or extra argument printed
    a Python traceback on stderr (the Inspector shows it) and answered code 0."""
    from mcp import MCPError

    errors = stderr_file(tmp_path)
    cases: list[tuple[str, dict[str, str] | None, str]] = [
        ("vbrief_session_end", None, "summary"),
        ("vbrief_session_end", {"summary": "done", "mood": "good"}, "mood"),
        ("vbrief_session_start", {"x": "1"}, "'x'"),
        ("vbrief_add_learning", {}, "category"),
        ("no_such_prompt", None, "no_such_prompt"),
    ]

    async def main() -> None:
        async with stdio(repo, errlog=errors) as client:
            for name, arguments, word in cases:
                with pytest.raises(MCPError) as caught:
                    await client.get_prompt(name, arguments)
                assert caught.value.error.code == -32602, (name, caught.value.error)
                assert word in caught.value.error.message, caught.value.error.message
            assert prompt_text(await client.get_prompt("vbrief_session_start"))

    run(main)
    assert "Traceback" not in said(errors)
    assert said(errors) == ""


def test_truth_resource_not_found_is_minus_32002(repo: Path, tmp_path: Path) -> None:
    from mcp import MCPError

    errors = stderr_file(tmp_path)

    async def main() -> None:
        async with stdio(repo, errlog=errors) as client:
            for uri in (
                "vbrief://todos/nope",
                "vbrief://plans/nope",
                "vbrief://todos/../../etc/passwd",
                "vbrief://elsewhere",
                "vbrief://playbook/ideas",
            ):
                with pytest.raises(MCPError) as caught:
                    await client.read_resource(uri)
                assert caught.value.error.code == -32002, (uri, caught.value.error)
        async with stdio(new_repo(tmp_path / "empty"), errlog=errors) as client:
            with pytest.raises(MCPError) as caught:
                await client.read_resource("vbrief://todos/current")
            assert caught.value.error.code == -32002
            assert "vbrief_create_todo" in caught.value.error.message

    run(main)
    assert "Traceback" not in said(errors)


@pytest.mark.parametrize("args", [("--read-only",), ("--allow", "playbook")])
def test_truth_prompts_offer_only_the_writes_this_server_allows(
    args: tuple[str, ...], repo: Path
) -> None:
    """Issue 37, finding 5: under ``--read-only`` the prompts still told the agent to call
    write tools."""

    async def main() -> None:
        async with stdio(repo, *args) as client:
            listed = {t.name for t in (await client.list_tools()).tools}
            bodies = [
                prompt_text(await client.get_prompt("vbrief_session_start")),
                prompt_text(await client.get_prompt("vbrief_session_end", {"summary": "s"})),
                prompt_text(await client.get_prompt("vbrief_plan_review")),
                prompt_text(
                    await client.get_prompt("vbrief_add_learning", {"category": "gotchas"})
                ),
            ]
            for body in bodies:
                named = {t for t in WRITE_TOOLS if re.search(rf"\b{t}\b", body)}
                assert named <= listed, (named - listed, body)
            if args == ("--read-only",):
                assert "read-only" in bodies[0]

    run(main)


def test_truth_allow_takes_singular_and_plural_kind_names(repo: Path) -> None:
    """Issue 37, finding 5: ``--allow todo`` was refused though ``playbook`` had to be
    singular."""

    async def main() -> None:
        for allow, writes in (
            ("todo", {"vbrief_create_todo"}),
            ("todos,plan", {"vbrief_create_todo", "vbrief_create_plan", "vbrief_add_plan_item"}),
            ("playbooks", {"vbrief_add_learning"}),
        ):
            async with stdio(repo, "--allow", allow) as client:
                listed = {t.name for t in (await client.list_tools()).tools}
                creating = {
                    t
                    for t in listed
                    if t.startswith(("vbrief_create", "vbrief_add")) and "fork" not in t
                }  # a fork is a branch, not a document --allow governs
                assert creating == writes, (allow, creating)

    run(main)
    done = run_cli("mcp", "--allow", "todoz", cwd=repo, input=b"")
    assert done.returncode == 2
    assert b"todos" in done.stderr


def test_truth_every_bad_line_gets_an_answer(repo: Path) -> None:
    """Issue 37, finding 5: a lone surrogate or a non-JSON line never got a reply (the
    client hung)."""
    server = RawServer(repo)
    try:
        server.initialize()
        server.send(b"this is not json")
        answer = server.answer()
        assert answer is not None, "no answer to a line that is not JSON"
        assert answer["error"]["code"] == -32700
        assert answer["id"] is None
        call = {"name": "vbrief_create_todo", "arguments": {"title": "odd \\ud800"}}
        line = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": call})
        server.send(line.replace("\\\\ud800", "\\ud800").encode())
        answer = server.answer()
        assert answer is not None, "no answer to a lone surrogate"
        assert answer["id"] == 7
        assert answer["error"]["code"] == -32602
        assert "surrogate" in answer["error"]["message"]
        server.send(b'{"jsonrpc": "2.0", "id": 8}')
        answer = server.answer()
        assert answer is not None
        assert answer["id"] == 8
        assert answer["error"]["code"] == -32600
        server.request({"jsonrpc": "2.0", "id": 9, "method": "tools/list"})
        answer = server.answer()
        assert answer is not None
        assert answer["id"] == 9
        assert answer["result"]["tools"]
    finally:
        stderr = server.close()
    assert "Traceback" not in stderr
    assert "odd" not in (repo / "todo.vcontext.json").read_text()


def test_truth_a_blank_title_is_refused(repo: Path) -> None:
    """Issue 37, finding 5: a whitespace-only title was accepted."""
    before = {p: p.read_bytes() for p in repo.rglob("*.vcontext.*")}

    async def main() -> None:
        async with stdio(repo) as client:
            for name, args in (
                ("vbrief_create_todo", {"title": "   "}),
                ("vbrief_create_todo", {"title": "\t\n"}),
                ("vbrief_update_todo", {"id": "t1", "title": " "}),
                ("vbrief_create_plan", {"title": "  "}),
                ("vbrief_update_plan", {"id": "release", "title": " "}),
                ("vbrief_add_plan_item", {"planId": "release", "item": {"title": " "}}),
                ("vbrief_update_plan_item", {"planId": "release", "itemId": "p1", "title": " "}),
            ):
                line = tool_error(await client.call_tool(name, args))
                assert "blank" in line, (name, line)

    run(main)
    assert {p: p.read_bytes() for p in before} == before


def _readme_tour() -> str:
    readme = (REPO_ROOT / "README.md").read_text()
    section = readme.split("### Agents over MCP")[1].split("\n### ")[0]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "the README's MCP tour is gone"
    return match.group(1)


def test_truth_the_readme_one_minute_tour_works_in_a_fresh_repository(tmp_path: Path) -> None:
    """Issue 37, finding 5: the README's one-minute tour failed on its first line in a
    fresh repository. Run it as written, in ``git init``'s repository, and compare each
    printed line with the comment the README puts after it."""
    fresh = new_repo(tmp_path / "fresh")
    code = _readme_tour()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=fresh,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    printed = done.stdout.splitlines()
    expected = [  # a comment after a print, or on the line after it: what it prints
        line.split("#", 1)[1].strip()
        for line in code.splitlines()
        if "#" in line and ("print(" in line or line.lstrip().startswith("#"))
    ]
    assert expected, "the tour shows no expected output"
    assert len(printed) >= len(expected), (printed, expected)
    for want in expected:  # each comment's words appear in order, '...' standing for the rest
        parts = [p.strip() for p in want.split("...") if p.strip()]
        hit = next(
            (got for got in printed if _in_order(parts, got)),
            None,
        )
        assert hit is not None, f"nothing printed like {want!r}: {printed}"
    assert run_git(fresh, "status", "--porcelain").stdout.strip() == "?? .vcontext/"


def _in_order(parts: list[str], line: str) -> bool:
    at = 0
    for part in parts:
        found = line.find(part, at)
        if found < 0:
            return False
        at = found + len(part)
    return True


def test_truth_prompts_are_capped_with_a_pointer_to_the_resource(git_repo: Path) -> None:
    """Issue 37, finding 6: session_start with 2,000 items was 115 KB, uncapped. Capped now,
    saying how many more and which resource holds them; what is in progress comes first."""
    titles = [f"Task number {n} with a reasonably long title" for n in range(2000)]
    data = todo_document(titles)
    data["todoList"]["items"][-1]["status"] = "inProgress"
    write_json(git_repo / ".vcontext" / "todo.json", data)
    plan = {
        "vContextInfo": {"version": "0.4"},
        "plan": {
            "id": "big",
            "title": "Big plan",
            "status": "inProgress",
            "items": [
                {"id": f"p{n}", "title": f"Step {n}", "status": "pending"} for n in range(500)
            ],
        },
    }
    write_json(git_repo / ".vcontext" / "plan-big.json", plan)
    write_json(git_repo / ".vcontext" / "playbook.json", PLAYBOOK)

    async def main() -> None:
        async with stdio(git_repo) as client:
            for name, args in (
                ("vbrief_session_start", None),
                ("vbrief_session_end", {"summary": "s"}),
                ("vbrief_plan_review", None),
            ):
                body = prompt_text(await client.get_prompt(name, args))
                assert len(body.encode()) < 16_000, (name, len(body))
                assert re.search(r"\b\d[\d,]* more\b", body), name
                assert "vbrief://todos/current" in body or "vbrief://plans/current" in body
            start = prompt_text(await client.get_prompt("vbrief_session_start"))
            assert "t2000" in start  # the one in progress, though last
            assert "1,9" in start or "19" in start  # how many more

    run(main)
