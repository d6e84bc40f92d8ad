"""Reading a JSON version from its neighbour (the fast path of log and blame) against the
reference, a full parse: the same items, places and values whenever it answers at all."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from git_vcontext.lineage.derive import derive
from git_vcontext.lineage.parsed import Version
from git_vcontext.lineage.versions import Versions
from git_vcontext.values import same

PATH = "todo.vcontext.json"


def _doc() -> dict[str, Any]:
    items: list[dict[str, Any]] = [
        {"id": f"t{n}", "title": f"Task {n} «x»", "status": "pending", "tags": ["a", "b"]}
        for n in range(6)
    ]
    items[2]["subItems"] = [{"id": "t2.1", "title": "Inner", "status": "pending"}]
    items[4]["narrative"] = {"Problem": 'Text with "quotes" and \\ backslash'}
    todo = {"id": "list", "title": "List", "sequence": 7, "items": items, "changeLog": []}
    return {"vContextInfo": {"version": "0.4"}, "todoList": todo}


def _compact(doc: dict[str, Any]) -> str:
    """Indented, but each item on one line (a layout some tools write)."""
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    for item in doc["todoList"]["items"]:
        pretty = json.dumps(item, indent=2, ensure_ascii=False).replace("\n", "\n      ")
        text = text.replace(pretty, json.dumps(item, ensure_ascii=False))
    return text + "\n"


TEXTS = [json.dumps(_doc(), indent=2, ensure_ascii=False) + "\n", _compact(_doc())]


def _near(text: str) -> Version:
    versions = Versions(lambda blob: text.encode())
    return versions.get("old", PATH)


def _full(text: str) -> Version:
    return Versions(lambda blob: text.encode()).get("new", PATH)


def _facts(version: Version) -> list[tuple[Any, ...]]:
    return [(s.kind, s.ident, s.parts, s.prev, s.anchor) for s in version.index.slots]


def _check(old: str, new: str) -> Version | None:
    """derive(old -> new) answers only when it can, and then as a full parse does."""
    derived = derive(_near(old), "new", new.encode())
    full = _full(new)
    if derived is None:
        return None
    assert full.readable, f"derived a version that does not parse: {full.error}"
    assert _facts(derived) == _facts(full)
    for a, b in zip(derived.index.slots, full.index.slots, strict=True):
        assert same(a.value, b.value)
    assert same(derived.data, full.data)
    return derived


def test_a_changed_status_is_read_from_the_neighbour() -> None:
    for old in TEXTS:
        new = old.replace('"id": "t3", "title": "Task 3 «x»", "status": "pending"', "X")
        new = old.replace('"sequence": 7', '"sequence": 8')
        new = new.replace('"title": "Task 3 «x»",', '"title": "Task 3 done",', 1)
        derived = _check(old, new)
        assert derived is not None
        t3 = derived.index.find("t3")[0].value
        assert t3["title"] == "Task 3 done"
        assert derived.data["todoList"]["sequence"] == 8


def test_a_nested_item_is_read_again_and_the_items_around_it_hold_it() -> None:
    old = TEXTS[0]
    derived = _check(old, old.replace('"title": "Inner"', '"title": "Inner!"'))
    assert derived is not None
    assert derived.index.find("t2")[0].value["subItems"][0]["title"] == "Inner!"


def test_what_must_not_be_read_from_a_neighbour() -> None:
    old = TEXTS[0]
    cases = {
        "number out of range": old.replace('"sequence": 7', '"sequence": 1e400'),
        "id changed": old.replace('"id": "t3"', '"id": "t9"'),
        "key renamed": old.replace('"title": "List"', '"titel": "List"'),
        "array renamed": old.replace('"items": [', '"itemz": ['),
        "bad escape": old.replace('"title": "List"', '"title": "Li\\qst"'),
        "duplicate key": old.replace(
            '"status": "pending",\n        "tags"',
            '"status": "a", "status": "b",\n        "tags"',
            1,
        ),
    }
    for why, new in cases.items():
        assert new != old, why
        assert _check(old, new) is None, why


@settings(max_examples=300, deadline=None)
@given(
    which=st.sampled_from(range(len(TEXTS))),
    edits=st.lists(
        st.tuples(
            st.integers(min_value=0, max_value=10_000),
            st.integers(min_value=0, max_value=200),
            st.sampled_from(list('"{}[],:\\ 0123456789abtrue-.eE«')),
        ),
        min_size=1,
        max_size=3,
    ),
)
def test_random_edits_are_derived_exactly_or_not_at_all(
    which: int, edits: list[tuple[int, int, str]]
) -> None:
    old = TEXTS[which]
    lines = old.split("\n")
    for line, column, char in edits:
        n = line % len(lines)
        text = lines[n]
        at = column % (len(text) + 1)
        lines[n] = text[:at] + char + text[at + 1 :]
    _check(old, "\n".join(lines))
