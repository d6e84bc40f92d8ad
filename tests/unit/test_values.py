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
