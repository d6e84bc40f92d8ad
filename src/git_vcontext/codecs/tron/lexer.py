"""TRON's tokens cut with ``str`` methods instead of regular expressions (issue 32).

The merge driver runs once per file: importing ``re`` (with the ``enum``, ``functools`` and
``collections`` it loads) costs it more than cutting a document of a few hundred kilobytes
into tokens by hand. The scanners here give exactly the tokens (and offsets) of the
regular expressions of ``fast`` and ``spans`` (tron.lark's terminals), or None for any
text they do not read for certain — a string with a control character, a word that is
neither a name nor a number, unusual whitespace — which the caller then cuts with those
regular expressions (the reference: tests/unit/test_tron_lexer.py holds the two equal).
``words`` (no comment, no escaped quote: most texts) runs as fast as the regular
expression; ``cut`` (any text, with offsets) at about half its speed, so it leaves texts
of more than ``LARGE`` characters to the regular expressions, whose import is worth it
there.

How: a text is a run of stretches outside strings, each followed by a string or a
comment. A string runs from its ``"`` to the next one not escaped (``str.find``); a
comment to the end of its line. A stretch holds only punctuation, names, numbers and
``[ \\t\\r\\n]``: ``str.translate`` pads the punctuation with spaces and ``str.split``
cuts it. Stretches repeat (``", "``, ``"),\\n    TodoItem("``): each distinct one is cut
once per text.
"""

from __future__ import annotations

LARGE = 1 << 18
"""``cut`` leaves texts longer than this (in characters) to the regular expressions: its
loop runs once per string and comment, at about half their speed."""

_PUNCTUATION = "{}[]():,="
_NOT_WORDS = frozenset(_PUNCTUATION + "\x00")  # \x00: where a string was
_DIGITS = frozenset("0123456789")
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_NAME_CHARS = _NAME_START | _DIGITS

_Cut = tuple[list[str], list[int]]


def is_name(s: str) -> bool:
    """``s`` is a whole NAME token (``[A-Za-z_][A-Za-z0-9_]*``)."""
    return s.isascii() and s.isidentifier()


def name_end(text: str, pos: int) -> int:
    """The end of the NAME that starts at ``pos``; ``pos`` itself when none does."""
    if pos >= len(text) or text[pos] not in _NAME_START:
        return pos
    end = pos + 1
    while end < len(text) and text[end] in _NAME_CHARS:
        end += 1
    return end


def string_end(text: str, pos: int) -> int:
    """After ``"(?:[^"\\\x00-\x1f]|\\.)*"`` at ``pos``, or -1 when no string is there."""
    if not text.startswith('"', pos):
        return -1
    pos += 1
    end = len(text)
    while pos < end:
        c = text[pos]
        if c == '"':
            return pos + 1
        if c == "\\":
            if pos + 1 >= end or text[pos + 1] == "\n":
                return -1
            pos += 2
        elif c < " ":
            return -1
        else:
            pos += 1
    return -1


def blank_end(text: str, pos: int) -> int:
    """After ``[ \t\r]*(?:#[^\n]*)?`` at ``pos``: the rest of a line may be a comment."""
    end = len(text)
    while pos < end and text[pos] in " \t\r":
        pos += 1
    if pos < end and text[pos] == "#":
        newline = text.find("\n", pos)
        pos = end if newline < 0 else newline
    return pos


def skip_end(text: str, pos: int) -> int:
    """After ``(?:[ \t\r\n;]+|#[^\n]*)*`` at ``pos``: between definitions, before the data."""
    end = len(text)
    while pos < end:
        c = text[pos]
        if c == "#":
            newline = text.find("\n", pos)
            pos = end if newline < 0 else newline
        elif c in " \t\r\n;":
            pos += 1
        else:
            break
    return pos


def class_end(text: str, pos: int) -> int:
    """After ``class[ \t]+`` at ``pos``, or -1 when it is not there."""
    if not text.startswith("class", pos) or text[pos + 5 : pos + 6] not in (" ", "\t"):
        return -1
    pos += 6
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    return pos


def pair_starts(text: str, start: int) -> bool:
    """A ``key:`` at ``start`` (``(?:NAME|STRING)[ \t\r\n]*:``): the vContext dialect."""
    end = name_end(text, start)
    if end == start:
        end = string_end(text, start)
        if end < 0:
            return False
    while end < len(text) and text[end] in " \t\r\n":
        end += 1
    return text.startswith(":", end)


def is_number(s: str) -> bool:
    """``s`` is a whole NUMBER token: ``-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?``."""
    if not s.isascii():
        return False
    n = len(s)
    i = 1 if s[:1] == "-" else 0
    if s[i : i + 1] == "0":
        i += 1
    elif (i := _digits(s, i)) < 0:
        return False
    if i < n and s[i] == ".":
        i = _digits(s, i + 1)
    if 0 <= i < n and s[i] in "eE":
        i += 1
        if i < n and s[i] in "+-":
            i += 1
        i = _digits(s, i)
    return i == n


def _digits(s: str, i: int) -> int:
    """After ``[0-9]+`` at ``i``, or -1 when no digit is there."""
    if i >= len(s) or s[i] not in _DIGITS:
        return -1
    i += 1
    while i < len(s) and s[i] in _DIGITS:
        i += 1
    return i


def _stretch(seg: str) -> _Cut | None:
    """The tokens of a stretch without strings or comments, with their offsets in it; None
    when it holds anything but tokens and ``[ \\t\\r\\n]``."""
    pieces = _padded(seg).split()
    spaces = seg.count(" ") + seg.count("\n") + seg.count("\t") + seg.count("\r")
    if sum(map(len, pieces)) + spaces != len(seg):
        return None  # str.split also cut at other whitespace (\f, U+00A0, ...)
    offsets: list[int] = []
    pos = 0
    for piece in pieces:
        if (len(piece) > 1 or piece not in _PUNCTUATION) and not (
            (piece.isascii() and piece.isidentifier()) or is_number(piece)
        ):
            return None
        pos = seg.index(piece, pos)  # only whitespace before it: the first one at pos
        offsets.append(pos)
        pos += len(piece)
    return pieces, offsets


def _padded(text: str) -> str:
    """``text`` with a space either side of each punctuation character and placeholder
    (``str.replace``: 5x faster than a ``str.translate`` that pads)."""
    for c in _NOT_WORDS:
        if c in text:
            text = text.replace(c, f" {c} ")
    return text


def _printable(s: str) -> bool:
    """No character below U+0020 (what a TRON string may hold unescaped)."""
    return s.isprintable() or min(s) >= " "


def words(text: str, start: int, end: int) -> list[str] | None:
    """The tokens of ``text[start:end]`` when it has no comment and no escaped quote (most
    texts), cut by a few calls over the whole text: ``str.split`` at the quotes, the
    strings replaced by a placeholder while the rest is cut; else None (``cut`` reads it)."""
    seg = text[start:end]
    if "\\" in seg and '\\"' in seg:  # (memchr first: the pair's search costs ~1.5 ns a character)
        return None  # an escaped quote (or a backslash ending a string): not a split's cut
    parts = seg.split('"')
    if not len(parts) % 2:
        return None  # a quote that closes no string
    strings = parts[1::2]
    body = "".join(strings)
    if body and not _printable(body):
        return None
    outside = "\x00".join(parts[::2])
    if "#" in outside:
        return None  # a comment
    solid = len(outside) - (
        outside.count(" ") + outside.count("\n") + outside.count("\t") + outside.count("\r")
    )
    pieces = _padded(outside).split()
    if sum(map(len, pieces)) != solid:
        return None  # str.split also cut at other whitespace (\f, U+00A0, ...)
    if pieces.count("\x00") != len(strings):
        return None  # a NUL outside strings
    for word in set(pieces).difference(_NOT_WORDS):
        if not ((word.isascii() and word.isidentifier()) or is_number(word)):
            return None
    # each string with its quotes, by one join and one split (a string holds no U+0001)
    quoted = iter(('"' + '"\x01"'.join(strings) + '"').split("\x01")).__next__
    return [quoted() if p == "\x00" else p for p in pieces]


def placed(text: str, start: int, tokens: list[str]) -> tuple[list[int], list[int]]:
    """Where each of ``tokens`` starts and ends, for tokens ``words`` cut from ``text`` at
    ``start`` (only whitespace between two of them: each is the first of its text there)."""
    find = text.find
    starts: list[int] = []
    ends: list[int] = []
    pos = start
    for token in tokens:
        pos = find(token, pos)
        starts.append(pos)
        pos += len(token)
        ends.append(pos)
    return starts, ends


def cut(text: str, start: int, end: int, offsets: bool) -> _Cut | None:
    """The tokens of ``text[start:end]`` (skipping whitespace and comments) and, when
    ``offsets``, where each starts (else an empty list); None when the text is not cut
    here for certain (see the module's docstring)."""
    if end - start > LARGE:
        return None
    tokens: list[str] = []
    starts: list[int] = []
    seen: dict[str, _Cut | None] = {}
    find = text.find
    pos = start
    while True:
        quote = find('"', pos, end)
        stop = end if quote < 0 else quote
        comment = find("#", pos, stop)
        if comment >= 0:
            stop = comment
        if stop > pos and not _add_stretch(
            text[pos:stop], pos, seen, tokens, starts if offsets else None
        ):
            return None
        if comment >= 0:
            newline = find("\n", comment, end)
            pos = end if newline < 0 else newline
            continue
        if quote < 0:
            return tokens, starts
        pos = _string_close(text, quote, end) + 1
        token = text[quote:pos]
        if not pos or not _printable(token):
            return None
        tokens.append(token)
        if offsets:
            starts.append(quote)


def _add_stretch(
    seg: str, pos: int, seen: dict[str, _Cut | None], tokens: list[str], starts: list[int] | None
) -> bool:
    """Add the tokens of the stretch ``seg`` at ``pos`` (and where they start, to ``starts``
    unless it is None); False when ``_stretch`` does not read it. ``seen``: the stretches
    cut so far."""
    got = seen[seg] if seg in seen else seen.setdefault(seg, _stretch(seg))
    if got is None:
        return False
    tokens += got[0]
    if starts is not None:
        starts += [pos + o for o in got[1]]
    return True


def _string_close(text: str, quote: int, end: int) -> int:
    """The quote that closes the string opening at ``quote`` (the next one after an even
    run of backslashes), -1 when none does before ``end``."""
    close = text.find('"', quote + 1, end)
    while close >= 0 and text[close - 1] == "\\":
        before = close - 2
        while text[before] == "\\":
            before -= 1
        if (close - before) % 2:  # an even run of backslashes: the quote closes
            return close
        close = text.find('"', close + 1, end)
    return close
