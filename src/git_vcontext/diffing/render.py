"""Text and JSON renderings of a diff: one identity-anchored line per change."""

from __future__ import annotations

from ..record import record
from ..values import json_report
from . import show
from .labels import key_label

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .model import Change, DiffResult


@record
class Palette:
    """ANSI colours (all empty when colour is off)."""

    red: str = ""
    green: str = ""
    cyan: str = ""
    yellow: str = ""
    bold: str = ""
    reset: str = ""


PLAIN = Palette()
COLOR = Palette("\x1b[31m", "\x1b[32m", "\x1b[36m", "\x1b[33m", "\x1b[1m", "\x1b[m")


def palette(color: bool) -> Palette:
    """The palette for ``color`` on or off."""
    return COLOR if color else PLAIN


def render_text(result: DiffResult, *, color: bool = False) -> str:
    """All changes, one line each (text changes add indented line-diff lines)."""
    pal = palette(color)
    lines = [line for change in result.changes for line in change_lines(change, pal)]
    return "".join(line + "\n" for line in lines)


def change_lines(change: Change, pal: Palette = PLAIN) -> list[str]:
    """The line (and, for text, the line diff) that shows one change."""
    expanded = _expanded(change, pal)
    if expanded:
        first, more = expanded[0], expanded[1:]
    else:
        head, more = _describe(change, pal)
        first = f"{change.anchor}: {head}"
    if change.guess:
        first += " (matched by title)"
    if change.note:
        first += f"  {pal.yellow}! {change.note}{pal.reset}"
    return [first, *more]


def _expanded(change: Change, pal: Palette) -> list[str]:
    """An added or removed object too long for one line: one line per member."""
    v = change.new if change.op == "add" else change.old
    if change.kind != "value" or change.op not in ("add", "remove") or not isinstance(v, dict):
        return []
    if len(show.value(v, limit=show.MAX_INLINE + 1)) <= show.MAX_INLINE:
        return []
    sign, colour = ("+", pal.green) if change.op == "add" else ("−", pal.red)
    return [
        f"{change.anchor}{key_label(k)}: {colour}{sign} {show.value(x)}{pal.reset}"
        for k, x in v.items()
    ]


def _describe(change: Change, pal: Palette) -> tuple[str, list[str]]:
    if change.op == "add":
        return f"{pal.green}+ {show.summary(change)}{pal.reset}", []
    if change.op == "remove":
        return f"{pal.red}− {show.summary(change)}{pal.reset}", []
    if change.op == "move":
        return f"{pal.cyan}{show.moved(change)}{pal.reset}", []
    if change.kind == "set":
        return " ".join(_member(sign, v, pal) for sign, v in show.set_members(change)), []
    old, new = change.old, change.new
    if change.kind == "text":
        return _text_change(old, new, pal)
    if show.long_text(old, new):
        words = show.word_diff(old, new)
        if words is None:  # mostly rewritten: old and new in full, one line each
            return _text_change(old, new, pal)
        return "~ " + "".join(_word(tag, text, pal) for tag, text in words), []
    return f"{pal.red}{show.value(old)}{pal.reset} → {pal.green}{show.value(new)}{pal.reset}", []


def _member(sign: str, v: str, pal: Palette) -> str:
    colour = pal.green if sign == "+" else pal.red
    return f"{colour}{sign}{v}{pal.reset}"


def _word(tag: str, text: str, pal: Palette) -> str:
    if tag == " ":
        return text
    if pal is PLAIN:  # git's --word-diff=plain markers when there is no colour
        return f"[-{text}-]" if tag == "-" else f"{{+{text}+}}"
    return f"{pal.red if tag == '-' else pal.green}{text}{pal.reset}"


def _text_change(old: str, new: str, pal: Palette) -> tuple[str, list[str]]:
    added, removed = show.line_counts(old, new)
    head = f"text changed ({pal.green}+{added}{pal.reset} {pal.red}−{removed}{pal.reset} lines)"
    body = []
    for tag, line in show.line_diff(old, new):
        colour = {"-": pal.red, "+": pal.green}.get(tag, "")
        body.append(f"    {colour}{tag} {line}{pal.reset if colour else ''}".rstrip())
    return head, body


def render_json(result: DiffResult) -> str:
    """``{"version": 1, "changes": [...]}`` (see ``git_vcontext.diffing``)."""
    return json_report(result.to_json())


def stat_line(result: DiffResult, status: str = "modified") -> str:
    """``3 changes: 1 added, 1 removed, 1 changed`` (counts of the ops present); in an added
    (deleted) file everything was added (removed), sets and lists filled from empty too."""
    counts: dict[str, int] = {}
    whole = {"added": "add", "deleted": "remove"}.get(status)
    for change in result.changes:
        op = whole or change.op
        counts[op] = counts.get(op, 0) + 1
    words = {"add": "added", "remove": "removed", "change": "changed", "move": "moved"}
    parts = [f"{counts[op]} {words[op]}" for op in words if op in counts]
    total = len(result.changes)
    noun = "change" if total == 1 else "changes"
    return f"{total} {noun}" + (": " + ", ".join(parts) if parts else "")
