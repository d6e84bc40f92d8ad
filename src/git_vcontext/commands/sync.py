"""``git vcontext sync [AGENT… | --all] [--into BRANCH] [--push REMOTE] [--dry-run] …``."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import ExitCode, UsageError
from ..gitio import open_repo
from ..gitio.push import common_dir
from ..gitio.storage import explained
from ..workflow import agents as agent_config
from ..workflow.interrupted import Unfinished, finish
from ..workflow.push import push_with_retries
from ..workflow.stopped import leave_stopped
from ..workflow.sync import CONFLICT, MERGED, UP_TO_DATE, Syncer, select_agents

if TYPE_CHECKING:
    from pygit2 import Repository

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
    if checkout and (push is not None or dry_run):
        raise UsageError("--checkout leaves a merge stopped here: not with --push or --dry-run")
    ok = sync(
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
    return int(ExitCode.OK if ok else ExitCode.FOUND)


def sync(
    repo: Repository,
    *,
    agents: tuple[str, ...] | list[str] = (),
    all_agents: bool = False,
    into: str | None = None,
    push: str | None = None,
    dry_run: bool = False,
    checkout: bool = False,
    say: Callable[[str], None],
    warn: Callable[[str], None],
) -> bool:
    """Sync the agents (``say`` tells what happened, line by line); True when all merged
    cleanly (and, with ``push``, landed). Shared by the command and the MCP server. A
    full disk or a read-only repository is said as such (``gitio.storage``)."""
    where = [str(common_dir(repo))] + ([repo.workdir] if repo.workdir else [])
    with explained(where, "sync"):
        return _sync(
            repo,
            agents=agents,
            all_agents=all_agents,
            into=into,
            push=push,
            dry_run=dry_run,
            checkout=checkout,
            say=say,
            warn=warn,
        )


def _sync(
    repo: Repository,
    *,
    agents: tuple[str, ...] | list[str],
    all_agents: bool,
    into: str | None,
    push: str | None,
    dry_run: bool,
    checkout: bool,
    say: Callable[[str], None],
    warn: Callable[[str], None],
) -> bool:
    _finish_interrupted(repo, say, warn)
    names = select_agents(repo, tuple(agents), all_agents)
    pairs = [(name, agent_config.base_of(repo, name, into)) for name in names]
    syncer = Syncer(repo, dry_run=dry_run)
    if push is not None and not dry_run:

        def show(r: PairResult, dry: bool = False) -> None:
            for line in describe(r, dry):
                say(line)

        outcome = push_with_retries(syncer, pairs, push, report=say, show=show)
        results = list(outcome.results)
        if not outcome.pushed:
            return False
    else:
        try:
            results = syncer.sync_pairs(pairs)
        finally:
            syncer.finish()
        for r in results:
            for line in describe(r, dry_run):
                say(line)
    for warning in syncer.warnings:
        warn(warning)
    if push is not None and dry_run:
        say(f"--dry-run: nothing pushed to {push}")
    if checkout:
        _stop_first_conflict(syncer, results, say)
    return all(r.ok for r in results)


def _finish_interrupted(
    repo: Repository, say: Callable[[str], None], warn: Callable[[str], None]
) -> None:
    """First, a work tree an interrupted sync left behind (``workflow/interrupted``)."""
    try:
        finish(repo, say=say)
    except Unfinished as exc:  # its branch is refused (Syncer.blocked), the others sync
        warn(exc.message)


def _stop_first_conflict(
    syncer: Syncer, results: list[PairResult], say: Callable[[str], None]
) -> None:
    """--checkout: the first pair that conflicts is left as a stopped merge in its base."""
    stopped = [r for r in results if r.state == CONFLICT]
    if not stopped:
        return
    left = leave_stopped(syncer, stopped[0])
    files = ", ".join(left.conflicted) or "none (git merged every file)"
    say(f"{stopped[0].branch} -> {stopped[0].base}: merge left stopped in {left.worktree}")
    say(f"  conflicted: {files}")
    say("  next: git vcontext conflicts, git vcontext resolve (or git mergetool -t vcontext),")
    say(f"  then git commit and git vcontext sync {stopped[0].agent}")
    for other in stopped[1:]:
        say(f"{other.branch}: not left stopped (one merge at a time); sync it again after")


def describe(r: PairResult, dry_run: bool = False) -> list[str]:
    """What happened to one pair, as a few lines."""
    would = "would " if dry_run else ""
    lines: list[str] = []
    if r.state == UP_TO_DATE:
        lines.append(f"{r.branch}: up to date with {r.base}")
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
        lines.append(f"{r.branch} <-> {r.base}: " + "; ".join(parts))
        lines += [f"  {path}" for path in r.documents]
    elif r.state == CONFLICT:
        lines.append(f"{r.branch} <-> {r.base}: CONFLICT, nothing moved")
        lines += [f"  {c.describe()}" for c in r.conflicts]
    else:
        lines.append(f"{r.branch} <-> {r.base}: not synced: {r.message}")
    if r.notes and r.state == MERGED:
        n = len(r.notes)
        lines.append(
            f"  {n} automatic resolution{'s' if n != 1 else ''} noted (e.g. sequence numbers)"
        )
    return lines


def _count(documents: tuple[str, ...]) -> str:
    n = len(documents)
    return f"{n} document" + ("" if n == 1 else "s")


def _short(commit: str | None, dry_run: bool) -> str:
    return "" if dry_run or not commit else f" ({commit[:12]})"
