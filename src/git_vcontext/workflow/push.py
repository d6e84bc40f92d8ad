"""``sync --push``: push the synced branches; when the remote moved, fetch, merge, retry.

The bases and agent branches go in one atomic push (``git push --atomic``), so a
rejected push (another agent pushed first) left nothing on the remote. Then sync
starts over from where the branches were before this run: fetch the rejected
branches, take the remote's commits (a fast-forward, or a real merge commit with
the same in-process engine when the local branch had commits of its own), sync
the pairs again so the agents' work is merged into the remote's base, and push
again, a bounded number of times, waiting a little longer (with random jitter,
so racing agents spread out) each time. Starting over instead of merging the
remote into the rejected sync commits keeps the history to one sync merge per
agent and run, and the documents to one M8 ``merge`` change per merge that
reaches the remote, however many attempts it took.

A remote that cannot push atomically may have taken some branches of a rejected
push; then the remote's commits are merged into the local branches as they are.
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
FIRST_WAIT = 0.1  # seconds; doubles each attempt, times a random factor in [0.5, 1.5)
LONGEST_WAIT = 8.0  # many agents on one base: the waits must outlast their pushes


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
    results: list[sync_mod.PairResult] = []
    try:
        if fetch_first(repo):
            bases = list(dict.fromkeys(base for _, base in pairs))
            # no such remote, no network: stop here, before any branch moves
            tips = remotes.fetch(cwd, remote, bases)
            here = {base: tip for base in bases if (tip := syncer.tip(base)) is not None}
            if failure := _catch_up(syncer, here, tips, remote, show):
                return _gave_up(results, retries, failure, report)
        starts = _starts(syncer, pairs)
        results = syncer.sync_pairs(pairs)
        left = _starts(syncer, pairs)  # where this run left the branches
        for r in results:
            show(r)
        branches = _to_push(results)
        for attempt in range(1, limit + 1):
            pushed = remotes.push(cwd, remote, branches)
            failed = [row for row in pushed.rows if not row.ok]
            refused = [row for row in failed if not row.collateral] or failed
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
                names = ", ".join(row.branch for row in refused)
                why = f"push to {remote} still rejected after {limit} attempts ({names})"
                return _gave_up(results, retries, why, report)
            retries += 1
            names = ", ".join(f"{row.branch} {row.summary}" for row in refused)
            report(f"push to {remote} rejected ({names}): fetching and merging, retry {retries}")
            pause(wait_before(attempt))
            tips = remotes.fetch(cwd, remote, [row.branch for row in refused])
            # atomic: nothing of this run reached the remote, so start over from before it
            # (only where nobody committed since this run left the branch: that commit
            # stays, and the remote is merged into it as it is)
            here = {b: s for b, s in starts.items() if syncer.tip(b) == left.get(b)}
            here = here if pushed.atomic else {}
            if failure := _catch_up(syncer, here, tips, remote, show, left):
                return _gave_up(results, retries, failure, report)
            results = syncer.sync_pairs(pairs)
            left = _starts(syncer, pairs)
            for r in results:
                if not r.ok:
                    show(r)
            branches = _to_push(results)
        raise AssertionError("unreachable")  # pragma: no cover
    finally:
        syncer.finish()


def fetch_first(repo: Any) -> bool:
    """Fetch the bases before the first push: git config ``vcontext.pushFetchFirst`` (default
    true). Off, the first push tells whether the remote moved (a retry when it did)."""
    try:
        return bool(repo.config.get_bool("vcontext.pushFetchFirst"))
    except (KeyError, ValueError):
        return True


def _catch_up(
    syncer: sync_mod.Syncer,
    starts: dict[str, Any],
    tips: dict[str, str],
    remote: str,
    show: Callable[[sync_mod.PairResult], None],
    expected: dict[str, Any] | None = None,
) -> str | None:
    """Bring local branches up to the remote's ``tips`` (moved by one ``commit()``).

    The branches in ``starts`` go back to those commits first (or straight to the
    remote's tip when it contains them), provided they are still at ``expected``
    when the refs move (else nothing moves: a commit made meanwhile is never
    dropped); then every remote tip the local branch lacks is merged into it with a
    real merge commit. None, or why it stopped.
    """
    repo = syncer.repo
    for branch, start in starts.items():
        again = _start_again(repo, start, tips.get(branch))
        if problem := syncer.move(branch, again, "restart", expected=(expected or {}).get(branch)):
            return problem
    for branch, tip in tips.items():
        merged = syncer.integrate(branch, repo[tip].id, f"{remote}/{branch}")
        if not merged.ok:
            show(merged)
            return f"could not merge {remote}/{branch} into {branch}"
    try:
        syncer.commit()
    except RefMoved as exc:
        return exc.message
    return None


def _starts(syncer: sync_mod.Syncer, pairs: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """Where the agent branches and bases of ``pairs`` are before this run."""
    from . import agents

    names = [agents.agent_branch(syncer.repo, agent) for agent, _ in pairs]
    names += [base for _, base in pairs]
    found = {name: syncer.tip(name) for name in dict.fromkeys(names)}
    return {name: tip for name, tip in found.items() if tip is not None}


def _start_again(repo: Any, start: Any, theirs: str | None) -> Any:
    """Where a branch starts over: the remote's tip when it contains ``start``, else ``start``
    (the caller then merges the remote's tip into it)."""
    if theirs is None:
        return start
    tip = repo[theirs].id
    return tip if tip == start or repo.descendant_of(tip, start) else start


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
