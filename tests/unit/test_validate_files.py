"""check_bytes: findings located in the source text; TRON like JSON; nasty input gives findings."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import git_vcontext as gv
from git_vcontext.validation.files import check_bytes

JSON_DOC = """{
  "vContextInfo": {"version": "0.4"},
  "todoList": {
    "items": [
      {"id": "t1", "title": "A", "status": "pending"},
      {
        "id": "t2",
        "title": "B",
        "status": "done"
      }
    ]
  }
}
"""


def test_json_findings_carry_line_column_and_the_id_anchored_path() -> None:
    (finding,) = check_bytes(JSON_DOC.encode(), "a.vcontext.json").findings
    assert (finding.line, finding.column) == (9, 9)
    assert finding.where == "todoList.items[t2].status"
    assert finding.pointer == "/todoList/items/1/status"
    (line,) = check_bytes(JSON_DOC.encode(), "a.vcontext.json").lines()
    assert line.startswith("a.vcontext.json:9:9: todoList.items[t2].status: ")
    assert line.endswith(" [schema]")


def test_json_positions_survive_a_bom_crlf_and_minified_text() -> None:
    crlf = JSON_DOC.replace("\n", "\r\n")
    assert check_bytes(crlf.encode(), "a.json").findings[0].line == 9
    flat = json.dumps(json.loads(JSON_DOC))
    (finding,) = check_bytes(flat.encode(), "a.json").findings
    assert finding.line == 1
    assert finding.column is not None
    assert flat[finding.column - 1 :].startswith('"status": "done"')
    bom = "\ufeff" + JSON_DOC
    assert check_bytes(bom.encode(), "a.json").findings[0].line == 9


def test_missing_field_points_at_the_object() -> None:
    text = JSON_DOC.replace('        "title": "B",\n', "")
    rules = [(f.line, f.column, f.rule) for f in check_bytes(text.encode(), "a.json").findings]
    assert rules == [(6, 7, "schema"), (8, 9, "schema")]


def test_tron_findings_name_the_line_of_the_key() -> None:
    tron = """class vContextInfo: version
class TodoItem: id, title, status

vContextInfo: vContextInfo("0.4")
todoList: {
  items: [
    TodoItem("t1", "A", "pending"),
    TodoItem("t2", "B", "done")
  ],
  created: "2025-01-01"
}
"""
    findings = check_bytes(tron.encode(), "a.vcontext.tron").findings
    assert [(f.rule, f.line, f.where) for f in findings] == [
        ("schema", 8, "todoList.items[t2].status"),
        ("datetime", 10, "todoList.created"),
    ]


ROWS = """# rows without ids, objects inside rows, named arguments, comments
class TodoItem: title, status, narrative
class Meta: created

vContextInfo: {version: "0.4"}
todoList: {
  items: [
    TodoItem("A", "pending", {Background: "ok"}),  # row 1: fine
    TodoItem("B", "done", {Background: "<<<<<<< ours"}),
    TodoItem("C", narrative={Problem: "x"}, status="late"),
    {title: "D", status: "pending", subItems: [TodoItem("E", "bad", null)]},
    {title: "F", status: "pending", meta: Meta("2025-02-30T10:00:00Z")},
  ]
}
"""


def test_tron_findings_in_class_rows_each_have_their_own_line_and_column() -> None:
    """PRODUCT.md "Validation": every finding has a line and column, also inside class rows
    and ``{…}`` objects of rows without ids (they all pointed at the first row)."""
    findings = check_bytes(ROWS.encode(), "rows.vcontext.tron").findings
    lines = ROWS.splitlines()
    assert all(f.line is not None for f in findings)
    assert all(f.column is not None for f in findings)
    found = [
        (f.rule, f.line, lines[(f.line or 0) - 1][(f.column or 0) - 1 :][:12]) for f in findings
    ]
    assert found == [
        ("schema", 9, '"done", {Bac'),
        ("conflict-markers", 9, "Background: "),
        ("schema", 10, 'status="late'),
        ("schema", 11, '"bad", null)'),
        ("datetime", 12, '"2025-02-30T'),
    ]


def tron_twin(data: Any, flavor: str = "vcontext") -> bytes:
    return gv.dumps(data, "tron", tron_flavor=flavor).encode()  # type: ignore[arg-type]


CASES = [
    json.loads(JSON_DOC),
    {
        "vContextInfo": {"version": "0.4"},
        "playbook": {
            "items": [
                {"eventId": "e1", "targetId": "x", "operation": "append", "createdAt": "2025"},
                {"eventId": "e1", "targetId": "x", "operation": "update", "prevEventId": "e7"},
            ]
        },
    },
    {
        "vContextInfo": {"version": "0.3"},
        "plan": {"title": "P", "status": "draft", "items": [{"id": "a", "dependencies": ["a"]}]},
    },
]


@pytest.mark.parametrize("data", CASES)
@pytest.mark.parametrize("flavor", ["vcontext", "standard"])
def test_tron_validates_like_its_json_twin(data: Any, flavor: str) -> None:
    from_json = check_bytes(json.dumps(data, indent=2).encode(), "d.vcontext.json")
    from_tron = check_bytes(tron_twin(data, flavor), "d.vcontext.tron")
    strip = [(f.rule, f.pointer, f.message, f.where) for f in from_json.findings]
    assert [(f.rule, f.pointer, f.message, f.where) for f in from_tron.findings] == strip
    assert strip  # each case has findings
    assert all(f.line is not None for f in from_tron.findings)


# -- nasty input -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "name", "rule"),
    [
        (b"", "e.vcontext.json", "parse"),
        (b"   \n", "e.vcontext.tron", "parse"),
        (b'{"vContextInfo": {', "x.vcontext.json", "parse"),
        (b"todoList: TodoItem(", "x.vcontext.tron", "parse"),
        (b'{"a": 1, "a": 2}', "x.json", "duplicate-key"),  # PRODUCT.md "Formats"
        (b"a: 1\nb: {c: 1, c: 2}\n", "x.vcontext.tron", "duplicate-key"),
        (b"\xff\xfe garbage", "x.json", "parse"),
        (b"bin\x00ary", "x.json", "parse"),
        (b'{"a": 1}\nnot json\n', ".work/events.jsonl", "parse"),
        (
            b'{\n<<<<<<< ours\n"a": 1\n=======\n"a": 2\n>>>>>>> theirs\n}\n',
            "x.json",
            "conflict-markers",
        ),
        (b"[" * 100_000 + b"]" * 100_000, "deep.json", "parse"),
        (b'{"x":' * 5000 + b"1" + b"}" * 5000, "deep.vcontext.json", "parse"),
        (b"class A: a\n" + b"A(" * 3000 + b"1" + b")" * 3000, "deep.tron", "parse"),
    ],
)
def test_nasty_input_gives_a_finding_not_a_traceback(raw: bytes, name: str, rule: str) -> None:
    report = check_bytes(raw, name)
    assert [f.rule for f in report.findings] == [rule]
    assert not report.valid
    assert report.findings[0].message


def test_path_with_spaces_and_no_extension() -> None:
    report = check_bytes(JSON_DOC.encode(), "my docs/to do list")
    assert report.lines()[0].startswith("my docs/to do list:9:9: ")


def test_library_api_is_callable_from_the_package_even_after_imports() -> None:
    import importlib

    importlib.import_module("git_vcontext.validation.files")
    doc = gv.loads(JSON_DOC)
    report = gv.validate(doc, path="a.json")
    assert [(f.rule, f.line) for f in report.findings] == [("schema", 9)]
    data = json.loads(JSON_DOC)
    assert gv.validate(data).findings[0].line is None  # data: no text
    assert gv.validate(JSON_DOC).findings[0].line == 9


def test_checking_a_valid_json_file_imports_no_heavy_modules() -> None:
    """The pre-push hook checks blob after blob: valid JSON never needs jsonschema or lark."""
    import subprocess
    import sys

    probe = (
        "import sys; from git_vcontext.validation.files import check_bytes; "
        f"assert check_bytes({JSON_DOC.replace('done', 'completed')!r}.encode(), 'a.json').valid; "
        "print(' '.join(sorted(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = set(out.stdout.split())
    heavy = {"jsonschema", "referencing", "lark", "click", "pygit2", "deepdiff", "subprocess"}
    assert not loaded & heavy, sorted(loaded & heavy)


KEYS = st.sampled_from(
    (
        *("id", "items", "status", "title", "dependencies", "eventId", "targetId", "operation"),
        *("prevEventId", "changeLog", "sequence", "fork", "subItems", "edges", "from", "to"),
        *("created", "playbook", "todoList", "plan", "entries", "mergeStatus"),
    )
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(-1, 1, allow_nan=False),
    st.sampled_from(["", "t1", "pending", "append", "update", "e1", "2025-01-01", "<<<<<<< x\n"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=15,
)
ROOTS = st.sampled_from(["vContextInfo", "vBRIEFInfo", "vAgendaInfo"])
VERSIONS = st.sampled_from(["0.2", "0.3", "0.4", "0.5", "0.6"])


@settings(max_examples=300, deadline=None)
@given(root=ROOTS, version=VERSIONS, body=st.dictionaries(KEYS, VALUES, max_size=3))
def test_any_document_gets_a_report_with_positions(root: str, version: str, body: Any) -> None:
    data = {root: {"version": version}, **body}
    text = json.dumps(data, indent=1)
    report = check_bytes(text.encode(), "fuzz.vcontext.json")
    for finding in report.findings:
        assert finding.rule
        assert finding.message
        assert finding.line is not None
        assert finding.column is not None
    tron = check_bytes(gv.dumps(data, "tron").encode(), "fuzz.vcontext.tron")
    same = sorted((f.rule, f.pointer, f.message) for f in report.findings)
    assert sorted((f.rule, f.pointer, f.message) for f in tron.findings) == same
