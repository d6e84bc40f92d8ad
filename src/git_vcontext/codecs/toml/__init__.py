"""TOML (VerMAS templates and any TOML file): read with stdlib ``tomllib``, write minimal edits.

Reading gives plain data the engine understands: TOML date-times, dates and times
become ``TomlDateTime`` strings (RFC 3339 text that remembers its TOML value, so a
merged date-time is written back as one), and every NaN is one shared float, so
that two readings of ``nan`` compare equal. Writing edits ours' text through
``tomlkit`` (``toml/edit``): comments, key order, string styles and layout kept.
"""

from __future__ import annotations

import re
import tomllib
from typing import TYPE_CHECKING

from ...errors import ParseError, caret_snippet, parse_error_at
from ...values import MAX_DEPTH, JsonValue, same
from ..text import SourceText, data_deeper_than, decode, marker_error
from .scalars import plain

if TYPE_CHECKING:
    from typing import Any

_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")
_AT_END = re.compile(r"\s*\(at end of document\)$")


class TomlDocument(SourceText):
    """A parsed TOML file; ``render`` writes new data as a minimal edit of its text."""

    format = "toml"

    def __init__(self, text: str, data: dict[str, Any], bom: bool) -> None:
        self.text = text
        self.data = data
        self.bom = bom

    def render(self, new: JsonValue) -> str:
        """``new`` written into ours' text: unchanged parts byte-identical (ParseError when
        tomlkit cannot edit this text or TOML cannot hold a value, e.g. ``null``)."""
        if not isinstance(new, dict):
            raise ParseError("a TOML document holds a table at the top")
        if same(new, self.data):
            return self.source()
        # lazy: tomlkit only when TOML is written
        from .edit import edited

        text = edited(self.text, self.data, new)
        again = loads(text)
        if again.data != new:
            raise ParseError("the TOML writer could not express the merged data")
        return self._handing_over(self.with_bom(text), text, again)


def loads(raw: bytes | str) -> TomlDocument:
    """Parse TOML (a ParseError located at line:column when it is not TOML)."""
    text, bom = decode(raw)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise marker_error(text) or _located(text, str(exc)) from None
    except RecursionError:
        raise ParseError(f"nesting deeper than {MAX_DEPTH} levels; not read") from None
    except ValueError:  # tomllib's int() of more digits than Python converts
        raise _too_long(text) from None
    if data_deeper_than(data, MAX_DEPTH):
        raise ParseError(f"nesting deeper than {MAX_DEPTH} levels; not read")
    return TomlDocument(text, plain(data), bom)


def _too_long(text: str) -> ParseError:
    """An integer far beyond TOML's 64 bits (which TOML says must be an error)."""
    found = re.search(r"[0-9_]{4000,}", text)
    where = found.start() if found else 0
    return parse_error_at(text, where, "invalid TOML: an integer beyond 64 bits")


def _located(text: str, message: str) -> ParseError:
    """tomllib's message ``Expected ... (at line 3, column 5)`` as a located ParseError."""
    found = _AT.search(message)
    if found is None:
        if _AT_END.search(message):
            line = text.count("\n") + 1
            column = len(text) - (text.rfind("\n") + 1) + 1
            reason = _AT_END.sub("", message)
            return ParseError(
                f"invalid TOML: {reason} at the end of the file", line=line, column=column
            )
        return ParseError(f"invalid TOML: {message}")
    line, column = int(found.group(1)), int(found.group(2))
    reason = message[: found.start()]
    snippet = caret_snippet(text, line, column)
    return ParseError(f"invalid TOML: {reason}", line=line, column=column, snippet=snippet)


def dumps(value: JsonValue) -> str:
    """A fresh TOML text for a table (tomlkit's layout; multi-line strings as such)."""
    # lazy: tomlkit only when TOML is written
    from .items import fresh

    if not isinstance(value, dict):
        raise ValueError("a TOML document holds a table at the top")
    return fresh(value)
