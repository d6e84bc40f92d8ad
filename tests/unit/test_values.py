"""JSON value helpers: strict equality, pointers, instants."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from git_vcontext import values as v


def test_same_tells_booleans_from_numbers_and_ignores_key_order() -> None:
    assert not v.same(True, 1)
    assert not v.same({"a": [True]}, {"a": [1]})
    assert v.same({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert v.same(1, 1.0)
    assert not v.same([1, 2], [2, 1])
    assert not v.same(None, False)


def test_pointers_escape_and_resolve() -> None:
    assert v.pointer(["a/b", "c~d", 0]) == "/a~1b/c~0d/0"
    assert v.pointer_parts("/a~1b/c~0d/0") == ["a/b", "c~d", "0"]
    assert v.resolve({"a/b": {"c~d": [7]}}, "/a~1b/c~0d/0") == 7


def test_instants_compare_across_offsets() -> None:
    a = v.instant_key("2025-12-28T07:35:00Z")
    b = v.instant_key("2025-12-28T08:35:00+01:00")
    c = v.instant_key("2025-12-28T07:35:00.000001Z")
    assert a[1] == b[1] < c[1]
    assert v.parse_instant("2025-12-28T07:35:00") is None  # no offset
    assert v.instant_key("not a date") < a


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=3),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=2), c, max_size=3),
    )
)
def test_same_agrees_with_canonical_text(value: object) -> None:
    import copy

    assert v.same(value, copy.deepcopy(value))
    assert v.depth(value) >= 0


def _strictly_equal(a: object, b: object) -> bool:
    """JSON equality spelled out: a boolean equals only a boolean, numbers by value (``1``
    is ``1.0``), objects key by key whatever their order, arrays element by element."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_strictly_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_strictly_equal, a, b))
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return False
    return a == b


# leaves that == confuses (True == 1 == 1.0, False == 0 == 0.0 == -0.0) and others
_CONFUSED = st.sampled_from([True, False, 0, 1, 0.0, 1.0, -0.0, None, "", "1", 2, 2.5])
_VALUES = st.recursive(
    _CONFUSED | st.text(max_size=2),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.sampled_from("abc"), c, max_size=3),
    max_leaves=12,
)


def _twin(draw: st.DrawFn, value: object) -> object:
    """A copy of ``value`` with some leaves swapped for ones == confuses them with and some
    objects' keys in another order: mostly still ==, so the walk is what decides."""
    if isinstance(value, dict):
        keys = draw(st.permutations(list(value)))
        return {k: _twin(draw, value[k]) for k in keys}
    if isinstance(value, list):
        return [_twin(draw, x) for x in value]
    if type(value) in (bool, int, float) and value in (0, 1) and draw(st.booleans()):
        return draw(st.sampled_from([True, 1, 1.0] if value else [False, 0, 0.0, -0.0]))
    return value


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[object, object]:
    value = draw(_VALUES)
    return value, _twin(draw, value)


@given(_pairs())
def test_same_tells_booleans_from_numbers_as_json_equality_spelled_out(
    pair: tuple[object, object],
) -> None:
    """issue 32: the walk that tells booleans from numbers (only containers cost a call)
    answers as equality spelled out, on values == confuses, nested, in any key order."""
    a, b = pair
    assert v.same(a, b) == _strictly_equal(a, b)
    assert v.same(b, a) == _strictly_equal(b, a)


@given(_VALUES, st.integers(1, 6))
def test_data_deeper_than_is_depth_above_the_limit(value: object, limit: int) -> None:
    """issue 32: the nesting check every parse makes (one set look-up a child) says what
    the depth says, for containers at the root and scalars alike."""
    from git_vcontext.codecs.text import data_deeper_than

    if isinstance(value, (dict, list)):
        assert data_deeper_than(value, limit) == (v.depth(value) > limit)
