"""The class header of a TRON document: which classes it defines and where the data begins."""

from __future__ import annotations

import re

from ...jsoncodec import scanstring, string

RESERVED = frozenset({"class", "true", "false", "null"})
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"')

_CLASS = re.compile(r"class[ \t]+")
_SKIP = re.compile(r"(?:[ \t\r\n;]+|#[^\n]*)*")  # between definitions, and before the data
_BLANK = re.compile(r"[ \t\r]*(?:#[^\n]*)?")  # the rest of a line may be a comment
_NEXT_LINE = re.compile(r"(?:[ \t\r]*(?:#[^\n]*)?\n)*([ \t]*)")  # skips blank/comment lines
_scanstring = scanstring


class HeaderError(Exception):
    """A mistake in the header, at a character offset of the text."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


class Header:
    """Classes (name -> property names, inherited ones first) in definition order.

    A plain class, not a dataclass: importing dataclasses costs more than this module.
    """

    __slots__ = ("classes", "classes_end", "data_start")

    def __init__(self, classes: dict[str, list[str]], data_start: int, classes_end: int) -> None:
        self.classes = classes
        self.data_start = data_start  # first character of the data (len(text) when none)
        self.classes_end = classes_end  # just after the last class definition (0 when none)


def read_header(text: str) -> Header:
    """Read the class definitions at the start of ``text`` (raises HeaderError)."""
    classes: dict[str, list[str]] = {}
    pos = _SKIP.match(text).end()  # type: ignore[union-attr]
    classes_end = 0
    while (m := _CLASS.match(text, pos)) is not None:
        pos = classes_end = _definition(text, m.end(), classes)
        pos = _SKIP.match(text, pos).end()  # type: ignore[union-attr]
    return Header(classes, pos, classes_end)


def _definition(text: str, pos: int, classes: dict[str, list[str]]) -> int:
    """Parse ``Name(Parent): props`` after the keyword; returns the end offset."""
    m = NAME.match(text, pos)
    if m is None:
        raise HeaderError(pos, "expected a class name after 'class'")
    name = m.group()
    if name in RESERVED:
        raise HeaderError(pos, f"'{name}' is a reserved word and cannot name a class")
    if name in classes:
        raise HeaderError(pos, f"class {name} is defined twice")
    pos = _blank(text, m.end())
    inherited: list[str] = []
    if text.startswith("(", pos):
        inherited, pos = _parent(text, _blank(text, pos + 1), classes)
    if not text.startswith(":", pos):
        raise HeaderError(pos, f"expected ':' after the class name {name}")
    props, end = _properties(text, pos + 1, name)
    seen = set(inherited)
    for prop, offset in props:
        if prop in seen:
            raise HeaderError(offset, f"property {string(prop)} appears twice in class {name}")
        seen.add(prop)
    if not seen:
        raise HeaderError(pos, f"class {name} needs at least one property")
    classes[name] = inherited + [p for p, _ in props]
    return end


def property_list_end(text: str, name: str) -> int | None:
    """Where the property list of class ``name`` ends in a header (just after its last
    property; comments and the line's end come after), or None when it has none there."""
    classes: dict[str, list[str]] = {}
    pos = _SKIP.match(text).end()  # type: ignore[union-attr]
    try:
        while (m := _CLASS.match(text, pos)) is not None:
            found = NAME.match(text, m.end())
            end = _definition(text, m.end(), classes)
            if found is not None and found.group() == name:
                return _last_property_end(text, m.end(), end)
            pos = _SKIP.match(text, end).end()  # type: ignore[union-attr]
    except HeaderError:
        return None
    return None


def _last_property_end(text: str, start: int, end: int) -> int:
    """The end of the last property between ``start`` and ``end`` (a definition)."""
    pos = text.index(":", start) + 1
    last = pos
    while pos < end:
        pos = _blank(text, pos)
        m = NAME.match(text, pos) or STRING.match(text, pos)
        if m is not None and pos < end:
            last = pos = m.end()
            continue
        pos += 1
    return last


def _parent(text: str, pos: int, classes: dict[str, list[str]]) -> tuple[list[str], int]:
    m = NAME.match(text, pos)
    if m is None:
        raise HeaderError(pos, "expected the name of the parent class after '('")
    if m.group() not in classes:
        raise HeaderError(pos, f"unknown parent class '{m.group()}' (define it first)")
    end = _blank(text, m.end())
    if not text.startswith(")", end):
        raise HeaderError(end, "expected ')' after the parent class name")
    return list(classes[m.group()]), _blank(text, end + 1)


def _properties(text: str, pos: int, name: str) -> tuple[list[tuple[str, int]], int]:
    """Property names separated by commas and/or indented continuation lines."""
    props: list[tuple[str, int]] = []
    need_separator = False
    while True:
        pos = _blank(text, pos)
        ch = text[pos : pos + 1]
        if ch in ("", ";"):
            return props, pos + len(ch)
        if ch == ",":
            pos, need_separator = pos + 1, False
            continue
        if ch == "\n":
            nxt = _continuation(text, pos)
            if nxt is None:
                return props, pos
            pos, need_separator = nxt, False
            continue
        if need_separator:
            raise HeaderError(pos, f"expected ',' between the properties of class {name}")
        prop, end = _property(text, pos, name)
        props.append((prop, pos))
        pos, need_separator = end, True


def _property(text: str, pos: int, name: str) -> tuple[str, int]:
    m = NAME.match(text, pos)
    if m is not None:
        if m.group() in RESERVED:
            word = m.group()
            raise HeaderError(pos, f"'{word}' is a reserved word; write the property as \"{word}\"")
        return m.group(), m.end()
    m = STRING.match(text, pos)
    if m is None:
        found = "an unterminated string" if text[pos] == '"' else repr(text[pos])
        raise HeaderError(pos, f"expected a property name in class {name}, found {found}")
    try:
        value, end = _scanstring(text, pos + 1, True)
    except ValueError as exc:
        raise HeaderError(getattr(exc, "pos", pos), f"invalid property name: {exc}") from None
    return value, end


def _continuation(text: str, newline: int) -> int | None:
    """Where the property list goes on after a newline, or None when the class ends.

    A continuation line is indented and starts with a property name (a name not
    followed by ``(``, ``:`` or ``=``, which would start the data) or a comma.
    """
    m = _NEXT_LINE.match(text, newline + 1)
    start = m.end()  # type: ignore[union-attr]
    if not m.group(1) or start >= len(text) or _CLASS.match(text, start):  # type: ignore[union-attr]
        return None
    if text[start] == ",":
        return start
    tok = NAME.match(text, start) or STRING.match(text, start)
    if tok is None or tok.group() in RESERVED:
        return None
    after = _blank(text, tok.end())
    return None if text[after : after + 1] in ("(", ":", "=") else start


def _blank(text: str, pos: int) -> int:
    return _BLANK.match(text, pos).end()  # type: ignore[union-attr]
