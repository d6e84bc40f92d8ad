"""The conflicts listing as text: each file, each conflict with its three sides on a line
(``conflicts`` prints it, the MCP server answers with it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..merging.result import MISSING
from ..spelling import dumps
from ..validation.model import command_path, quoted_path

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ..resolution.model import FileConflict
    from .listing import FileListing, Listing


def render_text(listing: Listing) -> str:
    """The listing as lines of text, one file after the other."""
    lines: list[str] = []
    for f in listing.files:
        lines += _file_lines(f)
    lines += [
        f"{quoted_path(p)}: conflicted, not a vContext document (resolve it by hand)"
        for p in listing.others
    ]
    return "".join(line + "\n" for line in lines)


def by_hand(rel: str) -> str:
    """The way out of conflict markers no side can settle (``session.StrayMarkers``)."""
    return f"edit it by hand (git vcontext validate {command_path(rel)} says when it is whole)"


def _file_lines(f: FileListing) -> list[str]:
    if f.error and f.source == "markers":  # stray markers outside a stopped merge
        return [f"{quoted_path(f.path)}: {f.error}; {by_hand(f.path)}"]
    if f.error:
        return [f"{quoted_path(f.path)}: {f.error}; resolve it by hand, then git add it"]
    what = f" ({f.operation})" if f.operation else ""
    if not f.conflicts and f.source == "stages":
        return [
            f"{quoted_path(f.path)}: no conflict left as data{what}; "
            f"git vcontext resolve {command_path(f.path)} writes the merge and stages it"
        ]
    done = f", {f.resolved} resolved" if f.resolved else ""
    lines = [f"{quoted_path(f.path)}: {len(f.conflicts)} conflict(s){done}{what}"]
    lines += [
        f"  ours:   {f.labels.get('ours', 'ours')}",
        f"  theirs: {f.labels.get('theirs', 'theirs')}",
    ]
    if f.edited:
        lines.append("  (changed since the merge stopped: resolve works from git's index stages)")
    for c in f.conflicts:
        lines += conflict_lines(c, "  ", base_known=f.base_known, labels=f.labels)
    return lines


UNKNOWN_BASE = "(unknown: the markers have no base section)"


def conflict_lines(
    c: FileConflict,
    indent: str = "",
    *,
    base_known: bool = True,
    labels: Mapping[str, str] | None = None,
) -> list[str]:
    """A conflict on a few lines: id, where, kind, then each side's value; a side that
    deleted what the base had says so with its branch (``labels``), since which branch is
    "ours" depends on the direction of the merge."""
    lines = [f"{indent}{c.id} {c.where} ({c.kind})"]
    for side in ("base", "ours", "theirs"):
        shown = short(c.side(side)) if base_known or side != "base" else UNKNOWN_BASE
        deleted = side != "base" and c.side(side) is MISSING and c.base is not MISSING
        if deleted and base_known and labels and labels.get(side):
            shown = f"(absent: deleted on {labels[side]})"
        lines.append(f"{indent}    {side + ':':7} {shown}")
    return lines


def short(value: Any, limit: int = 120) -> str:
    """One line of JSON for a value (``(absent)`` for none), cut at ``limit`` characters."""
    if value is MISSING:
        return "(absent)"
    text = dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 1] + "…"
