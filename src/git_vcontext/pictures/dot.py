"""Graphviz DOT for a ``Picture``: every string quoted and escaped, plain (not HTML-like) labels."""

from __future__ import annotations

from .model import Edge, Node, Picture
from .style import edge_style, node_style

FONT = "Helvetica"
HEADER = (
    f'  graph [rankdir=LR, fontname="{FONT}", fontsize=12, labelloc=t, labeljust=l, '
    "nodesep=0.25, ranksep=0.35, newrank=true];",
    f'  node [shape=box, style="rounded,filled", fontname="{FONT}", fontsize=10, '
    'margin="0.12,0.05"];',
    f'  edge [fontname="{FONT}", fontsize=9, arrowsize=0.7];',
)


def quote(text: str) -> str:
    """A DOT double-quoted string drawn as ``text`` (one line, as labels.py makes).

    Graphviz reads a backslash as the start of an escape (``\\n``, ``\\N``…) and decodes
    HTML entities (``&amp;``) in every label: both are escaped.
    """
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("&", "&amp;")
    return f'"{escaped}"'


def label(lines: tuple[str, ...] | list[str]) -> str:
    """Lines of a label, each left-aligned (``\\l`` ends a line in a DOT label)."""
    body = "".join(quote(line)[1:-1] + "\\l" for line in lines)
    return f'"{body}"'


def render_dot(picture: Picture, *, name: str = "vcontext") -> str:
    """The whole ``digraph``: title and notes on top, one cluster per group."""
    out = [f"digraph {quote(name)} {{", *HEADER]
    heading = [picture.title, *picture.notes] if picture.title else list(picture.notes)
    if heading:
        out.append(f"  label={label(heading)};")
    by_key = {n.key: n for n in picture.nodes}
    # Left to right, dot stacks what is declared first at the bottom: declaring groups and
    # nodes in reverse puts the first group on top and each rank in its given order.
    for i, group in reversed(list(enumerate(picture.groups))):
        out.append(f"  subgraph cluster_{i} {{")
        out.append(
            f'    graph [label={quote(group.title)}, style="rounded", color="#d0d7de", '
            "fontsize=11];"
        )
        out += ["    " + _node(by_key[key]) for key in reversed(group.members)]
        out.append("  }")
    out += ["  " + _node(n) for n in picture.ungrouped]
    out += ["  " + _edge(e) for e in picture.edges]
    out.append("}")
    return "\n".join(out) + "\n"


def _node(node: Node) -> str:
    look = node_style(node.classes)
    attrs = [f"label={label(node.lines)}", f"class={quote(' '.join(node.classes))}"]
    if node.tooltip:
        attrs.append(f"tooltip={quote(node.tooltip)}")
    attrs.append(
        "style=" + quote("rounded,filled,dashed" if look.get("dashed") else "rounded,filled")
    )
    for key, attr in (("fill", "fillcolor"), ("stroke", "color"), ("text", "fontcolor")):
        if key in look:
            attrs.append(f"{attr}={quote(str(look[key]))}")
    if "width" in look:
        attrs.append(f"penwidth={look['width']}")
    return f"{node.key} [{', '.join(attrs)}];"


def _edge(edge: Edge) -> str:
    look = edge_style(edge.classes)
    attrs = [f"color={quote(str(look['color']))}", f"penwidth={look['width']}"]
    if edge.classes:
        attrs.append(f"class={quote(' '.join(edge.classes))}")
    if edge.label:
        # a link that does not rank its ends is often short: label it beside, unless its
        # label must stay clear of every line (xlabels are placed after the edges are
        # routed, over them; a label is routed around)
        inline = look.get("arrow", True) or look.get("inline-label")
        attrs.append(f"{'label' if inline else 'xlabel'}={quote(edge.label)}")
        attrs.append(f"fontcolor={quote(str(look['color']))}")
    if look.get("dashed"):
        attrs.append('style="dashed"')
    if not look.get("arrow", True):
        attrs += ["dir=none", "constraint=false"]
    tail, head = edge.tail, edge.head
    if edge.side:
        tail, head = f"{tail}:{edge.side}", f"{head}:{edge.side}"
        attrs.append("arrowsize=0")  # Graphviz draws a tail arrow on such a link, dir=none or not
    return f"{tail} -> {head} [{', '.join(attrs)}];"
