"""codecs.text.brackets_within: a JSON text's nesting told from its brackets (issue 32)
never says "within the limit" of data nested deeper; on texts whose strings hold no
bracket and no escaped quote it says exactly what the walk of the data says. The parsers
that ask it first still refuse what nests deeper than MAX_DEPTH, by one level."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_vcontext.codecs import json_text, tron
from git_vcontext.codecs.text import brackets_within, data_deeper_than
from git_vcontext.errors import ParseError
from git_vcontext.values import MAX_DEPTH

# strings full of what could fool a count of brackets: brackets, quotes, backslashes
TRAPS = st.text(alphabet='[]{}"\\ab:,\u00e9\U0001f600', max_size=6)
VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), TRAPS),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(TRAPS | st.just("k"), inner, max_size=3)
    ),
    max_leaves=20,
)
STYLES = st.sampled_from(
    [{"indent": 2}, {"indent": None}, {"ensure_ascii": False}, {"separators": (",", ":")}]
)


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=VALUES, style=STYLES)
def test_the_brackets_never_vouch_for_data_nested_deeper(value: Any, style: Any) -> None:
    text = json.dumps(value, **style)
    plain = not any(c in s for s in _strings(value) for c in '[]{}"\\')
    for limit in range(1, _depth(value) + 2):
        deeper = _depth(value) > limit
        if isinstance(value, (dict, list)):
            assert data_deeper_than(value, limit) == deeper
        if brackets_within(text, limit):
            assert not deeper, (text, limit)
        elif plain:
            assert deeper, (text, limit)  # exact where no string can fool it


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [*value, *(s for v in value.values() for s in _strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


def _nested(levels: int, inner: str = "0") -> str:
    return "[" * (levels - 1) + '{"a": ' + inner + "}" + "]" * (levels - 1)


@pytest.mark.parametrize("wide", [False, True])
def test_m16_json_nesting_beyond_the_limit_is_refused_by_one_level(wide: bool) -> None:
    """At the limit: read; one level more: refused, also where the text has more brackets
    than the limit (``wide``: a long list beside it, so the count does not settle it)."""
    side = ', "many": [' + ", ".join(["[]"] * 300) + "]" if wide else ""
    at = "[" + _nested(MAX_DEPTH - 1) + "]"
    beyond = "[" + _nested(MAX_DEPTH) + "]"
    texts = ('{"x": ' + at[1:-1] + side + "}", '{"x": ' + beyond[1:-1] + side + "}")
    assert json_text.loads(texts[0]).data
    with pytest.raises(ParseError, match="nest"):
        json_text.loads(texts[1])


def test_m16_a_bracket_inside_a_string_does_not_hide_the_nesting() -> None:
    """Closing brackets in strings would make a count of the text's brackets shallower
    than the data: the walk decides then."""
    closers = '"' + "]" * 300 + '"'
    text = '{"pad": [' + ", ".join([closers] * 2) + '], "x": ' + _nested(MAX_DEPTH) + "}"
    assert not brackets_within(text, MAX_DEPTH)
    with pytest.raises(ParseError, match="nest"):
        json_text.loads(text)


def test_m16_tron_nesting_beyond_the_limit_is_refused_by_one_level() -> None:
    many = "[" + ", ".join(["[]"] * 300) + "]"
    at = "v: " + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "\nw: " + many + "\n"
    beyond = "v: " + "[" * MAX_DEPTH + "[]" + "]" * MAX_DEPTH + "\nw: " + many + "\n"
    assert tron.loads(at).data["w"]
    with pytest.raises(ParseError):
        tron.loads(beyond)
