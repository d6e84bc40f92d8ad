"""The data section of a TRON text: the fast path first, lark (tron.lark) for the rest and errors.

``fast.parse`` serves every text it parses cleanly; anything else goes to lark, whose
lexer, transformer and error translation live here (lark is imported only then).
"""

from __future__ import annotations

import os

from ...errors import ParseError, parse_error_at
from ...jsoncodec import string
from ...patterns import lazy
from ...values import MAX_DEPTH, JsonValue
from ..text import deep_offset, exceeds_depth, marker_error
from . import fast
from .fast import (
    NAME,
    NUMBER,
    PUNCTUATION,
    SKIP,
    STRING,
    ArgumentError,
    DuplicateKey,
    Fail,
    Named,
    number_value,
    pairs_to_dict,
    string_value,
)
from .header import Header

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from lark import Lark

_TOKEN = lazy(f"{SKIP}(?:({NAME})|({STRING})|({NUMBER})|({PUNCTUATION}))")  # lark's path only
_SKIP = lazy(SKIP)
_KEYWORDS = {"true": "TRUE", "false": "FALSE", "null": "NULL"}
_PUNCTUATION = {
    "{": "_LBRACE",
    "}": "_RBRACE",
    "[": "_LSQB",
    "]": "_RSQB",
    "(": "_LPAR",
    ")": "_RPAR",
    ",": "_COMMA",
    ":": "_COLON",
    "=": "_EQUAL",
}


class _Tok:
    """The tokens of the lexer below; lark reads ``type`` and, for errors, ``start_pos``."""

    __slots__ = ("start_pos", "type", "value")
    line = column = end_line = end_column = end_pos = None

    def __init__(self, kind: str, value: str, start_pos: int) -> None:
        self.type = kind
        self.value = value
        self.start_pos = start_pos


def _lex(text: str, pos: int) -> Iterator[_Tok]:
    """Tokens of the grammar's terminals, from ``pos`` to the end (faster than lark's lexer)."""
    match = _TOKEN().match
    while (m := match(text, pos)) is not None:
        pos = m.end()
        group = m.lastindex
        if group == 1:
            word = m.group(1)
            yield _Tok(_KEYWORDS.get(word, "NAME"), word, m.start(1))
        elif group == 2:
            yield _Tok("STRING", m.group(2), m.start(2))
        elif group == 3:
            yield _Tok("NUMBER", m.group(3), m.start(3))
        else:
            yield _Tok(_PUNCTUATION[m.group(4)], m.group(4), pos - 1)
    end = _SKIP().match(text, pos).end()  # type: ignore[union-attr]
    if end < len(text):
        # lazy: errors only (issue 32: not on a TRON merge's path)
        from . import scan

        raise Fail(*scan.bad_character(text, end))


class _Builder:
    """lark's inline transformer: grammar reductions become Python values, no tree is built."""

    def __init__(self) -> None:
        self.reset({}, absent_null=False, start=0)

    def reset(self, classes: dict[str, list[str]], *, absent_null: bool, start: int) -> None:
        self.classes = classes
        self.absent_null = absent_null  # the dialect: a positional null means "key absent"
        self.start = start
        self.made_by: dict[int, str] = {}

    # Terminal callbacks: lark calls them by the terminal's name when it shifts the token.
    def STRING(self, tok: _Tok) -> str:
        return string_value(tok.value, tok.start_pos)

    def NUMBER(self, tok: _Tok) -> int | float:
        return number_value(tok.value, tok.start_pos)

    def TRUE(self, tok: _Tok) -> bool:
        return True

    def FALSE(self, tok: _Tok) -> bool:
        return False

    def NULL(self, tok: _Tok) -> None:
        return None

    def name_key(self, children: list[_Tok]) -> str:
        return children[0].value

    def bare_word(self, children: list[_Tok]) -> JsonValue:
        tok = children[0]
        raise Fail(tok.start_pos, _bare_word_message(tok.value, tok.value in self.classes))

    def named(self, children: list[Any]) -> Named:
        return Named(children[0], children[1])

    def array(self, children: list[JsonValue]) -> list[JsonValue]:
        return children

    def object(self, children: list[Any]) -> dict[str, JsonValue]:
        d = pairs_to_dict(children)
        self.made_by[id(d)] = ""
        return d

    def pairs(self, children: list[Any]) -> dict[str, JsonValue]:
        return pairs_to_dict(children)

    def root(self, children: list[JsonValue]) -> JsonValue:
        return children[0]

    def instance(self, children: list[Any]) -> dict[str, JsonValue]:
        tok = children[0]
        props = self.classes.get(tok.value)
        if props is None:
            raise Fail(tok.start_pos, f"unknown class '{tok.value}'")
        del children[0]
        d = fast.instance(tok.value, tok.start_pos, props, children, self.absent_null)
        self.made_by[id(d)] = tok.value
        return d


def _bare_word_message(word: str, is_class: bool) -> str:
    if is_class:
        return f"class {word} needs its arguments in parentheses: {word}(...)"
    if word in ("NaN", "Infinity"):
        return f"{word} is not a number in TRON (JSON numbers only)"
    return f"unexpected word '{word}': strings need double quotes"


# -- the parser (built once per process) and its errors -----------------------------


class _Parser:
    def __init__(self, lark: Lark, builder: _Builder) -> None:
        # lazy: only once the lark parser is built
        import threading

        self.lark = lark
        self.builder = builder
        self.lock = threading.Lock()  # the builder holds the state of one parse


_PARSER: list[_Parser] = []


def _parser() -> _Parser:
    if not _PARSER:
        _PARSER.append(_build_parser())
    return _PARSER[0]


def _build_parser() -> _Parser:
    # lazy: lark only when TRON needs the grammar (errors, rare syntax)
    from lark import Lark
    from lark.lexer import Lexer

    builder = _Builder()

    class _Lexer(Lexer):
        __future_interface__ = 2

        def __init__(self, conf: Any) -> None:
            pass

        def lex(self, lexer_state: Any, parser_state: Any) -> Iterator[Any]:
            text = lexer_state.text
            return _lex(getattr(text, "text", text), builder.start)

    with open(os.path.join(os.path.dirname(__file__), "tron.lark"), encoding="utf-8") as f:
        grammar = f.read()
    lark = Lark(grammar, parser="lalr", lexer=_Lexer, transformer=builder, maybe_placeholders=False)
    return _Parser(lark, builder)


Parsed = tuple[JsonValue, dict[int, str]]  # (data, made_by: id(dict) -> class, "" for {})


def parse_data(
    text: str, header: Header, *, absent_null: bool, words_out: list[list[str]] | None = None
) -> Parsed:
    """The data section: the fast path when it parses the text, else lark (raises ParseError).
    ``words_out``: as ``fast.parse``'s."""
    # never deeper: fast.parse
    parsed = parse_data_fast(text, header, absent_null=absent_null, words_out=words_out)
    if parsed is not None:
        return parsed
    return parse_data_slow(text, header, absent_null=absent_null)


def parse_data_slow(text: str, header: Header, *, absent_null: bool) -> Parsed:
    """What the fast path gave up on: lark reads it, or says why (raises ParseError);
    nesting too deep is told where it is first."""
    start = header.data_start
    if exceeds_depth(text[start:], MAX_DEPTH):
        deep = deep_offset(text, MAX_DEPTH, start=start, comments=True)
        if deep is not None:
            raise located(text, deep, f"nesting deeper than {MAX_DEPTH} levels")
    return parse_data_lark(text, header, absent_null=absent_null)


def parse_data_fast(
    text: str, header: Header, *, absent_null: bool, words_out: list[list[str]] | None = None
) -> Parsed | None:
    """The fast path alone: None where it gives up (also on nesting deeper than MAX_DEPTH)."""
    return fast.parse(text, header.data_start, header.classes, absent_null, words_out)


def parse_data_lark(text: str, header: Header, *, absent_null: bool) -> Parsed:
    """The lark path alone (no depth check): the reference, and every error message."""
    start = header.data_start
    parser = _parser()
    with parser.lock:
        parser.builder.reset(header.classes, absent_null=absent_null, start=start)
        try:
            return parser.lark.parse(text), parser.builder.made_by
        except Exception as exc:  # translated below; anything else is a bug and re-raised
            raise _translate(text, start, exc) from None
        finally:
            parser.builder.reset({}, absent_null=False, start=0)


def _translate(text: str, start: int, exc: Exception) -> Exception:
    # lazy: lark only when TRON needs the grammar (errors, rare syntax)
    from lark.exceptions import UnexpectedInput, UnexpectedToken

    from . import scan  # lazy: errors only (issue 32)

    if isinstance(exc, Fail):
        return located(text, exc.offset, exc.message)
    if isinstance(exc, ArgumentError):
        args, close = scan.arguments(text, exc.name_offset)
        index = exc.index
        offset = args[index] if index is not None and index < len(args) else close
        return located(text, offset, exc.message)
    if isinstance(exc, DuplicateKey):
        found = scan.first_duplicate_key(text, start)
        offset, key = found if found else (start, "?")
        return located(text, offset, f"duplicate key {string(key)}", rule="duplicate-key")
    if isinstance(exc, UnexpectedToken):
        return _token_error(text, start, exc)
    if isinstance(exc, UnexpectedInput):
        return located(text, getattr(exc, "pos_in_stream", None) or start, "invalid TRON")
    return exc


def _token_error(text: str, start: int, exc: Any) -> ParseError:
    from . import scan  # lazy: errors only (issue 32)

    tok = exc.token
    at_end = tok.type == "$END"
    offset = len(text.rstrip()) if at_end else tok.start_pos
    found = scan.describe_token(tok.type, str(tok.value))
    expected = {str(e) for e in exc.expected}
    if tok.type in ("NUMBER", "NAME") and text[offset - 1 : offset].isdigit():
        return located(text, offset - 1, "invalid number")  # 012, 12abc
    context = scan.open_bracket(text, start, offset)
    return located(text, offset, scan.token_message(text, found, expected, context))


def located(text: str, offset: int, message: str, *, rule: str = "parse") -> ParseError:
    return marker_error(text) or parse_error_at(text, offset, message, rule=rule)
