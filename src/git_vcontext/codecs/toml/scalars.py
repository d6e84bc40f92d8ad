"""TOML values JSON has no word for: date-times as RFC 3339 text that remembers its TOML
value, and one shared NaN (the reader makes them, the writer puts them back)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as _dt
    from typing import Any

NAN = float("nan")
"""The one NaN of parsed TOML data (``nan`` is not equal to itself; one object is)."""


class TomlDateTime(str):
    """A TOML offset/local date-time, date or time, as RFC 3339 text; ``value`` is the
    ``datetime``/``date``/``time`` tomllib read, which the writer puts back as such."""

    __slots__ = ("value",)
    value: _dt.datetime | _dt.date | _dt.time

    def __new__(cls, value: _dt.datetime | _dt.date | _dt.time) -> TomlDateTime:
        text = value.isoformat()
        if text.endswith("+00:00"):
            text = text[: -len("+00:00")] + "Z"
        self = super().__new__(cls, text)
        self.value = value
        return self

    def __reduce__(self) -> tuple[type[TomlDateTime], tuple[Any]]:
        return (TomlDateTime, (self.value,))  # copies (deepcopy, pickle) keep the value


def plain(value: Any) -> Any:
    """tomllib's data with date-times as ``TomlDateTime`` strings and one shared NaN."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, float):
        return NAN if value != value else value
    if isinstance(value, (str, int, bool)):
        return value
    return TomlDateTime(value)
