"""The remote an agent's next sync is told to push to, decided in one place
(``workflow.link.base_remote``) for the MCP server's ``next`` (``vcontext_sync``'s ``push``)
and for the command line it gives a person (``git vcontext sync AGENT --push REMOTE``).

PRODUCT.md, "Resolving conflicts": every conflict message ends with the exact next step;
"One truth" (M19): the parts that name the next sync agree. They disagreed where the
agent's recorded base cannot be read (``vcontext.agent.NAME.base`` not a branch name): the
command line left ``--push`` out, while ``next`` failed the whole answer with that
configuration error, after a resolve had committed its merge. Now both leave the remote out
(the next sync says what is wrong with the base).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pygit2
import pytest

from git_vcontext.mcp_server.gitside import GitSide
from git_vcontext.mcp_server.service import Service
from git_vcontext.mcp_server.tools import conflicts as conflicts_tool
from git_vcontext.mcp_server.tools import sync as sync_tool
from helpers import soak
from helpers.mcp_support import in_process, run, text
from helpers.run import run_cli


def _served(tmp_path: Path) -> tuple[Path, Service]:
    """alice's clone (its base main tracks origin), served with alice's branch checked out."""
    _, (clone,) = soak.setup(tmp_path, 1, hooks=False)
    soak.git(clone, "config", "vcontext.agent.agent-0.base", "main")
    svc = cast(Service, SimpleNamespace(git=GitSide(pygit2.Repository(str(clone)))))
    return clone, svc


def _left() -> Any:
    return SimpleNamespace(agent="agent-0", prefix="agents/")


def test_next_sync_names_the_remote_the_agents_base_tracks(tmp_path: Path) -> None:
    _, svc = _served(tmp_path)
    assert sync_tool.next_sync_args(svc) == {"push": "origin"}
    assert "--push origin" in conflicts_tool._cli_sync(svc, _left())


@pytest.mark.parametrize("base", ["bad..name", "-main"])
def test_next_sync_leaves_the_remote_out_when_the_recorded_base_is_no_branch_name(
    tmp_path: Path, base: str
) -> None:
    clone, svc = _served(tmp_path)
    soak.git(clone, "config", "vcontext.agent.agent-0.base", base)
    assert sync_tool.next_sync_args(svc) == {}  # (was: the configuration error raised)
    line = conflicts_tool._cli_sync(svc, _left())
    assert "--push" not in line
    assert line.endswith("vcontext sync agent-0")


def _renamed_upstream(clone: Path) -> None:
    """The base main tracks origin's trunk (``branch.main.merge=refs/heads/trunk``), the
    name origin's base has: ``sync --push origin`` refuses main (``push_refusal``)."""
    soak.git(clone, "push", "-q", "origin", "main:trunk")
    soak.git(clone, "fetch", "-q", "origin")
    soak.git(clone, "config", "branch.main.remote", "origin")
    soak.git(clone, "config", "branch.main.merge", "refs/heads/trunk")


def test_next_sync_names_no_push_the_next_sync_refuses(tmp_path: Path) -> None:
    """A base whose upstream has another name: ``next`` and the person's command line
    name a sync that runs (PRODUCT.md, "Resolving conflicts": the exact next step; M19:
    one judge with ``vcontext_sync``). Before: both said ``push: origin`` and that sync
    refused the base. Followed to the end: the MCP call and the command line both run."""
    clone, svc = _served(tmp_path)
    _renamed_upstream(clone)
    args = sync_tool.next_sync_args(svc)
    assert args == {}
    line = conflicts_tool._cli_sync(svc, _left())
    assert "--push" not in line

    async def follow() -> Any:
        async with in_process(clone) as client:
            return await client.call_tool("vcontext_sync", args)

    answer = run(follow)
    assert not answer.is_error, text(answer)
    words = shlex.split(line)
    assert words[:2] == ["git", "-c"]
    assert words[3:5] == ["vcontext", "sync"]
    key, value = words[2].split("=", 1)  # git -c KEY=VALUE, as git passes it on
    config = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": key, "GIT_CONFIG_VALUE_0": value}
    done = run_cli(*words[4:], cwd=clone, env=config)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("remote", ["ext::sh -c true", "fd::0"])
def test_next_sync_names_no_remote_push_refuses_to_take(tmp_path: Path, remote: str) -> None:
    """The base tracks a remote ``--push`` refuses (a remote helper's address): checked
    as ``--push`` is (``operands.remote``), so neither ``next`` nor the command line
    names it (hostile configuration never reaches advice that would be refused)."""
    clone, svc = _served(tmp_path)
    soak.git(clone, "config", "branch.main.remote", remote)
    assert sync_tool.next_sync_args(svc) == {}
    assert "--push" not in conflicts_tool._cli_sync(svc, _left())
