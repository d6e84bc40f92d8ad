"""TRON documents (standard TRON and the vContext dialect): parse, and write in their own style."""

from __future__ import annotations

from ...errors import ParseError
from ...spelling import escape_lone_surrogates
from ...values import JsonValue, same
from ..text import SourceText, decode, newline_of
from .header import Header, HeaderError, read_header
from .lexer import pair_starts
from .quick import parse as parse_quick

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .edit import Kept
    from .writer import Flavor


class TronDocument(SourceText):
    """A parsed TRON document that can write new data with its own classes and dialect."""

    format = "tron"

    def __init__(
        self,
        text: str,
        data: JsonValue,
        header: Header,
        *,
        bom: bool,
        dialect: str,
        made_by: dict[int, str] | None = None,
    ) -> None:
        self.text = text
        self.data = data
        self.bom = bom
        self.dialect = dialect  # "vcontext" (top-level key: value pairs) or "standard"
        self.classes = header.classes
        self.header = text[: header.data_start]  # verbatim, comments included
        self.classes_end = header.classes_end
        self.newline = newline_of(text)
        self.final_newline = text.endswith("\n")
        self.keeps_duplicates = False  # read with repeated keys kept (the merge, M18)
        # id(dict in data) -> the class that wrote it, "" for {} syntax (render keeps the choice)
        self._made_by = made_by if made_by is not None else {}
        # (values of data, the made_by they are looked up in) still to join _made_by: the
        # elements a read kept from another document (edit.read_kept), looked up when asked
        self.made_by_later: list[tuple[list[Any], dict[int, str]]] = []
        self.memo: dict[str, Any] = {}  # what render works out once per document

    @property
    def made_by(self) -> dict[int, str]:
        """id(dict in data) -> the class that wrote it, "" for ``{}`` syntax."""
        if self.made_by_later:
            from .names import made_by_in  # lazy: only elements a read kept from another

            later, self.made_by_later = self.made_by_later, []
            for values, made_by in later:
                self._made_by.update(made_by_in(values, made_by))
        return self._made_by

    @made_by.setter
    def made_by(self, made_by: dict[int, str]) -> None:
        self._made_by = made_by
        self.made_by_later = []

    def render(self, new: JsonValue) -> str:
        """``new`` written as an edit of this document's text (BOM included): unchanged
        parts byte for byte, comments kept, new parts with its classes and in its layout."""
        if same(new, self.data):
            return self.source()
        # lazy: the TRON editor only when a value changed
        from .grown import render as render_grown

        grown = None if self.keeps_duplicates else render_grown(self, new, loads)
        if grown is not None:  # a long log grown: the editor worked on a stub (grown.py)
            grown_text, grown_again = grown
            written = self.with_bom(escape_lone_surrogates(grown_text))
            return self._handing_over(written, grown_text, grown_again)
        from .edit import render_kept

        text, kept = render_kept(self, new)
        again = None if text is None else self._reads_back(text, new, kept)
        if text is None or again is None:
            # lazy: the writer only when the minimal edit fails
            from .writer import rewrite

            text = rewrite(self, new)
        written = self.with_bom(escape_lone_surrogates(text))
        # a reading with repeated keys kept (M18) is not what a plain parse gives
        return self._handing_over(written, text, None if self.keeps_duplicates else again)

    def _reads_back(
        self, text: str, expected: JsonValue, kept: Kept | None = None
    ) -> TronDocument | None:
        """The edited text parsed, if it reads as ``expected`` (else it is written afresh);
        a long log's old elements (``_kept_read``), else the runs of ours' elements the
        edit copied (``kept``, ``edit.read_kept``), not parsed again where that can be
        shown: the proof fails, the text is parsed in full."""
        again = None if self.keeps_duplicates else self._kept_read(text)
        if again is None and kept is not None and not self.keeps_duplicates:
            # lazy: as render's own import of the editor
            from .edit import read_kept

            again = read_kept(self, kept, text, loads)
        if again is None:
            try:
                again = loads(text, keep_duplicates=self.keeps_duplicates)
            except ParseError:
                return None
        return again if same(again.data, expected) else None

    def _kept_read(self, text: str) -> TronDocument | None:
        """``text`` parsed without parsing the old elements of the log written last again,
        when it kept their text and this document's header (``codecs.kept``); None: parse
        it in full."""
        # lazy: the editor's spans say where the log is (render made them already)
        from ..kept import at_chain, read
        from .edit import kept_log, kept_spans

        log = kept_log(self)
        if log is None or not text.startswith(self.header):
            return None
        read_as: list[TronDocument] = []

        def parse(skeleton: str) -> JsonValue:
            read_as.append(loads(skeleton))
            return read_as[-1].data

        found = read(text, log, parse)
        if found is None:
            return None
        again = read_as[-1]
        if again.header != self.header or again.dialect != self.dialect:
            return None  # the old elements' text reads the same under the same classes only
        again.text = text
        again.newline, again.final_newline = newline_of(text), text.endswith("\n")
        again.made_by.update(self._log_made_by(log.elements))
        grown = at_chain(again.data, log.chain)
        # lazy: only a log kept from one edit to the next (the MCP server's writes)
        from .names import made_by_in

        if isinstance(grown, list):  # always: read found the log there
            # the next edit's kept log: these elements, their classes worked out now
            known = dict(self.memo["log_made_by"][1])
            known.update(made_by_in(grown[len(log.elements) :], again.made_by))
            again.memo["log_made_by"] = (tuple(grown), known)
        kept_spans(self, again, log, found[1])
        return again

    def _log_made_by(self, elements: list[Any]) -> dict[int, str]:
        """The classes that wrote the objects in the kept log's ``elements``: those of the
        elements this document's own reading back recorded (the very same objects, so their
        ids still name them), the others' looked up in ``made_by``."""
        # lazy: only a log kept from one edit to the next (the MCP server's writes)
        from .names import made_by_in

        known: tuple[tuple[Any, ...], dict[int, str]] | None = self.memo.get("log_made_by")
        if known is not None:
            before, found = known
            # lazy: only a log kept from one edit to the next (the MCP server's writes)
            from operator import is_

            if len(before) <= len(elements) and all(map(is_, before, elements)):
                if len(before) == len(elements):
                    return found
                found = dict(found)
                found.update(made_by_in(elements[len(before) :], self.made_by))
                self.memo["log_made_by"] = (tuple(elements), found)
                return found
        found = made_by_in(elements, self.made_by)
        self.memo["log_made_by"] = (tuple(elements), found)
        return found


def loads(raw: bytes | str, *, keep_duplicates: bool = False) -> TronDocument:
    """Parse standard TRON or the vContext dialect (the dialect is told by the content).

    ``keep_duplicates``: objects may repeat a key (the merge's reading, M18)."""
    if keep_duplicates:
        # lazy: only the merge reads repeated keys (M18)
        from ..duplicate_keys import KeepDuplicates

        with KeepDuplicates():
            doc = loads(raw)
        doc.keeps_duplicates = True
        return doc
    text, bom = decode(raw)
    try:
        header = read_header(text)
    except HeaderError as exc:
        from .parser import located  # lazy: errors only

        raise located(text, exc.offset, exc.message) from None
    start = header.data_start
    if start >= len(text):
        if not header.classes:
            raise ParseError("empty document", line=1, column=1)
        return TronDocument(text, {}, header, bom=bom, dialect="vcontext")
    dialect = "vcontext" if pair_starts(text, start) else "standard"
    cut_words: list[list[str]] = []
    absent_null = dialect == "vcontext"
    # most texts: read by the C scanner (quick); else cut into tokens and descended (fast)
    parsed = parse_quick(text, start, header.classes, absent_null)
    if parsed is None:
        # lazy: most texts are read by quick (issue 32: a merge of TRON twins never cuts tokens)
        from .fast import parse as parse_fast

        parsed = parse_fast(text, start, header.classes, absent_null, cut_words)
    if parsed is None:  # what the fast path does not read: the grammar reads it, or says why
        # lazy: the parser module (and lark in it) only where the fast path gives up (issue 32)
        from .parser import parse_data_slow

        parsed = parse_data_slow(text, header, absent_null=absent_null)
    data, made_by = parsed
    doc = TronDocument(text, data, header, bom=bom, dialect=dialect, made_by=made_by)
    if cut_words and len(text) - start <= KEEP_WORDS:
        # the tokens the parse cut, for the editor's spans of this very text (issue 32)
        doc.memo["words"] = (text, start, cut_words[0])
    return doc


KEEP_WORDS = 1 << 18
"""A data section up to this many characters keeps the tokens its parse cut until the
editor's first spans take them (a merge's sides, a small document's write); a larger one
does not hold them for a write that may never come."""


def dumps(value: JsonValue, flavor: Flavor = "vcontext") -> str:
    """A fresh TRON text for any JSON value (``flavor``: "vcontext" or "standard")."""
    # lazy: the writer only when TRON is written
    from .writer import dumps as write

    return write(value, flavor)
