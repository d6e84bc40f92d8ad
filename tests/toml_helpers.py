"""Hypothesis strategies for TOML documents (tables whose values TOML can hold)."""

from __future__ import annotations

from hypothesis import strategies as st

KEYS = st.sampled_from(["a", "b", "id", "title", "needs", "x-y", "with space", "dotted.key"])
SCALARS = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=True),
    st.text(max_size=12),
    st.text(alphabet="ab\n\t'\"\\ ", max_size=12),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=8,
)
TABLES = st.dictionaries(
    KEYS,
    st.one_of(VALUES, st.lists(st.dictionaries(KEYS, VALUES, max_size=3), min_size=1, max_size=3)),
    max_size=5,
)
"""A TOML document: keys holding values, arrays of tables among them."""
