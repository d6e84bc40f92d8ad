"""Timestamps read by hand (values.py, issue 32: a log's merge orders its events by time
without ``re`` or ``datetime``) read as the regular expression and ``datetime`` read them:
the same datetime, the same sort key, the same refusals."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_vcontext.values import canonical, instant_key, parse_instant

RFC3339 = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"
)


def reference_instant(value: Any) -> dt.datetime | None:
    """parse_instant as it was (a regular expression, then datetime)."""
    if not isinstance(value, str):
        return None
    m = RFC3339.match(value)
    if not m:
        return None
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    frac = m.group(7) or ""
    micro = int((frac[1:] + "000000")[:6]) if frac else 0
    off = m.group(8)
    if off in ("Z", "z"):
        tz = dt.UTC
    else:
        sign = 1 if off[0] == "+" else -1
        tz = dt.timezone(sign * dt.timedelta(hours=int(off[1:3]), minutes=int(off[4:6])))
    try:
        if second == 60:
            second, micro = 59, 999999
        return dt.datetime(year, month, day, hour, minute, second, micro, tzinfo=tz)
    except ValueError:
        return None


def reference_key(value: Any) -> tuple[int, int, str]:
    inst = reference_instant(value)
    if inst is None:
        return (0, 0, value if isinstance(value, str) else canonical(value))
    micros = (inst - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) // dt.timedelta(microseconds=1)
    return (1, micros, value)


def two(low: int, high: int) -> st.SearchStrategy[str]:
    return st.integers(low, high).map(lambda n: f"{n:02d}")


DIGITS = st.sampled_from(["0", "1", "2", "9", "٣", "²", "x"])  # ٣: a digit \d and int() read
STAMPS = st.builds(
    lambda y, mo, d, sep, h, mi, s, frac, off, nl: f"{y}-{mo}-{d}{sep}{h}:{mi}:{s}{frac}{off}{nl}",
    st.integers(0, 9999).map(lambda n: f"{n:04d}") | st.text(DIGITS, min_size=4, max_size=4),
    two(0, 13),
    two(0, 32),
    st.sampled_from(["T", "t", " ", "_"]),
    two(0, 25),
    two(0, 61),
    two(0, 61),
    st.sampled_from(["", ".", ".5", ".123456789", ".٣"]),
    st.sampled_from(["Z", "z", "+00:00", "-00:00", "+05:30", "-12:45", "+23:59", "+1:00", ""])
    | st.builds(lambda sign, h, m: f"{sign}{h}:{m}", st.sampled_from("+-"), two(0, 23), two(0, 59)),
    st.sampled_from(["", "", "\n", "\r\n", " "]),
)
SETTINGS = settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(value=STAMPS | st.text(max_size=30) | st.integers() | st.none())
def test_instants_read_by_hand_as_by_the_expression_and_datetime(value: Any) -> None:
    assert parse_instant(value) == reference_instant(value)
    found = parse_instant(value)
    if found is not None:
        assert found.utcoffset() == reference_instant(value).utcoffset()  # type: ignore[union-attr]
    assert instant_key(value) == reference_key(value)


@pytest.mark.parametrize(
    "value",
    ["2024-02-29T12:00:00Z", "2023-02-29T12:00:00Z", "1900-02-29T00:00:00Z",
     "2000-02-29T23:59:60.5+01:00", "0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00",
     "2025-06-01T10:00:00Z\n", "0000-01-01T00:00:00Z"],
)  # fmt: skip
def test_edge_dates(value: str) -> None:
    assert parse_instant(value) == reference_instant(value)
    assert instant_key(value) == reference_key(value)


def test_an_offset_of_a_day_or_more_is_refused_as_datetime_refuses_it() -> None:
    for value in ("2025-01-01T00:00:00+24:00", "2025-01-01T00:00:00-99:99"):
        with pytest.raises(ValueError, match="strictly between") as ours:
            instant_key(value)
        with pytest.raises(ValueError, match="strictly between") as theirs:
            reference_key(value)
        assert str(ours.value) == str(theirs.value)
