"""Every command an MCP answer gives is a tool call, or a step marked as a person's ("A
PERSON MUST DO THIS (no MCP tool can)"): the engine's advice that reaches an answer's
text, ``lines`` and ``warnings`` — a base behind its upstream (``workflow/sync``), the
tracking lines of ``status``, a merge in progress where an agent's branch is checked out
(``sync/busy``), a fork refused (``sync/fork``) — says a sync as the ``vcontext_sync``
call and any other command as a person's.

PRODUCT.md, "MCP server" and the README's "Agents over MCP": "Every ``next`` is a tool
call (``tool``, ``arguments``) or follows a person's step said that way, never a shell
command for the agent". The SDK's own client, real git in temporary repositories.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from helpers.mcp_support import in_process, run, text
from helpers.team import TASKS, edit, git, setup, vcx

PERSON = "A PERSON MUST DO THIS (no MCP tool can): "
SHELL = re.compile(
    r"\bgit(?:-vcontext)? (?:vcontext|commit|merge|rebase|branch|remote|worktree|fetch|pull"
    r"|push|config|status|-C|cherry-pick|revert)\b"
)


def _unmarked(said: str) -> list[str]:
    """The lines of ``said`` that give a shell command not marked as a person's."""
    return [line for line in said.splitlines() if SHELL.search(line.split(PERSON)[0])]


def _all_said(answer: Any) -> str:
    data = answer.structured_content or {}
    return "\n".join([text(answer), *data.get("lines", []), *data.get("warnings", [])])


def _calls(root: Path, calls: list[tuple[str, dict[str, Any]]], **options: Any) -> list[Any]:
    async def main() -> list[Any]:
        async with in_process(root, **options) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    results: list[Any] = run(main)
    return results


def _retitle(words: str) -> Any:
    def change(data: Any) -> None:
        data["todoList"]["items"][1]["title"] = words
        data["todoList"]["sequence"] += 1

    return change


def test_a_base_behind_its_upstream_names_the_vcontext_sync_that_publishes(
    tmp_path: Path,
) -> None:
    """The agent's local base has a commit of its own and lacks one of ``origin/main`` as
    last fetched: the sync's warning and ``vcontext_status``'s tracking line name
    ``vcontext_sync`` with ``push`` (before: the command line's ``git vcontext sync bo
    --push origin``, unmarked)."""
    team = setup(tmp_path, ["bo"])
    bo = team.agents["bo"]
    edit(team.person, TASKS, _retitle("a new title"))
    git(team.person, "commit", "-q", "-am", "t2 renamed")
    git(team.person, "push", "-q", "origin", "main")
    at_main = tmp_path / "bo-main"
    git(bo, "worktree", "add", "-q", str(at_main), "main")
    (at_main / "notes.txt").write_text("a person's notes\n")
    git(at_main, "add", "notes.txt")
    git(at_main, "commit", "-q", "-m", "notes")
    git(bo, "fetch", "-q", "origin")
    synced, status = _calls(bo, [("vcontext_sync", {}), ("vcontext_status", {})])
    assert not synced.is_error, text(synced)
    call = 'vcontext_sync {"agents": ["bo"], "push": "origin"}'
    (warning,) = synced.structured_content["warnings"]
    assert warning.endswith(f"; {call} syncs with origin's main and publishes"), warning
    assert f": {call} syncs with origin/main" in text(status), text(status)
    for answer in (synced, status):
        assert _unmarked(_all_said(answer)) == [], _all_said(answer)


def test_a_merge_in_progress_where_an_agent_works_is_tool_calls_then_a_persons_step(
    tmp_path: Path,
) -> None:
    """A person's ``git merge`` stopped in agent cy's work tree: a sync of cy from the
    person's server says its conflicts settle with ``vcontext_conflicts`` and
    ``vcontext_resolve`` there, and finishing it is a person's step (before: the command
    line's ``git vcontext conflicts, git vcontext resolve, git commit --no-edit``)."""
    team = setup(tmp_path, [])
    cy = tmp_path / "person-cy"
    assert vcx(team.person, "fork", "cy", "--reason", "agent cy").returncode == 0
    git(team.person, "worktree", "add", "-q", str(cy), "agents/cy")
    (cy / "notes.txt").write_text("cy\n")
    git(cy, "add", "notes.txt")
    git(cy, "commit", "-q", "-m", "cy's notes")
    git(cy, "switch", "-q", "-c", "side", "HEAD~1")
    (cy / "notes.txt").write_text("side\n")
    git(cy, "add", "notes.txt")
    git(cy, "commit", "-q", "-m", "side's notes")
    git(cy, "switch", "-q", "agents/cy")
    assert git(cy, "merge", "-q", "side", check=False).returncode != 0  # stopped: conflict
    edit(team.person, TASKS, _retitle("the base moved"))
    git(team.person, "commit", "-q", "-am", "the base moves")
    (synced,) = _calls(team.person, [("vcontext_sync", {"agents": ["cy"]})])
    said = _all_said(synced)
    assert "vcontext_conflicts and vcontext_resolve, through the MCP server there" in said
    assert f"{PERSON}finish it there (git commit --no-edit) or abort it" in said
    assert _unmarked(said) == [], said


def test_a_fork_refused_names_the_vcontext_sync_that_updates_it(git_repo: Path) -> None:
    """``vbrief_create_fork`` for an agent whose branch exists: refused, naming the
    ``vcontext_sync`` call that updates it (before: ``git vcontext sync al``)."""
    (git_repo / "todo.vcontext.json").write_text('{"vContextInfo": {"version": "0.4"}, '
                                                 '"todoList": {"items": []}}\n')  # fmt: skip
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "todo")
    made, again = _calls(git_repo, [("vbrief_create_fork", {})] * 2, agent="al")
    assert not made.is_error, text(made)
    assert again.is_error
    assert 'update it with vcontext_sync {"agents": ["al"]}' in text(again), text(again)
    assert _unmarked(text(again)) == []
