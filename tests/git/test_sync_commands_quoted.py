"""The sync commands that ``sync`` and ``status`` print name each agent as one shell word
(``sync.advice.sync_command``), as their conflict lines already did.

PRODUCT.md: "Every conflict message of ``sync`` ends with the exact next command(s)"; an
agent name may hold what a shell reads (git takes ``$``, ``(``, a quote in a branch name):
the line a local sync into a base behind its upstream ends with, and the one ``status``
gives a branch only on the remote, ran ``$(…)`` or split the name when pasted.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from helpers.team import git, person_deletes_t1, setup, vcx

AGENT = "a$(id)'s;x"


def _command(text: str, tail: str) -> list[str]:
    found = re.search(r"(git vcontext sync .*?) " + re.escape(tail), text)
    assert found is not None, text
    return shlex.split(found.group(1))


def test_a_local_sync_behind_its_upstream_names_the_agents_sync_push_as_one_word_each(
    tmp_path: Path,
) -> None:
    team = setup(tmp_path, [AGENT])
    clone = team.agents[AGENT]
    person_deletes_t1(team)
    git(clone, "fetch", "-q", "origin")
    local = vcx(clone, "sync", AGENT)
    assert local.returncode == 0, local.stdout + local.stderr
    assert "main is behind origin/main" in local.stderr
    words = _command(local.stderr, "syncs with")
    assert words == ["git", "vcontext", "sync", AGENT, "--push", "origin"]


def test_status_names_the_sync_that_creates_a_branch_only_on_the_remote_as_one_word(
    tmp_path: Path,
) -> None:
    team = setup(tmp_path, [AGENT])
    git(team.agents[AGENT], "push", "-q", "origin", f"agents/{AGENT}")
    git(team.person, "fetch", "-q", "origin")
    shown = vcx(team.person, "status")
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert _command(shown.stdout, "creates") == ["git", "vcontext", "sync", AGENT]


def _between(text: str, head: str, tail: str) -> list[str]:
    found = re.search(re.escape(head) + r"(.*?)" + re.escape(tail), text)
    assert found is not None, text
    return shlex.split(found.group(1))


def test_fork_of_an_agent_that_exists_names_its_sync_as_one_word_each(tmp_path: Path) -> None:
    """``fork`` refused for an agent whose branch is here, or only on the remote, names the
    sync that updates or creates it: pasted, it syncs that agent (before: inside single
    quotes, the name's own quote ended them and ``$(id)`` ran)."""
    team = setup(tmp_path, [AGENT])
    here = vcx(team.agents[AGENT], "fork", AGENT)
    assert here.returncode != 0
    words = _between(here.stderr, "(update it with ", ", or pick")
    assert words == ["git", "vcontext", "sync", AGENT]
    git(team.agents[AGENT], "push", "-q", "origin", f"agents/{AGENT}")
    git(team.person, "fetch", "-q", "origin")
    remote = vcx(team.person, "fork", AGENT)
    assert remote.returncode != 0
    assert _between(remote.stderr, "): ", " creates") == ["git", "vcontext", "sync", AGENT]


def test_mcp_create_fork_names_the_work_tree_to_add_as_one_word_each(tmp_path: Path) -> None:
    """MCP ``vbrief_create_fork``'s next step (a person's ``git worktree add``) quotes the
    agent's folder and branch, as every command sync prints does."""
    from helpers.mcp_support import in_process, run, text

    team = setup(tmp_path, ["bo"])

    async def main() -> str:
        async with in_process(team.person, agent=AGENT) as client:
            made = await client.call_tool("vbrief_create_fork", {"reason": "quoted"})
            assert not made.is_error, text(made)
            return text(made)

    said = run(main)
    assert _between(said, "work tree (", ") with") == [
        "git",
        "worktree",
        "add",
        f"../{AGENT}",
        f"agents/{AGENT}",
    ]
