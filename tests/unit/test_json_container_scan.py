"""json_text's scan of a container with its end and its member count known (issue 32): the
render finds the members of ours' containers as the member-by-member scan finds them, the
last member's end from the closing bracket, a long array's elements cut at its lines
(``_elements_by_lines``) only where that is proved, so unchanged parts of ours come out
byte-identical (PRODUCT.md Formats) and the written text reads back as the merged data
(M16). ``text.nesting_proof`` says a text's brackets are all containers' only when no
string holds one."""

from __future__ import annotations

import difflib
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_vcontext.codecs import json_text
from git_vcontext.codecs.text import brackets_structural, cuts_outside_containers, nesting_proof
from git_vcontext.jsoncodec import skip_whitespace
from git_vcontext.values import MAX_DEPTH

# strings full of what could fool a cut or a count: brackets, commas, quotes, backslashes
TRAPS = st.text(alphabet='[]{}",\\ab:\u00e9\n', max_size=6)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 300), TRAPS)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=12), st.dictionaries(TRAPS | st.just("k"), inner, max_size=4)
    ),
    max_leaves=40,
)
RECORDS = st.lists(
    st.dictionaries(st.sampled_from(["id", "tags", "n", "sub"]), VALUES, max_size=4), max_size=20
)
STYLES = st.sampled_from([{"indent": 2}, {"indent": "\t"}, {"indent": None}, {"indent": 0}])


def _spans(doc: json_text.JsonDocument) -> list[tuple[int, int, Any]]:
    """(start, end, data) of every container of the document, as the plain scan finds them."""
    text = doc.text
    start = skip_whitespace(text, 0)
    out: list[tuple[int, int, Any]] = []
    todo = [(start, json_text.value_end(text, start), doc.data)]
    while todo:
        at, end, data = todo.pop()
        if not isinstance(data, (dict, list)):
            continue
        out.append((at, end, data))
        members = json_text.scan_container(text, at).members
        values = data.values() if isinstance(data, dict) else data
        for m, v in zip(members, values, strict=True):
            todo.append((m.value_start, m.value_end, v))
    return out


def _positions(span: json_text.ContainerSpan) -> list[tuple[Any, ...]]:
    return [
        (span.close, m.key, m.lead_start, m.start, m.key_end, m.value_start, m.value_end)
        for m in span.members
    ]


def _same_scans(text: str) -> None:
    doc = json_text.loads(text)
    for start, end, data in _spans(doc):
        plain = json_text.scan_container(doc.text, start)
        known = json_text.JsonDocument(doc.text, doc.data)
        known.structural = doc.structural
        assert _positions(known._container(start, end, len(data))) == _positions(plain), start


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=VALUES | RECORDS, style=STYLES)
def test_known_ends_and_counts_find_the_members_the_scan_finds(value: Any, style: Any) -> None:
    _same_scans(json.dumps({"items": value, "after": [1, 2]}, **style))
    _same_scans(json.dumps(value, **style))


def test_elements_at_the_indent_of_their_array_inside_an_element_are_no_cut() -> None:
    """A hand layout that puts a nested array's elements at the outer elements' indent:
    the cut at their lines would land inside an element, so the array is scanned."""
    inner = ",\n  ".join(f'{{"b": {i}}}' for i in range(9))
    outer = ",\n  ".join(f'{{"a": {i}}}' for i in range(9))
    text = '[\n  {"x": [\n  ' + inner + "]},\n  " + outer + "\n]\n"
    doc = json_text.loads(text)
    assert brackets_structural(doc.text)
    assert json_text._elements_by_lines(doc.text, 0, len(text) - 1, 10) is None
    _same_scans(text)


def test_elements_one_a_line_are_cut_at_their_lines() -> None:
    items = [{"id": f"t{i}", "tags": ["a"], "n": {"b": i}} for i in range(20)]
    text = json.dumps({"todo": {"items": items}}, indent=2) + "\n"
    doc = json_text.loads(text)
    start = text.index("[")
    end = json_text.value_end(text, start)
    cut = json_text._elements_by_lines(doc.text, start, end, len(items))
    assert cut is not None
    assert _positions(cut) == _positions(json_text.scan_container(text, start))
    # a wrong count (as a different text would give) is never taken for the elements
    assert json_text._elements_by_lines(doc.text, start, end, len(items) - 1) is None


@pytest.mark.parametrize(
    ("text", "structural"),
    [
        ('{"a": "[", "b": [' + ", ".join(["[1]"] * (MAX_DEPTH + 20)) + "]}", False),
        ('{"a": "x\\"y", "b": [' + ", ".join(["[1]"] * (MAX_DEPTH + 20)) + "]}", False),
        ('{"a": "x", "b": [' + ", ".join(["[1]"] * (MAX_DEPTH + 20)) + "]}", True),
    ],
)
def test_the_nesting_proof_says_structural_only_when_no_string_holds_a_bracket(
    text: str, structural: bool
) -> None:
    assert nesting_proof(text, MAX_DEPTH)[1] is structural
    assert brackets_structural(text) is structural
    assert json_text.loads(text).structural is structural


def test_cuts_outside_containers() -> None:
    assert cuts_outside_containers('{"a": [1]}\x00{"b": {}}\x00[]')
    assert not cuts_outside_containers('{"a": [1,\x00 2]}')
    assert not cuts_outside_containers("[\x00]")


def test_a_render_of_a_long_list_keeps_the_unchanged_elements_byte_for_byte() -> None:
    items = [{"id": f"t{i}", "tags": ["a"], "n": {"b": i}} for i in range(40)]
    text = json.dumps({"todo": {"items": items}}, indent=2) + "\n"
    doc = json_text.loads(text)
    new = json.loads(text)
    new["todo"]["items"][7]["n"]["b"] = "changed"
    new["todo"]["items"].append({"id": "new", "tags": []})
    out = doc.render(new)
    assert json.loads(out) == new
    diff = difflib.unified_diff(text.splitlines(), out.splitlines(), lineterm="", n=0)
    edits = [line for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert edits == ['-          "b": 7', '+          "b": "changed"', "+      },", "+      {",
                     '+        "id": "new",', '+        "tags": []']  # fmt: skip
