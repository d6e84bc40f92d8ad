"""Hypothesis strategies for TRON tests: JSON values, documents, flavours."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from git_vcontext import spelling

KEYS = st.one_of(
    st.sampled_from(["id", "title", "status", "tags", "items", "priority", "agent", "narrative"]),
    st.sampled_from(["class", "null", "true", "false", "", " ", "a b", "Content-Type", "#", '"']),
    st.text(max_size=6),
)


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(["# not a comment", "line\nbreak", 'quote"d', "class A: x", "\u2028é€𝄞"]),
)


# Arrays of similar records exercise classes (shared shapes, key orders, absent keys).
RECORD_KEYS = st.sampled_from(["id", "title", "status", "tags", "priority"])


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    records = st.lists(st.dictionaries(RECORD_KEYS, children, max_size=5), max_size=4)
    return st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(KEYS, children, max_size=5),
        records,
        st.fixed_dictionaries({"items": records}),
    )


JSON = st.recursive(SCALARS, _containers, max_leaves=40)


DOCUMENTS = st.dictionaries(
    st.sampled_from(["vContextInfo", "todoList", "plan", "playbook", "x-extra"]) | KEYS,
    JSON,
    min_size=1,
    max_size=4,
)


FLAVORS = st.sampled_from(["vcontext", "standard"])


def ordered(value: object) -> str:
    """Equal as JSON text: sees key order, and int/float/bool differences (and integers of
    any length: spelling.dumps writes them as they were spelled)."""
    return spelling.dumps(value)


def object_pairs(a: Any, b: Any) -> list[tuple[Any, Any]]:
    """The objects (dicts) of two equal trees, side by side: to compare what a reading
    records per object (e.g. the class that wrote it) between two readers."""
    out = []
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, dict):
            out.append((x, y))
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list):
            stack.extend(zip(x, y, strict=True))
    return out
