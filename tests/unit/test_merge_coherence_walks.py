"""M19's walks, made cheaper for the common case (issue 32), answer what the full walks
answered: the ids a side deleted (``coherence._gone``) are ``_ids(base) - _ids(side)``
for any data (logs, ``changeLog``, ids repeated or moved, containers replaced)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from git_vcontext.merging import coherence

IDS = st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), IDS)
KEYS = st.sampled_from(["id", "items", "subItems", "changeLog", "eventId", "x", "tags"])

values = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(KEYS, inner, max_size=4),
        # elements with an id (or an event's), most of what the walks look at
        st.lists(
            st.one_of(
                st.fixed_dictionaries({"id": IDS}, optional={"items": inner, "x": inner}),
                st.fixed_dictionaries({"eventId": IDS}, optional={"id": IDS, "x": inner}),
            ),
            max_size=4,
        ),
    ),
    max_leaves=25,
)


def _edited(data: Any, draw: st.DrawFn) -> Any:
    """A copy of ``data`` with a few random changes (an element dropped, replaced, moved)."""
    out = copy.deepcopy(data)
    for _ in range(draw(st.integers(0, 3))):
        node = out
        for _ in range(draw(st.integers(0, 4))):
            inner = list(node.values()) if isinstance(node, dict) else node
            children = [c for c in inner if isinstance(c, (dict, list))]
            if not children:
                break
            node = draw(st.sampled_from(children))
        if isinstance(node, list) and node:
            i = draw(st.integers(0, len(node) - 1))
            action = draw(st.sampled_from(["drop", "replace", "move"]))
            if action == "drop":
                del node[i]
            elif action == "replace":
                node[i] = draw(values)
            else:
                node.append(node.pop(i))
        elif isinstance(node, dict) and node:
            key = draw(st.sampled_from(sorted(node)))
            if draw(st.booleans()):
                del node[key]
            else:
                node[key] = draw(values)
    return out


@st.composite
def pairs(draw: st.DrawFn) -> tuple[Any, Any]:
    base = draw(st.dictionaries(KEYS, values, max_size=4))
    return base, _edited(base, draw)


@settings(max_examples=500, deadline=None)
@given(pairs())
def test_m19_gone_ids_are_the_full_walks_difference(sides: tuple[Any, Any]) -> None:
    base, side = sides
    assert coherence._gone(base, side) == coherence._ids(base) - coherence._ids(side)


def test_m19_gone_ids_of_a_deleted_nested_item_and_a_moved_one() -> None:
    base = {"todoList": {"items": [{"id": "a", "subItems": [{"id": "b"}]}, {"id": "c"}]}}
    side = {"todoList": {"items": [{"id": "a"}, {"id": "c", "subItems": [{"id": "b"}]}]}}
    assert coherence._gone(base, side) == set()
    side["todoList"]["items"].pop()
    assert coherence._gone(base, side) == {"b", "c"}


def test_m19_gone_ids_when_an_array_became_a_log_or_changed_kind() -> None:
    base: dict[str, Any] = {"items": [{"id": "a"}], "x": [{"id": "b"}], "changeLog": [{"id": "c"}]}
    side: dict[str, Any] = {"items": [{"eventId": "e"}, {"id": "a"}], "x": {"id": "b"}}
    assert coherence._gone(base, side) == {"a", "b"}  # a log's elements and changeLog: no ids
