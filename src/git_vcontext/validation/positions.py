"""Where a JSON Pointer's value sits in the source text: line and column for findings.

JSON: exact, by scanning only the containers on the way down. TRON: exact, by a token
walk (``codecs/tron/locate``). JSONL: the record's line, then JSON.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

from ..codecs.json_text import scan_container
from ..errors import position_of
from ..jsoncodec import skip_whitespace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

Parts = Sequence[str | int]


def json_offset(text: str, parts: Parts, scan: Any = None) -> int:
    """Offset of the value at ``parts`` (the key, for object members) in a JSON text.

    ``scan(start)`` lists the members of the container opening at ``start``; a
    document's own cached scanner makes many findings in one big file cheap.
    """
    pos = skip_whitespace(text, 0)
    last = len(parts) - 1
    for i, part in enumerate(parts):
        if pos >= len(text) or text[pos] not in "{[":
            break
        if text[pos] == "[":
            if not isinstance(part, int):
                break
            found = scan(pos) if scan else scan_container(text, pos, limit=part + 1)
            members = found.members
            if part >= len(members):
                break
            pos = members[part].value_start
            continue
        found = scan(pos) if scan else scan_container(text, pos)
        member = next((m for m in found.members if m.key == part), None)
        if member is None:
            break
        pos = member.value_start if i < last else member.start
    return pos


def locator(
    text: str, fmt: str, *, scan: Any = None
) -> Callable[[Parts], tuple[int | None, int | None]] | None:
    """A function from path parts to (line, column) in ``text`` (``fmt``: json, jsonl or
    tron).

    Built for many findings in one text: the line index is made on the first one, and
    JSON containers are scanned once each (``scan``: a document's own cached scanner).
    """
    cache: dict[str, LineIndex] = {}

    def lines() -> LineIndex:
        if "lines" not in cache:
            cache["lines"] = LineIndex(text)
        return cache["lines"]

    if fmt == "json":
        json_scan = _json_scanner(text) if scan is None else scan
        return lambda parts: json_position(text, parts, json_scan, lines())
    if fmt == "jsonl":
        records = RecordLines(text)
        return lambda parts: records.position(parts)
    if fmt == "tron":
        return _tron_locator(text, lines)
    if fmt == "toml":
        # lazy: positions only for findings, each format its own
        from ..codecs.toml.positions import TomlFinder

        toml = TomlFinder(text)
        return lambda parts: lines().position(toml.locate(parts))
    if fmt == "text":
        return lambda parts: (1, 1)
    return None


def _json_scanner(text: str) -> Callable[[int], Any]:
    """The container of a JSON text that starts at an offset, each scanned once."""
    scans: dict[int, Any] = {}

    def scan(start: int) -> Any:
        if start not in scans:
            scans[start] = scan_container(text, start)
        return scans[start]

    return scan


def _tron_locator(
    text: str, lines: Callable[[], LineIndex]
) -> Callable[[Parts], tuple[int | None, int | None]]:
    """Positions in a TRON text, tokenised on the first finding (not for valid files)."""
    cache: dict[str, Any] = {}

    def tron(parts: Parts) -> tuple[int | None, int | None]:
        if "tron" not in cache:
            # lazy: the TRON tokenizer only for a file with findings
            from ..codecs.tron.header import read_header
            from ..codecs.tron.locate import TronLocator

            header = read_header(text)
            cache["tron"] = TronLocator(text, header.data_start, header.classes)
        return lines().position(cache["tron"].offset(parts))

    return tron


def json_position(
    text: str, parts: Parts, scan: Any = None, lines: LineIndex | None = None
) -> tuple[int, int]:
    """1-based (line, column) of the value at ``parts`` in a JSON text."""
    try:
        offset = json_offset(text, parts, scan)
    except (ValueError, IndexError):  # text and data disagree: the start of the document
        return 1, 1
    return lines.position(offset) if lines else position_of(text, offset)


class LineIndex:
    """Offsets where lines start, so that many findings in one big text are located fast."""

    def __init__(self, text: str) -> None:
        self.starts = [0, *(m.end() for m in re.finditer("\n", text))]

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


def _has(node: Any, part: str | int) -> bool:
    if isinstance(node, dict):
        return isinstance(part, str) and part in node
    return isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)


def existing_prefix(data: Any, parts: Parts) -> Parts:
    """The longest start of ``parts`` that leads to a value in ``data`` (for a finding
    about something removed: where it was)."""
    node = data
    for i, part in enumerate(parts):
        if not _has(node, part):
            return parts[:i]
        node = node[part]
    return parts


class RecordLines:
    """JSONL: the line of each record (blank lines skipped), then JSON inside that line."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.numbers = [n for n, line in enumerate(self.lines, start=1) if line.strip()]

    def position(self, parts: Parts) -> tuple[int | None, int | None]:
        """Line of the record ``parts[0]``, column of the value inside that line; the record
        just past the last is the line after it (where a missing record belongs)."""
        if parts and parts[0] == len(self.numbers) and len(parts) == 1:
            return (self.numbers[-1] + 1 if self.numbers else 1), 1
        if not parts or not isinstance(parts[0], int) or parts[0] >= len(self.numbers):
            return None, None
        line = self.numbers[parts[0]]
        _, column = json_position(self.lines[line - 1], parts[1:])
        return line, column
