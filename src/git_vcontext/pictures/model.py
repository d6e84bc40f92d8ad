"""A picture as plain data: nodes, edges and groups carrying style classes (no syntax yet)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..record import record


@record
class Node:
    """A box: generated ``key`` (never a document's id), label lines, style classes."""

    key: str
    lines: tuple[str, ...]
    classes: tuple[str, ...]
    tooltip: str = ""


@record
class Edge:
    """A line from ``tail`` to ``head`` (node keys), with an optional label; ``side``
    (``e``) draws it out of and into that side of both nodes (a link within one rank)."""

    tail: str
    head: str
    classes: tuple[str, ...] = ()
    label: str = ""
    side: str = ""


@record
class Group:
    """Nodes drawn together in a frame with a title (one playbook target)."""

    key: str
    title: str
    members: tuple[str, ...]


@dataclass(frozen=True)
class Picture:
    """What to draw; ``notes`` are lines said about the whole picture (under the title)."""

    title: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    groups: tuple[Group, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def ungrouped(self) -> tuple[Node, ...]:
        """The nodes that belong to no group."""
        inside = {key for g in self.groups for key in g.members}
        return tuple(n for n in self.nodes if n.key not in inside)
