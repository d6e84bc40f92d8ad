"""``git vcontext sync [AGENT… | --all] [--into BRANCH] [--push REMOTE] [--dry-run]``."""

from __future__ import annotations

import sys

from ..errors import ExitCode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..workflow.sync import PairResult


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
    from ..gitio import open_repo
    from ..workflow import agents as agent_config
    from ..workflow.sync import Syncer, select_agents

    if checkout and (push is not None or dry_run):
        from ..errors import UsageError

        raise UsageError("--checkout leaves a merge stopped here: not with --push or --dry-run")
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
    if checkout:
        _stop_first_conflict(syncer, results)
    return int(ExitCode.OK if all(r.ok for r in results) else ExitCode.FOUND)


def _stop_first_conflict(syncer: Any, results: list[PairResult]) -> None:
    """--checkout: the first pair that conflicts is left as a stopped merge in its base."""
    from ..workflow.stopped import leave_stopped
    from ..workflow.sync import CONFLICT

    stopped = [r for r in results if r.state == CONFLICT]
    if not stopped:
        return
    left = leave_stopped(syncer, stopped[0])
    files = ", ".join(left.conflicted) or "none (git merged every file)"
    _say(f"{stopped[0].branch} -> {stopped[0].base}: merge left stopped in {left.worktree}")
    _say(f"  conflicted: {files}")
    _say("  next: git vcontext conflicts, git vcontext resolve (or git mergetool -t vcontext),")
    _say(f"  then git commit and git vcontext sync {stopped[0].agent}")
    for other in stopped[1:]:
        _say(f"{other.branch}: not left stopped (one merge at a time); sync it again after")


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
