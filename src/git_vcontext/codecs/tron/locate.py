"""Where a path's value stands in a TRON text: exact offsets for findings (a token walk).

The parsers keep no positions (the fast path would pay for them on every read), so a
finding is located afterwards: the data section is tokenised once, brackets matched,
and each path part followed through ``{…}`` members, ``[…]`` elements, the dialect's
top-level pairs and class instantiations (a positional argument is the class's
property at that index; ``name=value`` arguments by name). Comments are skipped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .scan import key_of, tokens

if TYPE_CHECKING:
    from collections.abc import Sequence

    Parts = Sequence[str | int]
    Member = tuple[str | int, int, int]  # (key or index, first token, value token)

_OPEN = {"{": "}", "[": "]", "(": ")"}
_SEPARATORS = frozenset({",", ";"})


class TronLocator:
    """Offsets of values (or of keys, for object members) in one TRON text."""

    def __init__(self, text: str, data_start: int, classes: dict[str, list[str]]) -> None:
        self.offsets: list[int] = []
        self.tokens: list[str] = []
        for offset, tok in tokens(text, data_start):
            self.offsets.append(offset)
            self.tokens.append(tok)
        self.classes = classes
        self.close = _matching(self.tokens)
        self.end_offset = len(text)

    def offset(self, parts: Parts) -> int:
        """Where the value at ``parts`` starts (the key of a member, as for JSON); as deep
        as the text goes when the path leaves it (e.g. a field that is absent)."""
        if not self.tokens:
            return self.end_offset
        at = 0
        members = self._top_pairs() if self._is_pairs() else None
        for depth, part in enumerate(parts):
            if members is None:
                members = self._members(at)
            found = next((m for m in members if m[0] == part), None)
            if found is None:
                break
            last = depth == len(parts) - 1
            at = found[1] if last else found[2]
            members = None
        return self.offsets[at]

    def _is_pairs(self) -> bool:
        """The vContext dialect: top-level ``key: value`` pairs, not one root value."""
        return len(self.tokens) > 1 and self.tokens[1] == ":" and key_of(self.tokens[0]) is not None

    def _top_pairs(self) -> list[Member]:
        return self._pairs(0, len(self.tokens))

    def _members(self, at: int) -> list[Member]:
        """The members of the value whose first token is ``at`` ([] for a scalar)."""
        tok = self.tokens[at]
        end = len(self.tokens)
        if tok == "{":
            return self._pairs(at + 1, self.close.get(at, end))
        if tok == "[":
            return [(i, v, v) for i, v in enumerate(self._values(at + 1, self.close.get(at, end)))]
        if at + 1 < end and self.tokens[at + 1] == "(":
            return self._arguments(tok, at + 2, self.close.get(at + 1, end))
        return []

    def _pairs(self, start: int, end: int) -> list[Member]:
        """``key: value`` members between two token indexes."""
        out: list[Member] = []
        i = start
        while i + 2 < end:
            key = key_of(self.tokens[i])
            if key is None or self.tokens[i + 1] != ":":
                break
            out.append((key, i, i + 2))
            i = self._after_separator(self._skip(i + 2), end)
        return out

    def _values(self, start: int, end: int) -> list[int]:
        out = []
        i = start
        while i < end:
            out.append(i)
            i = self._after_separator(self._skip(i), end)
        return out

    def _arguments(self, name: str, start: int, end: int) -> list[Member]:
        """A class instantiation's arguments, named by the class's properties."""
        props = self.classes.get(name, [])
        out: list[Member] = []
        position = 0
        i = start
        while i < end:
            if i + 1 < end and self.tokens[i + 1] == "=" and key_of(self.tokens[i]) is not None:
                out.append((key_of(self.tokens[i]) or "", i, i + 2))
                i = self._skip(i + 2)
            else:
                if position < len(props):
                    out.append((props[position], i, i))
                position += 1
                i = self._skip(i)
            i = self._after_separator(i, end)
        return out

    def _skip(self, i: int) -> int:
        """The token after the value that starts at ``i``."""
        if i >= len(self.tokens):
            return i
        tok = self.tokens[i]
        if tok in _OPEN:
            return self.close.get(i, len(self.tokens) - 1) + 1
        if i + 1 < len(self.tokens) and self.tokens[i + 1] == "(":
            return self.close.get(i + 1, len(self.tokens) - 1) + 1
        return i + 1

    def _after_separator(self, i: int, end: int) -> int:
        while i < end and self.tokens[i] in _SEPARATORS:
            i += 1
        return i


def _matching(tokens: list[str]) -> dict[int, int]:
    """Index of the closing bracket for each opening one."""
    close: dict[int, int] = {}
    stack: list[int] = []
    for i, tok in enumerate(tokens):
        if tok in _OPEN:
            stack.append(i)
        elif tok in ("}", "]", ")") and stack:
            close[stack.pop()] = i
    return close
