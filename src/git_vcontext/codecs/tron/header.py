"""The class header of a TRON document: which classes it defines and where the data begins."""

from __future__ import annotations

from ...jsoncodec import scanstring, string
from .lexer import blank_end, class_end, name_end, skip_end, string_end

RESERVED = frozenset({"class", "true", "false", "null"})
_scanstring = scanstring

# The header is read by hand, not by regular expressions (issue 32: the merge driver then
# loads no ``re``); each reader below names the expression it stands for.


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
    pos = skip_end(text, 0)
    classes_end = 0
    while (after := class_end(text, pos)) >= 0:
        pos = classes_end = _definition(text, after, classes)
        pos = skip_end(text, pos)
    return Header(classes, pos, classes_end)


def _definition(text: str, pos: int, classes: dict[str, list[str]]) -> int:
    """Parse ``Name(Parent): props`` after the keyword; returns the end offset."""
    end = name_end(text, pos)
    if end == pos:
        raise HeaderError(pos, "expected a class name after 'class'")
    name = text[pos:end]
    if name in RESERVED:
        raise HeaderError(pos, f"'{name}' is a reserved word and cannot name a class")
    if name in classes:
        raise HeaderError(pos, f"class {name} is defined twice")
    pos = blank_end(text, end)
    inherited: list[str] = []
    if text.startswith("(", pos):
        inherited, pos = _parent(text, blank_end(text, pos + 1), classes)
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
    pos = skip_end(text, 0)
    try:
        while (after := class_end(text, pos)) >= 0:
            found = text[after : name_end(text, after)]
            end = _definition(text, after, classes)
            if found == name:
                return _last_property_end(text, after, end)
            pos = skip_end(text, end)
    except HeaderError:
        return None
    return None


def _last_property_end(text: str, start: int, end: int) -> int:
    """The end of the last property between ``start`` and ``end`` (a definition)."""
    pos = text.index(":", start) + 1
    last = pos
    while pos < end:
        pos = blank_end(text, pos)
        token_end = _token_end(text, pos)
        if token_end > pos and pos < end:
            last = pos = token_end
            continue
        pos += 1
    return last


def _parent(text: str, pos: int, classes: dict[str, list[str]]) -> tuple[list[str], int]:
    end = name_end(text, pos)
    if end == pos:
        raise HeaderError(pos, "expected the name of the parent class after '('")
    parent = text[pos:end]
    if parent not in classes:
        raise HeaderError(pos, f"unknown parent class '{parent}' (define it first)")
    end = blank_end(text, end)
    if not text.startswith(")", end):
        raise HeaderError(end, "expected ')' after the parent class name")
    return list(classes[parent]), blank_end(text, end + 1)


def _properties(text: str, pos: int, name: str) -> tuple[list[tuple[str, int]], int]:
    """Property names separated by commas and/or indented continuation lines."""
    props: list[tuple[str, int]] = []
    need_separator = False
    while True:
        pos = blank_end(text, pos)
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
    end = name_end(text, pos)
    if end > pos:
        word = text[pos:end]
        if word in RESERVED:
            raise HeaderError(pos, f"'{word}' is a reserved word; write the property as \"{word}\"")
        return word, end
    if string_end(text, pos) < 0:
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
    # (?:[ \t\r]*(?:#[^\n]*)?\n)*([ \t]*): blank and comment lines, then the indentation
    line = newline + 1
    while (after := blank_end(text, line)) < len(text) and text[after] == "\n":
        line = after + 1
    start = line
    while start < len(text) and text[start] in " \t":
        start += 1
    if start == line or start >= len(text) or class_end(text, start) >= 0:
        return None
    if text[start] == ",":
        return start
    end = _token_end(text, start)
    if end == start or text[start:end] in RESERVED:
        return None
    after = blank_end(text, end)
    return None if text[after : after + 1] in ("(", ":", "=") else start


def _token_end(text: str, pos: int) -> int:
    """After a name or a string at ``pos``; ``pos`` when neither is there."""
    end = name_end(text, pos)
    return end if end > pos else max(string_end(text, pos), pos)
