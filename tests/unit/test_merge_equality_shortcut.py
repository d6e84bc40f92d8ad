"""M2's strict equality (``true`` is not ``1``) taken as Python's ``==`` where no side holds a
boolean (MergeOptions.booleans, issue 32): the same merge, whatever the data, and a file
merge takes it only when no side's text spells ``true`` or ``false``."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_vcontext.merging import MergeOptions, files, merge3
from helpers.merging import merge_files

KEYS = st.sampled_from(["id", "items", "sequence", "status", "x", "changeLog", "tags"])
IDS = st.sampled_from(["a", "b", "c", "d"])
# numbers that Python's == mixes up with each other (1 and 1.0) but never a boolean
SCALARS = st.one_of(st.none(), st.integers(-2, 2), st.sampled_from([0.0, 1.0, 1.5]), IDS)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(KEYS, inner, max_size=3),
        st.lists(st.fixed_dictionaries({"id": IDS}, optional={"x": inner}), max_size=3),
    ),
    max_leaves=15,
)
DOCS = st.dictionaries(KEYS, VALUES, max_size=4)


def _edited(data: Any, draw: st.DrawFn) -> Any:
    """A copy of ``data`` with a few members replaced or dropped, at any depth."""
    out = copy.deepcopy(data)
    for _ in range(draw(st.integers(0, 3))):
        node = out
        for _ in range(draw(st.integers(0, 3))):
            inner = [c for c in (node.values() if isinstance(node, dict) else node)]
            children = [c for c in inner if isinstance(c, (dict, list)) and c]
            if not children:
                break
            node = draw(st.sampled_from(children))
        if isinstance(node, dict) and node:
            key = draw(st.sampled_from(sorted(node)))
            node[key] = draw(VALUES)
        elif isinstance(node, list) and node:
            node[draw(st.integers(0, len(node) - 1))] = draw(VALUES)
    return out


@st.composite
def three_sides(draw: st.DrawFn) -> tuple[Any, Any, Any]:
    base = draw(DOCS)
    return base, _edited(base, draw), _edited(base, draw)


def _summary(result: Any) -> tuple[str, list[Any], list[Any]]:
    conflicts = sorted((c.path, c.kind) for c in result.conflicts)
    notes = [(n.kind, n.path, n.message) for n in result.notes]
    return json.dumps(result.data, sort_keys=True, default=repr), conflicts, notes


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(three_sides())
def test_m2_merge_without_booleans_is_the_strict_merge(sides: tuple[Any, Any, Any]) -> None:
    base, ours, theirs = sides
    strict = merge3(base, ours, theirs, MergeOptions(now="2026-01-01T00:00:00Z"))
    plain = merge3(base, ours, theirs, MergeOptions(now="2026-01-01T00:00:00Z", booleans=False))
    assert _summary(plain) == _summary(strict)


def test_m2_a_boolean_where_the_other_side_has_a_number_still_conflicts() -> None:
    """A text that spells ``true`` keeps the strict walk: ``true`` against ``1`` conflicts."""
    base = b'{"todoList": {"items": [{"id": "a", "done": 0}]}}\n'
    ours = b'{"todoList": {"items": [{"id": "a", "done": true}]}}\n'
    theirs = b'{"todoList": {"items": [{"id": "a", "done": 1}]}}\n'
    out = merge_files(base, ours, theirs, path="todo.vcontext.json")
    assert not out.clean
    assert out.result is not None
    assert [c.kind for c in out.result.conflicts] == ["modify/modify"]


def test_m2_the_shortcut_is_taken_only_without_true_or_false_in_any_text(
    monkeypatch: Any,
) -> None:
    seen: list[bool] = []

    def spy(b: Any, o: Any, t: Any, opts: MergeOptions) -> Any:
        seen.append(opts.booleans)
        return merge3(b, o, t, opts)

    monkeypatch.setattr(files, "merge3", spy)
    plain = b'{"todoList": {"items": [{"id": "a", "n": 1}]}}\n'
    edited = [plain.replace(b'"n": 1', b'"n": 2'), plain.replace(b'"n": 1', b'"n": 1, "m": 3')]
    merge_files(plain, *edited, path="todo.vcontext.json")
    # "true" in a string is no boolean, but the test is on the text: the walk is kept
    named = plain.replace(b'"a"', b'"true"')
    merge_files(named, *(e.replace(b'"a"', b'"true"') for e in edited), path="t.vcontext.json")
    assert seen == [False, True]
