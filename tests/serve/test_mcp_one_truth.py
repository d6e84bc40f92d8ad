"""Issue 26 over MCP (the SDK's own client): an agent settles concurrent heads with
``vbrief_add_learning`` and the views agree; ``vcontext_resolve`` takes a side's status
fields with its status (PRODUCT.md M13, "Playbook view")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.mcp_support import documents_repo, in_process, run, text, write_documents
from helpers.run import run_cli, run_git

BOOK = "playbook.vcontext.json"


def _creation(eid: str, at: str, words: str) -> dict[str, Any]:
    return {"eventId": eid, "targetId": "dlq", "operation": "append", "kind": "rule",
            "narrative": {"Overview": words}, "createdAt": at}  # fmt: skip


def test_mcp_add_learning_settles_the_heads_of_two_concurrent_creations(git_repo: Path) -> None:
    repo = documents_repo(git_repo)
    data = json.loads((repo / BOOK).read_text())
    data["playbook"]["items"] += [
        _creation("alice-dlq", "2026-02-01T10:00:00Z", "retry from the dead-letter queue"),
        _creation("bob-dlq", "2026-02-01T10:05:00Z", "drain the dead-letter queue"),
    ]
    write_documents(repo, {BOOK: data})
    run_git(repo, "commit", "-q", "-am", "alice's and bob's dlq, merged")

    async def main() -> None:
        async with in_process(repo, agent="carol") as client:
            before = await client.call_tool("vcontext_view", {"status": "all"})
            [dlq] = [e for e in before.structured_content["entries"] if e["targetId"] == "dlq"]
            assert (dlq["heads"], dlq["winner"]) == (["alice-dlq", "bob-dlq"], "bob-dlq")
            assert "settled" not in dlq
            assert "! 2 heads" in text(before)
            learned = await client.call_tool(
                "vbrief_add_learning",
                {"targetId": "dlq", "kind": "rule",
                 "narrative": {"Overview": "retry from the queue, drain it daily"}},
            )  # fmt: skip
            assert not learned.is_error, text(learned)
            assert learned.structured_content["prevEventId"] == "bob-dlq"
            after = await client.call_tool("vcontext_view", {"status": "all"})
            [dlq] = [e for e in after.structured_content["entries"] if e["targetId"] == "dlq"]
            assert dlq["settled"] == ["alice-dlq"]
            assert dlq["conflicts"] == []
            assert "heads:" not in text(after)
            found = await client.call_tool("vbrief_query_playbook", {"searchText": "daily"})
            [entry] = found.structured_content["entries"]
            assert entry["settled"] == ["alice-dlq"]

    run(main)
    report = json.loads(run_cli("validate", "--format", "json", BOOK, cwd=repo).stdout)
    [f] = report["files"]
    assert f["valid"]
    assert [n["rule"] for n in f["notes"]] == ["playbook-duplicate-creation"]


def test_mcp_resolve_takes_the_status_fields_with_the_status(git_repo: Path) -> None:
    repo = documents_repo(git_repo)
    assert run_cli("install", "--no-hooks", cwd=repo).returncode == 0
    todo = json.loads((repo / "todo.vcontext.json").read_text())

    def with_t3(**fields: Any) -> Any:
        items = [dict(i, **fields) if i["id"] == "t3" else i for i in todo["todoList"]["items"]]
        return {**todo, "todoList": {**todo["todoList"], "items": items}}

    run_git(repo, "checkout", "-q", "-b", "alice")
    done_t3 = with_t3(status="completed", completed="2026-01-01T10:00:00Z")
    write_documents(repo, {"todo.vcontext.json": done_t3})
    run_git(repo, "commit", "-q", "-am", "alice completes t3")
    run_git(repo, "checkout", "-q", "main")
    write_documents(repo, {"todo.vcontext.json": with_t3(status="cancelled")})
    run_git(repo, "commit", "-q", "-am", "main cancels t3")
    assert run_git(repo, "merge", "--no-edit", "alice", check=False).returncode == 1

    async def main() -> None:
        async with in_process(repo, agent="carol") as client:
            listed = await client.call_tool("vcontext_conflicts", {})
            [f] = listed.structured_content["files"]
            [status] = f["conflicts"]
            assert status["statusFields"] == {"completed": {"theirs": "2026-01-01T10:00:00Z"}}
            done = await client.call_tool(
                "vcontext_resolve", {"path": "todo.vcontext.json", "take": "ours"}
            )
            assert not done.is_error, text(done)

    run(main)
    t3 = json.loads((repo / "todo.vcontext.json").read_text())["todoList"]["items"][2]
    assert t3["status"] == "cancelled"
    assert "completed" not in t3
