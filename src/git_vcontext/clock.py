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
    """SOURCE_DATE_EPOCH as seconds, None when unset or not a number."""
    epoch = (getenv("SOURCE_DATE_EPOCH") or "").strip()
    try:
        return int(epoch) if epoch else None
    except ValueError:
        return None


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
        offset = _offset(zone.strip()) if zone.strip() else 0
        return {} if offset is None else {"time": int(head), "offset": offset}
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


def _offset(zone: str) -> int | None:
    sign = -1 if zone.startswith("-") else 1
    digits = zone.lstrip("+-").replace(":", "")
    if len(digits) != 4 or not digits.isdigit():
        return None
    return sign * (int(digits[:2]) * 60 + int(digits[2:]))
