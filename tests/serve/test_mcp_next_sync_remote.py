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
