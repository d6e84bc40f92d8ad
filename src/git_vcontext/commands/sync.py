"""``git vcontext sync [AGENT… | --all] [--into BRANCH] [--push REMOTE] [--dry-run] …``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..errors import ExitCode, UsageError
from ..gitio import open_repo, operands, run_dir

if TYPE_CHECKING:
    from pygit2 import Repository

    from ..gitio.transport import Link


def run(
    *,
    agents: tuple[str, ...] = (),
    all_agents: bool = False,
    into: str | None = None,
    push: str | None = None,
    dry_run: bool = False,
    checkout: bool = False,
) -> int:
    """Sync the agents; exit 0 when every pair merged cleanly, 1 when one stopped."""
    if checkout and dry_run:
        raise UsageError("--checkout leaves a merge stopped: not with --dry-run")
    repo = open_repo(".")
    link = None if push is None or dry_run else _connected(repo, push, agents, all_agents, into)
    try:
        from ..workflow.sync import sync  # (a tenth of a second and more: ssh logs in meanwhile)

        outcome = sync(
            repo,
            agents=agents,
            all_agents=all_agents,
            into=into,
            push=push,
            dry_run=dry_run,
            checkout=checkout,
            say=print,
            warn=lambda line: print(f"git-vcontext: warning: {line}", file=sys.stderr),
            link=link,
        )
    finally:
        if link is not None:
            link.close()
    return int(ExitCode.OK if outcome.ok else ExitCode.FOUND)


def _connected(
    repo: Repository, push: str, agents: tuple[str, ...], all_agents: bool, into: str | None
) -> Link:
    """The sync's link to ``push`` (checked first, as ``sync`` checks it), its ssh
    connection (if any) started now, before the rest of sync is even imported. Not for a
    sync that stops before any network: the agents and ``--into`` are checked first, as
    ``sync`` checks them (no agent branch, a bad name: no login to the server for it)."""
    from ..branches.agents import select_agents
    from ..gitio.transport import Link

    remote = operands.remote(repo, push, "--push remote")
    if into is not None:
        operands.branch(into, "--into branch")
    select_agents(repo, agents, all_agents)
    link = Link(run_dir(repo), remote, report=print)
    link.begin()
    return link
