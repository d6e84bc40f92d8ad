"""Markdown rendering for pull-request comments: grouped by item, text diffs collapsible."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from . import show
from .render import stat_line

if TYPE_CHECKING:
    from .model import Change, DiffResult

_TOP = re.compile(r"[^.\[]+|\[[^\]]*\]")


def render_markdown(result: DiffResult, *, title: str | None = None) -> str:
    """A summary line, then one block per item (or container) with a bullet per change."""
    lines: list[str] = [f"### {code(title)}", ""] if title else []
    if not result:
        return "\n".join([*lines, "_No changes._", ""])
    lines.append(stat_line(result))
    for group, changes in _groups(result.changes).items():
        lines += ["", _header(group, changes)]
        for change in changes:
            lines += _bullet(change, group)
    return "\n".join(lines) + "\n"


def _groups(changes: tuple[Change, ...]) -> dict[str, list[Change]]:
    groups: dict[str, list[Change]] = {}
    for change in changes:
        groups.setdefault(change.item or _top(change.anchor), []).append(change)
    return groups


def _top(anchor: str) -> str:
    m = _TOP.match(anchor)
    return m.group() if m else anchor


def _header(group: str, changes: list[Change]) -> str:
    title = next((c.item_title for c in changes if c.item_title), None)
    return f"**{code(group)}**" + (f" — {escape(title)}" if title else "")


def _bullet(change: Change, group: str) -> list[str]:
    rel = change.anchor[len(group) :].lstrip(".") if change.anchor.startswith(group) else ""
    label = f"{code(rel)}: " if rel else ""
    first, more = _describe(change)
    if change.guess:
        first += " _(matched by title)_"
    if change.note:
        first += f" ⚠️ {escape(change.note)}"
    return [f"- {label}{first}", *more]


def _describe(change: Change) -> tuple[str, list[str]]:
    if change.op == "add":
        return f"**added** {code(show.summary(change))}", []
    if change.op == "remove":
        return f"**removed** {code(show.summary(change))}", []
    if change.op == "move":
        return show.moved(change), []
    if change.kind == "set":
        return " ".join(f"{s}{code(v)}" for s, v in show.set_members(change)), []
    if change.kind == "text" or show.long_text(change.old, change.new):
        added, removed = show.line_counts(change.old, change.new)
        head = f"text changed (+{added} −{removed} lines)"
        return head, _details(show.line_diff(change.old, change.new))
    return f"{code(show.value(change.old))} → {code(show.value(change.new))}", []


def _details(pairs: list[tuple[str, str]]) -> list[str]:
    body = [("…" if tag == "…" else tag + line) for tag, line in pairs]
    fence = "`" * max(3, 1 + max((len(r) for b in body for r in re.findall("`+", b)), default=0))
    block = [
        "<details><summary>line diff</summary>",
        "",
        fence + "diff",
        *body,
        fence,
        "",
        "</details>",
    ]
    return ["  " + line if line else "" for line in block]


def code(text: str) -> str:
    """``text`` as a Markdown code span, whatever backticks it holds."""
    runs = [len(r) for r in re.findall("`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def escape(text: str) -> str:
    """Text safe inside Markdown: one line, its special characters escaped."""
    return re.sub(r"([\\`*_\[\]<>#|])", r"\\\1", text.replace("\n", " "))
