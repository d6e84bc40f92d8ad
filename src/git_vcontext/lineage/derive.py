"""A JSON version read from its neighbour when only lines inside items changed.

Exact by construction, never a guess. The two texts have the same number of lines;
every line that differs is either a whole ``"key": scalar`` (or ``scalar``) line,
with the same key and comma, outside all items in both texts, or lies inside one
item that has no item inside it; that item's text in the new version, from the
unchanged start of its first line to the unchanged end of its last line, parses
alone (strictly) as one object with the same id. A JSON value reads the same
wherever it stands, so the new text parses exactly as the old one with those
values replaced: its items are the old ones with those replaced. Anything else
gives None, and the version is parsed in full.
"""

from __future__ import annotations

import re
from itertools import compress
from operator import ne
from typing import Any

from ..codecs.json_text import parse_value
from ..codecs.text import data_deeper_than, decode
from ..errors import ParseError
from ..values import MAX_DEPTH
from .items import Index, key_of
from .layout import Layout, Span, value_text
from .parsed import Unparsed, Version
from .slots import Slot, identity

MAX_CHANGED_LINES = 200
"""More changed lines than this: a rewrite, parsed in full."""

_STRING = r'"(?:[^"\\]|\\.)*"'
_SCALAR = rf"(?:{_STRING}|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)"
_PLAIN_LINE = re.compile(
    rf"(?P<lead>[ \t]*(?:(?P<key>{_STRING})[ \t]*:[ \t]*)?)(?P<value>{_SCALAR})"
    r"(?P<tail>[ \t]*,?[ \t]*\r?)\Z"
)


def derive(near: Version, blob: str, raw: bytes) -> Version | None:
    """The version ``raw`` holds, read from ``near`` (a JSON version); None if it cannot be."""
    if near.text is None or raw.count(b"\n") != near.newlines:
        return None
    try:
        text, bom = decode(raw)
    except ParseError:
        return None
    lines = text.split("\n")
    old = near.lines
    changed = _changed(old, lines)
    if not changed or len(changed) > MAX_CHANGED_LINES or bom != near.bom:
        return None
    lay = near.layout
    if lay is None:
        return None
    touched = _touched(lay, old, lines, changed)
    if touched is None:
        return None
    slots = list(near.index.slots)
    by_key = dict(near.index.by_key)
    spans: dict[int, Span] = {}
    for i in touched:
        got = _reread(lay, lines, i, slots[i])
        if got is None:
            return None
        _replace(slots, by_key, i, got[0])
        spans[i] = got[1]
        for j in _ancestors(lay, i):  # the items around it hold its new value too
            outer = slots[j]
            value = _put(outer.value, slots[i].parts[len(outer.parts) :], got[0].value)
            _replace(slots, by_key, j, _with_value(outer, value))
    return _version(near, blob, text, bom, (slots, by_key), lay.replaced(lines, spans))


def _replace(slots: list[Slot], by_key: dict[str, list[Slot]], i: int, new: Slot) -> None:
    old = slots[i]
    slots[i] = new
    key = key_of(old.ident)
    by_key[key] = [new if s is old else s for s in by_key[key]]


def _ancestors(lay: Layout, i: int) -> list[int]:
    """The slots around slot ``i``, innermost first."""
    out = []
    j = lay.parent[i]
    while j >= 0:
        out.append(j)
        j = lay.parent[j]
    return out


def _changed(old: list[str], new: list[str], block: int = 64) -> list[int]:
    """The numbers of the lines that differ (same count), compared a block at a time."""
    out: list[int] = []
    for start in range(0, len(new), block):
        end = start + block
        if new[start:end] != old[start:end]:
            out += compress(
                range(start, min(end, len(new))), map(ne, new[start:end], old[start:end])
            )
    return out


def _put(container: Any, path: tuple[str | int, ...], value: Any) -> Any:
    """A copy of ``container`` with ``value`` at ``path`` (only the path is copied)."""
    if not path:
        return value
    copy: Any = dict(container) if isinstance(container, dict) else list(container)
    copy[path[0]] = _put(container[path[0]], path[1:], value)
    return copy


def _with_value(slot: Slot, value: Any) -> Slot:
    return Slot(slot.kind, slot.ident, slot.parts, value, slot.prev, slot.root)


def _touched(lay: Layout, old: list[str], new: list[str], changed: list[int]) -> list[int] | None:
    """The items whose text changed, or None when a change lies elsewhere than allowed."""
    touched: dict[int, None] = {}
    for n in changed:
        i = lay.owner[n]
        if lay.shared[n]:
            return None
        if i < 0:
            if not _same_shape(old[n], new[n]):
                return None
        elif not lay.leaf[i]:
            return None
        else:
            touched[i] = None
    return list(touched)


def _same_shape(old: str, new: str) -> bool:
    """Both lines hold one scalar (after the same key) and the same comma: only a value
    changed; the new value must read as JSON does (no 1e400, no bad escape)."""
    a, b = _PLAIN_LINE.match(old), _PLAIN_LINE.match(new)
    if a is None or b is None or a["key"] != b["key"]:
        return False
    if a["tail"].strip() != b["tail"].strip():
        return False
    try:
        parse_value(b["value"])
    except ParseError:
        return False
    return True


def _reread(lay: Layout, lines: list[str], i: int, slot: Slot) -> tuple[Slot, Span] | None:
    """The item's new value and place, if its text is still one object with the same id."""
    first, c0, last, c1 = lay.spans[i]
    old = lay.lines
    tail = old[last][c1:]
    if lines[first][:c0] != old[first][:c0] or not lines[last].endswith(tail):
        return None
    end = len(lines[last]) - len(tail)
    if first == last and end <= c0:
        return None
    span = (first, c0, last, end)
    try:
        value = parse_value(value_text(lines, span))
    except ParseError:
        return None
    if type(value) is not dict or identity(value) != identity(slot.value):
        return None
    if data_deeper_than(value, MAX_DEPTH - len(slot.parts) - 1):
        return None
    return _with_value(slot, value), span


def _version(
    near: Version,
    blob: str,
    text: str,
    bom: bool,
    found: tuple[list[Slot], dict[str, list[Slot]]],
    lay: Layout,
) -> Version:
    lazy = Unparsed(text)
    version = Version(blob, near.path, lazy, text=text, bom=bom)
    index = Index(source=lazy, slots=found[0])  # data parsed only if asked for (playbooks)
    index.__dict__.update(by_key=found[1], has_playbook=near.index.has_playbook)  # same kinds
    version.__dict__.update(index=index, lines=lay.lines, layout=lay)
    return version
