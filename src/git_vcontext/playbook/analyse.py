"""An event log analysed: every target's state plus every anomaly (plain data, no dataclasses).

Kept free of dataclasses and typing so that the merge engine can recompute
metrics (M10) without slowing down the merge driver's start.
"""

from __future__ import annotations

import gc

from .fold import TargetState
from .graph import TargetGraph
from .log import CREATION_OPS, EventIndex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .log import RawAnomaly

ANOMALY_KINDS = (
    "dangling-prev",
    "cross-target-prev",
    "cycle",
    "append-with-prev",
    "update-without-prev",
    "duplicate-creation",
    "duplicate-event-id",
    "malformed-event",
)
"""Everything a view reports about a log; PRODUCT.md's list plus elements that are no events."""

_RANK = {kind: i for i, kind in enumerate(ANOMALY_KINDS)}

NOTE_KINDS = frozenset({"duplicate-creation"})
"""What the analysis finds that is concurrency, not a fault (PRODUCT.md "Playbook view"):
two agents creating one target are several roots of one entry. The view lists them as
notes, ``validate`` as notes (rule ``playbook-duplicate-creation``), never as errors."""


def analyse(log: list[Any]) -> tuple[list[TargetState], list[RawAnomaly], int]:
    """Target states (by targetId), anomalies (sorted), the number of events."""
    with PausedGC():
        index = EventIndex(log)
        anomalies = index.anomalies
        states = []
        for target, ids in index.targets.items():
            graph = TargetGraph(target, ids, index)
            anomalies.extend(graph.anomalies)
            _creations(graph, anomalies)
            states.append(TargetState(graph))
    states.sort(key=lambda s: s.target)
    return states, sort_anomalies(anomalies), len(index.by_id)


class PausedGC:
    """Pause the cyclic garbage collector for a block.

    A view builds hundreds of thousands of small objects, none of them cyclic;
    with a big parsed document alive, each automatic collection rescans it all
    (it doubled the time of a 100,000-event view).
    """

    def __enter__(self) -> None:
        self.was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.was_enabled:
            gc.enable()


def _creations(graph: TargetGraph, anomalies: list[RawAnomaly]) -> None:
    """Two creation events (append/initial) for one target."""
    if len(graph.ids) < 2:
        return
    found = [eid for eid in graph.ids if graph.by_id[eid].get("operation") in CREATION_OPS]
    if len(found) > 1:
        found.sort(key=graph.key.__getitem__)
        msg = (
            f"{len(found)} creation events for one target ({', '.join(found)}): concurrent "
            "creations, several roots of one entry"
        )
        anomalies.append(("duplicate-creation", tuple(found), graph.target, msg))


def sort_anomalies(anomalies: list[RawAnomaly]) -> list[RawAnomaly]:
    """A fixed order whatever the order of the log: by target, kind, event ids, message."""
    return sorted(anomalies, key=lambda a: (a[2] or "", _RANK.get(a[0], 99), a[1], a[3]))
