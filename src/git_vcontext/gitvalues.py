"""How git reads a boolean or a number in a setting or an environment variable: one reading
for every part (settings read through ``gitio.configread``, ``fsio``'s environment)."""

from __future__ import annotations

import re


def git_bool(text: str | None) -> bool | None:
    """A value as git reads a boolean (``git_parse_maybe_bool``): no value, ``true``,
    ``yes``, ``on`` or a number other than 0 is true; ``false``, ``no``, ``off``, "" or 0 is
    false (case aside); anything else (None) git refuses."""
    if text is None:
        return True
    lowered = text.lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off", ""):
        return False
    number = git_int(text)
    return None if number is None else number != 0


_INT = re.compile(r"[ \t\n\v\f\r]*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)([kKmMgG]?)")
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
_INT_MAX = (1 << 31) - 1


def git_int(text: str) -> int | None:
    """A number as git reads an ``int`` setting (``git_parse_int``: C's ``strtoimax`` in any
    base, then a unit ``k``, ``m`` or ``g``, within an int); None when git refuses it."""
    found = _INT.fullmatch(text)
    if found is None:
        return None
    sign, digits, unit = found.groups()
    base = 16 if digits[:2].lower() == "0x" else 8 if digits.startswith("0") else 10
    number = int(digits, base) * _UNITS[unit.lower()]
    if number > _INT_MAX:  # (either way: git refuses -2147483648 too)
        return None
    return -number if sign == "-" else number


__all__ = ["git_bool", "git_int"]
