"""``log`` output: git's layout with structural changes (text), a JSON report, Markdown."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..diffing.markdown import code, escape
from ..diffing.markdown import render_markdown as changes_md
from ..diffing.model import DiffResult
from ..diffing.render import Palette, change_lines, palette
from ..values import json_report
from .log import LogEntry, LogSide
from .meta import CommitMeta

Meta = Callable[[str], CommitMeta]


def by_commit(entries: list[LogEntry]) -> list[tuple[str, list[LogEntry]]]:
    """Entries grouped by commit, in their order (one commit may change several files)."""
    groups: dict[str, list[LogEntry]] = {}
    for entry in entries:
        groups.setdefault(entry.commit, []).append(entry)
    return list(groups.items())


# -- text ------------------------------------------------------------------


def render_text(
    entries: list[LogEntry], meta: Meta, *, color: bool = False, name_files: bool = False
) -> str:
    """``git log`` for items: header, subject, then one line per change."""
    pal = palette(color)
    blocks = []
    for commit, group in by_commit(entries):
        lines = _header(meta(commit), pal)
        for entry in group:
            lines += _entry_lines(entry, meta, pal, name_files)
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


def _header(m: CommitMeta, pal: Palette) -> list[str]:
    grafted = " (grafted)" if m.boundary else ""  # as git log --decorate says it
    lines = [f"{pal.yellow}commit {m.commit}{grafted}{pal.reset}"]
    if len(m.parents) > 1:
        lines.append("Merge: " + " ".join(p[:7] for p in m.parents))
    lines += [f"Author: {m.author} <{m.email}>", f"Date:   {m.log_date}", ""]
    if m.boundary:
        lines += [
            f"    {m.subject}",
            "    (shallow clone: the history before this commit was not fetched, so what it",
            "    changed shows as added; git fetch --unshallow shows the rest)",
            "",
        ]
        return lines
    return [*lines, f"    {m.subject}", ""]


def _entry_lines(entry: LogEntry, meta: Meta, pal: Palette, name_files: bool) -> list[str]:
    lines = [f"    {pal.bold}{entry.path}{pal.reset}"] if name_files else []
    if entry.renamed_from:
        lines.append(f"    renamed from {entry.renamed_from}")
    if entry.unreadable is not None:
        lines.append(f"    {pal.yellow}! does not parse: {entry.unreadable}{pal.reset}")
    parents = meta(entry.commit).parents
    merge = len(parents) > 1
    sides = entry.sides
    if len(parents) > 2:  # an integration of several branches: what it brought into the first
        sides = tuple(s for s in sides if s.parent == parents[0]) or sides
    for side in sides:
        indent = "    "
        heading = _side_heading(side, meta(entry.commit), merge)
        if heading:
            lines.append(f"    {heading}")
            indent = "        " if merge else indent
        if side.base_path and side.base_path != entry.path:
            lines.append(f"    renamed from {side.base_path}")
        lines += [indent + line for c in side.changes for line in change_lines(c, pal)]
    return lines


def _side_heading(side: LogSide, m: CommitMeta, merge: bool) -> str:
    against = side.base[:7] if side.base else None
    if merge and side.parent is not None:
        others = " ".join(p[:7] for p in m.parents if p != side.parent)
        return f"brought by {others} (against {side.parent[:7]}):"
    if side.parent is not None and side.base != side.parent:
        where = f"against {against}" if against else "against no earlier version"
        return f"({where}: {side.parent[:7]} does not parse)"
    return ""


# -- JSON -------------------------------------------------------------------


def render_json(entries: list[LogEntry], meta: Meta) -> str:
    """``{"commits": [{"commit", "author", "date", "subject", "changes": [...]}, ...]}``."""
    return json_report({"commits": [_commit_json(c, g, meta(c)) for c, g in by_commit(entries)]})


def _commit_json(commit: str, group: list[LogEntry], m: CommitMeta) -> dict[str, Any]:
    out: dict[str, Any] = {
        "commit": commit,
        "author": m.author,
        "email": m.email,
        "date": m.iso_date,
        "subject": m.subject,
        "parents": list(m.parents),
    }
    if m.boundary:
        out["boundary"] = True  # a shallow clone's oldest commit: its parents not fetched
    first_parent = m.parents[0] if m.parents else None
    out["changes"] = [
        {**c.to_json(), "file": e.path}
        for e in group
        for side in e.sides
        if side.parent == first_parent or len(e.sides) == 1
        for c in side.changes
    ]
    out["files"] = [_file_json(e) for e in group]
    sides = [_side_json(e, s) for e in group for s in e.sides if _needs_side(s, m)]
    if sides:
        out["sides"] = sides
    return out


def _file_json(entry: LogEntry) -> dict[str, Any]:
    out: dict[str, Any] = {"path": entry.path}
    old = entry.renamed_from or next(
        (s.base_path for s in entry.sides if s.base_path and s.base_path != entry.path), None
    )
    if old:
        out["oldPath"] = old
    if entry.unreadable is not None:
        out["unreadable"] = entry.unreadable
    return out


def _needs_side(side: LogSide, m: CommitMeta) -> bool:
    return len(m.parents) > 1 or side.base != side.parent


def _side_json(entry: LogEntry, side: LogSide) -> dict[str, Any]:
    return {
        "parent": side.parent,
        "against": side.base,
        "file": entry.path,
        "changes": [c.to_json() for c in side.changes],
    }


# -- Markdown ---------------------------------------------------------------


def render_markdown(entries: list[LogEntry], meta: Meta, *, title: str | None = None) -> str:
    """For pull requests and issues: a section per commit, its changes grouped by item."""
    lines = [f"## History of {code(title)}", ""] if title else []
    if not entries:
        return "\n".join([*lines, "_No commits changed it._", ""])
    for commit, group in by_commit(entries):
        m = meta(commit)
        lines += [f"### {code(commit[:7])} {escape(m.subject)}", ""]
        lines += [f"_{escape(m.author)}, {m.short_date}_", ""]
        for entry in group:
            if entry.unreadable is not None:
                lines += [f"⚠️ {code(entry.path)} does not parse: {escape(entry.unreadable)}", ""]
            for side in entry.sides:
                heading = _side_heading(side, m, len(m.parents) > 1)
                if heading:
                    lines += [f"**{escape(heading)}**", ""]
                lines.append(changes_md(DiffResult(side.changes)).rstrip("\n"))
                lines.append("")
    return "\n".join(lines)
