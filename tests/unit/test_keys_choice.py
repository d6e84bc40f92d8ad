"""keys.key_choice (M3: which field identifies an array's objects, or why none does) gives
the same answer whether its arrays' values are looked up in C (plain dicts, string ids:
most arrays a merge keys, issue 32) or element by element (anything else): the choice
written out plainly here is the reference."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from git_vcontext.keys import IDENTITY_KEYS, KeyChoice, Repeat, key_choice


def _usable(value: Any) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def reference(arrays: list[Any]) -> KeyChoice:
    """M3's choice, one element at a time."""
    lists = [(i, a) for i, a in enumerate(arrays) if a is not None]
    if not lists or not all(isinstance(a, list) for _, a in lists):
        return KeyChoice(None)
    if any(not isinstance(e, dict) for _, a in lists for e in a):
        return KeyChoice(None)
    for key in IDENTITY_KEYS:
        found = [{(type(e[key]), e[key]) for e in a if key in e} for _, a in lists]
        carried = [e[key] for _, a in lists for e in a if key in e]
        if not carried or not all(map(_usable, carried)):
            continue
        every = set().union(*found)
        for side, elements in lists:
            repeat = _repeated(key, side, elements, every)
            if repeat is not None:
                return KeyChoice(None, repeat)
        return KeyChoice(key)
    return KeyChoice(None)


def _repeated(key: str, side: int, elements: list[Any], every: set[Any]) -> Repeat | None:
    seen: set[Any] = set()
    for e in elements:
        if key in e:
            typed = (type(e[key]), e[key])
            if typed in seen:
                return Repeat(key, e[key], side)
            seen.add(typed)
    for e in elements:
        if key not in e:
            for other in IDENTITY_KEYS:
                ident = e.get(other)
                if other != key and _usable(ident) and (type(ident), ident) in every:
                    return Repeat(other, ident, side, across=key)
    return None


class Record(dict):  # type: ignore[type-arg]
    """A dict of another type: asked element by element."""


IDS = st.one_of(st.sampled_from(["a", "b", "c", "1"]), st.integers(0, 2), st.booleans(), st.none())
ELEMENTS = st.one_of(
    st.dictionaries(st.sampled_from([*IDENTITY_KEYS, "title"]), IDS, max_size=3),
    st.dictionaries(st.sampled_from(["id", "uid"]), IDS, max_size=2).map(Record),
    st.just(["not", "an", "object"]),
)
ARRAYS = st.lists(st.one_of(st.none(), st.lists(ELEMENTS, max_size=6)), min_size=1, max_size=3)


@settings(max_examples=400, deadline=None)
@given(arrays=ARRAYS)
def test_m3_key_choice_is_the_reference_s(arrays: list[Any]) -> None:
    assert key_choice(arrays) == reference(arrays)


def test_m3_string_ids_with_elements_lacking_them_are_keyed_by_id() -> None:
    arrays = [[{"id": "a"}, {"title": "x"}], [{"id": "b"}, {"uid": "a"}]]
    assert key_choice(arrays) == reference(arrays) == KeyChoice(None, Repeat("uid", "a", 1, "id"))
    plain = [[{"id": "a"}, {"title": "x"}], [{"id": "b"}]]
    assert key_choice(plain) == KeyChoice("id")
