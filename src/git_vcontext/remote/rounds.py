"""``sync --push`` of every base in turn, one ``BaseRound`` each (``remote/integrate``), the
way ``remote/protocol`` describes."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ..gitio import run_dir
from ..gitio.transport import Link
from .integrate import BaseRound, Io
from .protocol import PushOutcome

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ..sync.syncer import PairResult, Syncer


def push_with_retries(
    syncer: Syncer,
    pairs: Sequence[tuple[str, str]],
    remote: str,
    *,
    report: Callable[[str], None],
    show: Callable[[PairResult], None],
    sleep: Callable[[float], None] | None = None,
    clock: Callable[[], float] | None = None,
    link: Link | None = None,
) -> PushOutcome:
    """Sync ``pairs`` (agent, base) through ``remote``: every base in turn (see the module).
    ``link``: the sync's own, made (and connected) earlier; else one is made here."""
    io = Io(report, show, sleep or time.sleep, clock or time.time)
    cwd = run_dir(syncer.repo)
    if link is None:  # one per sync
        link = Link(cwd, remote, clock=io.clock, sleep=io.sleep, report=report)
    outcomes = []
    try:
        for base in dict.fromkeys(b for _, b in pairs):
            agents = [a for a, b in pairs if b == base]
            outcomes.append(BaseRound(syncer, remote, base, agents, io, link).run())
    finally:
        link.close()  # the shared ssh connection, if any
        syncer.finish()
    return PushOutcome(
        tuple(r for o in outcomes for r in o.results),
        all(o.pushed for o in outcomes),
        sum(o.retries for o in outcomes),
        "; ".join(o.message for o in outcomes if o.message),
        tuple(n for o in outcomes for n in o.integrated),
        sum(o.waited for o in outcomes),
    )
