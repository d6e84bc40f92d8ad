"""How each class of node and edge looks, in terms both writers translate (colours, widths, dashes).

A node with several classes takes each property from the last class in ``NODE_ORDER``
that sets it: a winning head that is also an anomaly is outlined thick (head) and red
(anomaly), filled gold (winner).
"""

from __future__ import annotations

Style = dict[str, str | int | bool]

GREY, BLUE, RED, ORANGE = "#57606a", "#0969da", "#cf222e", "#bc4c00"

NODE_STYLES: dict[str, Style] = {
    # playbook events
    "event": {"fill": "#ffffff", "stroke": "#8c959f", "width": 1},
    "deprecation": {"fill": "#eaeef2", "text": GREY, "dashed": True},
    "new": {"fill": "#dafbe1"},
    "winner": {"fill": "#fff8c5"},
    "head": {"stroke": BLUE, "width": 3},
    "anomaly": {"stroke": RED},
    "ignored": {"fill": "#ffebe9", "text": GREY, "dashed": True},
    "missing": {"fill": "#ffffff", "stroke": RED, "text": RED, "dashed": True},
    "external": {"fill": "#ffffff", "stroke": ORANGE, "text": ORANGE, "dashed": True},
    "elided": {"fill": "#ffffff", "stroke": "#8c959f", "text": GREY, "dashed": True},
    "note": {"fill": "#ffffff", "stroke": "#d0d7de", "text": GREY},
    # agents and their base
    "base": {"fill": "#ddf4ff", "stroke": BLUE, "width": 2},
    "agent": {"fill": "#ffffff", "stroke": "#8c959f", "width": 1},
    "up-to-date": {"fill": "#f6f8fa", "text": GREY},
    "needs-sync": {"fill": "#ffffff"},
    "conflict": {"fill": "#ffebe9", "stroke": RED, "width": 2},
    "refused": {"fill": "#fff1e5", "stroke": ORANGE, "dashed": True},
}
NODE_ORDER = tuple(NODE_STYLES)

EDGE_STYLES: dict[str, Style] = {
    "chain": {"color": GREY, "width": 1, "arrow": True},
    "elided": {"color": "#8c959f", "dashed": True},
    "cycle": {"color": RED, "dashed": True, "width": 2},
    "dangling": {"color": RED, "dashed": True},
    "cross-target": {"color": ORANGE, "dashed": True},
    "same-id": {"color": RED, "dashed": True, "arrow": False},
    "fork": {"color": GREY, "width": 1, "arrow": True},
    "refused": {"color": ORANGE, "dashed": True},
    "conflict": {"color": RED, "width": 3, "arrow": False, "inline-label": True},
}
EDGE_ORDER = tuple(EDGE_STYLES)


def node_style(classes: tuple[str, ...]) -> Style:
    """The merged look of a node with these classes."""
    return _merged(NODE_STYLES, NODE_ORDER, classes)


def edge_style(classes: tuple[str, ...]) -> Style:
    """The merged look of an edge with these classes (an arrow unless a class says not)."""
    merged: Style = {"color": GREY, "width": 1, "arrow": True}
    merged.update(_merged(EDGE_STYLES, EDGE_ORDER, classes))
    return merged


def _merged(table: dict[str, Style], order: tuple[str, ...], classes: tuple[str, ...]) -> Style:
    out: Style = {}
    for name in order:
        if name in classes:
            out.update(table[name])
    return out
