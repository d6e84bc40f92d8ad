"""TRON reading: the TRON spec's rules, the vContext dialect, and located errors."""

from __future__ import annotations

import json

import pytest

from git_vcontext.codecs import tron
from git_vcontext.errors import ParseError
from git_vcontext.values import MAX_DEPTH

MINIMAL_TODO = """\
class vContextInfo: version
class TodoList: items
class TodoItem: title, status

vContextInfo: vContextInfo("0.4")
todoList: TodoList([
  TodoItem("Implement authentication", "pending"),
  TodoItem("Write API documentation", "pending")
])
"""


def data(text: str | bytes) -> object:
    return tron.loads(text).data


def ordered(value: object) -> str:
    """Equality that also sees key order and int/float/bool differences."""
    return json.dumps(value)


# -- the vContext dialect -----------------------------------------------------------


def test_minimal_todo_list_reads_as_the_dialect() -> None:
    doc = tron.loads(MINIMAL_TODO)
    assert doc.format == "tron"
    assert doc.dialect == "vcontext"
    assert doc.data == {
        "vContextInfo": {"version": "0.4"},
        "todoList": {
            "items": [
                {"title": "Implement authentication", "status": "pending"},
                {"title": "Write API documentation", "status": "pending"},
            ]
        },
    }
    assert doc.classes == {
        "vContextInfo": ["version"],
        "TodoList": ["items"],
        "TodoItem": ["title", "status"],
    }
    assert doc.header == MINIMAL_TODO[: MINIMAL_TODO.index("\nvContextInfo:") + 1]
    assert (doc.newline, doc.final_newline, doc.bom) == ("\n", True, False)
    assert doc.source() == MINIMAL_TODO


def test_dialect_positional_null_means_absent_but_named_and_object_nulls_stay() -> None:
    text = 'class A: x, y\n\na: A(1, null)\nb: A(x=1, y=null)\nc: {"x": null}\n'
    assert ordered(data(text)) == ordered(
        {"a": {"x": 1}, "b": {"x": 1, "y": None}, "c": {"x": None}}
    )


def test_standard_positional_null_is_null() -> None:
    assert data("class A: x, y\n\nA(1, null)") == {"x": 1, "y": None}


def test_dialect_is_told_by_content_quoted_keys_and_unquoted_object_keys() -> None:
    doc = tron.loads('"my key": { version: "0.5", "x-y": [1] }\nother: 2')
    assert doc.dialect == "vcontext"
    assert doc.data == {"my key": {"version": "0.5", "x-y": [1]}, "other": 2}
    assert tron.loads('{"a": 1}').dialect == "standard"


def test_header_only_text_is_the_empty_dialect_document() -> None:
    doc = tron.loads("# core classes\nclass vContextInfo: version\nclass TodoList: items\n")
    assert (doc.data, doc.dialect) == ({}, "vcontext")
    assert doc.classes == {"vContextInfo": ["version"], "TodoList": ["items"]}


@pytest.mark.parametrize("text", ["", "   \n\n", "# nothing here\n  # at all\n", ";\n"])
def test_empty_text_is_an_error(text: str) -> None:
    with pytest.raises(ParseError, match="empty document"):
        tron.loads(text)


def test_property_lists_continue_on_indented_lines() -> None:
    text = (
        "class PlaybookItem:\n"
        "  eventId, targetId,\n"
        "\n"
        "  # the content\n"
        "  kind, text\n"
        "entry: PlaybookItem(1, 2, 3, 4)\n"
    )
    doc = tron.loads(text)
    assert doc.classes == {"PlaybookItem": ["eventId", "targetId", "kind", "text"]}
    assert doc.data == {"entry": {"eventId": 1, "targetId": 2, "kind": 3, "text": 4}}


# -- the TRON spec -------------------------------------------------------------------


def test_spec_quick_example_with_newline_separated_properties() -> None:
    text = """\
class Order:
  index,items,total

class Product:
  index,name,price,quantity

Order(
  "ord-123",
  [
    Product(1,"Widget",19.99,2),
    Product(2,"Gadget",29.99,1),
    Product(3,"Gizmo",39.99,1)
  ],
  109.96
)
"""
    doc = tron.loads(text)
    assert doc.dialect == "standard"
    assert doc.data == {
        "index": "ord-123",
        "items": [
            {"index": 1, "name": "Widget", "price": 19.99, "quantity": 2},
            {"index": 2, "name": "Gadget", "price": 29.99, "quantity": 1},
            {"index": 3, "name": "Gizmo", "price": 39.99, "quantity": 1},
        ],
        "total": 109.96,
    }


@pytest.mark.parametrize(
    "call",
    ["Point(10, 20)", "Point(x=10, y=20)", "Point(10, y=20)", '"p": Point("x"=10, "y"=20)'],
)
def test_named_arguments_are_equivalent_to_positional(call: str) -> None:
    value = data("class Point: x, y\n" + call)
    assert value in ({"x": 10, "y": 20}, {"p": {"x": 10, "y": 20}})


def test_named_arguments_keep_the_order_they_are_written_in() -> None:
    assert ordered(data("class Point: x, y\nPoint(y=20, x=10)")) == ordered({"y": 20, "x": 10})


@pytest.mark.parametrize(
    ("call", "message", "column"),
    [
        ("Point(x=10)", "Point is missing 'y'", 11),
        ("Point(x=10, y=20, z=30)", "Point has no property 'z'", 19),
        ("Point(x=10, x=20)", "argument 'x' of Point given twice", 13),
        ("Point(x=10, 20)", "positional argument after named argument", 13),
        ("Point(10, x=20)", "argument 'x' of Point given twice", 11),
        ("Point(10)", "Point takes 2 arguments, got 1", 9),
        ("Point(1, 2, 3)", "Point takes 2 arguments, got 3", 13),
        ("Point()", "Point takes 2 arguments, got 0", 7),
        ("Pt(1, 2)", "unknown class 'Pt'", 1),
    ],
)
def test_invalid_instantiations_are_located(call: str, message: str, column: int) -> None:
    with pytest.raises(ParseError) as info:
        tron.loads("class Point: x, y\n" + call)
    err = info.value
    assert err.reason == message
    assert (err.line, err.column) == (2, column)
    assert err.snippet == call + "\n" + " " * (column - 1) + "^"


def test_inheritance_puts_the_parents_properties_first() -> None:
    doc = tron.loads("class Point: x, y\nclass Point3D(Point): z\nPoint3D(1, 2, 3)")
    assert doc.classes["Point3D"] == ["x", "y", "z"]
    assert ordered(doc.data) == ordered({"x": 1, "y": 2, "z": 3})


def test_semicolons_separate_definitions_and_the_data() -> None:
    assert data("class A: a; class B: b;[A(1), B(2)]") == [{"a": 1}, {"b": 2}]
    assert data("class A: a, b; A(1, 2)") == {"a": 1, "b": 2}


def test_comments_anywhere_but_inside_strings() -> None:
    text = """\
# header comment
class User: name, age # inline comment
# between
User( # after the paren
  "Al # not a comment", # after an argument
  42 # last
) # trailing
# the end"""
    assert data(text) == {"name": "Al # not a comment", "age": 42}


def test_trailing_commas_everywhere_the_spec_allows_them() -> None:
    text = """\
class Address:
  street, city,  # trailing comma is optional
  zip_code, country,
[Address("a", "b", "c", "d",), {"k": [1, 2,],}, []]"""
    assert data(text) == [
        {"street": "a", "city": "b", "zip_code": "c", "country": "d"},
        {"k": [1, 2]},
        [],
    ]


def test_quoted_property_names() -> None:
    doc = tron.loads('class Headers: "Content-Type", "Authorization", "a\\"b"\nHeaders(1, 2, 3)')
    assert doc.classes["Headers"] == ["Content-Type", "Authorization", 'a"b']
    assert doc.data == {"Content-Type": 1, "Authorization": 2, 'a"b': 3}


@pytest.mark.parametrize(
    "text",
    [
        '{"a": [1, -2.5, 3e2, true, false, null, "x\\u00e9\\n"], "b": {}}',
        "[]",
        '"just a string"',
        "-0.0",
        "123456789012345678901234567890",
    ],
)
def test_json_is_tron(text: str) -> None:
    assert ordered(data(text)) == ordered(json.loads(text))


def test_numbers_big_ints_exact_floats_as_python_floats() -> None:
    value = data("[12345678901234567890123456789, 1.5, 1e2, -0, 2E-3]")
    assert value == [12345678901234567890123456789, 1.5, 100.0, 0, 0.002]
    assert [type(v) for v in value] == [int, float, float, int, float]  # type: ignore[union-attr]


def test_bom_crlf_and_missing_final_newline_are_recorded() -> None:
    raw = "\ufeffclass A: x\r\n\r\na: A(1)".encode()
    doc = tron.loads(raw)
    assert doc.data == {"a": {"x": 1}}
    assert (doc.bom, doc.newline, doc.final_newline) == (True, "\r\n", False)
    assert doc.source() == raw.decode()


# -- errors ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ('class T: a, b\n\nx: [\n  T("a", "b"\n]\n', 5, 1, "expected ',' or ')' after an argument"),
        ("[1, 2", 1, 6, "the text ends inside an array opened on line 1: ']' missing"),
        ('{"a": 1 "b": 2}', 1, 9, "expected ',' or '}' after an object member"),
        ("[1 2]", 1, 4, "expected ',' or ']' after an array element"),
        ('{"a": 1, "a": 2}', 1, 10, 'duplicate key "a"'),
        ("a: 1\nb: 2\na: 3\n", 3, 1, 'duplicate key "a"'),
        ("[NaN]", 1, 2, "NaN is not a number"),
        ("[-Infinity]", 1, 2, "-Infinity is not a number"),
        ("1e999", 1, 1, "out of range"),
        ("['x']", 1, 2, "strings need double quotes"),
        ('"abc', 1, 1, "unterminated string"),
        ('"a\tb"', 1, 3, "control character U+0009"),
        ('"a\\qb"', 1, 3, "invalid \\escape"),
        ("[1, 2] 3", 1, 8, "after the root value"),
        ("01", 1, 1, "invalid number"),
        ("x: TodoItem", 1, 4, "unexpected word 'TodoItem'"),
        ("class T: a\nT", 2, 1, "class T needs its arguments in parentheses"),
        ("class A: x\nclass A: y\nA(1)", 2, 7, "class A is defined twice"),
        ("class B(A): x\nB(1)", 1, 9, "unknown parent class 'A'"),
        ("class null: x\n1", 1, 7, "reserved word"),
        ("class A: null\n1", 1, 10, 'write the property as "null"'),
        ("class A: x y\n1", 1, 12, "expected ',' between the properties of class A"),
        ("class A:\nA()", 1, 8, "class A needs at least one property"),
        ("class A: x, x\nA(1, 2)", 1, 13, 'property "x" appears twice'),
        ("// comment\n1", 1, 1, "comments start with '#'"),
    ],
)
def test_errors_say_what_and_where(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(ParseError) as info:
        tron.loads(text)
    err = info.value
    assert message in err.reason
    assert (err.line, err.column) == (line, column)
    assert err.snippet.endswith("\n" + " " * (column - 1) + "^")
    # PRODUCT.md "Formats": validate reports duplicate keys as rule duplicate-key
    assert err.rule == ("duplicate-key" if "duplicate key" in message else "parse")


def test_conflict_markers_are_reported_as_such() -> None:
    text = "class A: x\n<<<<<<< ours\nA(1)\n=======\nA(2)\n>>>>>>> theirs\n"
    with pytest.raises(ParseError) as info:
        tron.loads(text)
    assert (info.value.rule, info.value.line) == ("conflict-markers", 2)


@pytest.mark.parametrize(
    ("raw", "message"),
    [(b"[1, \xff]", "not UTF-8"), (b"[1,\x00 2]", "binary content")],
)
def test_bytes_that_are_not_text(raw: bytes, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        tron.loads(raw)


def test_nesting_up_to_max_depth_reads_and_deeper_is_an_error() -> None:
    ok = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert tron.loads(ok).data is not None
    with pytest.raises(ParseError, match="nesting deeper") as info:
        tron.loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert info.value.column == MAX_DEPTH + 1
    deep_instances = "class A: x\n" + "A(" * 100_000 + "1" + ")" * 100_000
    with pytest.raises(ParseError, match="nesting deeper"):
        tron.loads(deep_instances)


def test_brackets_in_comments_do_not_count_as_nesting() -> None:
    text = "# " + "[" * (MAX_DEPTH + 5) + "\n[1]"
    assert tron.loads(text).data == [1]


def test_the_grammar_file_is_complete_for_lark_s_own_lexer() -> None:
    """tron.py uses a faster lexer of its own; the grammar still stands alone."""
    import os

    from lark import Lark

    path = os.path.join(os.path.dirname(tron.__file__), "tron.lark")
    with open(path, encoding="utf-8") as f:
        parser = Lark(f.read(), parser="lalr", lexer="basic")
    tree = parser.parse('todoList: TodoList([TodoItem("a", b=null), {k: 1.5e3}]) # c\nx: 1')
    assert tree.data == "pairs"


def test_importing_the_codec_does_not_import_lark() -> None:
    import subprocess
    import sys

    code = "import sys, git_vcontext.codecs.tron as t; t.dumps([1]); print('lark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
