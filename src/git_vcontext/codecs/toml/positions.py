"""Where a path's value sits in a TOML text: keys, ``[table]`` and ``[[array]]`` headers.

One pass over the lines records the offset of every key (under the table its header
opened; the n-th ``[[steps]]`` header is ``steps/n``) and of every value, skipping
multi-line strings and arrays. A path into an array value (``needs[1]``) is found
by scanning that value's elements.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    Parts = Sequence[str | int]
    Key = tuple[str | int, ...]

_BARE = r"[A-Za-z0-9_-]+"
_BASIC = r'"(?:[^"\\\n]|\\.)*"'
_LITERAL = r"'[^'\n]*'"
_KEY = rf"(?:{_BARE}|{_BASIC}|{_LITERAL})"
_DOTTED = rf"{_KEY}(?:[ \t]*\.[ \t]*{_KEY})*"
_HEADER = re.compile(rf"[ \t]*(\[\[?)[ \t]*({_DOTTED})[ \t]*\]\]?")
_PAIR = re.compile(rf"[ \t]*({_DOTTED})[ \t]*=[ \t]*")
_KEY_PART = re.compile(_KEY)
_BLANKS = re.compile(r"(?:\s|#[^\n]*)*")
_TOKEN = re.compile(r'"""|\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{},\n]')


def key_parts(dotted: str) -> list[str]:
    """``a."b.c".d`` -> ``["a", "b.c", "d"]``."""
    out = []
    for m in _KEY_PART.finditer(dotted):
        token = m.group()
        if token[0] == '"':
            out.append(json.loads(token))
        elif token[0] == "'":
            out.append(token[1:-1])
        else:
            out.append(token)
    return out


class TomlFinder:
    """Offsets of keys and values in one TOML text, for many findings."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.keys: dict[Key, int] = {}
        self.values: dict[Key, int] = {}
        self._scan()

    def locate(self, parts: Parts) -> int:
        """Offset of the value at ``parts``, or of the nearest thing above it that was found."""
        path = tuple(parts)
        for n in range(len(path), 0, -1):
            head = path[:n]
            if head in self.keys:
                index = path[n] if n < len(path) else None
                if isinstance(index, int) and head in self.values:
                    return self._element(self.values[head], index)
                return self.keys[head]
        return 0

    def _scan(self) -> None:
        table: Key = ()
        counts: dict[Key, int] = {}
        pos, end = 0, len(self.text)
        while pos < end:
            header = _HEADER.match(self.text, pos)
            pair = None if header else _PAIR.match(self.text, pos)
            if header:
                table = self._header(header, counts)
                pos = _skip_value(self.text, header.end())
            elif pair:
                path = (*table, *key_parts(pair.group(1)))
                self.keys.setdefault(path, pair.start(1))
                self.values.setdefault(path, pair.end())
                pos = _skip_value(self.text, pair.end())
            else:
                pos = _skip_value(self.text, pos)

    def _header(self, m: re.Match[str], counts: dict[Key, int]) -> Key:
        names = key_parts(m.group(2))
        resolved: Key = ()
        for name in names:
            resolved = (*resolved, name)
            if resolved in counts:  # an array of tables: its latest element
                resolved = (*resolved, counts[resolved] - 1)
        if m.group(1) == "[[":
            bare = resolved[:-1] if resolved and isinstance(resolved[-1], int) else resolved
            counts[bare] = counts.get(bare, 0) + 1
            resolved = (*bare, counts[bare] - 1)
        self.keys.setdefault(resolved, m.start())
        return resolved

    def _element(self, start: int, index: int) -> int:
        """Offset of element ``index`` of the array value starting at ``start`` (else ``start``)."""
        if self.text[start : start + 1] != "[":
            return start
        depth, n = 0, 0
        for m in _TOKEN.finditer(self.text, start):
            token = m.group()
            if token in ("[", "{"):
                depth += 1
                if depth == 1:
                    found = _BLANKS.match(self.text, m.end())
                    if index == 0 and found:
                        return found.end()
            elif token in ("]", "}"):
                depth -= 1
                if depth == 0:
                    break
            elif token == "," and depth == 1:
                n += 1
                found = _BLANKS.match(self.text, m.end())
                if n == index and found:
                    return found.end()
        return start


def _skip_value(text: str, pos: int) -> int:
    """The start of the line after the value (or header) that begins at ``pos``: multi-line
    strings and arrays (brackets outside strings and comments) are stepped over."""
    depth = 0
    while True:
        m = _TOKEN.search(text, pos)
        if m is None:
            return len(text)
        token, pos = m.group(), m.end()
        if token in ('"""', "'''"):
            close = text.find(token, pos)
            if close < 0:
                return len(text)
            pos = close + 3
        elif token in ("[", "{"):
            depth += 1
        elif token in ("]", "}"):
            depth = max(0, depth - 1)
        elif token == "\n" and depth == 0:
            return pos
