"""JSON that keeps its style: parse with positions on demand, re-print with minimal edits."""

from __future__ import annotations

import json
import re

from ..errors import ParseError, parse_error_at
from ..patterns import lazy
from ..record import record
from ..spelling import OutOfRange, float_of, int_of
from ..spelling import dumps as json_dumps
from ..values import MAX_DEPTH, JsonValue, same
from .duplicate_keys import duplicate_name, named_pairs, written_key
from .matching import appended_only, match_elements
from .text import (
    SourceText,
    data_deeper_than,
    decode,
    deep_offset,
    escape_lone_surrogates,
    marker_error,
    newline_of,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_WS = re.compile(r"[ \t\n\r]*")
_INDENTED_LINE = re.compile(r"\n([ \t]+)[^ \t\r\n]")
_ESCAPED_NON_ASCII = re.compile(
    r"\\u(?:00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})"
)
_PLAIN = json.JSONDecoder()
_PLAIN_LONG_INTS = json.JSONDecoder(parse_int=str)
_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]


@record
class JsonStyle:
    """How a JSON document is laid out, as far as a writer needs to imitate it."""

    indent: str | None = "  "  # None: everything on one line
    key_separator: str = ": "
    inline_item_separator: str = ", "  # between members of one-line containers
    newline: str = "\n"
    final_newline: bool = True
    bom: bool = False
    ensure_ascii: bool = False
    escape_html: bool = False  # <, > and & as \u003c, \u003e, \u0026 (Go's encoding/json)


class DuplicateKeyError(ValueError):
    """Raised by the pairs hook; turned into a located ParseError."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise DuplicateKeyError(k)
            seen.add(k)
    return d


def _pairs_keeping_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d = dict(pairs)
    return d if len(d) == len(pairs) else named_pairs(pairs)


class ConstantError(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity`` (Python's extensions): located afterwards."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _reject_constant(name: str) -> Any:
    raise ConstantError(name)


# A number's spelling is kept (spelling.float_of: a Python call per float literal, ~0.2 µs,
# which also refuses 1e400); ints are left to the C scanner unless the text holds a -0.
_DECODER = json.JSONDecoder(
    object_pairs_hook=_pairs, parse_constant=_reject_constant, parse_float=float_of
)
_DECODER_NEGATIVE_ZERO = json.JSONDecoder(
    object_pairs_hook=_pairs,
    parse_constant=_reject_constant,
    parse_float=float_of,
    parse_int=int_of,
)
_NEGATIVE_ZERO = re.compile(r"-0(?![0-9.eE])")
_KEEPING = {
    zero: json.JSONDecoder(
        object_pairs_hook=_pairs_keeping_duplicates,
        parse_constant=_reject_constant,
        parse_float=float_of,
        **({"parse_int": int_of} if zero else {}),  # type: ignore[arg-type]
    )
    for zero in (False, True)
}


def parse_value(text: str, *, keep_duplicates: bool = False) -> JsonValue:
    """Parse JSON text strictly (duplicate keys, NaN and over-deep nesting are errors).

    ``keep_duplicates``: a repeated key is no error; its pairs are kept (``duplicate_name``).
    """
    try:
        value, end = _decode(text, keep_duplicates)
    except json.JSONDecodeError as exc:
        raise _located(text, exc.pos, f"invalid JSON: {exc.msg}") from None
    except DuplicateKeyError as exc:
        raise _duplicate_error(text, exc.key) from None
    except RecursionError:
        raise _depth_error(text) from None
    except OutOfRange as exc:
        where = _number_offset(text, exc.spelling)
        raise _located(text, where, f"number {exc.spelling} is out of range") from None
    except ConstantError as exc:
        where = _number_offset(text, exc.name)
        raise _located(text, where, f"invalid JSON: {exc.name} is not JSON") from None
    end = _WS.match(text, end).end()  # type: ignore[union-attr]
    if end != len(text):
        raise _located(text, end, "invalid JSON: extra data after the document")
    many = isinstance(value, (dict, list)) and text.count("[") + text.count("{") > MAX_DEPTH
    if many and data_deeper_than(value, MAX_DEPTH):
        raise _depth_error(text)
    return value


def _decode(text: str, keep_duplicates: bool) -> tuple[JsonValue, int]:
    """The value at the start of ``text`` and where it ends: ints by the C scanner, unless
    the text holds a ``-0`` or an integer longer than Python converts (BigInt)."""
    start = _WS.match(text, 0).end()  # type: ignore[union-attr]
    ints = bool(_NEGATIVE_ZERO.search(text))
    try:
        return _decoder(keep_duplicates, ints).raw_decode(text, start)
    except ValueError as exc:  # "Exceeds the limit (4300 digits) for integer string …"
        if ints or type(exc) is not ValueError:  # not ours: JSONDecodeError, OutOfRange, …
            raise
    return _decoder(keep_duplicates, True).raw_decode(text, start)


def _decoder(keep_duplicates: bool, ints: bool) -> json.JSONDecoder:
    if keep_duplicates:
        return _KEEPING[ints]
    return _DECODER_NEGATIVE_ZERO if ints else _DECODER


def value_end(text: str, start: int) -> int:
    """Where the JSON value that starts at ``start`` ends (any integer's length)."""
    try:
        return int(_PLAIN.raw_decode(text, start)[1])
    except ValueError as exc:  # an integer longer than Python converts: its text will do
        if type(exc) is not ValueError:
            raise
        return int(_PLAIN_LONG_INTS.raw_decode(text, start)[1])


def _located(text: str, offset: int, message: str) -> ParseError:
    return marker_error(text) or parse_error_at(text, offset, message)


def _number_offset(text: str, spelling: str) -> int:
    """Where the number ``spelling`` stands as a whole token, outside strings (errors only)."""
    number = rf"(?<![0-9.eE+-]){re.escape(spelling)}(?![0-9.eE+-])"
    for found in re.finditer(rf'"(?:[^"\\]|\\.)*"|{number}', text):
        if not found.group().startswith('"'):
            return found.start()
    return 0


def _depth_error(text: str) -> ParseError:
    offset = deep_offset(text, MAX_DEPTH) or 0
    return parse_error_at(text, offset, f"nesting deeper than {MAX_DEPTH} levels")


def _duplicate_error(text: str, key: str) -> ParseError:
    """Locate the key repeated in one object (a token scan: slow path, errors only)."""
    # lazy: errors only
    from .tron.scan import first_duplicate_key

    found = first_duplicate_key(text, 0)  # JSON's tokens are TRON's
    offset, key = found if found is not None else (0, key)
    message = f"duplicate key {json.dumps(key)} in an object"
    return parse_error_at(text, offset, message, rule="duplicate-key")


def detect_style(text: str, bom: bool = False) -> JsonStyle:
    """Infer indentation, separators, line endings and escaping from a document."""
    newline = newline_of(text)
    m = _INDENTED_LINE.search(text)
    body = text.strip()
    indent = m.group(1) if m and "\n" in body else None
    key_sep, inline_sep = detect_separators(text)
    # raw non-ASCII means "not escaped"; otherwise escapes of non-ASCII say "escaped"
    ensure_ascii = text.isascii() and bool(_ESCAPED_NON_ASCII.search(text))
    return JsonStyle(
        indent=indent,
        key_separator=key_sep,
        inline_item_separator=inline_sep,
        newline=newline,
        final_newline=text.endswith("\n"),
        bom=bom,
        ensure_ascii=ensure_ascii,
        escape_html=escapes_html(text),
    )


_ESCAPED_HTML = lazy(r"\\u00(?:3[cCeE]|26)")
_HTML = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"}


def escapes_html(text: str) -> bool:
    """Whether a document escapes <, > and & (and never writes them raw)."""
    return (
        "\\u00" in text
        and _ESCAPED_HTML().search(text) is not None
        and not any(c in text for c in "<>&")
    )


def _html_escaped(text: str, style: JsonStyle) -> str:
    """JSON text with <, > and & escaped when the style says so (outside strings JSON has
    none of them)."""
    return text.translate(_HTML) if style.escape_html else text


_STRING_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_KEY_SEPARATOR = re.compile(r":([ \t]*)(\r?\n)?")
_INLINE_ITEM_SEPARATOR = re.compile(r",([ \t]*)(?![ \t]|\r?\n)")


def detect_separators(text: str) -> tuple[str, str]:
    """Key separator and one-line item separator, read off the first occurrences.

    Only the head is read (4 KB is enough), with string contents blanked out so
    that their colons and commas do not count.
    """
    head = _STRING_TOKEN.sub('""', text[:4096])
    key = _KEY_SEPARATOR.search(head)
    key_sep = ": "
    if key is not None:
        key_sep = ": " if key.group(2) is None and " " in key.group(1) else ":"
    item = _INLINE_ITEM_SEPARATOR.search(head)
    if item is None:
        item_sep = ", " if key_sep == ": " else ","
    else:
        item_sep = ", " if " " in item.group(1) else ","
    return key_sep, item_sep


def dumps(value: JsonValue, style: JsonStyle | None = None) -> str:
    """Serialise a value in a style (no BOM; callers add it when writing bytes)."""
    st = style or JsonStyle()
    if st.indent is None:
        out = json_dumps(
            value,
            separators=(st.inline_item_separator, st.key_separator),
            ensure_ascii=st.ensure_ascii,
        )
    else:
        out = json_dumps(
            value,
            indent=st.indent,
            separators=(",", st.key_separator),
            ensure_ascii=st.ensure_ascii,
        )
        if st.newline != "\n":
            out = out.replace("\n", st.newline)
    return escape_lone_surrogates(_html_escaped(out, st)) + (st.newline if st.final_newline else "")


class _Member:
    """Where one member of a container sits in the text."""

    __slots__ = ("key", "key_end", "lead_start", "start", "value_end", "value_start")

    def __init__(
        self,
        key: str | None,
        lead_start: int,
        start: int,
        key_end: int,
        value_start: int,
        value_end: int,
    ) -> None:
        self.key = key  # None for array elements
        self.lead_start = lead_start  # first character after "{", "[" or ","
        self.start = start  # start of the key (objects) or value (arrays)
        self.key_end = key_end
        self.value_start = value_start
        self.value_end = value_end


class _Container:
    """The members of an object or array and the offset of its closing bracket."""

    __slots__ = ("close", "members")

    def __init__(self, close: int, members: list[_Member]) -> None:
        self.close = close
        self.members = members


class JsonDocument(SourceText):
    """A parsed JSON document that can re-print new data in its own style.

    ``render(new)`` keeps every part of the original text whose data did not
    change byte for byte (so ``git diff old new`` shows only real changes) and
    writes new parts the way their neighbours are written.
    """

    format = "json"

    def __init__(self, text: str, data: JsonValue, *, bom: bool = False) -> None:
        self.text = text
        self.data = data
        self._style: JsonStyle | None = None
        self.bom = bom
        self._containers: dict[int, _Container] = {}
        self.keeps_duplicates = False  # read with repeated keys kept (the merge, M18)

    @property
    def style(self) -> JsonStyle:
        """The layout, detected on first use: reading data never needs it (history walks,
        diffs and views parse thousands of versions and render none)."""
        if self._style is None:
            self._style = detect_style(self.text, self.bom)
        return self._style

    # -- public -------------------------------------------------------------
    def render(self, new: JsonValue) -> str:
        """The text of ``new`` written as an edit of this document (BOM included)."""
        if same(new, self.data):
            return self.source()
        start = _WS.match(self.text, 0).end()  # type: ignore[union-attr]
        end = value_end(self.text, start)
        inline = self.style.indent is None
        body = self._emit(new, self.data, start, end, inline)
        tail = self.text[end:]
        body = escape_lone_surrogates(body)
        return self.with_bom(self.text[:start] + body + tail)

    # -- emitting -----------------------------------------------------------
    def _emit(self, new: JsonValue, old: JsonValue, start: int, end: int, inline: bool) -> str:
        if same(new, old):
            return self.text[start:end]
        if isinstance(new, dict) and isinstance(old, dict):
            return self._emit_object(new, old, start, inline)
        if isinstance(new, list) and isinstance(old, list):
            if appended_only(old, new):
                return self._emit_appended(new, old, start, end, inline)
            return self._emit_array(new, old, start, inline)
        return self._fresh(new, self._line_indent(start), inline)

    def _emit_appended(
        self, new: list[Any], old: list[Any], start: int, end: int, inline: bool
    ) -> str:
        """Elements added after all old ones (logs): the old text is reused without a scan."""
        head = _scan_container(self.text, start, limit=2)
        layout = self._layout(head, start, inline)
        last = end - 1
        while self.text[last - 1] in " \t\r\n":
            last -= 1
        parts = ["[", self.text[start + 1 : last]]
        for value in new[len(old) :]:
            parts += [",", layout.rest, self._like_sibling(value, old, head, 0, layout)]
        parts += [self.text[last : end - 1], "]"]
        return "".join(parts)

    def _emit_object(
        self, new: dict[str, Any], old: dict[str, Any], start: int, inline: bool
    ) -> str:
        c = self._container(start)
        layout = self._layout(c, start, inline)
        by_key = _members_by_name(c.members)
        first = c.members[0] if c.members else None
        parts = ["{"]
        for i, (key, value) in enumerate(new.items()):
            if i:
                parts.append(",")
            m = by_key.get(key)
            if m is None:
                name = written_key(key) if self.keeps_duplicates else key
                parts += [layout.lead(i), self._key(name), layout.key_sep]
                parts.append(self._fresh(value, layout.child_indent, layout.inline))
                continue
            parts.append(self._lead_of(m, i, m is first, layout))
            parts.append(self.text[m.start : m.value_start])
            parts.append(self._emit(value, old[key], m.value_start, m.value_end, layout.inline))
        parts.append(layout.closing if new else "")
        parts.append("}")
        return "".join(parts)

    def _emit_array(self, new: list[Any], old: list[Any], start: int, inline: bool) -> str:
        c = self._container(start)
        layout = self._layout(c, start, inline)
        matches = match_elements(old, new)
        template = next((j for j in matches if j is not None), 0)
        parts = ["["]
        for i, (value, j) in enumerate(zip(new, matches, strict=True)):
            if i:
                parts.append(",")
            if j is None:
                parts.append(layout.lead(i))
                parts.append(self._like_sibling(value, old, c, template, layout))
                continue
            template = j
            m = c.members[j]
            parts.append(self._lead_of(m, i, j == 0, layout))
            parts.append(self._emit(value, old[j], m.value_start, m.value_end, layout.inline))
        parts.append(layout.closing if new else "")
        parts.append("]")
        return "".join(parts)

    def _like_sibling(
        self, value: JsonValue, old: list[Any], c: _Container, t: int, layout: _Layout
    ) -> str:
        """A new element laid out like its neighbour (an edit of it), else freshly."""
        if c.members and isinstance(value, (dict, list)) and type(old[t]) is type(value):
            m = c.members[t]
            return self._emit(value, old[t], m.value_start, m.value_end, layout.inline)
        return self._fresh(value, layout.child_indent, layout.inline)

    def _lead_of(self, m: _Member, i: int, was_first: bool, layout: _Layout) -> str:
        """Whitespace before a kept member: its own, unless it changed first/rest position."""
        if (i == 0) == was_first:
            return self.text[m.lead_start : m.start]
        return layout.lead(i)

    def _key(self, key: str) -> str:
        return _html_escaped(json.dumps(key, ensure_ascii=self.style.ensure_ascii), self.style)

    def _fresh(self, value: JsonValue, indent: str, inline: bool) -> str:
        st = self.style
        if inline or st.indent is None:
            sep = (st.inline_item_separator, st.key_separator)
            return _html_escaped(
                json_dumps(value, separators=sep, ensure_ascii=st.ensure_ascii), st
            )
        out = json_dumps(
            value,
            indent=st.indent,
            separators=(",", st.key_separator),
            ensure_ascii=st.ensure_ascii,
        )
        out = _html_escaped(out, st)
        return out.replace("\n", st.newline + indent) if "\n" in out else out

    def _line_indent(self, offset: int) -> str:
        line_start = self.text.rfind("\n", 0, offset) + 1
        m = re.compile(r"[ \t]*").match(self.text, line_start)
        return m.group() if m else ""

    def _layout(self, c: _Container, start: int, inline: bool) -> _Layout:
        st = self.style
        if c.members:
            m0 = c.members[0]
            first = self.text[m0.lead_start : m0.start]
            if len(c.members) > 1:
                m1 = c.members[1]
                rest = self.text[m1.lead_start : m1.start]
            else:
                rest = first if "\n" in first else st.inline_item_separator[1:]
            closing = self.text[c.members[-1].value_end : c.close]
            key_sep = self.text[m0.key_end : m0.value_start] if m0.key is not None else ""
            multiline = "\n" in first
        else:
            multiline = not inline and st.indent is not None
            base = self._line_indent(start)
            first = rest = (st.newline + base + (st.indent or "")) if multiline else ""
            if not multiline:
                rest = st.inline_item_separator[1:]
            closing = st.newline + base if multiline else ""
            key_sep = st.key_separator
        if key_sep.strip() != ":":
            key_sep = st.key_separator
        child_indent = first[first.rfind("\n") + 1 :] if multiline else ""
        return _Layout(first, rest, closing, key_sep, child_indent, not multiline)

    # -- positions ----------------------------------------------------------
    def _container(self, start: int) -> _Container:
        c = self._containers.get(start)
        if c is None:
            c = _scan_container(self.text, start)
            self._containers[start] = c
        return c


@record
class _Layout:
    first: str
    rest: str
    closing: str
    key_sep: str
    child_indent: str
    inline: bool

    def lead(self, i: int) -> str:
        return self.first if i == 0 else self.rest


def _members_by_name(members: list[_Member]) -> dict[str | None, _Member]:
    """Members by key; the n-th pair of a repeated key by its ``duplicate_name``."""
    out = {m.key: m for m in members}
    if len(out) == len(members):
        return out
    out = {}
    count: dict[str | None, int] = {}
    for m in members:
        n = count.get(m.key, 0) + 1
        count[m.key] = n
        out[m.key if n == 1 or m.key is None else duplicate_name(m.key, n)] = m
    return out


def _scan_container(text: str, start: int, limit: int | None = None) -> _Container:
    """Positions of the members of the object or array that opens at ``start``.

    With ``limit``, only the first members are scanned (``close`` is then unknown: -1).
    """
    is_object = text[start] == "{"
    close_char = "}" if is_object else "]"
    members: list[_Member] = []
    pos = start + 1
    ws = _WS.match
    while True:
        lead_start = pos
        pos = ws(text, pos).end()  # type: ignore[union-attr]
        if text[pos] == close_char and not members:
            return _Container(pos, members)
        item_start = pos
        key: str | None = None
        key_end = pos
        if is_object:
            key, key_end = _scanstring(text, pos + 1)
            pos = ws(text, key_end).end() + 1  # type: ignore[union-attr]  # past ":"
            pos = ws(text, pos).end()  # type: ignore[union-attr]
        value_start = pos
        end = value_end(text, pos)
        members.append(_Member(key, lead_start, item_start, key_end, value_start, end))
        if limit is not None and len(members) >= limit:
            return _Container(-1, members)
        pos = ws(text, end).end()  # type: ignore[union-attr]
        if text[pos] == ",":
            pos += 1
            continue
        return _Container(pos, members)


def loads(raw: bytes | str, *, keep_duplicates: bool = False) -> JsonDocument:
    """Parse a JSON document, keeping what is needed to write it back in its style.

    ``keep_duplicates``: objects may repeat a key (the merge's reading, M18)."""
    text, bom = decode(raw)
    if not text or text.isspace():  # not strip(): that copies a big document
        raise ParseError("empty document", line=1, column=1)
    data = parse_value(text, keep_duplicates=keep_duplicates)
    doc = JsonDocument(text, data, bom=bom)
    doc.keeps_duplicates = keep_duplicates
    return doc
