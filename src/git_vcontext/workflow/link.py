"""The link of a ``sync --push`` to its remote, connected before the rest of sync runs
(both front ends: ``commands.sync`` before sync is even imported, ``workflow.sync`` for the
MCP server). Light: what sync checks first, and the transport."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pygit2 import Repository

    from ..gitio.transport import Link


def connected(
    repo: Repository,
    push: str,
    into: str | None,
    agents: Sequence[str],
    all_agents: bool,
    report: Callable[[str], None],
) -> Link:
    """The sync's link to ``push``, its ssh connection (if any) started now, in the
    background (``Link.begin``): the key exchange overlaps the sync's local work up to
    its first git command. Checked first, as ``sync`` checks them: the remote, ``--into``
    and the agents (hostile input, or no agent branch: the sync stops with no login to the
    server for it). The caller closes it."""
    from ..branches.agents import select_agents
    from ..gitio import operands, run_dir
    from ..gitio.transport import Link

    remote = operands.remote(repo, push, "--push remote")
    if into is not None:
        operands.branch(into, "--into branch")
    select_agents(repo, tuple(agents), all_agents)
    link = Link(run_dir(repo), remote, report=report)
    link.begin()
    return link
