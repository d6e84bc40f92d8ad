"""Mermaid pictures in the markdown diff: one per playbook target whose heads changed.

GitHub and GitLab draw a fenced ``mermaid`` block in a comment, so a pull request that
branches a chain (or joins its heads again) shows it.
"""

from __future__ import annotations

from typing import Any

from ..pictures.changes import changed_heads
from ..pictures.labels import ident
from ..pictures.mermaid import render_mermaid, too_big
from .labels import id_label
from .markdown import code

MAX_PICTURES = 10
"""Per file; a change that branches more targets names how many more there are."""


def head_pictures(old: Any, new: Any) -> str:
    """Markdown blocks to append to a file's diff ("" when no target's heads changed)."""
    lines: list[str] = []
    drawn = more = 0
    for path, entry, picture in changed_heads(old, new):
        if drawn == MAX_PICTURES:
            more += 1
            continue
        drawn += 1
        lines += _block(path, entry, picture)
    if more:
        lines += ["", f"_{more} more target(s) with changed heads are not drawn._"]
    return "\n".join(lines) + "\n" if lines else ""


def _block(path: tuple[str | int, ...], entry: Any, picture: Any) -> list[str]:
    """A bold heading naming the target and its heads, then the fenced mermaid picture."""
    name = ".".join(str(p) for p in path) + id_label(ident(entry.target_id, 60), "targetId")
    if entry.multi_head:
        what = f"{len(entry.open_heads)} heads, {ident(entry.winner)} shown"
    else:
        what = "heads settled" if entry.settled else "heads joined again"
    head = f"**{code(name)}**: {what}"
    text = render_mermaid(picture)
    why = too_big(text, picture)
    if why is not None:
        return ["", f"{head} (not drawn: {why})"]
    # labels hold no backtick (mermaid.text writes one as an entity): a plain fence holds
    return ["", head, "", "```mermaid", text.rstrip("\n"), "```"]
