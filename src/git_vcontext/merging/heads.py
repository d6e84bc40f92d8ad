"""Playbook targets that a merged event log leaves with several heads, noted in the report."""

from __future__ import annotations

from .result import ConflictNode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .core import Merger, Path


def note_multi_heads(m: Merger, path: Path, log: list[Any]) -> None:
    """One ``multi-head`` note per target with more than one head (events nobody extends).

    A cheap pass finds the targets that may have several heads; only those get the
    playbook view's causal graph, so the heads are exactly the ones ``view`` shows.
    """
    events = [e.ours if isinstance(e, ConflictNode) else e for e in log]
    suspects = _targets_with_loose_ends(events)
    if not suspects:
        return
    # lazy: only for playbooks with loose ends
    from ..playbook.fold import settled_heads
    from ..playbook.graph import TargetGraph
    from ..playbook.log import EventIndex

    index = EventIndex(events)
    for target in sorted(suspects):
        ids = index.targets.get(target)
        if not ids:
            continue
        graph = TargetGraph(target, ids, index)
        heads = graph.heads()
        if len(heads) < 2:
            continue
        winner = max(heads, key=index.key.__getitem__)
        settled = set(settled_heads(graph, heads, winner))
        heads = [h for h in heads if h not in settled]  # as the view warns: open heads only
        if len(heads) < 2:
            continue
        file = m.options.path or "FILE"
        message = (
            f"target {target} has {len(heads)} heads ({', '.join(heads)}): concurrent updates;"
            f" the view shows {winner}; an update after it settles them"
            f" (git vcontext playbook update {file} --target {target})"
        )
        m.note("multi-head", path, message, target=target, heads=list(heads))


def _targets_with_loose_ends(events: list[Any]) -> set[str]:
    """Targets with more than one event that no other event of the target names as previous."""
    ids: dict[str, set[str]] = {}
    extended: dict[str, set[Any]] = {}
    for e in events:
        if not isinstance(e, dict):
            continue
        target, eid = e.get("targetId"), e.get("eventId")
        if not isinstance(target, str) or not isinstance(eid, str):
            continue
        ids.setdefault(target, set()).add(eid)
        prev = e.get("prevEventId")
        if prev is not None:
            extended.setdefault(target, set()).add(prev)
    return {t for t, found in ids.items() if len(found - extended.get(t, set())) > 1}
