"""Numbers that keep the spelling they were written with, and JSON text that writes it back."""

from __future__ import annotations

from . import jsoncodec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from decimal import Decimal
    from typing import Any


class Number(float):
    """A JSON number whose text is not what ``repr`` of its double would write.

    ``1e2``, ``1.50``, ``0.1e-5``, ``-0`` and decimals with more digits than a double
    holds (``3.141592653589793238462643383279``) are parsed into a Number: a float for
    arithmetic and comparisons, carrying ``spelling`` so that every writer puts the
    number back as it was. Numbers that ``repr`` spells the same way stay plain floats.

    Equality is by the decimal value the spelling denotes: ``1.0``, ``1.00`` and ``1e0``
    are one number, ``3.14159265358979323`` and ``3.141592653589793`` are two (one
    double holds both). Against a plain int or float it also needs the double to be
    equal, as Python compares ``1e50`` and ``10**50`` (different), so that equal
    values always hash alike.
    """

    __slots__ = ("spelling",)
    spelling: str

    def __new__(cls, spelling: str, value: float) -> Number:
        self = float.__new__(cls, value)
        self.spelling = spelling
        _made[0] = True
        return self

    def __repr__(self) -> str:
        return self.spelling

    __str__ = __repr__

    def __reduce__(self) -> tuple[type[Number], tuple[str, float]]:
        return Number, (self.spelling, float(self))

    def __eq__(self, other: object) -> bool:
        if type(other) is Number:
            return float(self) == float(other) and _decimal(self) == _decimal(other)
        if isinstance(other, float):
            return float(self) == other and _decimal(self) == _decimal(other)
        if isinstance(other, int):
            return float(self) == other and _decimal(self) == other
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = float.__hash__

    def canonical(self) -> str:
        """One text per decimal value: ``repr`` of the double when that is the same value
        (``1.50`` -> ``1.5``), else the exact digits and exponent (``314159...e-17``)."""
        plain = float.__repr__(self)
        exact = _decimal(self)
        if exact == _decimal(plain):
            return plain
        sign, digits, exponent = exact.as_tuple()
        text = "".join(map(str, digits)).rstrip("0")
        exponent = int(exponent) + len(digits) - len(text)
        return f"{'-' if sign else ''}{text or '0'}e{exponent}"


_made = [False]  # whether any Number exists in this process (writers take the C path until then)


def _decimal(value: float | str) -> Decimal:
    # lazy: decimal only for numbers JSON floats cannot hold
    from decimal import Decimal

    if isinstance(value, Number):
        return Decimal(value.spelling)
    return Decimal(value if isinstance(value, str) else float.__repr__(value))


_repr = float.__repr__


class OutOfRange(ValueError):
    """A number too large for a double (1e400): it would read back as Infinity, which is
    not JSON (nor TRON). Parsers turn it into a located ParseError."""

    def __init__(self, spelling: str) -> None:
        super().__init__(spelling)
        self.spelling = spelling


def float_of(spelling: str) -> float:
    """The value of a JSON number with a fraction or exponent: a Number when ``repr`` would
    spell it differently, else a plain float (OutOfRange for 1e400 and the like)."""
    value = float(spelling)
    if value - value != 0.0:
        raise OutOfRange(spelling)
    # Cheap test first: up to 15 significant digits without an exponent or a trailing
    # zero, and no smaller than 1e-4, is exactly what repr writes (DBL_DIG is 15).
    if (
        len(spelling) < 17
        and (value >= 1e-4 or value <= -1e-4)
        and spelling[-1] != "0"
        and "e" not in spelling
        and "E" not in spelling
    ):
        return value
    return value if _repr(value) == spelling else Number(spelling, value)


NEGATIVE_ZERO = "-0"

DIGITS = 4000
"""Integers longer than this are BigInts: below Python's own limit of decimal conversions
(``sys.get_int_max_str_digits()``, 4,300 by default), which it keeps against the
quadratic time those conversions take."""


class BigInt(int):
    """A JSON integer of more than ``DIGITS`` digits, written back with its spelling.

    Its value is built from pieces of its digits (Karatsuba's multiplication, not the
    quadratic conversion Python refuses beyond 4,300 digits), and nothing ever converts
    it back to decimal: writers, ``str`` and ``repr`` use ``spelling``. Arithmetic gives
    plain ints, which ``int_text`` writes at any length.
    """

    spelling: str  # (an int subclass cannot have __slots__)

    def __new__(cls, spelling: str) -> BigInt:
        self = int.__new__(cls, _digits_value(spelling))
        self.spelling = spelling
        _made[0] = True
        return self

    def __repr__(self) -> str:
        return self.spelling

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return self.spelling if not spec else int_text(self)

    def __reduce__(self) -> tuple[type[BigInt], tuple[str]]:
        return BigInt, (self.spelling,)

    # A sequence number (M-rules, every write's ``sequence + 1``) stays a BigInt: its
    # messages and writers never ask Python for so many decimal digits.
    def __add__(self, other: object) -> Any:
        return _big(int.__add__(self, other))  # type: ignore[operator]

    def __radd__(self, other: object) -> Any:
        return _big(int.__radd__(self, other))  # type: ignore[operator]

    def __sub__(self, other: object) -> Any:
        return _big(int.__sub__(self, other))  # type: ignore[operator]

    def __rsub__(self, other: object) -> Any:
        return _big(int.__rsub__(self, other))  # type: ignore[operator]

    def __neg__(self) -> Any:
        return _big(int.__neg__(self))

    def __abs__(self) -> Any:
        return _big(int.__abs__(self))


def _big(value: Any) -> Any:
    """An int result of BigInt arithmetic as a BigInt when it is as long (else as is)."""
    if type(value) is not int or value.bit_length() < DIGITS * 3:
        return value
    made = int.__new__(BigInt, value)
    made.spelling = int_text(value)
    return made


_POWERS: dict[int, int] = {}


def _digits_value(spelling: str) -> int:
    """The int an integer's digits denote, in pieces of at most ``DIGITS`` digits."""
    if spelling[:1] == "-":
        return -_digits_value(spelling[1:])
    if len(spelling) <= DIGITS:
        return int(spelling)
    low = len(spelling) // 2
    power = _POWERS.get(low)
    if power is None:
        power = _POWERS[low] = 10**low
    return _digits_value(spelling[:-low]) * power + _digits_value(spelling[-low:])


def int_text(value: int) -> str:
    """An int in decimal whatever its length: a BigInt's spelling, else what ``repr``
    writes (in pieces where Python refuses to convert so many digits at once)."""
    if type(value) is BigInt:
        return value.spelling
    try:
        return int.__repr__(value)
    except ValueError:  # more digits than sys.get_int_max_str_digits()
        sign, value = ("-", -value) if value < 0 else ("", value)
        return sign + _decimal_digits(value)


def _decimal_digits(value: int, width: int = 0) -> str:
    """``value`` (>= 0) in decimal, zero-padded to ``width``."""
    if value.bit_length() < DIGITS * 3:  # under DIGITS decimal digits
        return int.__repr__(value).rjust(width, "0")
    low = int(value.bit_length() * 0.30103) // 2  # half its decimal digits
    high, rest = divmod(value, 10**low)
    text = _decimal_digits(high) + _decimal_digits(rest, low)
    return text.rjust(width, "0")


def int_of(spelling: str) -> int | float:
    """The value of a JSON integer; ``-0`` (which int() would make 0) is a Number, one of
    more than ``DIGITS`` digits a BigInt."""
    if spelling == NEGATIVE_ZERO:
        return Number(spelling, -0.0)
    if len(spelling) > DIGITS:
        return BigInt(spelling)
    return int(spelling)


# -- writing ----------------------------------------------------------------------------


def dumps(
    value: Any,
    *,
    indent: str | None = None,
    separators: tuple[str, str] | None = None,
    ensure_ascii: bool = True,
    sort_keys: bool = False,
) -> str:
    """``json.dumps`` that writes every Number with its spelling (the C encoder until a
    Number exists in the process: it cannot be taught spellings)."""
    if not _made[0]:
        return jsoncodec.dumps(
            value,
            indent=indent,
            separators=separators,
            ensure_ascii=ensure_ascii,
            sort_keys=sort_keys,
        )
    return _encode(value, indent, separators, ensure_ascii, sort_keys, _spelled)


def canonical(value: Any) -> str:
    """Sorted keys, no spaces, and one text per number value (see Number.canonical)."""
    if not _made[0]:
        return jsoncodec.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return _encode(value, None, (",", ":"), False, True, _canonical)


def number_text(value: float) -> str:
    """A float as JSON writes it back: its spelling, else ``repr``."""
    return value.spelling if type(value) is Number else _repr(value)


def _spelled(value: float) -> str:
    if type(value) is Number:
        return value.spelling
    return _repr(value) if value - value == 0.0 else jsoncodec.dumps(value)


def _canonical(value: float) -> str:
    if type(value) is Number:
        return value.canonical()
    return _repr(value) if value - value == 0.0 else jsoncodec.dumps(value)


def _encode(
    value: Any,
    indent: str | None,
    separators: tuple[str, str] | None,
    ensure_ascii: bool,
    sort_keys: bool,
    floatstr: Any,
) -> str:
    """Exactly json.dumps' output, with our float writer: the one thing the C encoder
    does not let a caller choose."""
    return jsoncodec.dumps(
        value,
        indent=indent,
        separators=separators,
        ensure_ascii=ensure_ascii,
        sort_keys=sort_keys,
        floatstr=floatstr,
        intstr=int_text,
    )


def escape_lone_surrogates(text: str) -> str:
    """A written document with each lone surrogate (from a ``\\ud800`` escape, which JSON
    syntax allows) put back as its escape: the same string value, and text that encodes
    as UTF-8. Such a character can only stand inside a string literal."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.translate({n: f"\\u{n:04x}" for n in range(0xD800, 0xE000)})
    return text
