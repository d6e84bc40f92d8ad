"""Where things stand in the data section of a parsed TRON text: tokens, brackets, members.

A container's text is cut into pieces that a writer can keep, drop or move whole:
an opening (after the bracket, up to the end of its line), then for each member a lead
(the lines above it: indentation and comments), the member itself (key or name and
value), a trail (its comma and whatever follows on its line, comments included), and a
closing before the bracket. So a removed member takes its own comments along, and a
comment above or after a kept member stays with it.
"""

from __future__ import annotations

from itertools import accumulate, chain, compress

from ...patterns import lazy
from .lexer import cut, placed, words

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable


def _pair() -> re.Pattern[str]:
    """Anchored by its last alternative: a trailing comment is skipped, never searched for
    tokens. The reference for ``lexer.cut``, which cuts most texts without it."""
    if not _PAIR:
        # lazy: fast's terminals only for a text the lexer does not cut (issue 32)
        from .fast import NAME, NUMBER, PUNCTUATION, SKIP, STRING

        _PAIR.append(lazy(f"({SKIP})({STRING}|{PUNCTUATION}|{NAME}|{NUMBER}|\\Z)"))
    return _PAIR[0]()


_PAIR: list[Callable[[], re.Pattern[str]]] = []
_OPENERS = {"[": "]", "{": "}", "(": ")"}
_CLOSERS = frozenset(_OPENERS.values())
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_KEYWORDS = frozenset({"true", "false", "null"})


class Member:
    """One member of a container: offsets in the text (``key``: an object's key, a class
    argument's property, None for an array element; ``named``: a ``name=value`` argument)."""

    __slots__ = (
        "comma",
        "index",
        "key",
        "lead_start",
        "named",
        "start",
        "trail_end",
        "value_end",
        "value_index",
        "value_start",
    )

    def __init__(self, key: str | None, named: bool, start: int, value_index: int) -> None:
        self.key = key
        self.named = named
        self.start = start  # the key, the name= or the value
        self.value_index = value_index  # token index of the value's first token
        self.value_start = self.value_end = start
        self.lead_start = self.trail_end = start
        self.comma = -1  # offset of the comma after it, -1 when none
        self.index = 0  # its position in its container


class Container:
    """An object, array or argument list (or the dialect's top-level pairs: no brackets)."""

    __slots__ = (
        "close_start",
        "closing_start",
        "commas",
        "members",
        "multiline",
        "open_end",
        "opening_end",
        "trailing_comma",
    )

    def __init__(self, open_end: int, close_start: int, members: list[Member]) -> None:
        self.open_end = open_end  # just after the opening bracket
        self.close_start = close_start  # the closing bracket (the end of the text for pairs)
        self.members = members
        self.opening_end = self.closing_start = open_end
        self.multiline = self.trailing_comma = False
        self.commas = True  # members are separated by commas (pairs may go without)


class Spans:
    """The tokens of a data section, with the matching bracket of each opening one."""

    def __init__(
        self, text: str, start: int, kept: tuple[str, int, list[str]] | None = None
    ) -> None:
        """``kept``: (a text, where its data section starts, the tokens ``lexer.words`` cut
        from it there), which the parse of a document keeps (``memo["words"]``): taken
        when that text is this very one, rather than cut again (issue 32)."""
        self.text = text
        if kept is not None and kept[0] is text and kept[1] == start:
            tokens = kept[2]
            self.tokens, (self.starts, self.ends) = tokens, placed(text, start, tokens)
        else:
            self.tokens, self.starts, self.ends = _tokens(text, start, len(text))
        self.match = _matching(self.tokens)
        self._containers: dict[int, Container] = {}

    @classmethod
    def spliced(
        cls, text: str, start: int, old: Spans, at: int, was: int, size: int
    ) -> Spans | None:
        """The spans of ``text``, whose stretch of ``size`` characters at ``at`` is ``old``'s
        text at ``was`` (a sequence of whole values: a kept log's elements), taken from
        ``old`` rather than cut into tokens again; None when ``old`` has no tokens that
        start and end exactly there."""
        # lazy: only a log kept from one edit to the next (the MCP server's writes)
        from bisect import bisect_left

        first = bisect_left(old.starts, was)
        last = bisect_left(old.ends, was + size)
        if first >= len(old.starts) or old.starts[first] != was:
            return None
        if last >= len(old.ends) or old.ends[last] != was + size or last < first:
            return None
        if text[at : at + size] != old.text[was : was + size]:
            return None
        kept = old.match[first : last + 1]  # whole values: their brackets close among them
        head, head_starts, head_ends = _tokens(text, start, at)
        tail, tail_starts, tail_ends = _tokens(text, at + size, len(text))
        shift, moved = at - was, len(head) - first
        spans = cls.__new__(cls)
        spans.text = text
        spans.tokens = head + old.tokens[first : last + 1] + tail
        spans.starts = [
            *head_starts,
            *map(shift.__add__, old.starts[first : last + 1]),
            *tail_starts,
        ]
        spans.ends = [*head_ends, *map(shift.__add__, old.ends[first : last + 1]), *tail_ends]
        match = [-1] * len(spans.tokens)
        stack: list[int] = []
        _match_into(match, head, 0, stack)
        # only the opening brackets' entries move: a loop over those, not over every token
        base = len(head)
        for i in compress(range(len(kept)), map((-1).__lt__, kept)):
            match[base + i] = kept[i] + moved
        _match_into(match, tail, len(head) + len(kept), stack)
        spans.match = match
        spans._containers = {}
        return spans

    def value_end(self, index: int) -> int:
        """The token index of the last token of the value starting at token ``index``."""
        token = self.tokens[index]
        if token in _OPENERS:
            return self.match[index]
        if token[0] in _NAME_START and token not in _KEYWORDS:
            return self.match[index + 1]  # Name( ... )
        return index

    def container(self, index: int) -> Container:
        """The container whose opening bracket is token ``index`` (scanned once)."""
        found = self._containers.get(index)
        if found is None:
            kind = self.tokens[index]
            close = self.match[index]
            found = self._scan(index + 1, close, kind)
            found.open_end = self.ends[index]
            self._containers[index] = found
            _cut(self.text, found, self.ends[index], self.starts[close])
        return found

    def pairs(self) -> Container:
        """The vContext dialect's top-level ``key: value`` pairs (the whole data section)."""
        found = self._containers.get(-1)
        if found is None:
            start = self.starts[0] if self.tokens else len(self.text)
            found = self._scan(0, len(self.tokens), "{")
            found.open_end = start
            found.commas = any(m.comma >= 0 for m in found.members[:-1])
            found.close_start = len(self.text)
            _cut(self.text, found, start, len(self.text), pairs=True)
            self._containers[-1] = found
        return found

    def _scan(self, i: int, close: int, kind: str) -> Container:
        tokens, starts, ends = self.tokens, self.starts, self.ends
        members: list[Member] = []
        while i < close:
            token = tokens[i]
            if kind == "{" or (kind == "(" and tokens[i + 1] == "="):
                m = Member(_key(token), kind == "(", starts[i], i + 2)
            else:
                m = Member(None, False, starts[i], i)
            last = self.value_end(m.value_index)
            m.value_start, m.value_end = starts[m.value_index], ends[last]
            i = last + 1
            if i < close and tokens[i] == ",":
                m.comma = starts[i]
                i += 1
            m.index = len(members)
            members.append(m)
        return Container(0, starts[close] if close < len(starts) else len(self.text), members)


def _key(token: str) -> str:
    if token[0] != '"':
        return token
    # lazy: fast is loaded for its strings' reading only where a key is quoted
    from .fast import string_value

    return string_value(token, 0)


def _tokens(text: str, start: int, end: int) -> tuple[list[str], list[int], list[int]]:
    """The tokens of ``text[start:end]`` with their start and end offsets (``lexer``; the
    regular expression where it does not read the text)."""
    tokens = words(text, start, end)
    if tokens is not None:
        return (tokens, *placed(text, start, tokens))
    found = cut(text, start, end, True)
    if found is not None:
        tokens, starts = found
        return tokens, starts, list(map(int.__add__, starts, map(len, tokens)))
    return regex_tokens(text, start, end)


def regex_tokens(text: str, start: int, end: int) -> tuple[list[str], list[int], list[int]]:
    """``_tokens`` by the regular expression ``PAIR``."""
    # lazy: only texts the lexer does not read
    from operator import itemgetter

    pairs = _pair().findall(text, start, end)
    while pairs and not pairs[-1][1]:
        pairs.pop()  # the end of the text
    offsets = list(accumulate(map(len, chain.from_iterable(pairs)), initial=start))
    return list(map(itemgetter(1), pairs)), offsets[1::2], offsets[2::2]


def _matching(tokens: list[str]) -> list[int]:
    """For each opening bracket, the index of its closing one (-1 elsewhere)."""
    match = [-1] * len(tokens)
    _match_into(match, tokens, 0, [])
    return match


def _match_into(match: list[int], tokens: list[str], offset: int, stack: list[int]) -> None:
    """Record in ``match`` the brackets of ``tokens`` (at ``offset`` in it) that close
    (``stack``: those open before them, left with those still open after them)."""
    for i, token in enumerate(tokens, offset):
        if token in _OPENERS:
            stack.append(i)
        elif token in _CLOSERS:
            match[stack.pop()] = i


def _cut(text: str, c: Container, inner: int, close: int, pairs: bool = False) -> None:
    """Cut the text between the brackets into opening, leads, trails and closing."""
    members = c.members
    if not members:
        c.opening_end = c.closing_start = close
        c.multiline = "\n" in text[inner:close]
        return
    first = members[0].start
    newline = -1 if pairs else text.find("\n", inner, first)
    c.opening_end = newline + 1 if newline >= 0 else inner
    members[0].lead_start = c.opening_end
    multiline = newline >= 0
    for m, after in zip(members, [*members[1:], None], strict=True):
        end = after.start if after is not None else close
        past = m.comma + 1 if m.comma >= 0 else m.value_end
        newline = text.find("\n", past, end)
        m.trail_end = newline + 1 if newline >= 0 else past
        multiline = multiline or newline >= 0
        if after is not None:
            after.lead_start = m.trail_end
    c.closing_start = members[-1].trail_end
    c.trailing_comma = members[-1].comma >= 0
    c.multiline = multiline or "\n" in text[c.closing_start : close]
