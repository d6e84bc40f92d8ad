"""M19's walks and M8's, made cheaper for the common case (issue 32), answer what the full
walks answered: the ids a side deleted (``coherence._gone``) are ``_ids(base) - _ids(side)``
for any data (logs, ``changeLog``, ids repeated or moved, containers replaced)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from git_vcontext import document
from git_vcontext.merging import coherence, sequence_number

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


def _moved_by_members(base: Any, value: Any, key: Any, up: bool) -> bool:
    """sequence_number._moved_within as it walked every object member by member (a member
    equal to the base's by ``==`` passed over: its numbers stand where the base's do)."""
    if isinstance(value, dict) and isinstance(base, dict):
        return any(_member_moved(base, name, v, key, up) for name, v in value.items())
    if isinstance(value, list) and isinstance(base, list):
        key_of = sequence_number._element_key
        before = {key_of(e): e for e in base if isinstance(e, dict)}
        before.pop(None, None)
        for e in value:
            b = before.get(key_of(e)) if isinstance(e, dict) else None
            if b is not None and b is not e and _moved_by_members(b, e, key, up):
                return True
    return False


def _member_moved(base: dict[str, Any], name: str, v: Any, key: Any, up: bool) -> bool:
    if name == "sequence" or (name == "version" and key == "playbook"):
        b = base.get(name, 0)
        numbers = sequence_number.is_number(v) and sequence_number.is_number(b)
        return numbers and (v > b if up else v < b)
    if not isinstance(v, (dict, list)) or name not in base or base[name] == v:
        return False
    if name == "changeLog" or document.is_playbook_log((key, name)):
        return False
    return _moved_by_members(base[name], v, name, up)


SEQUENCES = st.recursive(
    st.one_of(st.integers(0, 3), st.booleans(), IDS),
    lambda inner: st.one_of(
        st.lists(
            st.fixed_dictionaries({"id": IDS}, optional={"sequence": inner, "items": inner}),
            max_size=4,
        ),
        st.dictionaries(st.sampled_from(["sequence", "version", "playbook", "x"]), inner),
    ),
    max_leaves=20,
)


@settings(max_examples=500, deadline=None)
@given(SEQUENCES, SEQUENCES, st.booleans())
def test_m8_sequence_moves_found_as_the_member_walk_found_them(
    base: Any, value: Any, up: bool
) -> None:
    """An object equal to the base's is passed over at once (issue 32): the answer is the
    walk's, member by member, whatever the data (booleans where numbers were, repeats)."""
    for b, v in ((base, value), (base, copy.deepcopy(base)), (value, value)):
        assert sequence_number._moved_within(b, v, None, up=up) == _moved_by_members(b, v, None, up)
