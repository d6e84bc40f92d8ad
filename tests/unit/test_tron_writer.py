"""TRON writing: dumps in both flavours, and render() with a document's own classes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from git_vcontext.codecs import tron
from git_vcontext.values import MAX_DEPTH

MINIMAL_TODO = {
    "vContextInfo": {"version": "0.4"},
    "todoList": {
        "items": [
            {"title": "Implement authentication", "status": "pending"},
            {"title": "Write API documentation", "status": "pending"},
        ]
    },
}


def ordered(value: object) -> str:
    return json.dumps(value)


def header_classes(text: str) -> dict[str, str]:
    lines = [ln[len("class ") :] for ln in text.splitlines() if ln.startswith("class ")]
    return dict(ln.split(": ", 1) for ln in lines)


# -- dumps, vContext flavour -----------------------------------------------------------


def test_minimal_todo_list_is_written_like_the_spec() -> None:
    assert tron.dumps(MINIMAL_TODO) == (
        "class vContextInfo: version\n"
        "class TodoList: items\n"
        "class TodoItem: title, status\n"
        "\n"
        'vContextInfo: vContextInfo("0.4")\n'
        "\n"
        "todoList: TodoList([\n"
        '  TodoItem("Implement authentication", "pending"),\n'
        '  TodoItem("Write API documentation", "pending")\n'
        "])\n"
    )


def test_class_names_describe_where_objects_occur() -> None:
    agent = {"id": "a1", "type": "human", "name": "JT"}
    item = {
        "id": "t1",
        "title": "x",
        "status": "pending",
        "participants": [{"id": "p", "name": "P", "role": "owner"}],
        "uris": [{"uri": "u", "type": "t", "title": "T"}],
        "lockedBy": {"agent": agent, "acquiredAt": "now", "type": "soft"},
        "reminders": [{"trigger": "-PT1H", "action": "email", "description": "d"}],
        "recurrence": {"frequency": "weekly", "interval": 1, "byDay": ["MO"]},
        "subItems": [{"id": "s", "title": "S", "status": "done"}],
    }
    doc = {
        "vBRIEFInfo": {"version": "0.4"},
        "plan": {
            "title": "P",
            "agent": agent,
            "lastModifiedBy": agent,
            "changeLog": [{"sequence": 1, "timestamp": "t", "reason": "r"}],
            "fork": {"parentUid": "u", "parentSequence": 1, "mergeStatus": "unmerged"},
            "items": [item],
            "edges": [{"from": "a", "to": "b", "type": "blocks"}],
        },
        "playbook": {
            "entries": [{"id": "e", "kind": "rule", "text": "t"}],
            "metrics": {"totalEntries": 1, "averageConfidence": 0.9, "lastUpdated": "t"},
        },
    }
    text = tron.dumps(doc)
    assert list(header_classes(text)) == [
        "vBRIEFInfo",
        "Plan",
        "Agent",
        "ChangeLogEntry",
        "Fork",
        "PlanItem",
        "Participant",
        "URI",
        "Lock",
        "Reminder",
        "Recurrence",
        "SubItem",
        "Edge",
        "Playbook",
        "PlaybookEntry",
        "Metrics",
    ]
    assert tron.loads(text).data == doc


def test_one_class_holds_the_union_of_keys_and_absent_keys_are_positional_nulls() -> None:
    items = [
        {"title": "a", "status": "pending"},
        {"title": "b", "priority": "high", "status": "done"},
        {"title": "c", "tags": ["x"]},
    ]
    text = tron.dumps({"todoList": {"items": items}})
    assert header_classes(text)["TodoItem"] == "title, priority, status, tags"
    assert 'TodoItem("a", null, "pending", null)' in text
    assert ordered(tron.loads(text).data) == ordered({"todoList": {"items": items}})


def test_incompatible_key_orders_get_a_numbered_class() -> None:
    first = {"id": "1", "type": "human", "name": "A"}
    second = {"name": "B", "type": "bot", "id": "2"}
    value = {"log": {"agent": first, "other": {"agent": second}}}
    text = tron.dumps(value)
    assert header_classes(text)["Agent"] == "id, type, name"
    assert header_classes(text)["Agent2"] == "name, type, id"
    assert ordered(tron.loads(text).data) == ordered(value)


@pytest.mark.parametrize(
    "obj",
    [
        {"title": "a", "due": None, "status": "s"},  # a real null
        {"class": 1, "b": 2, "c": 3},  # a keyword key
        {"Acceptance Criteria": "x", "b": 2, "c": 3},  # a key that needs quotes
        {},
    ],
)
def test_objects_a_class_cannot_hold_in_the_dialect_use_braces(obj: dict[str, object]) -> None:
    value = {"todoList": {"items": [obj, obj]}}
    text = tron.dumps(value)
    assert "TodoItem(" not in text
    assert ordered(tron.loads(text).data) == ordered(value)


def test_free_form_maps_use_braces_and_their_members_are_named_after_them() -> None:
    narrative = {"title": "Overview", "content": "c"}
    value = {"plan": {"narratives": {"proposal": narrative, "problem": narrative}}}
    text = tron.dumps(value)
    assert '"proposal": Narrative("Overview", "c")' in text
    assert tron.loads(text).data == value


def test_non_object_roots_and_the_empty_object_are_standard_tron() -> None:
    values: tuple[Any, ...] = ([{"a": 1, "b": 2}, {"a": 3, "b": 4}], {}, "s", 3, None)
    for value in values:
        text = tron.dumps(value)
        doc = tron.loads(text)
        assert (doc.dialect, ordered(doc.data)) == ("standard", ordered(value))


# -- dumps, standard flavour -----------------------------------------------------------


def test_standard_flavour_follows_the_spec_s_encoding_advice() -> None:
    value = {
        "one": {"only": 1},
        "pair": {"a": 1, "b": 2},
        "pairs": [{"x": 1, "y": None}, {"x": 2, "y": 3}],
        "three": {"k": 1, "true": 2, "Content-Type": 3},
    }
    assert tron.dumps(value, "standard") == (
        'class A: one, pair, pairs, three\nclass B: x, y\nclass C: k, "true", "Content-Type"\n'
        "\n"
        "A(\n"
        '  {"only": 1},\n'
        '  {"a": 1, "b": 2},\n'
        "  [\n"
        "    B(1, null),\n"
        "    B(2, 3)\n"
        "  ],\n"
        "  C(1, 2, 3)\n"
        ")\n"
    )
    doc = tron.loads(tron.dumps(value, "standard"))
    assert (doc.dialect, ordered(doc.data)) == ("standard", ordered(value))


def test_standard_class_names_go_on_after_z() -> None:
    value = [{f"k{i}": 1, "a": 2, "b": 3} for i in range(30)]
    names = list(header_classes(tron.dumps(value, "standard")))
    assert names[:2] == ["A", "B"]
    assert names[25:28] == ["Z", "A1", "B1"]


def test_bad_values_and_flavours_are_refused() -> None:
    with pytest.raises(ValueError, match="nan is not a JSON number"):
        tron.dumps({"x": float("nan")})
    with pytest.raises(ValueError, match="unknown TRON flavor 'toon'"):
        tron.dumps([1], "toon")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        tron.dumps({1: 2})


@pytest.mark.parametrize("flavor", ["vcontext", "standard"])
def test_max_depth_round_trips_without_recursion_and_deeper_is_refused(flavor: str) -> None:
    value: object = 1
    for i in range(MAX_DEPTH):
        value = {"k": value, "j": 2, "i": i} if i % 2 else [value]
    assert tron.loads(tron.dumps(value, flavor)).data == value  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="nesting deeper"):
        tron.dumps([value], flavor)  # type: ignore[arg-type]


# -- render ----------------------------------------------------------------------------

OURS = """\
# Team todo list (classes are ours)
class vContextInfo: version
class TodoList: items
class TodoItem: id, title, status, priority

vContextInfo: vContextInfo("0.4")
todoList: TodoList([
  TodoItem("t1", "Implement authentication", "pending", "high"),
  TodoItem("t2", "Write API documentation", "pending", null)  # no priority yet
])
"""


def test_render_of_unchanged_data_is_the_source_byte_for_byte() -> None:
    doc = tron.loads(OURS)
    assert doc.render(json.loads(json.dumps(doc.data))) == OURS


def test_render_keeps_the_header_verbatim_and_reuses_ours_classes() -> None:
    doc = tron.loads(OURS)
    new = json.loads(json.dumps(doc.data))
    new["todoList"]["items"][1]["status"] = "completed"
    new["todoList"]["items"].append({"id": "t3", "title": "Deploy", "status": "pending"})
    text = doc.render(new)
    assert text.startswith(doc.header)
    assert 'TodoItem("t2", "Write API documentation", "completed", null)' in text
    assert 'TodoItem("t3", "Deploy", "pending", null)' in text
    assert tron.loads(text).data == new


def test_render_gives_new_shapes_a_class_when_they_recur_and_braces_when_once() -> None:
    doc = tron.loads(OURS)
    once = json.loads(json.dumps(doc.data))
    once["todoList"]["owner"] = {"id": "a", "type": "human", "name": "JT"}
    text = doc.render(once)
    # the only TodoList gains the field at its end (PRODUCT.md, "The write path")
    assert text.startswith(
        doc.header.replace("class TodoList: items\n", "class TodoList: items, owner\n")
    )
    assert "class Owner" not in text
    assert '"type": "human"' in text
    twice = json.loads(json.dumps(once))
    twice["todoList"]["items"][0]["owner"] = {"id": "b", "type": "bot", "name": "x"}
    text = doc.render(twice)
    classes = OURS[: OURS.index("\n\n") + 1].replace(
        "TodoList: items\n", "TodoList: items, owner\n"
    )
    assert text.startswith(classes + "class Owner: id, type, name\n\n")  # after ours' last class
    assert tron.loads(text).data == twice


def test_render_prefers_the_class_ours_used_at_that_place() -> None:
    text = "class A: x, y\nclass B: x, y\n\nfirst: A(1, 2)\nsecond: B(3, 4)\n"
    doc = tron.loads(text)
    out = doc.render({"first": {"x": 5, "y": 6}, "second": {"x": 7, "y": 8}})
    assert out.endswith("first: A(5, 6)\nsecond: B(7, 8)\n")  # ours' spacing too


def test_render_keeps_braces_where_ours_had_them() -> None:
    doc = tron.loads('class A: x, y\n\na: A(1, 2)\nb: {"x": 1, "y": 2}\n')
    out = doc.render({"a": {"x": 1, "y": 3}, "b": {"x": 1, "y": 3}})
    assert out.endswith('a: A(1, 3)\nb: {"x": 1, "y": 3}\n')  # ours' spacing too


def test_render_of_a_standard_document_stays_standard() -> None:
    doc = tron.loads("class P: x, y\n[P(1, null), P(2, 3)]")
    out = doc.render([{"x": 1, "y": None}, {"x": 5, "y": 6}, {"y": 1, "x": 2}])
    # a minimal edit of ours' one-line array; the element in another key order in {} syntax
    assert out == 'class P: x, y\n[P(1, null), P(5, 6), {"y": 1, "x": 2}]'
    assert tron.loads(out).dialect == "standard"


def test_render_keeps_bom_and_crlf() -> None:
    doc = tron.loads("\ufeffclass A: x, y\r\n\r\na: A(1, 2)\r\n".encode())
    out = doc.render({"a": {"x": 1, "y": 3}, "b": [{"x": 1, "y": 2}, {"x": 3, "y": 4}]})
    assert (
        out
        == "\ufeffclass A: x, y\r\n\r\na: A(1, 3)\r\n\r\nb: [\r\n  A(1, 2),\r\n  A(3, 4)\r\n]\r\n"
    )


def test_render_into_a_header_only_document() -> None:
    doc = tron.loads("class vContextInfo: version\n")
    out = doc.render({"vContextInfo": {"version": "0.4"}})
    assert out == 'class vContextInfo: version\n\nvContextInfo: vContextInfo("0.4")\n'
    assert tron.loads(doc.render({})).data == {}


def test_render_does_not_indent_the_data_like_ours_did() -> None:
    doc = tron.loads("class A: x\n  [A(1)]\n")
    out = doc.render("a string, which must not read as a property of A")
    assert out == 'class A: x\n"a string, which must not read as a property of A"\n'
    assert tron.loads(out).data == "a string, which must not read as a property of A"


def test_render_after_a_same_line_header() -> None:
    doc = tron.loads("class A: x, y; A(1, 2)")
    new = [{"x": 1, "y": 2}, {"k": 1, "j": 2}, {"k": 3, "j": 4}]
    out = doc.render(new)
    assert out == "class A: x, y;\nclass B: k, j\n\n[\n  A(1, 2),\n  B(1, 2),\n  B(3, 4)\n]"
    assert tron.loads(out).data == new


def test_render_of_reordered_keys_only_is_the_source() -> None:
    doc = tron.loads(OURS)
    new = {"todoList": doc.data["todoList"], "vContextInfo": doc.data["vContextInfo"]}
    assert doc.render(new) == OURS


def test_render_uses_the_best_fitting_class_for_a_new_place() -> None:
    doc = tron.loads(
        "class Agent: id, type, name, email\nclass Big: id, a, b, c, d, name\n\nx: 1\n"
    )
    out = doc.render({"x": 1, "reviewer": {"id": "r", "name": "Rae"}})
    assert out.endswith('reviewer: Agent("r", null, "Rae", null)\n')


def test_render_writes_a_new_row_in_another_key_order_with_a_class_of_its_own() -> None:
    """A new element among class rows takes a class (the header gains one when none fits:
    PRODUCT.md, "The write path"), keeping its own key order."""
    doc = tron.loads(OURS)
    new = json.loads(json.dumps(doc.data))
    new["todoList"]["items"].append({"status": "pending", "title": "t3", "id": "t3"})
    out = doc.render(new)
    assert "class TodoItem2: status, title, id\n" in out
    assert '  TodoItem2("pending", "t3", "t3")\n' in out
    assert ordered(tron.loads(out).data) == ordered(new)


@pytest.mark.parametrize(
    "gap", ["\n", "\n\n", "\r\n", "\r\n\r\n"], ids=["tight", "blank", "crlf-tight", "crlf-blank"]
)
def test_render_keeps_ours_spacing_between_top_level_pairs(gap: str) -> None:
    """M1 in spirit for TRON: a merge must not add (or drop) blank lines between the
    dialect's top-level pairs that ours did not have."""
    nl = "\r\n" if "\r" in gap else "\n"
    text = f'vContextInfo: {{"version": "0.4"}}{gap}todoList: {{"items": []}}{nl}'
    doc = tron.loads(text)
    out = doc.render({**doc.data, "todoList": {"items": [1]}})
    assert out == f'vContextInfo: {{"version": "0.4"}}{gap}todoList: {{"items": [1]}}{nl}'
