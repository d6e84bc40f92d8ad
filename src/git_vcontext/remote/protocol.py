"""``sync --push``: get every agent's round onto the remote's base, however many agents push.

One base branch takes one integration at a time, so agents do not race for it; they
combine (flat combining, with a lease):

1. Publish: push the agent branch and a request ref (``refs/vcontext/sync/BASE/BRANCH``)
   to the same commit. Nobody else writes either, so this push never races.
2. Integrate, holding the base's lease (a ref taken with a compare-and-swap, with an
   expiry): fetch every request, merge each one not yet in the base (this agent's
   first), merge the base back into this agent's branch, and push the base, the agent
   branch, the request's removal and the lease's release in one atomic push.
3. Whoever does not get the lease waits until the lease is released or expires or its
   request is gone (merged): over a network it looks (a fetch of the same refs) when the
   holder's lease says its round lands (``Landing``, ``remote/lease``), and a holder on a
   busy base whose look came before its lease push looks once more before its
   integration push, so that requests published in between are in it. An agent whose
   work another agent's integration merged is done: it merges the base into its branch,
   here only (and removes any request left that holds no work the base lacks: a killed
   sync's push that landed after its work did).

A remote with ``git vcontext install --server`` merges the requests as they arrive
(step 1's push returns once they are merged). Local branches move only when a push
landed. Each agent's round is merged once (one M8 ``merge`` entry), however many
attempts it took, and an integration publishes one real merge commit whose parents are
the base and each agent's commit; a rejected push is retried with fresh state, not
merged into. A remote on this machine is read in process (``gitio.localremote``).
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING

from ..gitio import config_flag, config_value
from ..record import record
from ..sync import syncer as sync_mod
from .refs import DEFAULT_SECONDS

if TYPE_CHECKING:
    from pygit2 import Repository

DEFAULT_ATTEMPTS = 10
DEFAULT_TIMEOUT = 600.0  # seconds a sync may wait for the base before it gives up
DEFAULT_STATUS_TIMEOUT = 15.0  # seconds: status --fetch (vcontext.statusTimeout)
FIRST_WAIT = 0.1  # seconds; doubles each attempt, times a random factor in [0.5, 1.5)
LONGEST_WAIT = 2.0
MOST = 86_400.0
"""The largest value of a number setting (a day, in seconds; as attempts, far more than a
day's deadline allows): anything above is refused as out of range."""


@record
class PushOutcome:
    """What ``sync --push`` did: the pairs' results, retries, and whether all was pushed."""

    results: tuple[sync_mod.PairResult, ...]
    pushed: bool
    retries: int
    message: str = ""
    integrated: tuple[str, ...] = ()  # other agents' branches this sync merged into a base
    waited: float = 0.0  # seconds spent waiting for another agent's integration


@record
class Settings:
    """git config of ``sync --push``."""

    attempts: int  # vcontext.pushAttempts: rejected integration pushes before giving up
    timeout: float  # vcontext.syncTimeout: seconds before giving up
    lease: bool  # vcontext.syncLease: integrate under the base's lease (else optimistically)
    lease_seconds: float  # vcontext.leaseSeconds: how long a lease lasts


def settings(repo: Repository) -> Settings:
    return Settings(
        max(1, int(_number(repo, "vcontext.pushAttempts", DEFAULT_ATTEMPTS))),
        _number(repo, "vcontext.syncTimeout", DEFAULT_TIMEOUT),
        config_flag(repo, "vcontext.syncLease", True),
        _number(repo, "vcontext.leaseSeconds", DEFAULT_SECONDS),
    )


def status_timeout(repo: Repository) -> float:
    """``vcontext.statusTimeout``: how long ``status --fetch`` tries a remote that fails
    in passing (a status answers promptly; sync's own ``vcontext.syncTimeout`` is for a
    round that must land)."""
    return _number(repo, "vcontext.statusTimeout", DEFAULT_STATUS_TIMEOUT)


def _number(repo: Repository, key: str, default: float) -> float:
    """``key``'s number: the default when it is unset, no number or not above 0 (as it
    always was); an OperationalError (exit 3, one line naming the key) when it is no
    finite number (``inf``, ``nan``) or above ``MOST``: git itself refuses a numeric
    setting it cannot hold ("bad numeric config value … out of range") rather than clamp
    it, and a wait of ``inf`` would retry for ever where a clamp would say nothing."""
    raw = config_value(repo, key)
    try:
        value = default if raw is None else float(raw)
    except ValueError:
        return default
    if not math.isfinite(value) or value > MOST:
        from ..errors import OperationalError, shown_text

        raise OperationalError(
            f"{key} {shown_text(raw or '')!r} is out of range (a finite number up to"
            f" {MOST:g}: a day, in seconds): git config {key} {default:g} (the default)"
        )
    return value if value > 0 else default


def wait_before(attempt: int) -> float:
    """Seconds to wait before retry number ``attempt`` (1-based): exponential, jittered."""
    wait: float = min(LONGEST_WAIT, FIRST_WAIT * 2.0 ** (attempt - 1))
    return wait * random.uniform(0.5, 1.5)
