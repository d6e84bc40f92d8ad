"""The time the tool writes into documents and into its commits: SOURCE_DATE_EPOCH when set,
for reproducible output (commits: git's own GIT_AUTHOR_DATE/GIT_COMMITTER_DATE first)."""

from __future__ import annotations

import time

from .oscalls import getenv


def now_rfc3339() -> str:
    """Current UTC time (or SOURCE_DATE_EPOCH) as ``YYYY-MM-DDTHH:MM:SSZ``."""
    epoch = _epoch()
    seconds = int(time.time()) if epoch is None else epoch
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _epoch() -> int | None:
    """SOURCE_DATE_EPOCH as seconds, None when unset, not a number, or out of range: before
    1970 (git refuses ``@-5`` as a commit's date, libgit2 wraps it) or after 9999 (no
    four-digit year: validate would refuse the timestamp, or none is made at all)."""
    epoch = (getenv("SOURCE_DATE_EPOCH") or "").strip()
    try:
        seconds = int(epoch) if epoch else None
    except ValueError:
        return None
    return seconds if seconds is not None and 0 <= seconds <= _EPOCH_MAX else None


_EPOCH_MAX = 253402300799
"""9999-12-31T23:59:59Z: the last second a four-digit year holds."""


def commit_time(role: str) -> dict[str, int]:
    """When a commit the tool writes says its author (``role`` "AUTHOR") or committer
    ("COMMITTER") acted: ``GIT_<ROLE>_DATE`` when set and readable, as git takes it;
    else ``SOURCE_DATE_EPOCH`` (UTC), as every timestamp the tool writes into documents;
    else now (empty). The one place every commit's signature takes its time from
    (``gitio.objects.signature``): a fork, a sync merge, an MCP write, an integration."""
    found = _git_date(getenv(f"GIT_{role}_DATE"))
    if found:
        return found
    epoch = _epoch()
    return {} if epoch is None else {"time": epoch, "offset": 0}


def _git_date(value: str | None) -> dict[str, int]:
    """``GIT_AUTHOR_DATE``/``GIT_COMMITTER_DATE`` in the forms git documents (``@EPOCH
    +ZZZZ``, ``EPOCH +ZZZZ``, ISO 8601, RFC 2822) as signature time and offset (minutes);
    empty (now) when unset or unreadable."""
    if not value or not value.strip():
        return {}
    text = value.strip()
    head, _, zone = text.lstrip("@").partition(" ")
    if head.isdigit():
        if int(head) > _TIME_MAX:  # git refuses it; a commit cannot hold it (OverflowError)
            return {}
        return {"time": int(head), "offset": _offset(zone.strip())}
    import datetime as dt
    from email.utils import parsedate_to_datetime

    when: dt.datetime | None
    try:
        when = dt.datetime.fromisoformat(text.replace(" ", "T", 1) if "T" not in text else text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError):
            when = None
    if when is None:
        return {}
    if when.tzinfo is None:
        when = when.astimezone()
    delta = when.utcoffset()
    minutes = int(delta.total_seconds() // 60) if delta is not None else 0
    return {"time": int(when.timestamp()), "offset": minutes}


def _offset(zone: str) -> int:
    """A ``+hhmm``, ``+hh:mm`` or ``+hh`` zone as minutes east, read as git reads it
    (``date.c``, ``match_tz``): four digits, or two with ``:mm`` or alone; hours below 24,
    minutes below 60. Anything else is no zone: UTC, the time kept (as git keeps it)."""
    sign, digits = zone[:1], zone[1:]
    if sign not in ("+", "-"):
        return 0
    if len(digits) == 4 and digits.isdigit():
        hours, minutes = int(digits[:2]), int(digits[2:])
    elif len(digits) == 2 and digits.isdigit():
        hours, minutes = int(digits), 0
    elif len(digits) == 5 and digits[2] == ":" and (digits[:2] + digits[3:]).isdigit():
        hours, minutes = int(digits[:2]), int(digits[3:])
    else:
        return 0
    if hours >= 24 or minutes >= 60:
        return 0
    return -(hours * 60 + minutes) if sign == "-" else hours * 60 + minutes


_TIME_MAX = 2**63 - 1
"""The latest time a commit's signature holds (libgit2's ``git_time_t``: 64 bits)."""
