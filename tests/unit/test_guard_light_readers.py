"""What keeps the server's guard light (issue 28: the guard must not slow ``sync --push``
down) without changing a verdict: hand-written readers that the light path uses instead of
``re`` and ``fnmatch`` answer exactly as those do."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase

from hypothesis import given, settings
from hypothesis import strategies as st

from git_vcontext.document import CHECKED_PATTERNS, FILE_PATTERNS, _glob
from git_vcontext.validation.rules import RFC3339, _stamp, datetime_problem

STAMP_CHARS = "0123456789٣-:.TtZz+ x"


@settings(max_examples=600, deadline=None)
@given(
    st.text(STAMP_CHARS, max_size=32)
    | st.builds(
        "{}-{}-{}{}{}:{}:{}{}{}".format,
        st.text("0129٣x", min_size=3, max_size=5),
        st.text("0129", min_size=1, max_size=3),
        st.text("0139", min_size=1, max_size=3),
        st.sampled_from("Tt x"),
        st.text("0129", min_size=2, max_size=2),
        st.text("059", min_size=2, max_size=2),
        st.text("0569", min_size=1, max_size=3),
        st.sampled_from(["", ".", ".5", ".123456", ".x"]),
        st.sampled_from(["Z", "z", "", "+01:00", "-23:59", "+0100", "+1:00", "+01:00x", "\n"]),
    )
)
def test_datetime_rule_reads_timestamps_by_hand_exactly_as_the_expression(text: str) -> None:
    """Validation's RFC 3339 rule: ``_stamp`` (no ``re``) matches the same texts, with the
    same groups, as the expression the rule states."""
    found = re.match(RFC3339, text)
    assert _stamp(text) == (None if found is None else found.groups())


def test_datetime_rule_messages_are_unchanged() -> None:
    assert datetime_problem("2025-01-31T09:00:00Z") is None
    assert datetime_problem("2025-01-31T09:00:00.25+01:00") is None
    assert datetime_problem("2016-12-31T23:59:60Z") is None  # a leap second
    assert "no UTC offset" in str(datetime_problem("2025-01-31T09:00:00"))
    assert "impossible UTC offset" in str(datetime_problem("2025-01-31T09:00:00+24:00"))
    assert "real calendar date" in str(datetime_problem("2025-02-30T09:00:00Z"))
    assert "real time of day" in str(datetime_problem("2025-01-31T25:00:00Z"))
    assert "leap second" in str(datetime_problem("2025-01-31T12:59:60Z"))
    assert "not an RFC 3339" in str(datetime_problem("yesterday"))


PATHS = st.text("ab./*-_vcontextjsonrwk", max_size=24)
PATTERNS = st.sampled_from([*FILE_PATTERNS, *CHECKED_PATTERNS, "a*b*c", "a?b", "[ab]*", "*"])


@settings(max_examples=600, deadline=None)
@given(PATHS, PATTERNS)
def test_file_patterns_match_without_fnmatch_exactly_as_fnmatch(text: str, pattern: str) -> None:
    """install's patterns (one ``*``) are matched by hand on the guard's light path; any
    other pattern shape goes to fnmatch: the answers are fnmatch's."""
    assert _glob(text, pattern) == fnmatchcase(text, pattern)


def test_datetime_answers_are_remembered_by_text_and_bounded() -> None:
    """Issue 28: a playbook's events repeat their timestamps, so each text is judged once
    per process (the same answer, findings included), and the memory stays bounded."""
    from git_vcontext.validation import rules

    for text in ("2025-01-31T09:00:00Z", "2025-02-30T09:00:00Z", "2025-01-31T09:00:00"):
        first = datetime_problem(text)
        assert rules._JUDGED[text] == first
        assert datetime_problem(text) == first == rules._datetime_problem(text)
    for second in range(60):
        for minute in range(60):
            for hour in range(3):
                datetime_problem(f"2025-01-31T{hour:02}:{minute:02}:{second:02}Z")
    assert len(rules._JUDGED) <= rules.JUDGED_LIMIT
