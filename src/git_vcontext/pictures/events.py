"""The event graph of playbook targets: a node per event, ``prevEventId`` edges, heads outlined,
the winner marked, deprecations and anomalies drawn apart (from the view's own analysis)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..playbook.fold import DEPRECATED, TargetState
from ..playbook.model import Anomaly, Entry
from ..record import record
from .labels import ident, printable, prose, shorten
from .model import Edge, Group, Node

MARKS = {
    "dangling-prev": "prevEventId matches no event",
    "cross-target-prev": "prevEventId in another target",
    "cycle": "prevEventId links form a cycle",
    "append-with-prev": "creation event with prevEventId",
    "update-without-prev": "no prevEventId",
    "duplicate-creation": "second creation event",
    "duplicate-event-id": "eventId used by several events",
}
"""What a node says about each anomaly of its event (one line each)."""

MARK_ALL = ("cycle", "duplicate-creation")
"""Anomalies that concern every event they name; the others concern the first."""


@dataclass
class Drawing:
    """Nodes, edges and groups collected target by target (keys are generated here)."""

    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    keys: dict[str, str] = field(default_factory=dict)  # eventId -> node key

    def reserve(self, states: Iterable[TargetState], keep: dict[str, Collection[str]]) -> None:
        """Keys for every event drawn, before any edge needs one (cross-target parents)."""
        count = 0
        for s in states:
            wanted = keep.get(s.target)
            for eid in s.graph.order:
                if wanted is None or eid in wanted:
                    self.keys[eid] = f"e{count}"
                    count += 1


@record
class Marks:
    """What the view knows about events beyond the graph: anomalies, field conflicts, news."""

    anomalies: dict[str, list[str]]  # eventId -> anomaly kinds
    conflicts: dict[str, list[str]]  # eventId -> fields it set concurrently with another head
    new: Collection[str] = ()  # events a change added (diff pictures)

    @classmethod
    def of(
        cls, anomalies: Iterable[Anomaly], entries: Iterable[Entry], new: Collection[str] = ()
    ) -> Marks:
        by_event: dict[str, list[str]] = {}
        for a in anomalies:
            for eid in a.event_ids if a.kind in MARK_ALL else a.event_ids[:1]:
                by_event.setdefault(eid, []).append(a.kind)
        fields: dict[str, list[str]] = {}
        for e in entries:
            for c in e.conflicts:
                for eid in c.event_ids:
                    fields.setdefault(eid, []).append(c.field)
        return cls(by_event, fields, new)


def draw_targets(
    drawing: Drawing,
    pairs: list[tuple[Entry, TargetState]],
    marks: Marks,
    keep: dict[str, Collection[str]] | None = None,
) -> None:
    """Add one group per target (its events, or the ``keep`` subset, and their links)."""
    keep = keep or {}
    drawing.reserve((s for _, s in pairs), keep)
    for entry, state in pairs:
        _draw_target(drawing, entry, state, marks, keep.get(state.target))


def _draw_target(
    drawing: Drawing,
    entry: Entry,
    state: TargetState,
    marks: Marks,
    wanted: Collection[str] | None,
) -> None:
    graph = state.graph
    members: list[str] = []
    order = [eid for eid in graph.order if wanted is None or eid in wanted]
    for eid in order:
        node = _event_node(drawing.keys[eid], graph.by_id[eid], entry, marks)
        drawing.nodes.append(node)
        members.append(node.key)
    links = Links(drawing, graph, members, state.target)
    for eid in order:
        links.add(eid)
        for copy in graph.shadowed.get(eid, ()):
            _draw_ignored(drawing, members, drawing.keys[eid], copy, state.target)
    if wanted is not None and len(order) < len(graph.order):
        links.elided(len(graph.order) - len(order), order)
    drawing.groups.append(Group(f"g{len(drawing.groups)}", _title(entry), tuple(members)))


def _title(entry: Entry) -> str:
    parts = [entry.kind or "no kind", entry.status]
    if entry.multi_head:
        parts.append(f"{len(entry.open_heads)} heads, {ident(entry.winner, 24)} wins")
    return f"{ident(entry.target_id, 48)} — {' · '.join(printable(p) for p in parts)}"


def _event_node(key: str, e: dict[str, Any], entry: Entry, marks: Marks) -> Node:
    eid = e["eventId"]
    classes = ["event"]
    if _deprecates(e):
        classes.append("deprecation")
    if eid in marks.new:
        classes.append("new")
    if eid == entry.winner:
        classes.append("winner")
    if eid in entry.heads:
        classes.append("head")
    kinds = marks.anomalies.get(eid, [])
    if kinds:
        classes.append("anomaly")
    lines = _event_lines(e, entry, marks)
    lines += [f"⚠ {MARKS.get(k, k)}" for k in dict.fromkeys(kinds)]
    tip = shorten(printable(eid), 300)
    return Node(key, tuple(lines), tuple(classes), tip)


def _draw_ignored(
    drawing: Drawing, members: list[str], kept: str, e: dict[str, Any], target: str
) -> None:
    """An event whose eventId another event kept: drawn beside it, linked, never in a chain.

    The view folds only the event it keeps (the earliest); this one is in the log all
    the same, and a person looking for it should find it.
    """
    key = f"p{len(drawing.nodes)}"
    when = e.get("createdAt")
    when_text = "no createdAt" if when is None else ident(when, 32)
    lines = [
        f"{ident(e['eventId'])} (ignored)",
        f"{prose(e.get('operation') or 'no operation', 16)} · {when_text}",
    ]
    content = _content(e)
    if content:
        lines.append(content)
    if e["targetId"] != target:
        lines.append(f"in target {ident(e['targetId'], 32)}")
    prev = e.get("prevEventId")
    if prev is not None:
        lines.append(f"prevEventId {ident(prev if isinstance(prev, str) else repr(prev), 24)}")
    lines.append(f"⚠ {MARKS['duplicate-event-id']}: the view keeps another")
    classes = ("event", "anomaly", "ignored")
    drawing.nodes.append(Node(key, tuple(lines), classes, shorten(printable(e["eventId"]), 300)))
    members.append(key)
    drawing.edges.append(Edge(kept, key, ("same-id",), "same eventId"))


def _deprecates(e: dict[str, Any]) -> bool:
    return e.get("operation") == "deprecate" or e.get("status") in DEPRECATED


def _event_lines(e: dict[str, Any], entry: Entry, marks: Marks) -> list[str]:
    eid = e["eventId"]
    first = ident(eid)
    if entry.multi_head and eid == entry.winner:
        first = "★ " + first + " (wins)"
    elif eid in entry.open_heads and entry.multi_head:
        first += " (head)"
    if eid in marks.new:
        first = "+ " + first
    when = e.get("createdAt")
    when_text = "no createdAt" if when is None else ident(when, 32)
    lines = [first, f"{prose(e.get('operation') or 'no operation', 16)} · {when_text}"]
    content = _content(e)
    if content:
        lines.append(content)
    facts = _facts(e)
    if facts:
        lines.append(facts)
    fields = marks.conflicts.get(eid)
    if fields:
        lines.append("≠ concurrent " + ", ".join(prose(f, 20) for f in dict.fromkeys(fields)))
    return lines


def _content(e: dict[str, Any]) -> str:
    """The event's own words, shortened: its text, title, first narrative, or a reason."""
    for key in ("text", "title", "deprecatedReason", "reason"):
        value = e.get(key)
        if isinstance(value, str) and value.strip():
            return prose(value)
    narrative = e.get("narrative")
    if isinstance(narrative, dict):
        for k, v in narrative.items():
            if isinstance(v, str) and v.strip():
                return prose(f"{k}: {v}")
    return ""


def _facts(e: dict[str, Any]) -> str:
    facts = []
    delta = e.get("delta")
    if isinstance(delta, dict):
        for name, value in delta.items():
            if isinstance(value, int) and not isinstance(value, bool):
                facts.append(f"{prose(name, 20)} {shorten(f'{value:+d}', 12)}")
            elif isinstance(value, float):
                facts.append(f"{prose(name, 20)} {value:+g}")
    status = e.get("status")
    if isinstance(status, str) and (status != "active" or e.get("operation") != "append"):
        facts.append(f"→ {prose(status, 16)}")
    return shorten(" · ".join(facts), 44)


class Links:
    """The edges of one target: valid ``prevEventId`` links, and the invalid ones drawn apart."""

    def __init__(self, drawing: Drawing, graph: Any, members: list[str], target: str) -> None:
        self.drawing, self.graph, self.members, self.target = drawing, graph, members, target
        self.placeholders: dict[tuple[str, str], str] = {}

    def add(self, eid: str) -> None:
        graph, keys = self.graph, self.drawing.keys
        me = keys[eid]
        parent = graph.parent.get(eid)
        if parent is not None:
            if parent in keys:
                self.drawing.edges.append(Edge(keys[parent], me, ("chain",)))
            return
        prev = graph.by_id[eid].get("prevEventId")
        if prev is None:
            return
        before = graph.by_id.get(prev) if isinstance(prev, str) else None
        if before is None:
            self._from_placeholder("missing", prev, me, ["missing parent", ident(prev)])
        elif before["targetId"] == self.target:
            if prev in keys:  # a link cut to break a cycle
                self.drawing.edges.append(Edge(keys[prev], me, ("cycle",), "cycle"))
        elif prev in keys:
            self.drawing.edges.append(Edge(keys[prev], me, ("cross-target",), "other target"))
        else:
            lines = [ident(prev), f"in target {ident(before['targetId'], 32)}"]
            self._from_placeholder("external", prev, me, lines)

    def _from_placeholder(self, kind: str, prev: Any, me: str, lines: list[str]) -> None:
        name = (kind, repr(prev))
        key = self.placeholders.get(name)
        if key is None:
            key = f"p{len(self.drawing.nodes)}"
            self.placeholders[name] = key
            tip = shorten(printable(prev if isinstance(prev, str) else repr(prev)), 300)
            self.drawing.nodes.append(Node(key, tuple(lines), (kind,), tip))
            self.members.append(key)
        edge_kind = "dangling" if kind == "missing" else "cross-target"
        self.drawing.edges.append(Edge(key, me, (edge_kind,)))

    def elided(self, count: int, drawn: list[str]) -> None:
        """One node standing for the events left out, linked to the drawn events they precede."""
        keys, parent = self.drawing.keys, self.graph.parent
        key = f"p{len(self.drawing.nodes)}"
        word = "event" if count == 1 else "events"
        self.drawing.nodes.append(Node(key, (f"… {count} more {word}",), ("elided",)))
        self.members.insert(0, key)
        for eid in drawn:
            if eid in parent and parent[eid] not in keys:
                self.drawing.edges.append(Edge(key, keys[eid], ("elided",)))
