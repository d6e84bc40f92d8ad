"""JSONL codec: records per line, blank lines ignored, unchanged lines kept verbatim."""

from __future__ import annotations

import pytest

from git_vcontext.codecs import jsonl
from git_vcontext.errors import ParseError

EVENTS = (
    '{"event_id": "evt-1", "event_type": "a", "timestamp": "2026-01-06T12:00:00.000Z"}\n'
    "\n"
    '{"event_id":"evt-2","event_type":"b","timestamp":"2026-01-06T12:01:00.000Z"}\n'
)


def test_blank_lines_are_ignored_and_records_kept_in_order() -> None:
    doc = jsonl.loads(EVENTS)
    assert [r["event_id"] for r in doc.data] == ["evt-1", "evt-2"]


def test_render_keeps_old_lines_verbatim_and_writes_new_ones_in_the_first_lines_style() -> None:
    doc = jsonl.loads(EVENTS)
    new = [*doc.data, {"event_id": "evt-3", "event_type": "c"}]
    out = doc.render(new).splitlines()
    assert out[0] == EVENTS.splitlines()[0]
    assert out[1] == EVENTS.splitlines()[2]  # compact line kept as it was
    assert out[2] == '{"event_id": "evt-3", "event_type": "c"}'


def test_crlf_line_endings_are_kept() -> None:
    doc = jsonl.loads(EVENTS.replace("\n", "\r\n"))
    out = doc.render([*doc.data, {"event_id": "x"}])
    assert out.count("\r\n") == 3
    assert "\n" not in out.replace("\r\n", "")


def test_a_line_that_is_not_json_makes_the_file_unparsable_with_its_line_number() -> None:
    with pytest.raises(ParseError) as info:
        jsonl.loads('{"a": 1}\n{"a": \n')
    assert info.value.line == 2
    assert "line 2 is not JSON" in info.value.reason


def test_conflict_markers_are_reported_as_such() -> None:
    text = '{"a": 1}\n<<<<<<< ours\n{"a": 2}\n=======\n{"a": 3}\n>>>>>>> theirs\n'
    with pytest.raises(ParseError) as info:
        jsonl.loads(text)
    assert info.value.rule == "conflict-markers"


@pytest.mark.parametrize("brk", ["\u2028", "\u2029", "\x85"])
def test_a_record_whose_string_holds_a_line_break_python_knows_is_one_line(brk: str) -> None:
    """JSONL's records end at ``\\n`` only (as git's lines, ``codecs.text.git_lines``): a
    string may hold U+2028 and the like raw (``json.dumps(..., ensure_ascii=False)`` writes
    them so), and ``str.splitlines`` cut such a record in two: "line 1 is not JSON" for a
    valid log, which validate refused and the driver could not merge (M16). The history
    rules' line numbers (``history._record_lines``) count lines the same way."""
    from git_vcontext.validation.history import _record_lines

    text = f'{{"event_id": "evt-1", "text": "a{brk}b"}}\n\n{{"event_id": "evt-2"}}\n'
    doc = jsonl.loads(text)
    assert [r.get("text") for r in doc.data] == [f"a{brk}b", None]
    assert _record_lines(text) == [1, 3]
