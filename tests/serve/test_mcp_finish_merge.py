"""What ``vcontext_resolve`` says once the last conflict of a stopped operation is settled,
followed as an agent with MCP tools alone follows it (the SDK's stdio client, real git).

PRODUCT.md, "MCP server": every command an answer gives is a tool call or a person's step
(marked); "Resolving conflicts (agents and people)": the merge sync left stopped is
committed and the next sync lands it. The merge sync left is judged by its own files
(``branches.commits.stopped_sync``: MERGE_HEAD, MERGE_MSG as sync writes it), not by the
agent prefix the server reads: a server that reads another ``vcontext.agentPrefix``
sees no agent branch, and before this it left the commit to a person and named a
``vcontext_sync {}`` that it then refused ("not on an agent branch").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers.conflict_repos import TODO, installed, two_conflicts
from helpers.mcp_support import run, stdio_params, text
from helpers.next_steps import follow
from helpers.run import run_git
from helpers.team import TASKS, bo_stopped_at_checkout, git, remote_show, vcx

PERSON = "A PERSON MUST DO THIS (no MCP tool can): "


async def _resolve_all(client: Any, take: str) -> Any:
    """Do as the answers say: ``vcontext_conflicts``, then a ``vcontext_resolve`` per
    conflict (``take``); the last answer."""
    listed = await client.call_tool("vcontext_conflicts", {})
    assert not listed.is_error, text(listed)
    last = listed
    for f in listed.structured_content["files"]:
        for c in f["conflicts"]:
            last = await client.call_tool(
                "vcontext_resolve", {"path": f["path"], "conflict": c["id"], "take": take}
            )
            assert not last.is_error, text(last)
    return last


async def _no_refused_call(client: Any, answer: Any) -> None:
    """Every tool call ``answer`` names next is one the server takes (none is refused)."""
    for step in answer.structured_content.get("next", []):
        assert step.get("after") != "person" or "person" in answer.structured_content
        done = await client.call_tool(step["tool"], step["arguments"])
        assert not done.is_error, (step, text(done))


def test_the_sync_merge_is_committed_where_the_server_reads_another_agent_prefix(
    tmp_path: Path,
) -> None:
    from mcp import Client

    team, bo, _ = bo_stopped_at_checkout(tmp_path)
    assert (bo / ".git" / "MERGE_HEAD").exists()
    git(bo, "config", "vcontext.agentPrefix", "bots/")  # the server's prefix, since

    async def main() -> str:
        async with Client(stdio_params(bo)) as client:
            last = await _resolve_all(client, "ours")
            data = last.structured_content
            assert data.get("mergeCommitted") is True, text(last)
            await _no_refused_call(client, last)
            [step] = data["person"]["steps"]
            assert PERSON in text(last)
            return str(step)

    step = run(main)
    assert not (bo / ".git" / "MERGE_HEAD").exists()
    assert git(bo, "status", "--porcelain").stdout == ""
    command = step[step.index("(") + 1 : step.rindex(")")]
    assert command == "git -c vcontext.agentPrefix=agents/ vcontext sync bo --push origin"
    done = follow([command], bo)  # the person's step, as printed
    assert done.last[1] == 0, done.last
    items = remote_show(team.remote, "main", TASKS)["todoList"]["items"]
    assert [(i["id"], i["status"]) for i in items] == [("t1", "inProgress"), ("t2", "pending")]
    assert team.local_only(bo) == []


def test_a_persons_merge_settled_is_the_persons_to_commit_with_no_tool_call(
    git_repo: Path,
) -> None:
    """Not sync's merge, no agent branch: the answer gives the person's step (commit it),
    marked, and names no tool call; nothing is committed by the server."""
    from mcp import Client

    repo = installed(git_repo)
    two_conflicts(repo)
    assert run_git(repo, "merge", "--no-edit", "feat", check=False).returncode == 1
    head = run_git(repo, "rev-parse", "HEAD").stdout

    async def main() -> None:
        async with Client(stdio_params(repo)) as client:
            last = await _resolve_all(client, "theirs")
            data = last.structured_content
            assert "next" not in data, data
            assert "mergeCommitted" not in data
            assert data["person"]["steps"] == [
                f"finish the merge of feat in {repo.resolve()} (git commit --no-edit) "
                "or abort it (git merge --abort)"
            ]
            assert f"{PERSON}finish the merge of feat" in text(last)

    run(main)
    assert (repo / ".git" / "MERGE_HEAD").exists()
    assert run_git(repo, "rev-parse", "HEAD").stdout == head
    assert run_git(repo, "diff", "--cached", "--name-only").stdout.split() == [TODO]


def test_vcontext_sync_commits_the_settled_merge_holding_the_repository_lock(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The merge sync left, settled from the command line, is committed by the next
    ``vcontext_sync`` holding the server's repository lock, as ``vcontext_resolve`` commits
    it (and as every write commits): a write tool's commit meanwhile (staged into that
    merge) is never racing the merge's ``git commit`` for the index. Before, the sync's
    commit ran outside the lock."""
    from git_vcontext.gitio import git as plain
    from git_vcontext.mcp_server import startup
    from git_vcontext.mcp_server.service import Options
    from git_vcontext.mcp_server.tools import dispatch
    from git_vcontext.mcp_server.tools import sync as sync_tool

    team, bo, _ = bo_stopped_at_checkout(tmp_path)
    assert vcx(bo, "resolve", TASKS, "--take", "ours").returncode == 0  # staged, not committed
    where, repo = startup.find_root(str(bo))
    svc = startup.service(Options(root=where, agent=None), repo)
    assert svc.git is not None
    held: list[bool] = []

    def recorded(args: list[str], **kwargs: Any) -> Any:
        if args[:1] == ["commit"]:
            held.append(svc.git._lock.locked())  # type: ignore[union-attr]
        return plain(args, **kwargs)

    monkeypatch.setattr(sync_tool, "git", recorded)
    landed = dispatch.call(svc, "vcontext_sync", {"push": "origin"})
    assert not landed.error, landed.text
    assert landed.text.startswith("committed the merge (")
    assert held == [True]
    assert not (bo / ".git" / "MERGE_HEAD").exists()
    items = remote_show(team.remote, "main", TASKS)["todoList"]["items"]
    assert [(i["id"], i["status"]) for i in items] == [("t1", "inProgress"), ("t2", "pending")]
