"""The data section of a TRON text, parsed by lark (tron.lark): lexer, transformer, errors."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator

from ..errors import ParseError, parse_error_at
from ..values import MAX_DEPTH, JsonValue
from . import tron_scan
from .text import exceeds_depth, marker_error
from .tron_header import Header

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from lark import Lark

_TOKEN = re.compile(
    # Skipped: unrolled (no catastrophic backtracking), a comment runs to the end of its line.
    r"[ \t\r\n]*(?:#[^\n]*(?![^\n])[ \t\r\n]*)*"
    r'(?:([A-Za-z_][A-Za-z0-9_]*)|("(?:[^"\\\x00-\x1f]|\\.)*")'
    r"|(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)|([{}\[\]():,=]))"
)
_SKIP = re.compile(r"[ \t\r\n]*(?:#[^\n]*(?![^\n])[ \t\r\n]*)*")
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
_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]


class _Fail(Exception):
    """A located error raised while lark parses."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


class _ArgumentError(Exception):
    """A bad class instantiation: ``index`` of the argument at fault, None for the ')'."""

    def __init__(self, name_offset: int, index: int | None, message: str) -> None:
        super().__init__(message)
        self.name_offset = name_offset
        self.index = index
        self.message = message


class _DuplicateKey(Exception):
    """Located afterwards by a slow scan (the fast path keeps no key positions)."""


class _Tok:
    """The tokens of the lexer below; lark reads ``type`` and, for errors, ``start_pos``."""

    __slots__ = ("start_pos", "type", "value")
    line = column = end_line = end_column = end_pos = None

    def __init__(self, kind: str, value: str, start_pos: int) -> None:
        self.type = kind
        self.value = value
        self.start_pos = start_pos


class _Named:
    __slots__ = ("name", "value")

    def __init__(self, name: str, value: JsonValue) -> None:
        self.name = name
        self.value = value


def _lex(text: str, pos: int) -> Iterator[_Tok]:
    """Tokens of the grammar's terminals, from ``pos`` to the end (faster than lark's lexer)."""
    match = _TOKEN.match
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
    end = _SKIP.match(text, pos).end()  # type: ignore[union-attr]
    if end < len(text):
        raise _Fail(*tron_scan.bad_character(text, end))


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
        s = tok.value
        if "\\" not in s:
            return s[1:-1]
        try:
            return str(_scanstring(s, 1, True)[0])
        except ValueError as exc:
            reason = str(getattr(exc, "msg", exc))
            where = tok.start_pos + getattr(exc, "pos", 0)
            raise _Fail(where, f"{reason[:1].lower()}{reason[1:]} in a string") from None

    def NUMBER(self, tok: _Tok) -> int | float:
        s = tok.value
        if "." in s or "e" in s or "E" in s:
            number = float(s)
            if number in (float("inf"), float("-inf")):
                raise _Fail(tok.start_pos, f"number {s} is out of range")
            return number
        try:
            return int(s)
        except ValueError:  # more digits than Python converts
            raise _Fail(tok.start_pos, f"integer with {len(s)} digits is too long") from None

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
        raise _Fail(tok.start_pos, _bare_word_message(tok.value, tok.value in self.classes))

    def named(self, children: list[Any]) -> _Named:
        return _Named(children[0], children[1])

    def array(self, children: list[JsonValue]) -> list[JsonValue]:
        return children

    def object(self, children: list[Any]) -> dict[str, JsonValue]:
        d = _pairs_to_dict(children)
        self.made_by[id(d)] = ""
        return d

    def pairs(self, children: list[Any]) -> dict[str, JsonValue]:
        return _pairs_to_dict(children)

    def root(self, children: list[JsonValue]) -> JsonValue:
        return children[0]

    def instance(self, children: list[Any]) -> dict[str, JsonValue]:
        tok = children[0]
        props = self.classes.get(tok.value)
        if props is None:
            raise _Fail(tok.start_pos, f"unknown class '{tok.value}'")
        del children[0]
        if len(children) == len(props) and _Named not in map(type, children):
            if self.absent_null:
                d = {k: v for k, v in zip(props, children, strict=False) if v is not None}
            else:
                d = dict(zip(props, children, strict=False))
        else:
            d = _bind_arguments(tok, props, children, self.absent_null)
        self.made_by[id(d)] = tok.value
        return d


def _pairs_to_dict(flat: list[Any]) -> dict[str, JsonValue]:
    it = iter(flat)
    d = dict(zip(it, it, strict=False))
    if 2 * len(d) != len(flat):
        raise _DuplicateKey()
    return d


def _bind_arguments(
    tok: _Tok, props: list[str], args: list[Any], absent_null: bool
) -> dict[str, JsonValue]:
    """Positional then named arguments, checked as the TRON spec says (the slow path)."""
    name, out, assigned, named_seen = tok.value, {}, set(), False
    for i, arg in enumerate(args):
        is_named = type(arg) is _Named
        if is_named:
            named_seen = True
            prop, value = arg.name, arg.value
            if prop not in props:
                raise _ArgumentError(tok.start_pos, i, f"{name} has no property {prop!r}")
            if prop in assigned:
                raise _ArgumentError(tok.start_pos, i, f"argument {prop!r} of {name} given twice")
        elif named_seen:
            raise _ArgumentError(tok.start_pos, i, "positional argument after named argument")
        elif i >= len(props):
            raise _ArgumentError(tok.start_pos, i, _arity(name, len(props), len(args)))
        else:
            prop, value = props[i], arg
        assigned.add(prop)
        if is_named or value is not None or not absent_null:  # dialect: positional null = absent
            out[prop] = value
    if len(assigned) < len(props):
        missing = ", ".join(repr(p) for p in props if p not in assigned)
        arity = _arity(name, len(props), len(args))
        message = f"{name} is missing {missing}" if named_seen else arity
        raise _ArgumentError(tok.start_pos, None, message)
    return out


def _arity(name: str, wanted: int, got: int) -> str:
    return f"{name} takes {wanted} argument{'s' if wanted != 1 else ''}, got {got}"


def _bare_word_message(word: str, is_class: bool) -> str:
    if is_class:
        return f"class {word} needs its arguments in parentheses: {word}(...)"
    if word in ("NaN", "Infinity"):
        return f"{word} is not a number in TRON (JSON numbers only)"
    return f"unexpected word '{word}': strings need double quotes"


# -- the parser (built once per process) and its errors -----------------------------


class _Parser:
    def __init__(self, lark: Lark, builder: _Builder) -> None:
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


def parse_data(text: str, header: Header, *, absent_null: bool) -> tuple[JsonValue, dict[int, str]]:
    start = header.data_start
    if exceeds_depth(text[start:], MAX_DEPTH):
        deep = _deep_offset(text, start)
        if deep is not None:
            raise located(text, deep, f"nesting deeper than {MAX_DEPTH} levels")
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
    from lark.exceptions import UnexpectedInput, UnexpectedToken

    if isinstance(exc, _Fail):
        return located(text, exc.offset, exc.message)
    if isinstance(exc, _ArgumentError):
        args, close = tron_scan.arguments(text, exc.name_offset)
        index = exc.index
        offset = args[index] if index is not None and index < len(args) else close
        return located(text, offset, exc.message)
    if isinstance(exc, _DuplicateKey):
        found = tron_scan.first_duplicate_key(text, start)
        offset, key = found if found else (start, "?")
        return located(text, offset, f"duplicate key {json.dumps(key)}")
    if isinstance(exc, UnexpectedToken):
        return _token_error(text, start, exc)
    if isinstance(exc, UnexpectedInput):
        return located(text, getattr(exc, "pos_in_stream", None) or start, "invalid TRON")
    return exc


def _token_error(text: str, start: int, exc: Any) -> ParseError:
    tok = exc.token
    at_end = tok.type == "$END"
    offset = len(text.rstrip()) if at_end else tok.start_pos
    found = tron_scan.describe_token(tok.type, str(tok.value))
    expected = {str(e) for e in exc.expected}
    if tok.type in ("NUMBER", "NAME") and text[offset - 1 : offset].isdigit():
        return located(text, offset - 1, "invalid number")  # 012, 12abc
    context = tron_scan.open_bracket(text, start, offset)
    return located(text, offset, tron_scan.token_message(text, found, expected, context))


def located(text: str, offset: int, message: str) -> ParseError:
    return marker_error(text) or parse_error_at(text, offset, message)


def _deep_offset(text: str, start: int) -> int | None:
    """Offset of the first bracket nested deeper than MAX_DEPTH, outside strings and comments."""
    level = 0
    scan = re.compile(r'"(?:[^"\\\n]|\\.)*"|#[^\n]*|[\[{(]|[\]})]')
    for m in scan.finditer(text, start):
        tok = m.group()
        if tok in "[{(":
            level += 1
            if level > MAX_DEPTH:
                return m.start()
        elif tok in "]})":
            level -= 1
    return None
