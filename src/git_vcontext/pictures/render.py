"""A picture in the format asked for, and a warning when mermaid would refuse to draw it."""

from __future__ import annotations

from .dot import render_dot
from .mermaid import render_mermaid, too_big
from .model import Picture

FORMATS = ("dot", "mermaid")


def render(picture: Picture, fmt: str, *, name: str) -> tuple[str, str | None]:
    """The text, and why GitHub, GitLab or mermaid.live would not draw it (None: they would)."""
    if fmt == "dot":
        return render_dot(picture, name=name), None
    text = render_mermaid(picture)
    why = too_big(text, picture)
    if why is None:
        return text, None
    return text, f"this diagram has {why}: renderers will refuse it; draw fewer targets or use dot"
