"""Bytes to text for every codec: UTF-8 with optional BOM, binary and conflict-marker checks."""

from __future__ import annotations

from ..errors import ParseError, parse_error_at
from ..patterns import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from . import Document

BOM = "\ufeff"


class SourceText:
    """What a parsed document keeps of its file: the text (BOM excluded) and whether a BOM
    led it."""

    text: str
    bom: bool

    def source(self) -> str:
        """The original text, BOM included."""
        return self.with_bom(self.text)

    def with_bom(self, text: str) -> str:
        """``text`` led by a BOM when the original was."""
        return (BOM if self.bom else "") + text

    _checked: tuple[str, Document] | None = None  # render's reading of what it returned

    def read_back(self, text: str) -> Document | None:
        """The document ``text`` parses to when this document's last ``render`` returned it
        and parsed it already to check its edit (TRON, TOML); None: parse it. Handed over,
        not kept: a second call answers None."""
        checked, self._checked = self._checked, None
        return checked[1] if checked is not None and checked[0] == text else None

    def _handing_over(self, written: str, text: str, reading: Document | None) -> str:
        """``written``, keeping render's ``reading`` of ``text`` for ``read_back`` when it is
        the reading of exactly what is written (no BOM or escape added)."""
        self._checked = (written, reading) if reading is not None and written == text else None
        return written


def decode(raw: bytes | str) -> tuple[str, bool]:
    """The text of a document and whether it started with a UTF-8 BOM.

    Raises ParseError for binary content (NUL bytes) and for bytes that are not UTF-8.
    """
    if isinstance(raw, str):
        text = raw
    else:
        nul = raw.find(b"\x00")
        if nul >= 0:
            err = ParseError("binary content (NUL byte); not a text document")
            return _raise_at(raw, nul, err)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            err = ParseError(f"not UTF-8 text ({exc.reason} at byte {exc.start})")
            return _raise_at(raw, exc.start, err)
    if "\x00" in text:
        raise parse_error_at(text, text.index("\x00"), "binary content (NUL character)")
    if text.startswith(BOM):
        return text[1:], True
    return text, False


def _raise_at(raw: bytes, offset: int, err: ParseError) -> tuple[str, bool]:
    prefix = raw[:offset].decode("utf-8", "replace")
    line = prefix.count("\n") + 1
    column = len(prefix) - (prefix.rfind("\n") + 1) + 1
    raise ParseError(err.reason, line=line, column=column)


MARKER_CHARS = "<|=>"
"""The characters of git's conflict marker lines: ours, base (diff3), separator, theirs."""


def marker_line(line: str, size: int | None = None) -> tuple[str, str] | None:
    """Which git conflict marker ``line`` is: (its character, its label), or None.

    The one judgement of a marker line (the codecs' ``conflict-markers``, ``conflicts``,
    ``resolve``, the merge driver's virtual base and rerere): a run of ``<``, ``|`` or
    ``>`` then a space and a label or the line's end; a run of ``=`` then the line's end.
    ``size``: the run's exact length (a block's markers, ``%L``); None: seven or more.
    ``line`` may keep its ending, ``\n`` or ``\r\n``: git writes the markers of a file
    with CRLF line endings with CRLF, so ``=======\r`` is a marker as ``=======`` is.
    """
    if line.endswith("\n"):
        line = line[:-1]
    if line.endswith("\r"):
        line = line[:-1]
    char = line[:1]
    if not char or char not in MARKER_CHARS:
        return None
    run = len(line) - len(line.lstrip(char))
    if (run < 7) if size is None else (run != size):
        return None
    rest = line[run:]
    if rest == "":
        return char, ""
    if char != "=" and rest[0] == " ":
        return char, rest[1:]
    return None


def git_lines(text: str) -> list[str]:
    """``text``'s lines as git reads them, each with its ending: split after ``\\n`` only
    (``str.splitlines`` also ends a line at U+2028, U+0085, a form feed…, the first two
    of which a JSON string may hold raw: a marker there is none for git, nor for
    ``find_conflict_marker``)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def find_conflict_marker(text: str) -> int | None:
    """Offset of the first line that is a git conflict marker (``marker_line``), or None.

    Such a line can never be inside a JSON/TRON string (strings hold no raw
    newline), so a document holding one is the leftover of a conflicted merge.
    """
    found = [_marker_line(text, c) for c in MARKER_CHARS]
    return min((at for at in found if at is not None), default=None)


def holds_markers(raw: bytes) -> bool:
    """Whether a file's bytes hold a conflict marker line (``find_conflict_marker``)."""
    return find_conflict_marker(raw.decode("utf-8", "surrogateescape")) is not None


def _marker_line(text: str, char: str) -> int | None:
    """The offset of the first line that starts with seven ``char`` and is a marker line,
    found by C-speed searches for the run (every merge asks), judged by ``marker_line``."""
    run = char * 7
    at = text.find(run)
    while at >= 0:
        if at == 0 or text[at - 1] == "\n":
            end = text.find("\n", at)
            if marker_line(text[at : len(text) if end < 0 else end]) is not None:
                return at
        at = text.find(run, at + 1)
    return None


def marker_error(text: str) -> ParseError | None:
    """A ParseError with rule ``conflict-markers`` when the text holds markers."""
    offset = find_conflict_marker(text)
    if offset is None:
        return None
    return parse_error_at(
        text,
        offset,
        "holds git conflict markers; resolve the conflict first",
        rule="conflict-markers",
    )


def newline_of(text: str) -> str:
    """The line ending a document uses ("\\r\\n" when it has any, else "\\n")."""
    # (a "\r" looked for first, by memchr: the pair's search costs ~2 ns a character)
    return "\r\n" if "\r" in text and "\r\n" in text else "\n"


_STRING = lazy(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')
_NOT_BRACKET = lazy(r"[^\[\]{}()]+")


def exceeds_depth(text: str, limit: int) -> bool:
    """Whether brackets outside strings nest deeper than ``limit`` (C-speed string ops)."""
    if sum(text.count(c) for c in "[{(") <= limit:
        return False
    shape = _NOT_BRACKET().sub("", _STRING().sub("", text))
    return nests_deeper(shape.translate(ROUND_BRACKETS), limit)


ROUND_BRACKETS = str.maketrans("[{]}", "(())")
"""Every bracket as a round one: a shape ``nests_deeper`` reads."""


def nests_deeper(shape: str, limit: int) -> bool:
    """Whether a text of round brackets only nests deeper than ``limit``: the innermost
    pairs taken away level by level (C-speed string steps)."""
    for _ in range(limit):
        shorter = shape.replace("()", "")
        if not shorter or shorter == shape:
            return False
        shape = shorter
    return True


_ROUND = bytes.maketrans(b"[{]}", b"(())")
_NOT_BRACKET_OR_QUOTE = bytes(c for c in range(256) if c not in b'[]{}"')
_NOT_BRACKET_OR_NUL = bytes(range(256)).translate(None, b"[]{}\x00")


def brackets_within(text: str, limit: int) -> bool:
    """Whether the JSON text ``text`` is shown, by its brackets alone, to nest no deeper
    than ``limit`` (a document's root container is level 1); False when that cannot be
    shown (then ask the data: ``data_deeper_than``). Cheaper than the walk of the data
    (C-speed steps over the text: issue 32), and a proof: no more opening brackets than
    ``limit`` cannot nest deeper; else, with no escaped quote in the text every ``"``
    opens or closes a string, so once the brackets and quotes are kept alone and each
    ``""`` taken out left to right, a quote left means some string holds a bracket (each
    string's own quotes pair up only when nothing stands between them, by induction from
    the first quote); with none left, what remains is the nesting of the containers,
    bracket for bracket."""
    return nesting_proof(text, limit)[0]


def nesting_proof(text: str, limit: int) -> tuple[bool, bool | None]:
    """``brackets_within``'s answer, and whether the proof showed that no string holds a
    bracket (``brackets_structural``; None: not worked out, the text being short or
    holding few brackets)."""
    if len(text) <= 2 * limit:
        return True, None  # fewer than limit + 1 opening brackets
    shape = text.encode("utf-8", "surrogatepass").translate(_ROUND, _NOT_BRACKET_OR_QUOTE)
    if shape.count(b"(") <= limit:
        return True, None
    bare = _bare_brackets(text, shape)
    if bare is None:
        return False, False
    return not nests_deeper(bare.decode("ascii"), limit), True


def brackets_structural(text: str) -> bool:
    """Whether every bracket of the JSON text ``text`` opens or closes a container (no
    string holds one), shown as ``brackets_within`` shows it: no escaped quote, and the
    brackets and quotes kept alone, each ``""`` taken out left to right, no quote left
    (False: that cannot be shown). Then a part of the text holds as many opening brackets
    as closing ones exactly when it closes every container it opens (``json_text``'s
    scan of a long array, issue 32)."""
    return _bare_brackets(text) is not None


def _bare_brackets(text: str, shape: bytes | None = None) -> bytes | None:
    """The text's brackets alone (``[{`` as ``(``, ``]}`` as ``)``) when no string holds
    one (``brackets_structural``), else None; ``shape``: the brackets and quotes alone,
    worked out already."""
    if "\\" in text and '\\"' in text:  # (memchr first: the pair's search is ~30x slower)
        return None
    if shape is None:
        shape = text.encode("utf-8", "surrogatepass").translate(_ROUND, _NOT_BRACKET_OR_QUOTE)
    shape = shape.replace(b'""', b"")
    return None if b'"' in shape else shape  # a quote left: a string holds a bracket


def cuts_outside_containers(text: str) -> bool:
    """Whether each NUL of ``text`` (a character no JSON text holds, put in by the caller
    in a part of a parsed JSON text whose brackets are all containers',
    ``brackets_structural``) stands where every container opened since the last one (or
    the start) is closed: the text's brackets and NULs alone, the innermost pairs of
    brackets taken away until none is left, leave nothing but the NULs (C-speed steps,
    one a level of nesting)."""
    shape = text.encode("utf-8", "surrogatepass").translate(_ROUND, _NOT_BRACKET_OR_NUL)
    while b"()" in shape:
        shape = shape.replace(b"()", b"")
    return shape.count(0) == len(shape)


_CONTAINERS = frozenset((dict, list))  # exactly these (as type() is): no subclass


def data_deeper_than(value: object, limit: int) -> bool:
    """Whether parsed data (plain dicts and lists, as every parser here makes) nests deeper
    than ``limit`` (``value`` is level 1): level by level, each a list comprehension that
    tells containers by ``type() is`` (half the time of a walk node by node with
    ``isinstance``, paid on every parse: issue 32); stops at the first empty level."""
    level: list[Any] = [value]
    containers = _CONTAINERS
    for _ in range(max(limit, 1)):  # from the containers at one level, those at the next
        level = [
            child
            for node in level
            for child in (node.values() if type(node) is dict else node)
            if child.__class__ in containers  # one look-up, not two calls (issue 32: -25%)
        ]
        if not level:
            return False
    return True  # a container at level ``limit + 1``


_STRING_OR_BRACKET = r'"(?:[^"\\\n]|\\.)*"|[\[{(]|[\]})]'
_STRING_COMMENT_OR_BRACKET = r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|[\[{(]|[\]})]'


def deep_offset(text: str, limit: int, *, start: int = 0, comments: bool = False) -> int | None:
    """Offset of the first bracket from ``start`` nested deeper than ``limit``, outside strings
    (and ``#`` comments: TRON's); None when there is none (slow; for error messages)."""
    # lazy: errors only
    import re

    scan = re.compile(_STRING_COMMENT_OR_BRACKET if comments else _STRING_OR_BRACKET)
    level = 0
    for m in scan.finditer(text, start):
        tok = m.group()
        if tok in "[{(":
            level += 1
            if level > limit:
                return m.start()
        elif tok in "]})":
            level -= 1
    return None
