"""Where each identified element of a JSON text sits: its first and last line and columns.

A walk down the text that follows the elements' paths: containers on the way to an
element are scanned member by member, everything else is skipped with the C
decoder. Lines are the text split at ``\\n`` (JSON strings hold no raw newline, so
every line starts outside a string).
"""

from __future__ import annotations

import bisect
import json
import re

from .slots import Parts, Slot

_DECODER = json.JSONDecoder()
_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]
_WS = re.compile(r"[ \t\n\r]*")
_COLON = re.compile(r"[ \t\n\r]*:[ \t\n\r]*")
_AFTER = re.compile(r"[ \t\n\r]*(,)[ \t\n\r]*")

Span = tuple[int, int, int, int]
"""(first line, column of its opening brace, last line, column just after its end)."""


class Layout:
    """The lines of a JSON text and the span of every slot (same order as the slots)."""

    def __init__(self, lines: list[str], spans: list[Span], slots: list[Slot]) -> None:
        self.lines = lines
        self.spans = spans
        self.owner, self.shared, self.leaf = _paint(len(lines), spans, slots)
        self.parent = _parents(slots)

    def replaced(self, lines: list[str], new_spans: dict[int, Span]) -> Layout:
        """The layout of a text with the same lines except inside these slots."""
        spans = list(self.spans)
        for i, span in new_spans.items():
            spans[i] = span
        out = object.__new__(Layout)
        out.lines, out.spans = lines, spans
        out.owner, out.shared, out.leaf = self.owner, self.shared, self.leaf
        out.parent = self.parent
        return out


def layout(text: str, slots: list[Slot]) -> Layout | None:
    """The layout of ``text`` (whose parse gave ``slots``); None if it cannot be read so."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    want: set[Parts] = set()  # containers on the way to a slot (a leaf is skipped whole)
    for slot in slots:
        want.update(slot.parts[:n] for n in range(len(slot.parts)))
    found: dict[Parts, tuple[int, int]] = {}
    try:
        _container(text, _skip(text, 0), (), want, found)
    except (ValueError, IndexError):
        return None

    spans = []
    for slot in slots:
        if slot.parts not in found:
            return None
        start, end = found[slot.parts]
        first = bisect.bisect_right(starts, start) - 1
        last = bisect.bisect_right(starts, end - 1) - 1
        spans.append((first, start - starts[first], last, end - starts[last]))
    return Layout(lines, spans, slots)


def _skip(text: str, pos: int) -> int:
    return _WS.match(text, pos).end()  # type: ignore[union-attr]


def _container(
    text: str, pos: int, parts: Parts, want: set[Parts], found: dict[Parts, tuple[int, int]]
) -> int:
    """Scan the object or array opening at ``pos``; the offset just after it."""
    is_object = text[pos] == "{"
    pos = _skip(text, pos + 1)
    if text[pos] in "}]":
        return pos + 1
    index = 0
    while True:
        part: str | int = index
        if is_object:
            part, pos = _scanstring(text, pos + 1)
            pos = _COLON.match(text, pos).end()  # type: ignore[union-attr]
        here = (*parts, part)
        if here in want and text[pos] in "{[":
            end = _container(text, pos, here, want, found)
        else:
            end = _DECODER.raw_decode(text, pos)[1]
        found[here] = (pos, end)
        after = _AFTER.match(text, end)
        if after is None or after.group(1) != ",":
            return _skip(text, end) + 1
        pos = after.end()
        index += 1


def _paint(
    count: int, spans: list[Span], slots: list[Slot]
) -> tuple[list[int], list[bool], list[bool]]:
    """For each line its innermost slot (-1: none) and whether two slots side by side share
    it; for each slot whether no other slot is inside it (slots come parents first)."""
    owner = [-1] * count
    shared = [False] * count
    for i, span in enumerate(spans):
        for line in range(span[0], span[2] + 1):
            j = owner[line]
            if j >= 0 and not _inside(span, spans[j]):
                shared[line] = True
            owner[line] = i
    leaf = [
        i + 1 >= len(slots) or slots[i + 1].parts[: len(s.parts)] != s.parts
        for i, s in enumerate(slots)
    ]
    return owner, shared, leaf


def _parents(slots: list[Slot]) -> list[int]:
    """For each slot the slot right around it (-1: none); slots come parents first."""
    out: list[int] = []
    open_: list[int] = []  # the slots around the current one, outermost first
    for i, slot in enumerate(slots):
        while open_ and slot.parts[: len(slots[open_[-1]].parts)] != slots[open_[-1]].parts:
            open_.pop()
        out.append(open_[-1] if open_ else -1)
        open_.append(i)
    return out


def _inside(inner: Span, outer: Span) -> bool:
    return (outer[0], outer[1]) <= (inner[0], inner[1]) and (inner[2], inner[3]) <= (
        outer[2],
        outer[3],
    )


def value_text(lines: list[str], span: Span) -> str:
    """The text of a span: from its first line's column to its last line's column."""
    first, c0, last, c1 = span
    if first == last:
        return lines[first][c0:c1]
    return "\n".join([lines[first][c0:], *lines[first + 1 : last], lines[last][:c1]])
