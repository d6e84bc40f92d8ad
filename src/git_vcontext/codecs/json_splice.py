"""Append-only logs read without a full parse of ours and theirs (issue 32).

A playbook grows at the end: when ours' and theirs' texts are both the base's text with
elements added after the last element of the array that closes the document (a log), the
base is parsed in full and only the added text of each side is parsed; the sides' data
are the base's with those elements appended, and the very same objects as the base's
where the base's text stands (the merge engine then pairs them by identity). The result
is exactly what a full parse gives: the rest of the pipeline (merge, render, verify) is
today's, and ``read_back`` proves a written result by parsing every byte of it that is
not the base's own text.

Anything else (another layout, a side that also edited the base's part, whitespace
before a comma, a BOM on one side only, an error in the added text) answers None: the
caller parses in full as before, so errors and odd layouts are reported as they always
were.
"""

from __future__ import annotations

from ..errors import ParseError
from ..values import MAX_DEPTH
from . import parse
from .json_text import JsonDocument, parse_value, trailing_logs
from .text import data_deeper_than, decode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SPACE = " \t\r\n"


class Splice:
    """Where the log sits in the base's text: the text before its end (``prefix``, up to
    the end of its last element), the text after (``suffix``: whitespace and closing
    brackets), and the chain of keys and indexes from the document's root to it."""

    __slots__ = ("base", "chain", "log", "prefix", "suffix")

    def __init__(
        self, base: JsonDocument, prefix: str, suffix: str, chain: list[Any], log: list[Any]
    ) -> None:
        self.base, self.prefix, self.suffix, self.chain, self.log = (
            base,
            prefix,
            suffix,
            chain,
            log,
        )

    def side(self, raw: bytes) -> JsonDocument | None:
        """A side whose text is the base's with elements appended to the log (more than
        none); None otherwise."""
        text = self._text(raw)
        added = None if text is None else self.added(text)
        if text is None or added is None:
            return None
        data = self.extended(added)
        doc = JsonDocument(text, data, bom=self.base.bom)
        log = data
        for step in self.chain:
            log = log[step]
        doc.spliced_log = (log, len(self.log), len(self.prefix))
        shift = len(text) - len(self.suffix)
        closes = [shift + at for at, c in enumerate(self.suffix) if c in "]}"]
        doc.know_chain(self.chain, closes[::-1])
        return doc

    def _text(self, raw: bytes | str) -> str | None:
        """The text of a side or result (BOM excluded) when it has the base's BOM or not."""
        try:
            text, bom = decode(raw)
        except ParseError:
            return None  # the full parse says where and why
        return text if bom == self.base.bom else None

    def added(self, text: str) -> list[Any] | None:
        """The elements ``text`` adds at the log's end, or None when it is not the base's
        text with elements appended there."""
        prefix, suffix = self.prefix, self.suffix
        end = len(text) - len(suffix)
        if end <= len(prefix) or not text.startswith(prefix) or not text.endswith(suffix):
            return None
        between = text[len(prefix) : end]
        comma = len(between) - len(between.lstrip(_SPACE))
        if between[comma : comma + 1] != "," or between[end - len(prefix) - 1] in _SPACE:
            return None
        try:
            added = parse_value("[" + between[comma + 1 :] + "]")
        except (ParseError, RecursionError):
            return None  # the full parse says where and why
        if not isinstance(added, list) or not added:
            return None
        # the added elements stand as deep as the log's own (the wrapper is one level)
        if data_deeper_than(added, MAX_DEPTH - len(self.chain)):
            return None
        return added

    def extended(self, added: list[Any]) -> Any:
        """The base's data with ``added`` after the log's elements (new containers along
        the way to the log; everything else is the base's own objects)."""

        def grow(node: Any, depth: int) -> Any:
            if depth == len(self.chain):
                return [*node, *added]
            step = self.chain[depth]
            copy = dict(node) if isinstance(node, dict) else list(node)
            copy[step] = grow(node[step], depth + 1)
            return copy

        return grow(self.base.data, 0)

    def read_back(self, text: str) -> Any:
        """The data ``text`` parses to when it is the base's text with elements appended to
        the log (each added byte parsed; the rest is the base's text, parsed already);
        None when it is not."""
        body = self._text(text)
        added = None if body is None else self.added(body)
        return None if added is None else self.extended(added)


def splices(raw: bytes) -> tuple[JsonDocument | None, list[Splice]]:
    """The base parsed in full (None when it does not parse: the caller parses it again
    and says why), and each array whose last element ends where only closing brackets
    follow (innermost first: a log's last event may end with an array of its own)."""
    try:
        base = parse(raw, format="json")
    except (ParseError, RecursionError):
        return None, []
    if not isinstance(base, JsonDocument) or base.keeps_duplicates:
        return None, []
    return base, splices_of(base)


def splices_of(base: JsonDocument) -> list[Splice]:
    """Each array of a parsed document whose last element ends where only closing
    brackets follow, innermost first (json_text.trailing_logs)."""
    text = base.text
    return [
        Splice(base, text[:ends], text[ends:], chain, log)
        for ends, chain, log in trailing_logs(base)
    ]
