"""JSON Lines (VerMAS ``.work/*.jsonl``): one record per line, unchanged lines kept verbatim,
a changed record edited in its own line's style (spacing, key order, number spelling)."""

from __future__ import annotations

from ..document import JSONL_KEYS
from ..errors import ParseError
from ..keys import fingerprint
from ..spelling import dumps as json_dumps
from ..spelling import escape_lone_surrogates
from ..values import JsonValue, same
from .json_text import detect_separators, parse_value
from .json_text import loads as json_loads
from .text import SourceText, decode, marker_error, newline_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class JsonlDocument(SourceText):
    """A parsed JSONL file; ``data`` is the list of records (blank lines dropped)."""

    format = "jsonl"

    def __init__(self, text: str, records: list[Any], lines: list[str], bom: bool) -> None:
        self.text = text
        self.data = records
        self.lines = lines  # source text of each record, same order as ``data``
        self.bom = bom
        self._by_id: dict[Any, int] | None = None  # old line of each identity (render)
        self.newline = newline_of(text)
        self.final_newline = text.endswith("\n") or not text
        sample = lines[0] if lines else ""
        self.key_separator, self.item_separator = detect_separators(sample)
        if not text.isascii():
            self.ensure_ascii = False
        else:
            self.ensure_ascii = "\\u" in text

    def render(self, new: JsonValue) -> str:
        """One line per record; records equal to an old one keep their old line."""
        if not isinstance(new, list):
            raise TypeError("a JSONL document holds a list of records")
        if same(new, self.data):
            return self.source()
        by_print: dict[Any, list[int]] = {}
        for j in range(len(self.data) - 1, -1, -1):
            by_print.setdefault(fingerprint(self.data[j]), []).append(j)
        self._by_id = None
        out = [self._line(record, by_print) for record in new]
        body = self.newline.join(out)
        if out and self.final_newline:
            body += self.newline
        return self.with_bom(escape_lone_surrogates(body))

    def _line(self, record: JsonValue, by_print: dict[Any, list[int]]) -> str:
        stack = by_print.get(fingerprint(record))
        while stack:
            j = stack.pop()
            if same(record, self.data[j]):
                return self.lines[j]
        old = self._old_line_of(record)
        if old is not None:
            edited = json_loads(self.lines[old]).render(record)
            if "\n" not in edited and "\r" not in edited:
                return edited
        return dumps_record(record, self.item_separator, self.key_separator, self.ensure_ascii)

    def _old_line_of(self, record: JsonValue) -> int | None:
        """The old line of the record with the same identity (``event_id``, ``id`` or
        ``prefix``, unique in the old file), if any."""
        if self._by_id is None:
            counts: dict[Any, list[int]] = {}
            for j, old in enumerate(self.data):
                ident = _identity(old)
                if ident is not None:
                    counts.setdefault(ident, []).append(j)
            self._by_id = {k: js[0] for k, js in counts.items() if len(js) == 1}
        ident = _identity(record)
        return None if ident is None else self._by_id.get(ident)


def _identity(record: JsonValue) -> tuple[str, str] | None:
    if isinstance(record, dict):
        for key in JSONL_KEYS:
            value = record.get(key)
            if isinstance(value, str):
                return key, value
    return None


def dumps_record(
    record: JsonValue, item_sep: str = ", ", key_sep: str = ": ", ensure_ascii: bool = False
) -> str:
    """One record on one line."""
    return json_dumps(record, separators=(item_sep, key_sep), ensure_ascii=ensure_ascii)


def dumps(records: list[Any]) -> str:
    """A JSONL text for a list of records (``json.dumps`` layout, final newline)."""
    return escape_lone_surrogates("".join(dumps_record(r) + "\n" for r in records))


def loads(raw: bytes | str) -> JsonlDocument:
    """Parse JSONL; a line that is not JSON makes the whole file unparsable (M16)."""
    text, bom = decode(raw)
    records: list[Any] = []
    lines: list[str] = []
    for number, line in enumerate(text.split("\n"), start=1):  # (git's lines: not U+2028)
        if not line.strip():
            continue
        try:
            records.append(parse_value(line))
        except ParseError as exc:
            err = marker_error(text)
            if err is not None:
                raise err from None
            raise ParseError(
                exc.reason.replace("invalid JSON", f"line {number} is not JSON"),
                line=number,
                column=exc.column,
                snippet=exc.snippet,
            ) from None
        lines.append(line.rstrip("\r"))
    return JsonlDocument(text, records, lines, bom)
