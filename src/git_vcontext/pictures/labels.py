"""Label text a person can read on one line, whatever a document holds (any id, any text).

Both writers start from these strings and only add their own syntax's escaping.
"""

from __future__ import annotations

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
ELLIPSIS = "…"


def printable(text: str) -> str:
    """``text`` with control, format and separator characters and lone surrogates shown
    as escapes (``\\n``, ``\\u202e``…): what the id *is*, on one line, with nothing hidden."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else _escape(c) for c in text)


def _escape(c: str) -> str:
    named = _NAMED.get(c)
    if named is not None:
        return named
    o = ord(c)
    if o < 0x100:
        return f"\\x{o:02x}"
    return f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


def shorten(text: str, limit: int) -> str:
    """At most ``limit`` characters, an ellipsis marking a cut."""
    return text if len(text) <= limit else text[: limit - 1] + ELLIPSIS


def ident(value: object, limit: int = 40) -> str:
    """An id from a document as it is drawn: printable, shortened (a cut is always marked)."""
    text = value if isinstance(value, str) else repr(value)
    # a huge id is cut before it is escaped; escaping first means a cut never splits an escape
    return shorten(printable(text[: limit * 2]), limit)


def prose(value: object, limit: int = 44) -> str:
    """Free text from a document on one line: whitespace runs made one space, shortened."""
    text = value if isinstance(value, str) else "" if value is None else str(value)
    return shorten(printable(" ".join(text.split())), limit)
