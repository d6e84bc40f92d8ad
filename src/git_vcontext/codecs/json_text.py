"""JSON that keeps its style: parse with positions on demand, re-print with minimal edits."""

from __future__ import annotations

from ..errors import ParseError, parse_error_at
from ..jsoncodec import Scanner, decode_error, scanstring, skip_whitespace, string
from ..patterns import lazy
from ..record import record
from ..spelling import OutOfRange, escape_lone_surrogates, float_of, int_of
from ..spelling import dumps as json_dumps
from ..values import MAX_DEPTH, JsonValue, same
from .matching import appended_only, match_elements
from .text import (
    BOM,
    SourceText,
    brackets_structural,
    cuts_outside_containers,
    data_deeper_than,
    decode,
    deep_offset,
    marker_error,
    nesting_proof,
    newline_of,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .kept import KeptLog

KEPT_TEXT = 16384
"""A text shorter than this is read back in full (json_text.kept_log: nothing to gain)."""
KEPT_RUN = 256
"""A run of elements copied whose text is shorter than this is parsed again (no gain)."""
KEPT_RUNS_TEXT = 4096
"""A text shorter than this is read back in full, runs or not (a parse costs no more)."""
_BEFORE_RUN = frozenset("[, \t\r\n")  # what may stand right before a run's text
_AFTER_RUN = frozenset(",] \t\r\n")  # and right after it

# No regular expression on the way of a merge or a diff: ``re`` (with the ``enum`` it
# loads) costs every process git starts once per file a few milliseconds (jsoncodec).
_PLAIN = Scanner()
_PLAIN_LONG_INTS = Scanner(parse_int=str)


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
    if len(d) == len(pairs):
        return d
    from .duplicate_keys import named_pairs  # lazy: only an object that repeats a key (M18)

    return named_pairs(pairs)


class ConstantError(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity`` (Python's extensions): located afterwards."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _reject_constant(name: str) -> Any:
    raise ConstantError(name)


# A number's spelling is kept (spelling.float_of: a Python call per float literal, ~0.2 µs,
# which also refuses 1e400); ints are left to the C scanner unless the text holds a -0.
_DECODER = Scanner(object_pairs_hook=_pairs, parse_constant=_reject_constant, parse_float=float_of)
_DECODER_NEGATIVE_ZERO = Scanner(
    object_pairs_hook=_pairs,
    parse_constant=_reject_constant,
    parse_float=float_of,
    parse_int=int_of,
)
_KEEPING = {
    zero: Scanner(
        object_pairs_hook=_pairs_keeping_duplicates,
        parse_constant=_reject_constant,
        parse_float=float_of,
        **({"parse_int": int_of} if zero else {}),
    )
    for zero in (False, True)
}


def parse_value(text: str, *, keep_duplicates: bool = False) -> JsonValue:
    """Parse JSON text strictly (duplicate keys, NaN and over-deep nesting are errors).

    ``keep_duplicates``: a repeated key is no error; its pairs are kept (``duplicate_name``).
    """
    return _parse_value(text, keep_duplicates)[0]


def _parse_value(text: str, keep_duplicates: bool) -> tuple[JsonValue, bool | None]:
    """``parse_value``'s value, and whether its nesting check showed that no string of the
    text holds a bracket (``text.nesting_proof``; None: not worked out)."""
    try:
        value, end = _decode(text, keep_duplicates)
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
    except ValueError as exc:
        found = decode_error(exc)  # json.JSONDecodeError
        if found is None:
            raise
        raise _located(text, found[1], f"invalid JSON: {found[0]}") from None
    end = skip_whitespace(text, end)
    if end != len(text):
        raise _located(text, end, "invalid JSON: extra data after the document")
    if not isinstance(value, (dict, list)):
        return value, None
    within, structural = nesting_proof(text, MAX_DEPTH)
    if not within and data_deeper_than(value, MAX_DEPTH):
        raise _depth_error(text)
    return value, structural


def _decode(text: str, keep_duplicates: bool) -> tuple[JsonValue, int]:
    """The value at the start of ``text`` and where it ends: ints by the C scanner, unless
    the text holds a ``-0`` or an integer longer than Python converts (BigInt)."""
    start = skip_whitespace(text, 0)
    ints = _has_negative_zero(text)
    try:
        return _decoder(keep_duplicates, ints).raw_decode(text, start)
    except ValueError as exc:  # "Exceeds the limit (4300 digits) for integer string …"
        if ints or type(exc) is not ValueError:  # not ours: JSONDecodeError, OutOfRange, …
            raise
    return _decoder(keep_duplicates, True).raw_decode(text, start)


def _has_negative_zero(text: str) -> bool:
    """Whether the text holds ``-0`` as a whole number (``-0(?![0-9.eE])``; strings too).
    The first few ``-0`` are looked at here (a todo list's need no ``re``); a text with
    many (every timestamp of a large log has some) is searched by the pattern."""
    if "-" not in text:  # (memchr: a search for "-0" costs ~1 ns a character)
        return False
    at = text.find("-0")
    for _ in range(64):
        if at < 0:
            return False
        if text[at + 2 : at + 3] not in _NUMBER_GOES_ON:
            return True
        at = text.find("-0", at + 2)
    return at >= 0 and _NEGATIVE_ZERO().search(text, at) is not None


_NUMBER_GOES_ON = frozenset("0123456789.eE")  # ("" is not in it: the text's end)
_NEGATIVE_ZERO = lazy(r"-0(?![0-9.eE])")


def _decoder(keep_duplicates: bool, ints: bool) -> Scanner:
    if keep_duplicates:
        return _KEEPING[ints]
    return _DECODER_NEGATIVE_ZERO if ints else _DECODER


def value_end(text: str, start: int) -> int:
    """Where the JSON value that starts at ``start`` ends (any integer's length)."""
    try:
        return int(_PLAIN.scan_once(text, start)[1])  # (raw_decode's call saved: valid text)
    except (StopIteration, SystemError):  # not a value: raw_decode's error
        _PLAIN.raw_decode(text, start)
        raise
    except ValueError as exc:  # an integer longer than Python converts: its text will do
        if type(exc) is not ValueError:
            raise
        return int(_PLAIN_LONG_INTS.raw_decode(text, start)[1])


def _located(text: str, offset: int, message: str) -> ParseError:
    return marker_error(text) or parse_error_at(text, offset, message)


def _number_offset(text: str, spelling: str) -> int:
    """Where the number ``spelling`` stands as a whole token, outside strings (errors only)."""
    # lazy: errors only
    import re

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
    message = f"duplicate key {string(key)} in an object"
    return parse_error_at(text, offset, message, rule="duplicate-key")


def detect_style(text: str, bom: bool = False) -> JsonStyle:
    """Infer indentation, separators, line endings and escaping from a document."""
    newline = newline_of(text)
    indent = _first_indent(text)
    if indent is not None and text.find("\n", skip_whitespace(text, 0), _content_end(text)) < 0:
        indent = None  # everything on one line, between blank lines
    key_sep, inline_sep = detect_separators(text)
    # raw non-ASCII means "not escaped"; otherwise escapes of non-ASCII say "escaped"
    ensure_ascii = text.isascii() and _escapes_non_ascii(text)
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


def _first_indent(text: str) -> str | None:
    """The spaces and tabs that start the first line holding something after them
    (``\\n([ \\t]+)[^ \\t\\r\\n]``), if any."""
    at = text.find("\n")
    while at >= 0:
        end = at + 1
        while text[end : end + 1] in _BLANKS:
            end += 1
        if end > at + 1 and end < len(text) and text[end] not in "\r\n":
            return text[at + 1 : end]
        at = text.find("\n", at + 1)
    return None


_BLANKS = frozenset(" \t")  # ("" is not in it: the text's end)
_HEX = frozenset("0123456789abcdefABCDEF")


def _content_end(text: str) -> int:
    """Where the text's last character that is not JSON whitespace ends."""
    end = len(text)
    while end and text[end - 1] in " \t\r\n":
        end -= 1
    return end


def _escapes_non_ascii(text: str) -> bool:
    """Whether a ``\\u`` escape in the text stands for a non-ASCII character."""
    at = text.find("\\u")
    for _ in range(64):  # then by the pattern (a text with many escapes)
        if at < 0:
            return False
        digits = text[at + 2 : at + 6]
        if len(digits) == 4 and _HEX.issuperset(digits) and int(digits, 16) >= 0x80:
            return True
        at = text.find("\\u", at + 2)
    return at >= 0 and _ESCAPED_NON_ASCII().search(text, at) is not None


_ESCAPED_NON_ASCII = lazy(
    r"\\u(?:00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})"
)


_HTML = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"}
_HTML_ESCAPES = frozenset(("3c", "3C", "3e", "3E", "26"))


def escapes_html(text: str) -> bool:
    """Whether a document escapes <, > and & (and never writes them raw)."""
    if any(c in text for c in "<>&"):
        return False
    at = text.find("\\u00")
    for _ in range(64):  # then by the pattern (a text with many escapes)
        if at < 0:
            return False
        if text[at + 4 : at + 6] in _HTML_ESCAPES:
            return True
        at = text.find("\\u00", at + 4)
    return at >= 0 and _ESCAPED_HTML().search(text, at) is not None


_ESCAPED_HTML = lazy(r"\\u00(?:3[cCeE]|26)")


def _html_escaped(text: str, style: JsonStyle) -> str:
    """JSON text with <, > and & escaped when the style says so (outside strings JSON has
    none of them)."""
    return text.translate(_HTML) if style.escape_html else text


def detect_separators(text: str) -> tuple[str, str]:
    """Key separator and one-line item separator, read off the first occurrences.

    Only the head is read (4 KB is enough), with string contents blanked out so
    that their colons and commas do not count.
    """
    raw = text[:4096]
    if raw.count(",") == raw.count(",\n"):
        # every comma ends its line (an indented document): no one-line separator to read,
        # and only the strings before the first key's colon need be passed over
        key_sep = _key_separator(raw, _first_colon(raw))
        return key_sep, (", " if key_sep == ": " else ",")
    head = _blank_strings(raw)
    key_sep = _key_separator(head, head.find(":"))
    at = head.find(",")
    while at >= 0:
        end = _blanks_end(head, at + 1)
        if not (head.startswith("\n", end) or head.startswith("\r\n", end)):
            return key_sep, (", " if " " in head[at + 1 : end] else ",")
        at = head.find(",", at + 1)
    return key_sep, (", " if key_sep == ": " else ",")


def _key_separator(text: str, at: int) -> str:
    """The key separator the colon at ``at`` (outside strings; -1: none) is written with."""
    if at < 0:
        return ": "
    end = _blanks_end(text, at + 1)
    line_ends = text.startswith("\n", end) or text.startswith("\r\n", end)
    return ": " if not line_ends and " " in text[at + 1 : end] else ":"


def _first_colon(text: str) -> int:
    """Where the first colon of ``_blank_strings(text)`` stands in ``text`` (-1: none):
    the strings passed over as that function passes over them."""
    at = 0
    while True:
        quote = text.find('"', at)
        colon = text.find(":", at, len(text) if quote < 0 else quote)
        if colon >= 0 or quote < 0:
            return colon
        end = _string_end(text, quote)
        at = end if end >= 0 else quote + 1


def _blanks_end(text: str, at: int) -> int:
    """Where the spaces and tabs from ``at`` end."""
    while text[at : at + 1] in _BLANKS:
        at += 1
    return at


def _blank_strings(text: str) -> str:
    """The text with each string literal (``"(?:[^"\\\\\\n]|\\\\.)*"``, so one cut
    short at the end is left as it is) written ``""``."""
    parts: list[str] = []
    at = 0
    while True:
        quote = text.find('"', at)
        if quote < 0:
            parts.append(text[at:])
            return "".join(parts)
        parts.append(text[at:quote])
        end = _string_end(text, quote)
        parts.append('""' if end >= 0 else '"')
        at = end if end >= 0 else quote + 1


def _string_end(text: str, quote: int) -> int:
    """Where the string literal that opens at ``quote`` ends (past its closing quote), on
    its line; -1 when it does not close there."""
    at = quote + 1
    while True:
        close = text.find('"', at)
        if close < 0:
            return -1
        escape = text.find("\\", at, close)
        stop = close if escape < 0 else escape
        if text.find("\n", at, stop) >= 0:
            return -1
        if escape < 0:
            return close + 1
        if text[escape + 1 : escape + 2] in ("", "\n"):
            return -1
        at = escape + 2


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


class Member:
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


class ContainerSpan:
    """The members of an object or array and the offset of its closing bracket."""

    __slots__ = ("close", "members")

    def __init__(self, close: int, members: list[Member]) -> None:
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
        self._containers: dict[int, ContainerSpan] = {}
        # whether no string of the text holds a bracket (text.brackets_structural), when
        # the parse worked it out; else worked out by the first scan that asks
        self.structural: bool | None = None
        self._one_line_records: bool | None = None
        self.keeps_duplicates = False  # read with repeated keys kept (the merge, M18)
        # json_splice: (the log's list, how many elements the base's text holds, where
        # they end): the renderer copies that text without scanning it
        self.spliced_log: tuple[list[Any], int, int] | None = None
        self._kept: list[KeptLog | None] = []  # json_splice.kept_log, worked out once
        # runs of array elements the last render copied from this text: (where the run's
        # text starts and ends here, its elements: this document's very data), in the
        # order the written text holds them; and that text (read_back's proof: read_runs)
        self._runs: list[tuple[int, int, list[Any]]] = []
        self._ran: tuple[str, list[tuple[int, int, list[Any]]]] | None = None

    @property
    def style(self) -> JsonStyle:
        """The layout, detected on first use: reading data never needs it (history walks,
        diffs and views parse thousands of versions and render none)."""
        if self._style is None:
            self._style = detect_style(self.text, self.bom)
        return self._style

    @property
    def kept_log(self) -> KeptLog | None:
        """The log that ends this document's text, when it is long enough that an edit's
        reading back should not parse its old elements again (json_splice.kept_log)."""
        if not self._kept:
            self._kept.append(kept_log(self) if len(self.text) > KEPT_TEXT else None)
        return self._kept[0]

    # -- public -------------------------------------------------------------
    def read_back(self, text: str) -> JsonDocument | None:
        """What ``text`` (this document's text edited, BOM included) parses to, when it kept
        the old elements of the log that ends this document: those are not parsed again
        (json_splice.read_back_edit); None: parse it in full."""
        ran, self._ran = self._ran, None  # handed over: a second call parses
        if self.keeps_duplicates:
            return None
        body, bom = (text[1:], True) if text.startswith(BOM) else (text, False)
        if bom != self.bom:
            return None
        if self.kept_log is not None:
            from . import kept  # lazy: only a long log kept from one write to the next

            found = kept.read(body, self.kept_log, parse_value)
            if found is not None:
                return JsonDocument(body, found[0], bom=bom)
        if ran is None or ran[0] != text:
            return None
        data = read_runs(self.text, body, ran[1])
        return None if data is None else JsonDocument(body, data, bom=bom)

    def render(self, new: JsonValue) -> str:
        """The text of ``new`` written as an edit of this document (BOM included)."""
        self._ran = None
        if same(new, self.data):
            return self.source()
        _ = self.kept_log  # the containers on the way to a long log, scanned knowing their ends
        start = skip_whitespace(self.text, 0)
        end = _content_end(self.text)  # parsed: only whitespace follows the value
        inline = self.style.indent is None
        self._runs = []
        body = self._emit(new, self.data, start, end, inline)
        tail = self.text[end:]
        body = escape_lone_surrogates(body)
        written = self.with_bom(self.text[:start] + body + tail)
        if self._runs and not self.keeps_duplicates and len(written) >= KEPT_RUNS_TEXT:
            self._ran = (written, self._runs)
        self._runs = []
        return written

    # -- emitting -----------------------------------------------------------
    def _emit(self, new: JsonValue, old: JsonValue, start: int, end: int, inline: bool) -> str:
        if same(new, old):
            return self.text[start:end]
        if isinstance(new, dict) and isinstance(old, dict):
            return self._emit_object(new, old, start, end, inline)
        if isinstance(new, list) and isinstance(old, list):
            if appended_only(old, new):
                return self._emit_appended(new, old, start, end, inline)
            return self._emit_array(new, old, start, end, inline)
        return self._fresh(new, self._line_indent(start), inline)

    def _emit_appended(
        self, new: list[Any], old: list[Any], start: int, end: int, inline: bool
    ) -> str:
        """Elements added after all old ones (logs): the old text is reused without a scan."""
        head = scan_container(self.text, start, limit=2)
        layout = self._layout(head, start, inline)
        last = end - 1
        while self.text[last - 1] in " \t\r\n":
            last -= 1
        parts = ["[", self.text[start + 1 : last]]
        first = head.members[0].value_start if head.members else last
        if old and last - first >= KEPT_RUN:
            self._runs.append((first, last, old))
        for value in new[len(old) :]:
            parts += [",", layout.rest, self._like_sibling(value, old, head, 0, layout)]
        parts += [self.text[last : end - 1], "]"]
        return "".join(parts)

    def _emit_object(
        self, new: dict[str, Any], old: dict[str, Any], start: int, end: int, inline: bool
    ) -> str:
        c = self._container(start, end, len(old))
        layout = self._layout(c, start, inline)
        by_key = _members_by_name(c.members)
        first = c.members[0] if c.members else None
        parts = ["{"]
        last_lead: str | None = None  # the lead of the member written before
        for i, (key, value) in enumerate(new.items()):
            if i:
                parts.append(",")
            m = by_key.get(key)
            if m is None:
                name = _written_key(key) if self.keeps_duplicates else key
                lead = _new_lead(layout, i, last_lead)
                parts += [lead, self._key(name), layout.key_sep]
                parts.append(self._new_value(value, key, new, old, by_key, lead, layout))
                last_lead = lead
                continue
            lead = self._lead_of(m, i, m is first, layout)
            parts.append(lead)
            last_lead = lead
            parts.append(self.text[m.start : m.value_start])
            parts.append(self._emit(value, old[key], m.value_start, m.value_end, layout.inline))
        parts.append(layout.closing if new else "")
        parts.append("}")
        return "".join(parts)

    def _new_value(
        self,
        value: JsonValue,
        key: str,
        new: dict[str, Any],
        old: dict[str, Any],
        by_key: dict[str | None, Member],
        lead: str,
        layout: _Layout,
    ) -> str:
        """A member new to its object: laid out like a neighbour holding the same kind of
        value (an array of records like the items next to it), else in the document's way
        (small records on one line where the document writes them so)."""
        indent = lead[lead.rfind("\n") + 1 :] if "\n" in lead else layout.child_indent
        if layout.inline or self.style.indent is None or not isinstance(value, (dict, list)):
            return self._fresh(value, indent, layout.inline)
        if isinstance(value, dict) and _flat(value) and self._writes_records_on_one_line():
            return self._fresh(value, indent, True)
        template = _template(key, value, new, old, by_key)
        if template is not None:
            m, like = template
            return self._emit(value, like, m.value_start, m.value_end, False)
        if self._writes_records_on_one_line():
            return self._compact(value, indent)
        return self._fresh(value, indent, False)

    def _writes_records_on_one_line(self) -> bool:
        """Whether the document writes small objects on one line among indented ones (a
        layout by hand: one item a line)."""
        found = self._one_line_records
        if found is None:
            found = bool(_ONE_LINE_RECORD().search(self.text, 0, 1 << 16))
            self._one_line_records = found
        return found

    def _compact(self, value: JsonValue, indent: str) -> str:
        """``value`` with records of scalars on one line, larger containers one member a line."""
        st = self.style
        if not isinstance(value, (dict, list)) or _flat(value):
            return self._fresh(value, indent, True)
        inner = indent + (st.indent or "")
        newline = st.newline
        if isinstance(value, list):
            items = [newline + inner + self._compact(v, inner) for v in value]
            return "[" + ",".join(items) + newline + indent + "]" if items else "[]"
        members = [
            newline + inner + self._key(k) + st.key_separator + self._compact(v, inner)
            for k, v in value.items()
        ]
        return "{" + ",".join(members) + newline + indent + "}" if members else "{}"

    def _emit_array(
        self, new: list[Any], old: list[Any], start: int, end: int, inline: bool
    ) -> str:
        matches = match_elements(old, new)
        kept = self._kept_prefix(new, old, matches, start)
        c = self._container(start, end, len(old)) if kept is None else kept[0]
        layout = self._layout(c, start, inline)
        template = next((j for j in matches if j is not None), 0)
        parts = ["["]
        first = 0
        if kept is not None:  # the same text as the loop below writes for them
            first = len(kept[1])
            parts.append(self.text[start + 1 : kept[0].members[first - 1].value_end])
            template = first - 1
        run: list[int] = []  # the indexes in ours of the elements copied one after another
        for i, (value, j) in enumerate(zip(new, matches, strict=True)):
            if i < first:
                continue
            if i:
                parts.append(",")
            verbatim = j is not None and same(value, old[j])
            if run and not (verbatim and j == run[-1] + 1 and self._comma_after(c, run[-1])):
                self._run(c, old, run)  # before what follows is written (text order)
            if j is None:
                parts.append(layout.lead(i))
                parts.append(self._like_sibling(value, old, c, template, layout))
                continue
            template = j
            m = c.members[j]
            parts.append(self._lead_of(m, i, j == 0, layout))
            if verbatim:  # what _emit writes for it, without asking same() again
                parts.append(self.text[m.value_start : m.value_end])
                if (i == 0) == (j == 0):  # its own lead (_lead_of): ours' text
                    run.append(j)
            else:
                parts.append(self._emit(value, old[j], m.value_start, m.value_end, layout.inline))
        if run:
            self._run(c, old, run)
        parts.append(layout.closing if new else "")
        parts.append("]")
        return "".join(parts)

    def _run(self, c: ContainerSpan, old: list[Any], run: list[int]) -> None:
        """Record elements copied one after another (``run``, indexes in ours; emptied)
        when their text is long enough for ``read_runs`` to gain by not parsing it."""
        start, end = c.members[run[0]].value_start, c.members[run[-1]].value_end
        if end - start >= KEPT_RUN:
            self._runs.append((start, end, old[run[0] : run[-1] + 1]))
        run.clear()

    def _comma_after(self, c: ContainerSpan, j: int) -> bool:
        """Whether ours' comma stands right after element ``j`` (as the writer puts it)."""
        return self.text[c.members[j].value_end] == ","

    def _kept_prefix(
        self, new: list[Any], old: list[Any], matches: list[int | None], start: int
    ) -> tuple[ContainerSpan, list[Any]] | None:
        """For a log read by json_splice whose first elements (the base's) are kept as
        they are: the array's members as far as rendering needs them (the first two,
        the last kept one, those after it), without scanning the kept ones; else None."""
        if self.spliced_log is None or old is not self.spliced_log[0]:
            return None
        _, n, end = self.spliced_log
        if len(new) < n or self.text[start] != "[":
            return None
        if any(a is not b for a, b in zip(old[:n], new[:n], strict=True)):
            return None
        if matches[:n] != list(range(n)):
            return None
        if any(j is not None and j < n for j in matches[n:]):
            return None
        # the loop writes "," right after each kept element: no space may stand before one
        if any(self.text.find(c + ",", start, end) >= 0 for c in " \n\t\r"):
            return None
        head = scan_container(self.text, start, limit=2).members
        lead = self.text[head[1].lead_start : head[1].start]
        if "\n" not in lead:
            return None
        last = self._last_kept(lead, start, end, old[n - 1])
        if last is None:
            return None
        tail, close = _scan_after(self.text, end)
        if close < 0 or len(tail) != len(old) - n:
            return None
        between: list[Any] = [None] * (n - 3) if n > 2 else []
        members = [*head[: min(n, 2)], *between, *([last] if n > 2 else []), *tail]
        return ContainerSpan(close, members), old[:n]

    def _last_kept(self, lead: str, start: int, end: int, value: Any) -> Member | None:
        """The member of the last kept element, found back from its end by the lead the
        elements have (a newline, which no string holds) and checked by decoding it."""
        text, sep = self.text, "," + lead
        at = end
        for _ in range(64):  # the element's own lines may hold the lead, further indented
            at = text.rfind(sep, start, at)
            if at < 0:
                return None
            value_start = at + len(sep)
            if text[value_start] in " \t":
                continue
            try:
                found, stop = _PLAIN.raw_decode(text, value_start)
            except ValueError:
                continue
            if stop == end and found == value:
                return Member(None, at + 1, value_start, value_start, value_start, end)
        return None

    def _like_sibling(
        self, value: JsonValue, old: list[Any], c: ContainerSpan, t: int, layout: _Layout
    ) -> str:
        """A new element laid out like its neighbour (an edit of it), else freshly."""
        if c.members and isinstance(value, (dict, list)) and type(old[t]) is type(value):
            m = c.members[t]
            return self._emit(value, old[t], m.value_start, m.value_end, layout.inline)
        return self._fresh(value, layout.child_indent, layout.inline)

    def _lead_of(self, m: Member, i: int, was_first: bool, layout: _Layout) -> str:
        """Whitespace before a kept member: its own, unless it changed first/rest position."""
        if (i == 0) == was_first:
            return self.text[m.lead_start : m.start]
        return layout.lead(i)

    def _key(self, key: str) -> str:
        return _html_escaped(string(key, self.style.ensure_ascii), self.style)

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
        return self.text[line_start : _blanks_end(self.text, line_start)]

    def _layout(self, c: ContainerSpan, start: int, inline: bool) -> _Layout:
        st = self.style
        if c.members:
            m0 = c.members[0]
            first = self.text[m0.lead_start : m0.start]
            if len(c.members) > 1:
                m1 = c.members[1]
                rest = self.text[m1.lead_start : m1.start]
            else:
                rest = first if "\n" in first else st.inline_item_separator[1:]
            closing = self.text[c.members[-1].value_end : c.close] if c.close >= 0 else ""
            key_sep = self.text[m0.key_end : m0.value_start] if m0.key is not None else ""
            # a layout by hand may start on the opening line and go on one member a line
            leads = (self.text[m.lead_start : m.start] for m in c.members[1:])
            line_lead = first if "\n" in first else next((ld for ld in leads if "\n" in ld), None)
            multiline = line_lead is not None
            child_indent = line_lead[line_lead.rfind("\n") + 1 :] if line_lead else ""
        else:
            multiline = not inline and st.indent is not None
            base = self._line_indent(start)
            first = rest = (st.newline + base + (st.indent or "")) if multiline else ""
            if not multiline:
                rest = st.inline_item_separator[1:]
            closing = st.newline + base if multiline else ""
            key_sep = st.key_separator
            child_indent = first[first.rfind("\n") + 1 :] if multiline else ""
        if key_sep.strip() != ":":
            key_sep = st.key_separator
        return _Layout(first, rest, closing, key_sep, child_indent, not multiline)

    # -- positions ----------------------------------------------------------
    def know_chain(self, chain: list[Any], closes: list[int]) -> int | None:
        """Scan the containers from the root down to a log (json_splice) knowing where
        each of them closes (``closes``, the root's first): each one's last member is the
        next, so none of those big values is scanned to find its end. Where the value the
        chain leads to starts (None: a container on the way was scanned already)."""
        start = skip_whitespace(self.text, 0)
        for step, close, inner in zip(chain, closes, closes[1:], strict=False):
            if self.text[start] not in "[{" or start in self._containers:
                return None
            c = scan_container(self.text, start, last=(step, inner + 1, close))
            self._containers[start] = c
            start = c.members[-1].value_start
        return start

    def _container(self, start: int, end: int = -1, count: int = -1) -> ContainerSpan:
        """The members of the container that opens at ``start``; when known, where it ends
        and how many members it holds (its data's: what the parse made of this very text):
        the last one's end is not scanned for, nor a long array's elements read."""
        c = self._containers.get(start)
        if c is None:
            if end < 0 or (self.keeps_duplicates and self.text[start] == "{"):
                c = scan_container(self.text, start)  # (a repeated key's names: no count)
                self._containers[start] = c
                return c
            many = count >= _SPLIT_FROM and self.text[start] == "["
            if many and self.structural is None:
                self.structural = brackets_structural(self.text)
            split = many and self.structural and _elements_by_lines(self.text, start, end, count)
            c = split or scan_container(self.text, start, known=(end - 1, count))
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


def _new_lead(layout: _Layout, i: int, last_lead: str | None) -> str:
    """The whitespace before a member new to its object: the previous member's when that
    one starts a line (blank lines left out) or stands among the others on a line, else
    the object's usual lead."""
    if i == 0 or last_lead is None:
        return layout.lead(i)
    cut = last_lead.rfind("\n")
    if cut >= 0:
        return last_lead[cut - 1 if cut and last_lead[cut - 1] == "\r" else cut :]
    if i == 1:  # the previous one is the first: its lead is the opening's
        return layout.rest
    return last_lead


_KEY_TEXT = r'"(?:[^"\\\n]|\\.)*"[ \t]*:'
_ONE_LINE_RECORD = lazy(  # compiled when a member new to its object holds a container
    rf"\{{[ \t]*{_KEY_TEXT}[^{{}}\[\]\n]*,[ \t]*{_KEY_TEXT}[^\n]*\}}[ \t]*,?[ \t]*\r?\n"
)
"""An object of two members or more on a line of its own (a record laid out by hand)."""


def _flat(value: JsonValue) -> bool:
    """A record to write on one line: scalars, and records or lists of scalars in it."""
    inner = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for v in inner:
        nested = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        if any(isinstance(x, (dict, list)) for x in nested):
            return False
    return True


def _template(
    key: str,
    value: JsonValue,
    new: dict[str, Any],
    old: dict[str, Any],
    by_key: dict[str | None, Member],
) -> tuple[Member, Any] | None:
    """The member of ours nearest before ``key`` (else after it) holding the same kind of
    container: an object, or an array whose first element is of the same kind."""

    def like(other: Any) -> bool:
        if isinstance(value, dict):
            return isinstance(other, dict) and bool(other)
        if not isinstance(other, list) or not other or not isinstance(value, list) or not value:
            return False
        return type(other[0]) is type(value[0])

    keys = list(new)
    at = keys.index(key)
    for k in [*reversed(keys[:at]), *keys[at + 1 :]]:
        m = by_key.get(k)
        if m is not None and k in old and like(old[k]):
            return m, old[k]
    return None


def _written_key(key: str) -> str:
    from .duplicate_keys import written_key  # lazy: only a reading that kept repeated keys

    return written_key(key)


def _members_by_name(members: list[Member]) -> dict[str | None, Member]:
    """Members by key; the n-th pair of a repeated key by its ``duplicate_name``."""
    out = {m.key: m for m in members}
    if len(out) == len(members):
        return out
    from .duplicate_keys import duplicate_name  # lazy: only an object that repeats a key

    out = {}
    count: dict[str | None, int] = {}
    for m in members:
        n = count.get(m.key, 0) + 1
        count[m.key] = n
        out[m.key if n == 1 or m.key is None else duplicate_name(m.key, n)] = m
    return out


def scan_container(
    text: str,
    start: int,
    limit: int | None = None,
    last: tuple[Any, int, int] | None = None,
    known: tuple[int, int] | None = None,
) -> ContainerSpan:
    """Positions of the members of the object or array that opens at ``start``.

    With ``limit``, only the first members are scanned (``close`` is then unknown: -1).
    ``last``: (its key or index, where its value ends, where the container closes) of the
    last member, known already: its value is not scanned (json_splice's chain to a log).
    ``known``: where the container closes and how many members it holds (a parsed text
    and its data): the last member's value ends where the blanks before the closing
    bracket start, and is not scanned (a long list most often ends a document).
    """
    is_object = text[start] == "{"
    close_char = "}" if is_object else "]"
    members: list[Member] = []
    pos = start + 1
    ws = skip_whitespace
    while True:
        lead_start = pos
        pos = ws(text, pos)
        if text[pos] == close_char and not members:
            return ContainerSpan(pos, members)
        item_start = pos
        key: str | None = None
        key_end = pos
        if is_object:
            key, key_end = scanstring(text, pos + 1)
            pos = ws(text, key_end) + 1  # past ":"
            pos = ws(text, pos)
        value_start = pos
        if last is not None and last[0] == (len(members) if key is None else key):
            members.append(Member(key, lead_start, item_start, key_end, value_start, last[1]))
            return ContainerSpan(last[2], members)
        if known is not None and len(members) == known[1] - 1:
            end = known[0]
            while text[end - 1] in _WHITESPACE:
                end -= 1
            members.append(Member(key, lead_start, item_start, key_end, value_start, end))
            return ContainerSpan(known[0], members)
        end = value_end(text, pos)
        members.append(Member(key, lead_start, item_start, key_end, value_start, end))
        if limit is not None and len(members) >= limit:
            return ContainerSpan(-1, members)
        pos = ws(text, end)
        if text[pos] == ",":
            pos += 1
            continue
        return ContainerSpan(pos, members)


_WHITESPACE = frozenset(" \t\r\n")
_SPLIT_FROM = 8
"""An array of this many elements or more is cut by lines when it can be (_elements_by_lines)."""


def _elements_by_lines(text: str, start: int, end: int, count: int) -> ContainerSpan | None:
    """The members of the array that opens at ``start``, ends at ``end`` and holds ``count``
    elements, in a parsed text whose brackets are all containers' (``brackets_structural``),
    when its elements stand one a line as the first one does: the text between its brackets
    cut at each comma followed by the first element's lead (a line break and an indent)
    and first character, without reading an element. None when that does not give them all.

    The proof: JSON strings hold no line break, so each cut is a comma outside strings;
    where every container opened since the last cut is closed (``cuts_outside_containers``)
    it stands between two elements of this array, and ``count`` pieces (each at least one
    element) are one element each."""
    first = skip_whitespace(text, start + 1)
    lead = text[start + 1 : first]
    close = end - 1
    if "\n" not in lead or first >= close:
        return None
    head = text[first]
    cut = "," + lead + head
    pieces = text[first + 1 : close].split(cut)  # each without its first character (head)
    if len(pieces) != count or not cuts_outside_containers(head + (_CUT + head).join(pieces)):
        return None
    members: list[Member] = []
    lead_start, at, step = start + 1, first, len(cut)
    for piece in pieces:
        size = len(piece.rstrip(" \t\r\n")) if piece[-1:] in _WHITESPACE else len(piece)
        members.append(Member(None, lead_start, at, at, at, at + 1 + size))
        lead_start = at + 1 + len(piece) + 1
        at += len(piece) + step
    return ContainerSpan(close, members)


_CUT = "\x00"  # (no JSON text holds a NUL: a string's must be escaped)


def _scan_after(text: str, pos: int) -> tuple[list[Member], int]:
    """The members of an array after the element that ends at ``pos``, and the offset of
    its closing bracket (-1: something else closes there)."""
    members: list[Member] = []
    ws = skip_whitespace
    while True:
        pos = ws(text, pos)
        if text[pos] != ",":
            return members, (pos if text[pos] == "]" else -1)
        lead_start = pos + 1
        start = ws(text, lead_start)
        pos = value_end(text, start)
        members.append(Member(None, lead_start, start, start, start, pos))


_CLOSING = " \t\r\n]}"


def trailing_logs(doc: JsonDocument) -> list[tuple[int, list[Any], list[Any]]]:
    """Each array of a parsed document whose last element ends where only closing brackets
    follow, innermost first (a log's last event may end with an array of its own): where
    its last element ends, the chain of keys and indexes from the root to it, the array."""
    text = doc.text
    cut = len(text)
    while cut and text[cut - 1] in _CLOSING:
        cut -= 1
    closers = [(at, text[at]) for at in range(cut, len(text)) if text[at] in "]}"]
    # the containers open where the text's last value ends: the chain of last members
    chain: list[Any] = []
    found: list[tuple[int, list[Any], list[Any]]] = []
    node: Any = doc.data
    for depth, (_at, closer) in enumerate(reversed(closers)):
        if not isinstance(node, list if closer == "]" else dict) or not node:
            break
        if isinstance(node, list) and len(node) >= 2:  # a log of one: the layout needs two
            ends = cut if depth == len(closers) - 1 else closers[-depth - 2][0] + 1
            found.append((ends, list(chain), node))
        if isinstance(node, dict):
            key = next(reversed(node))
            chain.append(key)
            node = node[key]
        else:
            chain.append(len(node) - 1)
            node = node[-1]
    found.reverse()
    return found


def kept_log(doc: JsonDocument) -> KeptLog | None:
    """The log that ends the document's text (the outermost of ``trailing_logs``) with the
    text of its elements, for reading an edit back without parsing them again (``kept``);
    the containers on the way to it are scanned knowing where each closes, so rendering
    does not scan the log either. None: there is none, or it is too small to matter."""
    found = trailing_logs(doc) if not doc.keeps_duplicates else []
    if not found:
        return None
    ends, chain, log = found[-1]
    text = doc.text
    closes = [at for at in range(ends, len(text)) if text[at] in "]}"]
    opening = doc.know_chain(chain, closes[::-1])
    if opening is None or text[opening] != "[":
        return None
    first = skip_whitespace(text, opening + 1)
    from . import kept  # lazy: only a text long enough to keep a log (KEPT_TEXT)

    if ends - first < kept.SMALLEST:
        return None
    return kept.KeptLog(chain, text[first:ends], log, first)


def read_runs(source: str, text: str, runs: list[tuple[int, int, list[Any]]]) -> Any:
    """What ``text`` (a render of ``source``'s document, BOM off) parses to, the runs of
    elements it copied from ``source`` (in the order ``text`` holds them) not parsed again;
    None when that cannot be shown (the caller parses in full, and says why).

    The proof, as ``codecs.kept``'s for a log: each run's text (found in ``text``, in
    order, byte for byte ``source``'s: whole elements of an array with the commas and
    blanks between them, which parse as those elements wherever they stand in an array)
    stands between what an array element can stand between; ``text`` with each replaced by
    one string no text holds (a random nonce) parses, each nonce is found once as an
    array element, and is replaced there by the run's elements (the very objects
    ``source``'s parse made of that text). The nesting limit is checked as a parse does
    (the skeleton's by its parse, each run's where it stands)."""
    from . import kept  # lazy: only a render that copied runs

    nonce = "vcontext-kept-" + kept.random_hex() + "-"
    if nonce in text:  # never: 128 random bits
        return None
    pieces, elements, at = [], {}, 0
    for k, (start, end, run) in enumerate(runs):
        body = source[start:end]
        found = _found(text, body, at)
        after = found + len(body)
        if found <= 0 or text[found - 1] not in _BEFORE_RUN:
            return None
        if after < len(text) and text[after] not in _AFTER_RUN:
            return None
        name = f"{nonce}{k}"
        pieces += [text[at:found], f'"{name}"']
        elements[name] = run
        at = after
    pieces.append(text[at:])
    try:
        data = parse_value("".join(pieces))
    except ParseError:
        return None
    if type(data) is not dict and type(data) is not list:
        return None
    levels = kept.put_back(data, nonce, elements)
    if levels is None:
        return None
    for k, (start, end, run) in enumerate(runs):
        # the limit as a parse checks it, for ours' elements where they stand now: no deeper
        # than their array's level and the brackets in their text (most often, in C)
        level = levels[f"{nonce}{k}"]
        brackets = source.count("[", start, end) + source.count("{", start, end)
        if level + brackets > MAX_DEPTH and data_deeper_than(run, MAX_DEPTH - level + 1):
            return None  # the parse says where
    return data


def _found(text: str, body: str, at: int) -> int:
    """Where ``body`` is next found in ``text`` from ``at`` (-1: nowhere): its first
    characters looked for, the rest compared there (str.find of a long text prepares
    it first, which costs more than the search: issue 32)."""
    probe = body[:64]
    found = text.find(probe, at)
    while found >= 0 and not text.startswith(body, found):
        found = text.find(probe, found + 1)
    return found


def loads(raw: bytes | str, *, keep_duplicates: bool = False) -> JsonDocument:
    """Parse a JSON document, keeping what is needed to write it back in its style.

    ``keep_duplicates``: objects may repeat a key (the merge's reading, M18)."""
    text, bom = decode(raw)
    if not text or text.isspace():  # not strip(): that copies a big document
        raise ParseError("empty document", line=1, column=1)
    data, structural = _parse_value(text, keep_duplicates)
    doc = JsonDocument(text, data, bom=bom)
    doc.keeps_duplicates = keep_duplicates
    doc.structural = structural
    return doc
