"""Helpers for plain JSON values: strict equality, canonical text, JSON Pointers, instants."""

from __future__ import annotations

from .patterns import lazy
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
    return _bools_match(a, b)


def _bools_match(a: JsonValue, b: JsonValue) -> bool:
    """For values already ``==``: no boolean stands where the other has a number."""
    ta = type(a)
    if ta is dict:
        for key, v in a.items():
            w = b[key]
            if v is not w and type(v) is not str and not _bools_match(v, w):
                return False
        return True
    if ta is list:
        for v, w in zip(a, b, strict=True):
            if v is not w and type(v) is not str and not _bools_match(v, w):
                return False
        return True
    return (ta is bool) == (type(b) is bool)


def canonical(value: JsonValue) -> str:
    """One canonical text per JSON value (sorted keys, no spaces): for hashing and sorting.

    Numbers that are equal (``1.5`` and ``1.50``) have one text; numbers that one double
    holds but that are spelled with different digits do not (see spelling.Number)."""
    return text(value)


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


_RFC3339 = lazy(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"
)


def parse_instant(value: JsonValue) -> _dt.datetime | None:
    """An RFC 3339 timestamp with an explicit offset as an aware datetime, else None."""
    if not isinstance(value, str):
        return None
    # lazy: datetime only when timestamps are compared
    import datetime as _dt

    m = _RFC3339().match(value)
    if not m:
        return None
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    frac = m.group(7) or ""
    micro = int((frac[1:] + "000000")[:6]) if frac else 0
    off = m.group(8)
    if off in ("Z", "z"):
        tz = _dt.UTC
    else:
        sign = 1 if off[0] == "+" else -1
        tz = _dt.timezone(sign * _dt.timedelta(hours=int(off[1:3]), minutes=int(off[4:6])))
    try:
        if second == 60:  # leap second: the instant just before the next minute
            second, micro = 59, 999999
        return _dt.datetime(year, month, day, hour, minute, second, micro, tzinfo=tz)
    except ValueError:
        return None


def instant_key(value: JsonValue) -> tuple[int, int, str]:
    """Sort key that orders timestamps as instants; unparsable values sort first, by text."""
    inst = parse_instant(value)
    if inst is None:
        return (0, 0, value if isinstance(value, str) else canonical(value))
    # lazy: datetime only when timestamps are compared
    import datetime as _dt

    micros = (inst - _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)) // _dt.timedelta(microseconds=1)
    return (1, micros, value)
