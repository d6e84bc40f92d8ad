"""The causal structure of one target's events: parents, causal order, heads, ancestry."""

from __future__ import annotations

from .log import CHAINED_OPS, CREATION_OPS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .log import EventIndex, Key, RawAnomaly


class TargetGraph:
    """Events of one ``targetId`` linked by ``prevEventId``.

    Every event has at most one parent, so the links form a forest once
    invalid links (dangling, cross-target) are dropped and cycles are cut.
    ``order`` is the causal order: topological, ties by (createdAt instant, eventId).
    """

    __slots__ = (
        "_tin",
        "_tout",
        "anomalies",
        "by_id",
        "children",
        "ids",
        "is_chain",
        "key",
        "order",
        "parent",
        "shadowed",
        "target",
    )

    def __init__(self, target: str, ids: list[str], index: EventIndex) -> None:
        self.target = target
        self.ids = ids
        self.by_id = index.by_id
        self.key = index.key
        self.shadowed = index.shadowed  # eventId -> the other events using it
        self.anomalies: list[RawAnomaly] = []
        self.parent: dict[str, str] = {}
        self.children: dict[str, list[str]] = {}
        self._tin: dict[str, int] = {}
        self._tout: dict[str, int] = {}
        self.is_chain = self._chain_in_file_order()
        if self.is_chain:
            self.order = ids
            return
        self._link_all()
        chain = self._chain()
        self.is_chain = chain is not None
        self.order = chain or self._causal_order()

    # -- links --------------------------------------------------------------
    def _chain_in_file_order(self) -> bool:
        """The usual append-only log: each event extends the one before it in the file.

        Then the links need no checking beyond this one pass.
        """
        by_id, ids = self.by_id, self.ids
        first = by_id[ids[0]]
        if first.get("prevEventId") is not None or first.get("operation") in CHAINED_OPS:
            return False
        before = ids[0]
        for eid in ids[1:]:
            e = by_id[eid]
            if e.get("prevEventId") != before or e.get("operation") in CREATION_OPS:
                return False
            before = eid
        self.parent = dict(zip(ids[1:], ids[:-1], strict=True))
        self.children = {p: [c] for c, p in self.parent.items()}
        return True

    def _link_all(self) -> None:
        """Parent links from ``prevEventId``; invalid ones reported and dropped (one loop: hot)."""
        by_id, parent, children, target = self.by_id, self.parent, self.children, self.target
        for eid in self.ids:
            e = by_id[eid]
            op, prev = e.get("operation"), e.get("prevEventId")
            if prev is None:
                if op in CHAINED_OPS:
                    self._anomaly("update-without-prev", (eid,), f"{op} event has no prevEventId")
                continue
            if op in CREATION_OPS:
                self._anomaly("append-with-prev", (eid,), f"{op} event sets prevEventId {prev}")
            before = by_id.get(prev) if type(prev) is str else None
            if before is not None and before["targetId"] == target:
                parent[eid] = prev
                if prev in children:
                    children[prev].append(eid)
                else:
                    children[prev] = [eid]
            elif before is None:
                self._anomaly("dangling-prev", (eid,), f"prevEventId {prev!r} matches no event")
            else:
                other = before["targetId"]
                msg = f"prevEventId {prev} belongs to target {other} (treated as a root)"
                self._anomaly("cross-target-prev", (eid, prev), msg)

    def _anomaly(self, kind: str, ids: tuple[str, ...], message: str) -> None:
        self.anomalies.append((kind, ids, self.target, f"{ids[0]}: {message}"))

    # -- causal order -------------------------------------------------------
    def _chain(self) -> list[str] | None:
        """The order of a single unbranched chain (the common case), else None."""
        parent, children = self.parent, self.children
        # one root, and every parent has exactly one child
        if len(self.ids) != len(parent) + 1 or len(children) != len(parent):
            return None
        order = [next(eid for eid in self.ids if eid not in parent)]
        while nxt := children.get(order[-1]):
            order.append(nxt[0])
        return order if len(order) == len(self.ids) else None

    def _causal_order(self) -> list[str]:
        """Kahn's algorithm with a heap (one parent each: a child is ready with its parent)."""
        # lazy: only a branched history gets here (the guard judges every pushed playbook)
        from heapq import heapify, heappop, heappush

        key, children = self.key, self.children
        heap = [key[eid] for eid in self.ids if eid not in self.parent]
        heapify(heap)
        order: list[str] = []
        placed: set[str] = set()
        pending: list[Key] = []  # every key in tie order, built at the first cycle
        at = 0
        while len(order) < len(self.ids):
            if not heap:  # only cycles are left: cut one, from its earliest event
                pending = pending or sorted(key[eid] for eid in self.ids)
                while pending[at][1] in placed:
                    at += 1
                heap.append(self._break_cycle(pending[at][1]))
            eid = heappop(heap)[1]
            order.append(eid)
            placed.add(eid)
            for child in children.get(eid, ()):
                heappush(heap, key[child])
        return order

    def _break_cycle(self, start: str) -> Key:
        """Cut the link of the earliest event (tie order) of the cycle above ``start``."""
        seen: set[str] = set()
        node = start
        while node not in seen:  # every event left has a parent that is left too
            seen.add(node)
            node = self.parent[node]
        cycle = [node]
        while (nxt := self.parent[cycle[-1]]) != node:
            cycle.append(nxt)
        cycle.sort(key=self.key.__getitem__)
        cut = cycle[0]
        self.children[self.parent.pop(cut)].remove(cut)
        ids = tuple(cycle)
        msg = f"prevEventId links form a cycle ({' -> '.join(ids)}); broken at {cut}"
        self.anomalies.append(("cycle", ids, self.target, msg))
        return self.key[cut]

    # -- heads and ancestry ---------------------------------------------------
    def heads(self) -> list[str]:
        """Events without successors, in causal order."""
        if self.is_chain:
            return self.order[-1:]
        children = self.children
        return [eid for eid in self.order if not children.get(eid)]

    def roots(self) -> list[str]:
        """Events without a (valid) predecessor, in causal order."""
        return [eid for eid in self.order if eid not in self.parent]

    def events(self) -> list[dict[str, Any]]:
        """The events in causal order."""
        by_id = self.by_id
        return [by_id[eid] for eid in self.order]

    def is_ancestor(self, a: str, b: str) -> bool:
        """Whether ``a`` precedes ``b`` on its chain (an event is its own ancestor)."""
        tin, tout = self.interval(a)
        return tin <= self.interval(b)[0] <= tout

    def interval(self, eid: str) -> tuple[int, int]:
        """Euler-tour interval: descendants of ``eid`` are the events whose entry time is in it."""
        if not self._tin:
            self._tour()
        return self._tin[eid], self._tout[eid]

    def _tour(self) -> None:
        """Entry and exit times of an iterative depth-first walk of the forest."""
        clock = 0
        for root in self.roots():
            stack: list[tuple[str, bool]] = [(root, False)]
            while stack:
                eid, done = stack.pop()
                if done:
                    self._tout[eid] = clock - 1
                    continue
                self._tin[eid] = clock
                clock += 1
                stack.append((eid, True))
                stack.extend((c, False) for c in self.children.get(eid, ()))
