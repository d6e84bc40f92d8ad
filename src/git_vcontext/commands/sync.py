"""``git vcontext sync [AGENT… | --all] [--into BRANCH] [--push REMOTE] [--dry-run] …``."""

from __future__ import annotations

import sys

from ..errors import ExitCode, UsageError
from ..gitio import open_repo
from ..workflow.sync import sync


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
    outcome = sync(
        open_repo("."),
        agents=agents,
        all_agents=all_agents,
        into=into,
        push=push,
        dry_run=dry_run,
        checkout=checkout,
        say=print,
        warn=lambda line: print(f"git-vcontext: warning: {line}", file=sys.stderr),
    )
    return int(ExitCode.OK if outcome.ok else ExitCode.FOUND)
