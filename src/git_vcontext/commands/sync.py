"""``git vcontext sync [AGENT… | --all] [--into BRANCH] [--push REMOTE] [--dry-run]``."""

from __future__ import annotations

import sys

from ..errors import ExitCode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..workflow.sync import PairResult


def run(
    *,
    agents: tuple[str, ...] = (),
    all_agents: bool = False,
    into: str | None = None,
    push: str | None = None,
    dry_run: bool = False,
) -> int:
    """Sync the agents; exit 0 when every pair merged cleanly, 1 when one stopped."""
    from ..gitio import open_repo
    from ..workflow import agents as agent_config
    from ..workflow.sync import Syncer, select_agents

    repo = open_repo(".")
    names = select_agents(repo, agents, all_agents)
    pairs = [(name, agent_config.base_of(repo, name, into)) for name in names]
    syncer = Syncer(repo, dry_run=dry_run)
    if push is not None and not dry_run:
        from ..workflow.push import push_with_retries

        outcome = push_with_retries(syncer, pairs, push, report=_say, show=_print)
        results = list(outcome.results)
        if not outcome.pushed:
            return int(ExitCode.FOUND)
    else:
        try:
            results = syncer.sync_pairs(pairs)
        finally:
            syncer.finish()
        for r in results:
            _print(r, dry_run)
    for warning in syncer.warnings:
        print(f"git-vcontext: warning: {warning}", file=sys.stderr)
    if push is not None and dry_run:
        _say(f"--dry-run: nothing pushed to {push}")
    return int(ExitCode.OK if all(r.ok for r in results) else ExitCode.FOUND)


def _say(line: str) -> None:
    print(line)


def _print(r: PairResult, dry_run: bool = False) -> None:
    """What happened to one pair, as a few lines on stdout."""
    from ..workflow.sync import CONFLICT, MERGED, UP_TO_DATE

    would = "would " if dry_run else ""
    if r.state == UP_TO_DATE:
        print(f"{r.branch}: up to date with {r.base}")
    elif r.state == MERGED:
        parts = []
        if r.elsewhere:
            parts.append(f"merged into {r.base} on the remote ({_count(r.documents)})")
        if r.base_moves:
            parts.append(
                f"{would}merge {_count(r.documents)} into {r.base}" + _short(r.base_commit, dry_run)
            )
        if r.agent_moves:
            parts.append(
                f"{would}update {_count(r.agent_documents)} on {r.branch}"
                + _short(r.agent_commit, dry_run)
            )
        print(f"{r.branch} <-> {r.base}: " + "; ".join(parts))
        for path in r.documents:
            print(f"  {path}")
    elif r.state == CONFLICT:
        print(f"{r.branch} <-> {r.base}: CONFLICT, nothing moved")
        for c in r.conflicts:
            print(f"  {c.describe()}")
    else:
        print(f"{r.branch} <-> {r.base}: not synced: {r.message}")
    if r.notes and r.state == MERGED:
        n = len(r.notes)
        print(f"  {n} automatic resolution{'s' if n != 1 else ''} noted (e.g. sequence numbers)")


def _count(documents: tuple[str, ...]) -> str:
    n = len(documents)
    return f"{n} document" + ("" if n == 1 else "s")


def _short(commit: str | None, dry_run: bool) -> str:
    return "" if dry_run or not commit else f" ({commit[:12]})"
