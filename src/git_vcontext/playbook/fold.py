"""One logical entry from its events: the fold, counters, status precedence, field conflicts."""

from __future__ import annotations

from ..values import canonical
from .graph import TargetGraph

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

STRUCTURAL = frozenset({"eventId", "targetId", "operation", "prevEventId", "delta", "createdAt"})
"""Fields that describe an event's place in the log, not the entry (never folded)."""

PER_EVENT = frozenset({"reason", "feedbackType"})
"""Folded like the rest, but each event has its own: different values are no conflict."""

DEPRECATED = ("deprecated", "quarantined")
COUNTERS = ("helpfulCount", "harmfulCount")


class TargetState:
    """The current state of one target: what the view shows about it."""

    __slots__ = (
        "conflicts",
        "counters",
        "created_at",
        "fields",
        "graph",
        "heads",
        "settled",
        "status",
        "target",
        "updated_at",
        "winner",
    )

    def __init__(self, graph: TargetGraph) -> None:
        self.target = graph.target
        self.graph = graph
        events = graph.events()
        self.fields, self.counters, deprecated = fold(events)
        self.heads = graph.heads()
        heads = self.heads
        self.winner = heads[0] if len(heads) == 1 else max(heads, key=graph.key.__getitem__)
        self.settled = settled_heads(graph, heads, self.winner) if len(heads) > 1 else []
        folded = self.fields.get("status")
        if deprecated:
            self.status = status_of(graph, events, folded)
        else:
            self.status = folded if isinstance(folded, str) else "active"
        concurrent = len(heads) - len(self.settled) > 1
        self.conflicts = field_conflicts(graph) if concurrent else []
        self.created_at = events[0].get("createdAt")  # the first event in causal order
        self.updated_at = graph.by_id[self.winner].get("createdAt")  # the winning head


def settled_heads(graph: TargetGraph, heads: list[str], winner: str) -> list[str]:
    """The heads an update after the winner settled (PRODUCT.md "Playbook view").

    An agent settles concurrent heads with one ordinary update chained to the winner
    (``playbook update``, ``vbrief_add_learning``); the winner's chain then holds, before
    its last event, an event written after each head it saw. So a head other than the
    winner is settled when an event before the winner on the winner's chain is later
    than it, by the tie order (``createdAt`` instant, ``eventId``); right after a merge
    that left several heads, the winner is the only event of its chain later than the
    others, and none is settled.
    """
    key, parent = graph.key, graph.parent
    latest = None
    node = parent.get(winner)
    while node is not None:
        k = key[node]
        if latest is None or k > latest:
            latest = k
        node = parent.get(node)
    if latest is None:
        return []
    return [h for h in heads if h != winner and key[h] < latest]


def fold(events: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, int], bool]:
    """The fold, the summed counters, and whether any event deprecates the entry.

    Each field an event sets replaces the earlier value wholesale (``null`` sets
    nothing); ``delta`` counters add up over every event (integers only).
    One pass: this runs for every event of the log.
    """
    fields: dict[str, Any] = {}
    totals = dict.fromkeys(COUNTERS, 0)
    deprecated = False
    for e in events:
        fields.update(e)
        delta = e.get("delta")
        if type(delta) is dict:
            for name, value in delta.items():
                n = value if type(value) is int else as_count(value)
                if n is not None:
                    totals[name] = totals.get(name, 0) + n
        if e.get("status") in DEPRECATED or e.get("operation") == "deprecate":
            deprecated = True
    if None in fields.values():  # rare: a null overwrote a value; fold again, skipping nulls
        fields = {}
        for e in events:
            fields.update((k, v) for k, v in e.items() if v is not None)
    for k in STRUCTURAL:
        fields.pop(k, None)
    return fields, totals, deprecated


def as_count(value: Any) -> int | None:
    """An integer counter value (``2`` or ``2.0``), else None."""
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    return None


def status_of(graph: TargetGraph, events: list[dict[str, Any]], folded: Any) -> str:
    """A deprecation wins over ``active`` unless a later event sets ``active`` again.

    "Later" is by createdAt instant; an event at the same instant that extends
    the deprecation's chain is later too. Between deprecated and quarantined
    the later one wins (same instant: the later in causal order).
    """
    deprecations, actives = [], []
    for pos, e in enumerate(events):
        st = e.get("status")
        if e.get("operation") == "deprecate" and st not in DEPRECATED:
            st = "deprecated"
        if st in DEPRECATED:
            eid = e["eventId"]
            deprecations.append((graph.key[eid][0][:2], pos, eid, st))
        elif st == "active":
            eid = e["eventId"]
            actives.append((graph.key[eid][0][:2], eid))
    if not deprecations:
        return folded if isinstance(folded, str) else "active"
    when, _, dep, st = max(deprecations)
    for at, eid in actives:
        if at > when or (at == when and eid != dep and graph.is_ancestor(dep, eid)):
            return "active"
    return str(st)


def field_conflicts(graph: TargetGraph) -> list[tuple[str, tuple[str, ...], tuple[Any, ...]]]:
    """Fields that concurrent events (neither an ancestor of the other) set differently."""
    setters: dict[str, list[str]] = {}
    for eid in graph.order:
        for k, v in graph.by_id[eid].items():
            if v is not None and k not in STRUCTURAL and k not in PER_EVENT:
                setters.setdefault(k, []).append(eid)
    out = []
    for field, eids in setters.items():
        if len(eids) < 2:
            continue
        values = {eid: canonical(graph.by_id[eid][field]) for eid in eids}
        if len(set(values.values())) < 2:
            continue
        involved = set(_concurrent_and_different(graph, eids, values))
        if involved:
            ids = tuple(eid for eid in eids if eid in involved)
            out.append((field, ids, tuple(graph.by_id[eid][field] for eid in ids)))
    return out


def _concurrent_and_different(
    graph: TargetGraph, eids: list[str], values: dict[str, str]
) -> list[str]:
    """Setters that have a concurrent setter with another value, in O(n log n).

    For each setter: setters with another value, minus those among its
    ancestors (a stack of enclosing Euler intervals) and its descendants
    (a range of entry times), leaves the concurrent ones.
    """
    # lazy: only setters with different values get here (the guard judges every playbook)
    from bisect import bisect_right

    items = sorted(eids, key=lambda e: graph.interval(e)[0])
    tins = [graph.interval(e)[0] for e in items]
    by_value: dict[str, list[int]] = {}
    for e, t in zip(items, tins, strict=True):
        by_value.setdefault(values[e], []).append(t)
    stack: list[tuple[int, str]] = []
    on_stack: dict[str, int] = {}
    found = []
    for i, e in enumerate(items):
        t_in, t_out = graph.interval(e)
        while stack and stack[-1][0] < t_in:
            on_stack[stack.pop()[1]] -= 1
        v = values[e]
        same_tins = by_value[v]
        other_total = len(items) - len(same_tins)
        other_ancestors = len(stack) - on_stack.get(v, 0)
        descendants = bisect_right(tins, t_out) - i - 1
        same_descendants = bisect_right(same_tins, t_out) - bisect_right(same_tins, t_in)
        if other_total - other_ancestors - (descendants - same_descendants) > 0:
            found.append(e)
        stack.append((t_out, v))
        on_stack[v] = on_stack.get(v, 0) + 1
    return found
