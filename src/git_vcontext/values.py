"""Helpers for plain JSON values: strict equality, canonical text, JSON Pointers, instants."""

from __future__ import annotations

from .spelling import canonical as text
from .spelling import dumps, escape_lone_surrogates

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as _dt
    from typing import Any

    JsonValue = Any  # dict[str, JsonValue] | list[JsonValue] | str | int | float | bool | None
else:
    JsonValue = object

MAX_DEPTH = 256
"""Deepest nesting any codec accepts; deeper input is rejected, never a RecursionError."""


def same(a: JsonValue, b: JsonValue) -> bool:
    """Equal as JSON data, strictly: ``true`` is not ``1``; key order is ignored.

    Identity first (the merge engine reuses ours' objects), then Python equality
    (fast, in C), then a walk that tells booleans from numbers, which Python's
    ``==`` conflates. ``1`` and ``1.0`` count as the same number, as do ``1.5`` and
    ``1.50``; a number with more digits than a double holds is not the double it
    rounds to (spelling.Number).
    """
    if a is b:
        return True
    if a != b:
        return False
    # a walk that tells booleans from numbers in the values ``==`` found equal: strings and
    # nulls passed over where they stand (``==`` holds: the other's is one too), numbers
    # told apart in the loop, a call only for each container (issue 32: a third less than
    # a call a value, on a merge's 800 comparisons)
    ta = type(a)
    if ta is dict:
        return _object_bools(a, b)
    if ta is list:
        return _array_bools(a, b)
    return (ta is bool) is (type(b) is bool)


def _object_bools(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """For objects already ``==``: no boolean stands where the other has a number."""
    for key, v in a.items():
        tv = type(v)
        if tv is str or v is None:
            continue
        w = b[key]
        if tv is dict:
            if v is not w and not _object_bools(v, w):
                return False
        elif tv is list:
            if v is not w and not _array_bools(v, w):
                return False
        elif (tv is bool) is not (type(w) is bool):
            return False
    return True


def _array_bools(a: list[Any], b: list[Any]) -> bool:
    """For arrays already ``==`` (so as long as each other)."""
    for v, w in zip(a, b, strict=False):
        tv = type(v)
        if tv is str or v is None:
            continue
        if tv is dict:
            if v is not w and not _object_bools(v, w):
                return False
        elif tv is list:
            if v is not w and not _array_bools(v, w):
                return False
        elif (tv is bool) is not (type(w) is bool):
            return False
    return True


def canonical(value: JsonValue) -> str:
    """One canonical text per JSON value (sorted keys, no spaces): for hashing and sorting.

    Numbers that are equal (``1.5`` and ``1.50``) have one text; numbers that one double
    holds but that are spelled with different digits do not (see spelling.Number)."""
    return text(value)


def strict_key(value: JsonValue) -> str | bytes:
    """A key of ``value`` stricter than ``canonical`` and quicker to make (~6x; issue 28):
    its ``marshal`` bytes (C), which equal another value's only when the two hold the same
    plain types (``dict``/``list``/``str``/``int``/``float``/``bool``/``None``), values and
    key orders (marshal refuses any subclass, such as a number keeping its spelling), so
    their canonical texts are equal too; else its canonical text (a ``str``: never equal to
    bytes). Equal keys: equal canonical texts, never the other way round (a key order, a
    boolean for a number)."""
    # lazy: marshal is built in (no file to load), and only the guard's comparisons ask
    import marshal

    try:
        return marshal.dumps(value, _MARSHAL_VERSION)
    except ValueError:  # a subclass (spelling.Number), or anything marshal cannot write
        return canonical(value)


_MARSHAL_VERSION = 2
"""No references between objects (version 3 on): the bytes depend on the values only,
not on which of them the parser shared."""


def json_report(value: Any) -> str:
    """A JSON report for people and programs (indented, non-ASCII as is, final newline).

    Always valid UTF-8: a lone surrogate (a document's ``\\udcff`` escape, or a file name
    that was not UTF-8) is written as its escape.
    """
    return escape_lone_surrogates(dumps(value, indent="  ", ensure_ascii=False)) + "\n"


def type_name(value: JsonValue) -> str:
    """JSON's name for the type of ``value``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def pointer(parts: tuple[str | int, ...] | list[str | int]) -> str:
    """RFC 6901 JSON Pointer for a path of keys and indexes."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def pointer_parts(ptr: str) -> list[str]:
    """The unescaped reference tokens of an RFC 6901 JSON Pointer."""
    if ptr == "":
        return []
    if not ptr.startswith("/"):
        raise ValueError(f"not a JSON Pointer: {ptr!r}")
    return [p.replace("~1", "/").replace("~0", "~") for p in ptr[1:].split("/")]


def resolve(doc: JsonValue, ptr: str) -> JsonValue:
    """The value a JSON Pointer designates; KeyError/IndexError when absent."""
    node = doc
    for part in pointer_parts(ptr):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def depth(value: JsonValue) -> int:
    """Nesting depth of a value (scalars are 0) without recursion."""
    best = 0
    stack: list[tuple[JsonValue, int]] = [(value, 0)]
    while stack:
        node, d = stack.pop()
        if isinstance(node, dict):
            stack.extend((v, d + 1) for v in node.values())
            best = max(best, d + 1)
        elif isinstance(node, list):
            stack.extend((v, d + 1) for v in node)
            best = max(best, d + 1)
    return best


def _instant_fields(value: JsonValue) -> tuple[int, int, int, int, int, int, int, int] | None:
    """(year, month, day, hour, minute, second, microsecond, offset in minutes) of a text
    that reads as ``YYYY-MM-DD[Tt ]hh:mm:ss(.fraction)?(Z|z|+hh:mm|-hh:mm)`` (the regular
    expression this replaced: ``\\d`` any decimal digit ``int()`` reads, ``$`` also before a
    final newline; read by hand so that a merge of a log orders its events by time without
    loading ``re``), else None. The values are not checked (a month 13 comes back as 13)."""
    if not isinstance(value, str):
        return None
    text = value[:-1] if value.endswith("\n") else value
    if len(text) < 20 or text[4] != "-" or text[7] != "-" or text[10] not in "Tt ":
        return None
    if text[13] != ":" or text[16] != ":":
        return None
    fields = (text[0:4], text[5:7], text[8:10], text[11:13], text[14:16], text[17:19])
    if not "".join(fields).isdecimal():
        return None
    rest = text[19:]
    micro = 0
    if rest.startswith("."):
        end = 1
        while end < len(rest) and rest[end].isdecimal():
            end += 1
        if end == 1:
            return None
        micro, rest = int((rest[1:end] + "000000")[:6]), rest[end:]
    if rest in ("Z", "z"):
        offset = 0
    elif (
        len(rest) == 6 and rest[0] in "+-" and rest[3] == ":" and (rest[1:3] + rest[4:]).isdecimal()
    ):
        offset = (1 if rest[0] == "+" else -1) * (int(rest[1:3]) * 60 + int(rest[4:]))
    else:
        return None
    year, month, day, hour, minute, second = map(int, fields)
    return year, month, day, hour, minute, second, micro, offset


def parse_instant(value: JsonValue) -> _dt.datetime | None:
    """An RFC 3339 timestamp with an explicit offset as an aware datetime, else None."""
    found = _instant_fields(value)
    if found is None:
        return None
    # lazy: datetime only when timestamps are compared
    import datetime as _dt

    year, month, day, hour, minute, second, micro, offset = found
    tz = _dt.UTC if offset == 0 else _offset(offset)  # timezone(timedelta(0)) is UTC
    try:
        if second == 60:  # leap second: the instant just before the next minute
            second, micro = 59, 999999
        return _dt.datetime(year, month, day, hour, minute, second, micro, tzinfo=tz)
    except ValueError:
        return None


def _offset(minutes: int) -> _dt.timezone:
    import datetime as _dt

    sign = 1 if minutes >= 0 else -1
    return _dt.timezone(sign * _dt.timedelta(hours=abs(minutes) // 60, minutes=abs(minutes) % 60))


_DAYS_BEFORE_MONTH = (0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)
_EPOCH_ORDINAL = 719163  # date(1970, 1, 1).toordinal()


def instant_key(value: JsonValue) -> tuple[int, int, str]:
    """Sort key that orders timestamps as instants; unparsable values sort first, by text.

    The microseconds since the epoch are counted by hand, as ``datetime`` counts them (a
    merge of a log orders its events by time without importing ``datetime``); the dates
    ``datetime`` refuses (February 30th, a 25th hour) are unparsable here too."""
    found = _instant_fields(value)
    if found is None or not _valid(found):
        return (0, 0, value if isinstance(value, str) else canonical(value))
    year, month, day, hour, minute, second, micro, offset = found
    if second == 60:  # leap second: the instant just before the next minute
        second, micro = 59, 999999
    before = year - 1
    leap = month > 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = before * 365 + before // 4 - before // 100 + before // 400
    days += _DAYS_BEFORE_MONTH[month] + leap + day - _EPOCH_ORDINAL
    seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset * 60
    return (1, seconds * 1_000_000 + micro, value)


def _valid(found: tuple[int, int, int, int, int, int, int, int]) -> bool:
    """The fields ``datetime`` takes (its offsets: less than a day either way; beyond, as
    before, ``datetime.timezone`` says why)."""
    year, month, day, hour, minute, second, _, offset = found
    if abs(offset) >= 24 * 60:
        _offset(offset)  # raises ValueError, as parse_instant always did
    if not (1 <= year <= 9999 and 1 <= month <= 12 and hour < 24 and minute < 60):
        return False
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        last = 29 if leap else 28
    else:
        last = 30 if month in (4, 6, 9, 11) else 31
    return 1 <= day <= last and second <= 60
