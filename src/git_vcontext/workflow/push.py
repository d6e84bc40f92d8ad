"""``sync --push``: push the synced branches; when the remote moved, fetch, merge, retry.

A rejected push (another agent pushed first) is answered like a person would:
fetch the branch, merge the remote's commits into the local branch with the same
in-process engine (a real merge commit), sync the pairs again so every agent
branch carries what came in, and push again, a bounded number of times, waiting
a little longer (with random jitter, so racing agents spread out) each time.
"""

from __future__ import annotations

from ..gitio.refs import RefMoved
from ..record import record
from . import sync as sync_mod

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

DEFAULT_ATTEMPTS = 10
FIRST_WAIT = 0.05  # seconds; doubles each attempt, times a random factor in [0.5, 1.5)
LONGEST_WAIT = 3.0


@record
class PushOutcome:
    """What ``sync --push`` did: the pairs' last results, retries, and whether all was pushed."""

    results: tuple[sync_mod.PairResult, ...]
    pushed: bool
    retries: int
    message: str = ""


def attempts(repo: Any) -> int:
    """Pushes tried at most: git config ``vcontext.pushAttempts`` (default 10)."""
    try:
        value = int(repo.config["vcontext.pushAttempts"])
    except (KeyError, ValueError):
        return DEFAULT_ATTEMPTS
    return max(1, value)


def wait_before(attempt: int) -> float:
    """Seconds to wait before retry number ``attempt`` (1-based): exponential, jittered."""
    import random

    wait: float = min(LONGEST_WAIT, FIRST_WAIT * 2.0 ** (attempt - 1))
    return wait * random.uniform(0.5, 1.5)


def push_with_retries(
    syncer: sync_mod.Syncer,
    pairs: Sequence[tuple[str, str]],
    remote: str,
    *,
    report: Callable[[str], None],
    show: Callable[[sync_mod.PairResult], None],
    sleep: Callable[[float], None] | None = None,
) -> PushOutcome:
    """Sync ``pairs`` (agent, base), push base and agent branches, retry rejected pushes."""
    import time

    from ..gitio import remote as remotes

    repo = syncer.repo
    cwd = str(repo.workdir or repo.path)
    pause = sleep or time.sleep
    limit = attempts(repo)
    retries = 0
    try:
        results = syncer.sync_pairs(pairs)
        for r in results:
            show(r)
        branches = _to_push(results)
        for attempt in range(1, limit + 1):
            rows = remotes.push(cwd, remote, branches)
            failed = [row for row in rows if not row.ok]
            if not failed:
                done = (
                    "pushed"
                    if retries == 0
                    else f"pushed after {retries} retr" + ("y" if retries == 1 else "ies")
                )
                report(f"{done} to {remote}: {', '.join(branches)}")
                return PushOutcome(tuple(results), True, retries)
            hard = [row for row in failed if not row.retry]
            if hard:
                why = "; ".join(f"{row.branch} {row.summary}" for row in hard)
                return _gave_up(results, retries, f"push to {remote} refused: {why}", report)
            if attempt == limit:
                names = ", ".join(row.branch for row in failed)
                why = f"push to {remote} still rejected after {limit} attempts ({names})"
                return _gave_up(results, retries, why, report)
            retries += 1
            names = ", ".join(f"{row.branch} {row.summary}" for row in failed)
            report(f"push to {remote} rejected ({names}): fetching and merging, retry {retries}")
            pause(wait_before(attempt))
            tips = remotes.fetch(cwd, remote, [row.branch for row in failed])
            for branch, tip in tips.items():
                merged = syncer.integrate(branch, repo[tip].id, f"{remote}/{branch}")
                if not merged.ok:
                    show(merged)
                    why = f"could not merge {remote}/{branch} into {branch}"
                    return _gave_up(results, retries, why, report)
            try:
                syncer.commit()
            except RefMoved as exc:
                return _gave_up(results, retries, exc.message, report)
            results = syncer.sync_pairs(pairs)
            for r in results:
                if not r.ok:
                    show(r)
            branches = _to_push(results)
        raise AssertionError("unreachable")  # pragma: no cover
    finally:
        syncer.finish()


def _to_push(results: Sequence[sync_mod.PairResult]) -> list[str]:
    """The bases, and the agent branches whose pair synced."""
    names = list(dict.fromkeys(r.base for r in results))
    names += [r.branch for r in results if r.ok]
    return names


def _gave_up(
    results: Sequence[sync_mod.PairResult], retries: int, why: str, report: Callable[[str], None]
) -> PushOutcome:
    report(why)
    return PushOutcome(tuple(results), False, retries, why)
