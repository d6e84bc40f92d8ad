"""The fast path for the data section of a TRON text, and the value building both paths share.

``parse`` is a recursive-descent parser over the tokens of tron.lark (one regex scan, no
positions kept). It serves only texts it parses without any problem: on anything else
(unexpected token, bad string or number, unknown class, bad arguments, duplicate key,
nesting too deep for Python's stack) it returns None and ``parser`` runs the lark
grammar, which stays the reference and the only source of error messages.

Strings, numbers, objects and class instances are built by the functions below, which
lark's transformer (``parser._Builder``) calls too, so both paths give the same data.
"""

from __future__ import annotations

from ...jsoncodec import scanstring
from ...patterns import lazy
from ...spelling import OutOfRange, float_of, int_of
from ...values import MAX_DEPTH, JsonValue
from .header import HeaderError
from .lexer import cut, words

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# The terminals of tron.lark, shared with the lark path's lexer (``parser._lex``).
# Skipped: unrolled (no catastrophic backtracking), a comment runs to the end of its line.
SKIP = r"[ \t\r\n]*(?:#[^\n]*(?![^\n])[ \t\r\n]*)*"
NAME = r"[A-Za-z_][A-Za-z0-9_]*"
STRING = r'"[^"\\\x00-\x1f]*(?:\\.[^"\\\x00-\x1f]*)*"'  # unrolled: 3x faster than (?:a|b)*
NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
PUNCTUATION = r"[{}\[\]():,=]"

# Every match starts where the previous one ended: after the skipped text comes a token,
# a lone character that starts none (a lone '"' is an unterminated or invalid string), or
# the end of the text, matched as "" (the last item; a second "" follows it when the text
# ends with skipped text). The reference for ``lexer``, which cuts most texts without it.
SCAN = lazy(f"{SKIP}({STRING}|{PUNCTUATION}|{NAME}|{NUMBER}|[^ \\t\\r\\n#]|\\Z)")
_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_NUMBER_START = frozenset("-0123456789")
_KEYWORDS: dict[str, JsonValue] = {"true": True, "false": False, "null": None}
_scanstring = scanstring


class Fail(HeaderError):
    """A problem at a character offset of the data section (``offset``, ``message``, as a
    header error has); lark's path turns it into the located ParseError."""


class ArgumentError(Exception):
    """A bad class instantiation: ``index`` of the argument at fault, None for the ')'."""

    def __init__(self, name_offset: int, index: int | None, message: str) -> None:
        super().__init__(message)
        self.name_offset = name_offset
        self.index = index
        self.message = message


class DuplicateKey(Exception):
    """Located afterwards by a slow scan (neither path keeps key positions)."""


class Named:
    """A ``name=value`` argument of a class instantiation."""

    __slots__ = ("name", "value")

    def __init__(self, name: str, value: JsonValue) -> None:
        self.name = name
        self.value = value


# -- values, shared with the lark path -----------------------------------------------


def string_value(s: str, offset: int) -> str:
    """The value of a STRING token ``s`` that starts at ``offset`` (raises Fail)."""
    if "\\" not in s:
        return s[1:-1]
    try:
        return str(_scanstring(s, 1, True)[0])
    except ValueError as exc:
        reason = str(getattr(exc, "msg", exc))
        where = offset + getattr(exc, "pos", 0)
        raise Fail(where, f"{reason[:1].lower()}{reason[1:]} in a string") from None


def number_value(s: str, offset: int) -> int | float:
    """The value of a NUMBER token ``s`` that starts at ``offset``, its spelling kept
    (spelling.Number) where Python would write it otherwise (raises Fail)."""
    if "." in s or "e" in s or "E" in s:
        try:
            return float_of(s)
        except OutOfRange:
            raise Fail(offset, f"number {s} is out of range") from None
    try:
        return int_of(s)
    except ValueError:  # more digits than Python converts
        raise Fail(offset, f"integer with {len(s)} digits is too long") from None


def pairs_to_dict(flat: list[JsonValue]) -> dict[str, JsonValue]:
    """An object from ``[key, value, key, value, ...]`` (raises DuplicateKey)."""
    it = iter(flat)
    d = dict(zip(it, it, strict=False))
    if 2 * len(d) != len(flat):
        # lazy: only when an object repeats a key
        from ..duplicate_keys import keeping, named_pairs

        if not keeping():
            raise DuplicateKey()
        it = iter(flat)
        return named_pairs(list(zip(it, it, strict=False)))
    return d


def instance(
    name: str, name_offset: int, props: list[str], args: list[JsonValue | Named], absent_null: bool
) -> dict[str, JsonValue]:
    """The object a class instantiation makes (raises ArgumentError).

    ``absent_null``: the vContext dialect, where a positional null means "key absent".
    """
    if len(args) == len(props) and Named not in map(type, args):
        if absent_null:
            return {k: v for k, v in zip(props, args, strict=False) if v is not None}
        return dict(zip(props, args, strict=False))
    return _bind_arguments(name, name_offset, props, args, absent_null)


def _bind_arguments(
    name: str, name_offset: int, props: list[str], args: list[JsonValue | Named], absent_null: bool
) -> dict[str, JsonValue]:
    """Positional then named arguments, checked as the TRON spec says."""
    out: dict[str, JsonValue] = {}
    assigned: set[str] = set()
    named_seen = False
    for i, arg in enumerate(args):
        is_named = isinstance(arg, Named)
        if isinstance(arg, Named):
            named_seen = True
            prop, value = arg.name, arg.value
            if prop not in props:
                raise ArgumentError(name_offset, i, f"{name} has no property {prop!r}")
            if prop in assigned:
                raise ArgumentError(name_offset, i, f"argument {prop!r} of {name} given twice")
        elif named_seen:
            raise ArgumentError(name_offset, i, "positional argument after named argument")
        elif i >= len(props):
            raise ArgumentError(name_offset, i, arity(name, len(props), len(args)))
        else:
            prop, value = props[i], arg
        assigned.add(prop)
        if is_named or value is not None or not absent_null:  # positional null = absent
            out[prop] = value
    if len(assigned) < len(props):
        missing = ", ".join(repr(p) for p in props if p not in assigned)
        message = (
            f"{name} is missing {missing}" if named_seen else arity(name, len(props), len(args))
        )
        raise ArgumentError(name_offset, None, message)
    return out


def arity(name: str, wanted: int, got: int) -> str:
    return f"{name} takes {wanted} argument{'s' if wanted != 1 else ''}, got {got}"


# -- the fast path -------------------------------------------------------------------


class _GiveUp(Exception):
    """Anything but a clean parse: the lark path takes over."""


def parse(
    text: str,
    start: int,
    classes: dict[str, list[str]],
    absent_null: bool,
    words_out: list[list[str]] | None = None,
) -> tuple[JsonValue, dict[int, str]] | None:
    """``(data, made_by)`` of the data section at ``start``, or None to leave it to lark.

    made_by: id(dict) -> the class that made it, "" for ``{}`` (top-level pairs: none).
    Holds no shared state (no lock needed); any exception, RecursionError included,
    means "give up", and so does nesting deeper than MAX_DEPTH (the descent counts its
    levels as it goes, rather than a pass over the tokens first; parser locates it).
    ``words_out``: given, it receives the tokens when ``lexer.words`` cut them (what
    ``spans.Spans`` would cut again from the same text: issue 32).
    """
    tokens, by_words = _scan(text, start)
    if '"' in tokens:  # a string that does not lex
        return None
    made_by: dict[int, str] = {}
    try:
        data = _Descent(tokens, classes, absent_null, made_by).document()
    except Exception:  # whatever it was, lark says it properly
        return None
    if words_out is not None and by_words:
        words_out.append(tokens[:-1])  # (without the "" that ends them)
    return data, made_by


def scan_tokens(text: str, start: int) -> list[str]:
    """The tokens of the data section at ``start``, up to the "" that ends them: cut by
    ``lexer`` (no ``re`` to import), or by ``SCAN`` where it does not read the text."""
    return _scan(text, start)[0]


def _scan(text: str, start: int) -> tuple[list[str], bool]:
    """``scan_tokens``, and whether ``lexer.words`` cut them."""
    end = len(text)
    found = words(text, start, end)
    if found is None:
        cuts = cut(text, start, end, False)
        if cuts is None:
            return SCAN().findall(text, start), False
        found = cuts[0]
        found.append("")
        return found, False
    found.append("")
    return found, True


class _Descent:
    """One parse: a method per grammar rule, each handed its first token."""

    def __init__(
        self,
        tokens: list[str],
        classes: dict[str, list[str]],
        absent_null: bool,
        made_by: dict[int, str],
    ) -> None:
        self.tokens = tokens
        self.next: Callable[[], str] = iter(tokens).__next__
        self.classes = classes
        self.absent_null = absent_null
        self.made_by = made_by
        self.room = MAX_DEPTH  # levels of brackets left: below 0, too deep (give up)

    def document(self) -> JsonValue:
        """start: value | (key ':' value ','?)+  -- the "" token is the end of the text."""
        nxt = self.next
        t = nxt()
        if self.tokens[1] != ":":
            root = self.value(t)
            if nxt() != "":
                raise _GiveUp
            return root
        flat: list[JsonValue] = []
        while True:
            self.pair(t, flat)
            t = nxt()
            if t == ",":
                t = nxt()
            if t == "":
                return pairs_to_dict(flat)

    def pair(self, t: str, flat: list[JsonValue]) -> None:
        """key ':' value, appended to ``flat``."""
        flat.append(self.key(t))
        if self.next() != ":":
            raise _GiveUp
        flat.append(self.value(self.next()))

    def key(self, t: str) -> str:
        c = t[0]
        if c == '"':
            return t[1:-1] if "\\" not in t else string_value(t, 0)
        if c in _NAME_START and t not in _KEYWORDS:
            return t
        raise _GiveUp

    def value(self, t: str) -> JsonValue:
        c = t[0]
        if c == '"':
            return t[1:-1] if "\\" not in t else string_value(t, 0)
        if c in _NAME_START:
            if t in _KEYWORDS:
                return _KEYWORDS[t]
            if self.next() != "(":
                raise _GiveUp
            return self.instance(t)
        if c == "[":
            return self.sequence("]")
        if c == "{":
            d = pairs_to_dict(self.sequence("}"))
            self.made_by[id(d)] = ""
            return d
        if c in _NUMBER_START:
            return number_value(t, 0)
        raise _GiveUp

    def sequence(self, close: str) -> list[JsonValue]:
        """After '[' or '{': values, or ``key: value`` flattened, up to ``close`` (a trailing
        ',' allowed). value -> sequence -> value: two frames a level, MAX_DEPTH fits."""
        self.room -= 1
        if self.room < 0:
            raise _GiveUp
        nxt, value = self.next, self.value
        out: list[JsonValue] = []
        t = nxt()
        while t != close:
            if close == "}":
                out.append(self.key(t))
                if nxt() != ":":
                    raise _GiveUp
                t = nxt()
            out.append(value(t))
            t = nxt()
            if t == ",":
                t = nxt()
            elif t != close:
                raise _GiveUp
        self.room += 1
        return out

    def instance(self, name: str) -> dict[str, JsonValue]:
        """After ``Name(``: arguments, positional then ``key=value``, to the ')'."""
        props = self.classes[name]  # KeyError: unknown class, lark says so
        self.room -= 1
        if self.room < 0:
            raise _GiveUp
        nxt, value = self.next, self.value
        args: list[JsonValue | Named] = []
        t = nxt()
        while t != ")":
            c = t[0]
            if c == '"' or (c in _NAME_START and t not in _KEYWORDS):
                after = nxt()
                if after == "=":
                    args.append(Named(self.key(t), value(nxt())))
                    after = nxt()
                elif c == '"':
                    args.append(t[1:-1] if "\\" not in t else string_value(t, 0))
                elif after == "(":
                    args.append(self.instance(t))
                    after = nxt()
                else:
                    raise _GiveUp  # a bare word
            else:
                args.append(value(t))
                after = nxt()
            if after == ",":
                t = nxt()
            elif after != ")":
                raise _GiveUp
            else:
                break
        d = instance(name, 0, props, args, self.absent_null)
        self.made_by[id(d)] = name
        self.room += 1
        return d
