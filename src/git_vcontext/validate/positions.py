"""Where a JSON Pointer's value sits in the source text: line and column for findings.

JSON: exact, by scanning only the containers on the way down. TRON: best effort, the
key (or the element's id) found after its parent. JSONL: the record's line, then JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from ..errors import position_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

Parts = Sequence[str | int]
_IDENT_KEYS = ("id", "eventId", "event_id", "uid")


def json_offset(text: str, parts: Parts) -> int:
    """Offset of the value at ``parts`` (the key, for object members) in a JSON text."""
    from ..codecs.json_text import _WS, _scan_container

    pos = _WS.match(text, 0).end()  # type: ignore[union-attr]
    last = len(parts) - 1
    for i, part in enumerate(parts):
        if pos >= len(text) or text[pos] not in "{[":
            break
        if text[pos] == "[":
            if not isinstance(part, int):
                break
            members = _scan_container(text, pos, limit=part + 1).members
            if part >= len(members):
                break
            pos = members[part].value_start
            continue
        member = next((m for m in _scan_container(text, pos).members if m.key == part), None)
        if member is None:
            break
        pos = member.value_start if i < last else member.start
    return pos


def json_position(text: str, parts: Parts) -> tuple[int, int]:
    """1-based (line, column) of the value at ``parts`` in a JSON text."""
    try:
        return position_of(text, json_offset(text, parts))
    except (ValueError, IndexError):  # text and data disagree: the start of the document
        return 1, 1


def tron_position(text: str, start: int, data: Any, parts: Parts) -> tuple[int, int]:
    """Best effort in TRON: each key (or element id) searched after the previous one."""
    pos = start
    node = data
    for part in parts:
        needle = _needle(node, part)
        node = _child(node, part)
        if needle is None:
            continue
        m = needle.search(text, pos)
        if m:
            pos = m.start()
    return position_of(text, pos)


def _needle(node: Any, part: str | int) -> re.Pattern[str] | None:
    if isinstance(part, str):
        word = re.escape(part)
        return re.compile(rf'(?<![\w"])(?:{word}|"{word}")\s*:')
    element = node[part] if isinstance(node, list) and 0 <= part < len(node) else None
    if isinstance(element, dict):
        for key in _IDENT_KEYS:
            ident = element.get(key)
            if isinstance(ident, str):
                return re.compile(re.escape(json.dumps(ident)))
    return None


def _child(node: Any, part: str | int) -> Any:
    if isinstance(node, dict) and isinstance(part, str):
        return node.get(part)
    if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
        return node[part]
    return None


def record_lines(text: str) -> list[int]:
    """The 1-based line number of each record of a JSONL text (blank lines skipped)."""
    return [n for n, line in enumerate(text.splitlines(), start=1) if line.strip()]


def jsonl_position(text: str, numbers: list[int], parts: Parts) -> tuple[int | None, int | None]:
    """Line of the record ``parts[0]``, column of the value inside that line."""
    if not parts or not isinstance(parts[0], int) or parts[0] >= len(numbers):
        return None, None
    line = numbers[parts[0]]
    source = text.splitlines()[line - 1]
    _, column = json_position(source, parts[1:])
    return line, column
