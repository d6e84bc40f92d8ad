"""What ``status --format dot|mermaid`` draws: the agents around their base branches,
ahead/behind on the edges, conflicts as red links."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..pictures.labels import ident, printable, prose, shorten
from ..pictures.model import Edge, Node, Picture

if TYPE_CHECKING:
    from .status import AgentStatus
    from .trials import Clash

STATE_CLASS = {
    "up to date": "up-to-date",
    "needs sync": "needs-sync",
    "conflict": "conflict",
    "refused": "refused",
}
LEGEND = "edge: commits ahead / behind the base · red: would conflict (trial merges)"


def agent_picture(rows: Sequence[AgentStatus], clashes: Sequence[Clash]) -> Picture:
    """One node per base branch and per agent; a red link per pair that would conflict."""
    bases = {r.base: f"b{i}" for i, r in enumerate(_unique_bases(rows))}
    agents = {r.agent: f"a{i}" for i, r in enumerate(rows)}
    nodes = [_base_node(key, name, rows) for name, key in bases.items()]
    edges = []
    for r in rows:
        nodes.append(_agent_node(agents[r.agent], r))
        edges.append(_fork_edge(bases[r.base], agents[r.agent], r))
    for c in clashes:
        other = bases[c.other] if c.with_base else agents[c.other]
        # two agents of a base stand in one column: their link bows out to the right, its
        # label clear of the links from the base (and of every node)
        side = "" if c.with_base else "e"
        edges.append(Edge(agents[c.agent], other, ("conflict",), _conflict_label(c), side))
    count = f"{len(rows)} agent" + ("" if len(rows) == 1 else "s")
    notes = (LEGEND,) if rows else ("no agent branches",)
    return Picture(f"agents: {count}", tuple(nodes), tuple(edges), (), notes)


def _unique_bases(rows: Sequence[AgentStatus]) -> list[AgentStatus]:
    seen: dict[str, AgentStatus] = {}
    for r in rows:
        seen.setdefault(r.base, r)
    return list(seen.values())


def _base_node(key: str, name: str, rows: Sequence[AgentStatus]) -> Node:
    count = sum(1 for r in rows if r.base == name)
    lines = (ident(name, 40), f"base of {count} agent" + ("" if count == 1 else "s"))
    return Node(key, lines, ("base",), printable(name))


def _agent_node(key: str, r: AgentStatus) -> Node:
    lines = [ident(r.agent, 40), ident(r.branch, 40), r.state]
    if r.documents:
        word = "document" if len(r.documents) == 1 else "documents"
        lines.append(f"{len(r.documents)} {word} to bring")
    if r.divergence:
        lines.append(f"base sequence moved {r.divergence:+d}")
    if r.merge_status != "-":
        lines.append(f"fork: {prose(r.merge_status, 30)}")
    if r.message:
        lines.append(prose(r.message, 44))
    classes = ("agent", STATE_CLASS.get(r.state, "needs-sync"))
    return Node(key, tuple(lines), classes, printable(r.branch))


def _fork_edge(base: str, agent: str, r: AgentStatus) -> Edge:
    classes = ("refused",) if r.state == "refused" else ("fork",)
    return Edge(base, agent, classes, f"{r.ahead} ahead / {r.behind} behind")


def _conflict_label(c: Clash) -> str:
    paths = list(dict.fromkeys(p.path for p in c.conflicts))
    shown = ", ".join(ident(p, 32) for p in paths[:2])
    more = f" +{len(paths) - 2}" if len(paths) > 2 else ""
    return shorten(f"conflict: {shown}{more}" if paths else "conflict", 60)
