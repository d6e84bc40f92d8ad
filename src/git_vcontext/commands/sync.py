"""``git vcontext sync [AGENT… | --all] [--into BRANCH] [--push REMOTE] [--dry-run] …``."""

from __future__ import annotations

import sys

from ..errors import ExitCode, UsageError
from ..gitio import open_repo
from ..workflow.link import checked, connected


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
    online = push is not None and not dry_run
    given = checked(repo, push, into, agents, all_agents)
    given, link = connected(repo, given, print) if online else (given, None)
    try:
        from ..workflow.sync import sync  # (a tenth of a second and more: ssh logs in meanwhile)

        outcome = sync(
            repo,
            given,  # (checked: the arguments as given go no further)
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
