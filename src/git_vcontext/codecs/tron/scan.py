"""Exact positions and wording for TRON errors (slow token scans, run only on the error path)."""

from __future__ import annotations

from ...errors import position_of
from ...jsoncodec import scanstring
from ...patterns import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

_TOKEN = lazy(
    r'"(?:[^"\\\n]|\\.)*"?|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|-?[0-9][0-9A-Za-z.+-]*'
    r"|[{}\[\]():,=]|[^ \t\r\n]"
)
_OPENERS = {"{": "}", "[": "]", "(": ")"}
_CLOSERS = frozenset("}])")
_scanstring = scanstring


def tokens(text: str, start: int) -> Iterator[tuple[int, str]]:
    for m in _TOKEN().finditer(text, start):
        if m.group()[0] != "#":
            yield m.start(), m.group()


def key_of(tok: str) -> str | None:
    if tok[0] == '"':
        try:
            return str(_scanstring(tok, 1, True)[0])
        except ValueError:
            return None
    return tok if tok[0].isalpha() or tok[0] == "_" else None


def first_duplicate_key(text: str, start: int) -> tuple[int, str] | None:
    """Offset and name of the first key repeated in one object (or among top-level pairs)."""
    stack: list[set[str] | None] = [set()]
    prev: tuple[int, str] | None = None
    for offset, tok in tokens(text, start):
        if tok == ":" and prev is not None and stack[-1] is not None:
            key = key_of(prev[1])
            if key is not None:
                if key in stack[-1]:
                    return prev[0], key
                stack[-1].add(key)
        elif tok in _OPENERS:
            stack.append(set() if tok == "{" else None)
        elif tok in _CLOSERS and len(stack) > 1:
            stack.pop()
        prev = (offset, tok)
    return None


def arguments(text: str, name_offset: int) -> tuple[list[int], int]:
    """Start offsets of the arguments of the instantiation at ``name_offset``, and its ')'."""
    starts: list[int] = []
    depth = 0
    expect_arg = False
    for offset, tok in tokens(text, name_offset):
        if depth == 1 and expect_arg and tok != ")":
            starts.append(offset)
        expect_arg = False
        if tok in _OPENERS:
            depth += 1
            expect_arg = depth == 1
        elif tok in _CLOSERS:
            depth -= 1
            if depth == 0:
                return starts, offset
        elif tok == "," and depth == 1:
            expect_arg = True
    return starts, len(text.rstrip())


def open_bracket(text: str, start: int, offset: int) -> tuple[int, str, str] | None:
    """The innermost bracket still open at ``offset``: (its offset, the bracket, class name)."""
    stack: list[tuple[int, str, str]] = []
    prev = ""
    for pos, tok in tokens(text, start):
        if pos >= offset:
            break
        if tok in _OPENERS:
            name = prev if tok == "(" and key_of(prev) == prev else ""
            stack.append((pos, tok, name))
        elif tok in _CLOSERS and stack:
            stack.pop()
        prev = tok
    return stack[-1] if stack else None


def string_problem(text: str, offset: int) -> tuple[int, str]:
    """Why the string that opens at ``offset`` does not lex: (where, what)."""
    pos = offset + 1
    while pos < len(text):
        ch = text[pos]
        if ch == '"':
            break
        if ch == "\n":
            return pos, "unterminated string (a string cannot span lines; write \\n)"
        if ch < " ":
            return pos, f"control character U+{ord(ch):04X} in a string; write it as an escape"
        pos += 2 if ch == "\\" else 1
    if pos >= len(text):
        return offset, "unterminated string"
    return offset, "invalid string"


def bad_character(text: str, offset: int) -> tuple[int, str]:
    """A located message for a character that starts no TRON token."""
    ch = text[offset]
    if ch == '"':
        return string_problem(text, offset)
    if ch == "'":
        return offset, "strings need double quotes"
    if text.startswith("-Infinity", offset):
        return offset, "-Infinity is not a number in TRON (JSON numbers only)"
    if ch == "-" or (ch == "." and text[offset - 1 : offset].isdigit()):
        return offset, "invalid number"
    if ch == "/":
        return offset, "comments start with '#'"
    if ch == ";":
        return offset, "';' only separates class definitions from the data"
    return offset, f"unexpected character {ch!r}"


_NAMES = {
    "_COMMA": "','",
    "_COLON": "':'",
    "_EQUAL": "'='",
    "_LPAR": "'('",
    "_RPAR": "')'",
    "_LSQB": "'['",
    "_RSQB": "']'",
    "_LBRACE": "'{'",
    "_RBRACE": "'}'",
    "NAME": "a name",
    "STRING": "a string",
    "NUMBER": "a number",
    "TRUE": "true",
    "FALSE": "false",
    "NULL": "null",
    "$END": "the end of the text",
}
_VALUE_START = frozenset({"STRING", "NUMBER", "_LSQB", "_LBRACE"})


def describe_token(kind: str, value: str) -> str:
    """How an unexpected token is named in a message."""
    if kind == "$END":
        return "the end of the text"
    if kind == "STRING":
        return f"string {value if len(value) <= 40 else value[:37] + '...'}"
    if kind == "NUMBER":
        return f"number {value}"
    return f"'{value}'"


def expected_phrase(expected: set[str]) -> str:
    """The expected terminals in words ('a value' for anything that starts one)."""
    words = []
    if expected >= _VALUE_START:
        words.append("a value")
        expected = expected - _VALUE_START - {"TRUE", "FALSE", "NULL", "NAME"}
    words += sorted(_NAMES.get(e, e) for e in expected)
    if len(words) <= 2:
        return " or ".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


_CLOSE = {"(": "')'", "[": "']'", "{": "'}'"}
_CLOSE_TERMINAL = {"(": "_RPAR", "[": "_RSQB", "{": "_RBRACE"}


def token_message(
    text: str, found: str, expected: set[str], context: tuple[int, str, str] | None
) -> str:
    """The message for an unexpected token, in the words of the bracket it sits in."""
    if context is None:
        if "$END" in expected:
            return (
                f"unexpected {found} after the root value (standard TRON holds one value; "
                "the vContext dialect holds 'key: value' pairs)"
            )
        return f"expected {expected_phrase(expected)}, found {found}"
    offset, bracket, name = context
    line = position_of(text, offset)[0]
    close = _CLOSE[bracket]
    if found == "the end of the text":
        what = {"(": f"the arguments of {name}", "[": "an array", "{": "an object"}[bracket]
        return f"the text ends inside {what} opened on line {line}: {close} missing"
    if expected >= {"_COMMA", _CLOSE_TERMINAL[bracket]}:
        item = {"(": f"an argument of {name}", "[": "an array element", "{": "an object member"}
        return f"expected ',' or {close} after {item[bracket]}, found {found}"
    return f"expected {expected_phrase(expected)}, found {found}"
