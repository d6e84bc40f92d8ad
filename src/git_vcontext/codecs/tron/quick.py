"""The data section of most TRON texts read by ``_json``'s C scanner (issue 32).

A TRON text is JSON plus class instances (``Name(arg, ...)``), bare keys, comments, named
arguments and trailing commas. Where the data section has no comment, no named argument,
no trailing comma and no escaped quote, its text outside strings is rewritten so that JSON
reads it: each ``Name(`` becomes ``{"<nonce>Name":[``, each ``)`` becomes
``,"<nonce>"]}`` (``()``: ``"<nonce>"]}``), the nonce a random string the text does not
hold; the C scanner reads the result (strings untouched), and its object hook turns each
one-key object whose key starts with the nonce back into the instance its class makes.
Every ``)`` must have closed exactly its own instance (each instance's list ends with the
one end marker, and every marker is taken so), so the JSON's nesting is the TRON's, token
for token. The vContext dialect's top-level pairs are read one by one (a few), each value
by the scanner.

Anything else — a scanner error, an unknown class, a count of arguments that does not fit
its class, a repeated key, ``NaN`` and the like, nesting deeper than ``MAX_DEPTH`` —
answers None: ``fast`` (and lark behind it) reads the text and says what is wrong. Both
give the same data and the same classes (tests/unit/test_tron_quick.py, on random
documents and on the corpus); this one skips the tokens and the descent in Python,
which only the document that is written again needs (``spans`` cuts them then).
"""

from __future__ import annotations

import sys

from ...jsoncodec import Scanner, skip_whitespace
from ...spelling import float_of, int_of
from ...values import MAX_DEPTH, JsonValue
from ..kept import random_hex
from ..text import brackets_within, data_deeper_than

_ID = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789"
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_WHITESPACE = " \t\r\n"
_NO_WHITESPACE = str.maketrans("", "", _WHITESPACE)
SCANNER_IMPORTS_ON_ERROR = sys.version_info >= (3, 12)
"""Whether the C scanner imports ``json.decoder`` for its error class (CPython 3.12+):
then a trailing comma, which it would fail on, is looked for first."""
_EMPTY = "\x05"  # stands for an empty argument list's ")" while the rest is rewritten
BY_CLASS = 4
"""Above this many instances a class of the header, ``_as_json`` rewrites them class by
class (a few passes over the text) rather than one by one (a loop over every instance)."""


class _NotHere(Exception):
    """Raised by the object hook: the text is not read here (fast and lark read it)."""


def _no_constant(name: str) -> JsonValue:
    raise _NotHere  # NaN, Infinity, -Infinity: JSON's scanner takes them, TRON does not


def parse(
    text: str, start: int, classes: dict[str, list[str]], absent_null: bool
) -> tuple[JsonValue, dict[int, str]] | None:
    """``(data, made_by)`` of the data section at ``start`` as ``fast.parse`` gives them,
    or None where this reading does not apply or the text is not valid."""
    rewritten = _as_json(text[start:], classes)
    if rewritten is None:
        return None
    js, nonce, instances = rewritten
    made_by: dict[int, str] = {}
    reader = _Reader(nonce, classes, absent_null, made_by)
    try:
        data = _pairs(js, reader.scan) if absent_null else _value(js, reader.scan)
    except Exception:  # whatever it was, fast and lark say it properly
        return None
    if data is None or reader.closed != instances:
        return None  # a ")" that closed something else than its own instance
    # (the brackets bound the data's nesting: an instance is two levels of them, and the
    # dialect's pairs stand one level below their object)
    if not brackets_within(js, MAX_DEPTH) and data_deeper_than(data[0], MAX_DEPTH + absent_null):
        return None  # fast gives up, lark says where
    return data[0], made_by


def _as_json(seg: str, classes: dict[str, list[str]]) -> tuple[str, str, int] | None:
    """The JSON text of a data section, the nonce it uses, and how many instances it has;
    None when it has what this reading leaves to ``fast``."""
    # (a backslash looked for first, by memchr: the pair's search costs ~1.5 ns a character)
    if ("\\" in seg and '\\"' in seg) or _EMPTY in seg or "\x00" in seg:
        return None
    parts = seg.split('"')
    if not len(parts) % 2:
        return None  # a quote that closes no string
    outside = "\x00".join(parts[::2])
    if "#" in outside or "=" in outside:
        return None  # a comment or a named argument
    if SCANNER_IMPORTS_ON_ERROR and "json.decoder" not in sys.modules and _trailing(outside):
        return None  # the scanner would import json.decoder (and re, ~5 ms) for its error
    nonce = "vcontext-tron-" + random_hex(8) + "-"  # (64 bits: it is written twice an instance)
    if nonce in seg:  # never: 64 random bits
        return None
    opens = outside.count("(")
    if opens > BY_CLASS * len(classes):
        return _as_json_by_class(parts, outside, classes, nonce, opens)
    chunks = outside.split("(")
    last = len(chunks) - 1
    for i in range(last):
        chunk = chunks[i]
        head = chunk.rstrip(_ID)
        name = chunk[len(head) :]
        if not name or name[0] not in _NAME_START or name not in classes:
            return None  # not a class instantiation (or an unknown class)
        after = chunks[i + 1]
        rest = after.lstrip(_WHITESPACE)
        if rest[:1] == ")":  # no arguments
            chunks[i + 1] = after[: len(after) - len(rest)] + _EMPTY + rest[1:]
        chunks[i] = f'{head}{{"{nonce}{name}":['
    end = f'"{nonce}"]}}'
    outside = "".join(chunks).replace(")", "," + end).replace(_EMPTY, end)
    parts[::2] = outside.split("\x00")
    return '"'.join(parts), nonce, last


def _trailing(outside: str) -> bool:
    """Whether the text outside strings has a trailing comma (TRON's, not JSON's)."""
    tight = outside.translate(_NO_WHITESPACE)  # (~20 instructions a character)
    return ",]" in tight or ",}" in tight or ",)" in tight


def _as_json_by_class(
    parts: list[str], outside: str, classes: dict[str, list[str]], nonce: str, opens: int
) -> tuple[str, str, int] | None:
    """``_as_json``'s rewriting class by class, by C-speed string steps rather than a loop
    over every instance (issue 32: a text with many instances of few classes): each
    ``Name(`` (the longest names first: one that ends another is replaced after it) and
    ``Name()``, then every ``(`` must have been one of them. A name glued to the end of a
    longer word (``XName(``) leaves that word before the ``{``: JSON that the scanner (or
    the dialect's pairs) refuses, so the text goes to ``fast`` as the loop would send it;
    so does an argument list that opens or closes after a blank (``Name (``, ``Name( )``)."""
    instances = 0
    for name in sorted(classes, key=len, reverse=True):
        call = name + "("
        found = outside.count(call)
        if found:
            instances += found
            opening = f'{{"{nonce}{name}":['
            outside = outside.replace(name + "()", opening + _EMPTY).replace(call, opening)
    if instances != opens:
        return None  # a "(" that opens no instance of a known class
    end = f'"{nonce}"]}}'
    outside = outside.replace(")", "," + end).replace(_EMPTY, end)
    parts[::2] = outside.split("\x00")
    return '"'.join(parts), nonce, instances


class _Reader:
    """The scanner with the hooks of one reading (instances, objects, their classes)."""

    def __init__(
        self, nonce: str, classes: dict[str, list[str]], absent_null: bool, made_by: dict[int, str]
    ) -> None:
        self.nonce = nonce
        self.end = nonce  # the last argument of every instance (what ")" became)
        self.classes = classes
        self.absent_null = absent_null
        self.made_by = made_by
        self.closed = 0  # instances read, each with its end marker
        self.scan = Scanner(
            object_pairs_hook=self.object,
            parse_float=float_of,
            parse_int=int_of,
            parse_constant=_no_constant,
        ).scan_once

    def object(self, pairs: list[tuple[str, JsonValue]]) -> dict[str, JsonValue]:
        if len(pairs) == 1 and pairs[0][0].startswith(self.nonce):
            return self.instance(pairs[0][0][len(self.nonce) :], pairs[0][1])
        d = dict(pairs)
        if len(d) != len(pairs):
            raise _NotHere  # a repeated key: fast and lark decide (M18 keeps them)
        self.made_by[id(d)] = ""
        return d

    def instance(self, name: str, args: JsonValue) -> dict[str, JsonValue]:
        """The object ``Name(args)`` makes (as ``fast.instance`` with positional arguments)."""
        if type(args) is not list or not args or args.pop() != self.end:
            raise _NotHere
        if self.end in args:
            raise _NotHere  # a ")" that closed this instance's list early
        props = self.classes.get(name)
        if props is None or len(args) != len(props):
            raise _NotHere  # fast and lark say which argument is wrong
        if self.absent_null:  # the dialect's positional null: the key is absent
            d = {k: v for k, v in zip(props, args, strict=True) if v is not None}
        else:
            d = dict(zip(props, args, strict=True))
        self.closed += 1
        self.made_by[id(d)] = name
        return d


def _value(js: str, scan: object) -> tuple[JsonValue] | None:
    """Standard TRON: one value, whitespace around it."""
    pos = skip_whitespace(js, 0)
    value, end = scan(js, pos)  # type: ignore[operator]
    if skip_whitespace(js, end) != len(js):
        return None
    return (value,)


def _pairs(js: str, scan: object) -> tuple[JsonValue] | None:
    """The vContext dialect: ``key: value`` pairs (bare or quoted keys; commas optional)."""
    out: dict[str, JsonValue] = {}
    size = len(js)
    pos = skip_whitespace(js, 0)
    while pos < size:
        if js[pos] == '"':
            key, end = scan(js, pos)  # type: ignore[operator]
            if type(key) is not str:
                return None
        else:
            end = pos
            while end < size and js[end] in _ID:
                end += 1
            key = js[pos:end]
            if not key or key[0] not in _NAME_START or key in ("true", "false", "null"):
                return None
        pos = skip_whitespace(js, end)
        if js[pos : pos + 1] != ":":
            return None
        value, end = scan(js, skip_whitespace(js, pos + 1))  # type: ignore[operator]
        if key in out:
            return None  # a repeated key: fast and lark decide
        out[key] = value
        pos = skip_whitespace(js, end)
        if js[pos : pos + 1] == ",":
            pos = skip_whitespace(js, pos + 1)
    if not out:
        return None
    return (out,)
