"""Mermaid ``flowchart`` for a ``Picture``: generated ids, quoted labels, entity-coded text.

Inside a quoted label mermaid ends the string at any ``"``, decodes ``#…;`` as an
entity, reads ``%%{`` as a directive anywhere, renders HTML tags and ``$$`` math. So
every ASCII character but letters, digits, spaces and ``-.,:/+=@!?'()``, and every
character that is not printable, is written as a numeric entity (``#35;`` for ``#``):
the text is drawn exactly as given and can never end the label or add syntax.
``<br>`` (ours) breaks lines.
"""

from __future__ import annotations

from .model import Edge, Node, Picture
from .style import Style, edge_style, node_style

SAFE = frozenset(" -.,:/+=@!?'()")
GROUP_CSS = "fill:#f6f8fa,stroke:#d0d7de"
"""A frame lighter than mermaid's default, so the winner's gold stands out."""
MAX_TEXT = 50_000
MAX_EDGES = 500
"""mermaid's defaults (``maxTextSize``, ``maxEdges``): bigger diagrams are refused."""


def text(value: str) -> str:
    """``value`` safe inside a mermaid double-quoted string."""
    if value.isalnum():
        return value
    return "".join(c if _plain(c) else f"#{ord(c)};" for c in value)


def _plain(c: str) -> bool:
    """Written as it is: every character that means something to mermaid is ASCII."""
    return c.isalnum() or c in SAFE or (c > "\x7f" and c.isprintable())


def quoted(lines: tuple[str, ...] | list[str]) -> str:
    return '"' + "<br>".join(text(line) for line in lines) + '"'


def render_mermaid(picture: Picture) -> str:
    """The whole ``flowchart``: a node with the title and notes, subgraphs, nodes, links."""
    out = ["flowchart LR"]
    heading = [picture.title, *picture.notes] if picture.title else list(picture.notes)
    if heading:
        out.append(f"  info[{quoted(heading)}]")
        out.append(f"  classDef note {_css(node_style(('note',)))}")
        out.append("  class info note")
    by_key = {n.key: n for n in picture.nodes}
    for i, group in enumerate(picture.groups):
        out.append(f"  subgraph g{i} [{quoted([group.title])}]")
        out += ["    " + _node(by_key[key]) for key in group.members]
        out.append("  end")
        out.append(f"  style g{i} {GROUP_CSS}")
    out += ["  " + _node(n) for n in picture.ungrouped]
    out += ["  " + _edge(e) for e in picture.edges]
    out += _class_defs(picture.nodes)
    out += _link_styles(picture.edges)
    return "\n".join(out) + "\n"


def too_big(rendered: str, picture: Picture) -> str | None:
    """Why mermaid (GitHub, GitLab) would refuse to draw this, if it would."""
    if len(rendered) > MAX_TEXT:
        return f"{len(rendered):,} characters (mermaid draws at most {MAX_TEXT:,})"
    if len(picture.edges) > MAX_EDGES:
        return f"{len(picture.edges):,} edges (mermaid draws at most {MAX_EDGES})"
    return None


def _node(node: Node) -> str:
    return f"{node.key}[{quoted(node.lines)}]"


def _edge(edge: Edge) -> str:
    look = edge_style(edge.classes)
    dashed, arrow = bool(look.get("dashed")), bool(look.get("arrow", True))
    link = {
        (False, True): "-->",
        (True, True): "-.->",
        (False, False): "---",
        (True, False): "-.-",
    }[dashed, arrow]
    label = f"|{quoted([edge.label])}|" if edge.label else ""
    return f"{edge.tail} {link}{label} {edge.head}"


def _class_name(classes: tuple[str, ...]) -> str:
    return "_".join(c.replace("-", "_") for c in classes) or "plain"


def _class_defs(nodes: tuple[Node, ...]) -> list[str]:
    """One classDef per combination of classes, so no cascade decides the look."""
    members: dict[tuple[str, ...], list[str]] = {}
    for n in nodes:
        members.setdefault(n.classes, []).append(n.key)
    out = []
    for classes, keys in members.items():
        name = _class_name(classes)
        out.append(f"  classDef {name} {_css(node_style(classes))}")
        out.append(f"  class {','.join(keys)} {name}")
    return out


def _css(look: Style) -> str:
    parts = []
    if "fill" in look:
        parts.append(f"fill:{look['fill']}")
    if "stroke" in look:
        parts.append(f"stroke:{look['stroke']}")
    if "width" in look:
        parts.append(f"stroke-width:{look['width']}px")
    if "text" in look:
        parts.append(f"color:{look['text']}")
    if look.get("dashed"):
        parts.append("stroke-dasharray:5 3")
    return ",".join(parts)


def _link_styles(edges: tuple[Edge, ...]) -> list[str]:
    """``linkStyle`` by edge number, one line per look."""
    by_look: dict[str, list[str]] = {}
    for i, e in enumerate(edges):
        look = edge_style(e.classes)
        css = f"stroke:{look['color']},stroke-width:{look['width']}px"
        if look.get("dashed"):
            css += ",stroke-dasharray:5 3"
        by_look.setdefault(css, []).append(str(i))
    return [f"  linkStyle {','.join(ids)} {css}" for css, ids in by_look.items()]
