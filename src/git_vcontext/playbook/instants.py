"""``values.instant_key`` with a fast path for the common ``YYYY-MM-DDTHH:MM:SSZ`` spelling."""

from __future__ import annotations

from ..patterns import lazy
from ..values import instant_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

_PARSER: list[Any] = []  # (fromisoformat, the epoch, a microsecond): datetime on first use


def _parser() -> list[Any]:
    # lazy: datetime only where timestamps are compared (a todo list's merge never does)
    import datetime

    _PARSER[:] = [datetime.datetime.fromisoformat, datetime.datetime(1970, 1, 1),
                  datetime.timedelta(microseconds=1)]  # fmt: skip
    return _PARSER


def instant(value: Any) -> tuple[int, int, str]:
    """The same key as ``values.instant_key``; five times faster for plain UTC seconds.

    Views sort every event of large logs by it, so the C parser handles the
    spelling nearly every tool writes; anything else takes the general path.
    """
    if (
        type(value) is str
        and len(value) == 20
        and value[19] == "Z"
        and value[10] == "T"
        and value[13] == ":"
        and value[16] == ":"
        and value[4] == "-"
        and value[7] == "-"
    ):
        from_iso, epoch, micro = _PARSER or _parser()
        try:  # the C parser insists on ASCII digits everywhere else
            return (1, (from_iso(value[:19]) - epoch) // micro, value)
        except ValueError:  # e.g. a leap second: the general path knows them
            pass
    return instant_key(value)


_UTC_SECONDS = lazy(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")


def latest(values: Iterable[Any]) -> str | None:
    """The latest valid timestamp among ``values``, as written (None when there is none).

    When all are plain UTC seconds, text order is time order: the maximum is
    found without parsing (only the winner is checked to be a real date).
    """
    texts = [v for v in values if type(v) is str]
    if texts and all(map(_UTC_SECONDS().fullmatch, texts)):
        best = max(texts)
        if instant(best)[0] == 1:
            return best
    keyed = [k for k in map(instant, texts) if k[0] == 1]
    return max(keyed)[2] if keyed else None
