"""vbrief_delete_plan never deletes what the checks reject (one truth).

PRODUCT.md, "The MCP server": every write is judged before it is made; the history rules
(``validation.history``): a commit saying ``Vcontext-Drop:`` may delete a document that
holds only ``changeLog`` entries (a deleted plan), its events never. The corpus's plans
with an embedded playbook (the spec's "playbook embedded in a plan" examples) were
deleted, and committed with that trailer, and ``check`` then rejected the server's own
commit ([history-event-removed]).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.mcp_platform import tool_error
from helpers.mcp_support import in_process, run
from helpers.run import run_cli, run_git

PLAN = ".vcontext/plan-rules.json"
DOC: dict[str, Any] = {
    "vContextInfo": {"version": "0.4"},
    "plan": {
        "id": "plan-rules",
        "title": "Agent workflow rules",
        "status": "inProgress",
        "narratives": {"proposal": "Curate the agents' rules."},
        "items": [{"id": "p1", "title": "Write the rules", "status": "pending"}],
        "playbook": {
            "version": 1,
            "items": [
                {
                    "eventId": "evt-0001",
                    "targetId": "task-first",
                    "operation": "append",
                    "kind": "rule",
                    "title": "Task-first workflow",
                    "narrative": {"Overview": "Add a task target, not raw commands."},
                    "createdAt": "2025-12-27T09:00:00Z",
                }
            ],
        },
    },
}


def _said(done: Any) -> str:
    return str(done.stdout.decode() + done.stderr.decode())


def test_a_plan_holding_playbook_events_is_not_deleted_and_the_way_on_is_accepted(
    git_repo: Path,
) -> None:
    (git_repo / ".vcontext").mkdir()
    (git_repo / PLAN).write_text(json.dumps(DOC, indent=2) + "\n")
    run_git(git_repo, "add", ".")
    run_git(git_repo, "commit", "-q", "-m", "plan")
    before = (git_repo / PLAN).read_bytes()
    head = run_git(git_repo, "rev-parse", "HEAD").stdout

    async def main() -> None:
        async with in_process(git_repo, commit=True) as client:
            line = tool_error(await client.call_tool("vbrief_delete_plan", {"id": "plan-rules"}))
            assert "nothing deleted" in line, line
            assert "[history-event-removed]" in line, line
            assert "vbrief_update_plan" in line, line  # the way on, followed below
            done = await client.call_tool(
                "vbrief_update_plan", {"id": "plan-rules", "status": "cancelled"}
            )
            assert not done.is_error, done

    run(main)
    assert run_git(git_repo, "rev-parse", "HEAD~1").stdout == head  # the update's commit
    assert (git_repo / PLAN).exists()
    assert json.loads((git_repo / PLAN).read_bytes())["plan"]["playbook"] == DOC["plan"]["playbook"]
    assert (git_repo / PLAN).read_bytes() != before
    assert run_git(git_repo, "status", "--porcelain").stdout == ""
    for done in (run_cli("validate", cwd=git_repo), run_cli("check", "HEAD~1..HEAD", cwd=git_repo)):
        assert done.returncode == 0, _said(done)
