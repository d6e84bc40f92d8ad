"""The TOML codec (PRODUCT.md "VerMAS (seed 004) in full"): tomllib reads, tomlkit edits.

Writing is a minimal edit of ours' text: what did not change stays byte for byte,
comments stay, a string keeps its style, tables and keys go where their neighbours are.
"""

from __future__ import annotations

import copy
import math
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from git_vcontext.codecs import format_from_content, format_from_name, parse
from git_vcontext.codecs.toml import dumps
from git_vcontext.codecs.toml.scalars import NAN, TomlDateTime
from git_vcontext.errors import ParseError
from helpers.toml_tables import TABLES

SEED = Path(__file__).resolve().parents[1] / "examples" / "vermas" / ".work" / "templates"
TEMPLATE = (SEED / "worker-execute.toml").read_text()


def edit(text: str, change: Any) -> str:
    doc = parse(text.encode(), path="t.toml")
    new = copy.deepcopy(doc.data)
    change(new)
    out = doc.render(new)
    assert _plain(tomllib.loads(out.lstrip("\ufeff"))) == _plain(new)  # exactly the new data
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, TomlDateTime):
        return value.value
    return value


# -- reading ------------------------------------------------------------------------


def test_the_seed_template_reads_as_steps_with_multiline_descriptions() -> None:
    data = parse(TEMPLATE.encode(), path="worker-execute.toml").data
    assert data["template"] == "worker-execute"
    assert data["version"] == 1
    assert [s["id"] for s in data["steps"]] == ["understand", "implement", "test", "complete"]
    assert data["steps"][1]["needs"] == ["understand"]
    assert data["steps"][0]["description"].startswith("Read the work order details")
    assert "```bash\nwo show $WORK_ORDER_ID\n```" in data["steps"][0]["description"]


def test_a_syntax_error_is_located_at_its_line_and_column() -> None:
    with pytest.raises(ParseError) as caught:
        parse(b'template = "w"\nversion = = 1\n', path="t.toml")
    err = caught.value
    assert (err.line, err.column, err.rule) == (2, 11, "parse")
    assert err.reason.startswith("invalid TOML: ")
    assert "^" in err.snippet


def test_an_unclosed_string_at_the_end_is_located_too() -> None:
    with pytest.raises(ParseError) as caught:
        parse(b'a = 1\nb = """never closed\n', path="t.toml")
    assert caught.value.line is not None
    assert caught.value.line >= 2


def test_conflict_markers_are_reported_as_such() -> None:
    text = b"a = 1\n<<<<<<< ours\nb = 2\n=======\nb = 3\n>>>>>>> theirs\n"
    with pytest.raises(ParseError) as caught:
        parse(text, path="t.toml")
    assert caught.value.rule == "conflict-markers"
    assert caught.value.line == 2


def test_duplicate_keys_and_binary_content_do_not_parse() -> None:
    for raw in (b"a = 1\na = 2\n", b"a = 1\x00\n", b"a = '\xff'\n"):
        with pytest.raises(ParseError):
            parse(raw, path="t.toml")


def test_deep_nesting_is_refused_without_a_crash() -> None:
    with pytest.raises(ParseError, match="nesting"):
        parse(("a = " + "[" * 3000 + "]" * 3000 + "\n").encode(), path="t.toml")


def test_dates_read_as_rfc3339_text_that_remembers_their_toml_value() -> None:
    text = b"a = 1979-05-27T07:32:00Z\nb = 1979-05-27\nc = 07:32:00\nd = 1979-05-27 07:32:00\n"
    data = parse(text, path="t.toml").data
    assert data["a"] == "1979-05-27T07:32:00Z"
    assert isinstance(data["a"], TomlDateTime)
    assert data["b"] == "1979-05-27"
    assert data["c"] == "07:32:00"
    assert data["d"] == "1979-05-27T07:32:00"


def test_nan_is_one_value_so_that_two_readings_compare_equal() -> None:
    a = parse(b"x = nan\n", path="t.toml").data
    b = parse(b"x = -nan\n", path="t.toml").data
    assert a == b
    assert a["x"] is NAN
    assert math.isnan(a["x"])


def test_bom_and_crlf_are_kept_when_written() -> None:
    text = "\ufeffa = 1\r\n# note\r\nb = 2\r\n"
    out = edit(text, lambda d: d.update(b=3, c=4))
    assert out == "\ufeffa = 1\r\n# note\r\nb = 3\r\nc = 4\r\n"


# -- detection -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        (TEMPLATE, "toml"),
        ("# comment\n\n[[steps]]\nid = 'a'\n", "toml"),
        ('"quoted key" = 1\n', "toml"),
        ("a.b.c = true\n", "toml"),
        ('["a"]', "json"),  # both JSON and TOML: JSON, as before
        ('[\n  "a",\n  "b"\n]\n', "json"),
        ("[[1, 2]]\n", "json"),
        ('{"a": 1}', "json"),
        ("# comment\nkey: value\n", "tron"),
    ],
)
def test_toml_is_known_by_its_content(text: str, fmt: str) -> None:
    assert format_from_content(text) == fmt


def test_toml_is_known_by_its_name() -> None:
    assert format_from_name(".work/templates/worker-execute.toml") == "toml"
    assert format_from_name(".work/.assignment-ceo") == "text"


# -- minimal edits ----------------------------------------------------------------------


def test_unchanged_data_gives_the_text_back_byte_for_byte() -> None:
    doc = parse(TEMPLATE.encode(), path="t.toml")
    assert doc.render(copy.deepcopy(doc.data)) == TEMPLATE


def test_one_changed_value_changes_one_line_and_keeps_its_comment() -> None:
    text = 'name = "x"   # the name\nversion = 1\n'
    assert edit(text, lambda d: d.update(name="y")) == 'name = "y"   # the name\nversion = 1\n'


def test_a_multiline_description_stays_a_multiline_string_in_its_style() -> None:
    def change(d: Any) -> None:
        d["steps"][2]["description"] = "Run the tests.\n\nTwice.\n"

    out = edit(TEMPLATE, change)
    start = TEMPLATE.index("Run the test suite")
    end = TEMPLATE.index('"""', start)
    assert out == TEMPLATE[:start] + "Run the tests.\n\nTwice.\n" + TEMPLATE[end:]


def test_literal_strings_stay_literal_and_basic_strings_get_escapes() -> None:
    text = "a = 'C:\\path'\nb = '''\nraw \\n\n'''\nc = \"x\"\n"
    out = edit(text, lambda d: d.update(a="D:\\dir", b="raw \\t\n", c='say "hi"\n'))
    assert "a = 'D:\\dir'" in out
    assert "b = '''\nraw \\t\n'''" in out
    assert 'c = """\nsay "hi"\n"""' in out


def test_strings_toml_cannot_hold_raw_are_escaped() -> None:
    edit("a = '''\nx\n'''\n", lambda d: d.update(a='tab\tbell\x07 cr\r\nquotes """ end"'))
    edit('a = "x"\n', lambda d: d.update(a="del \x7f and 'single' quotes"))
    edit("a = 'x'\n", lambda d: d.update(a="it's"))
    edit("a = '''\nx\n'''\n", lambda d: d.update(a="ends in two quotes''"))
    edit('a = """\nx\n"""\n', lambda d: d.update(a='\n"""'))


def test_a_new_key_goes_after_its_predecessor_not_after_a_comment_above_the_next_table() -> None:
    text = '[t]\nk = 1\n\n# about s\n[[s]]\nid = "1"\n'
    out = edit(text, lambda d: d["t"].update(new="v"))
    assert out == '[t]\nk = 1\nnew = "v"\n\n# about s\n[[s]]\nid = "1"\n'


def test_a_new_top_level_key_goes_before_the_tables() -> None:
    out = edit(TEMPLATE, lambda d: d.update(author="ceo"))
    assert 'version = 1\nauthor = "ceo"\n\n[[steps]]' in out


def test_removed_keys_take_their_line_and_its_comment_with_them() -> None:
    text = "a = 1  # gone\nb = 2\n"
    assert edit(text, lambda d: d.pop("a")) == "b = 2\n"


def test_steps_are_edited_by_id_inserted_removed_and_reordered() -> None:
    def change(d: Any) -> None:
        steps = d["steps"]
        steps.insert(1, {"id": "plan", "title": "Plan", "description": "Make a plan.\n"})
        del steps[3]  # test
        steps[-1]["needs"] = ["implement"]

    out = edit(TEMPLATE, change)
    ids = [s["id"] for s in tomllib.loads(out)["steps"]]
    assert ids == ["understand", "plan", "implement", "complete"]
    assert (
        '\n\n[[steps]]\nid = "plan"\ntitle = "Plan"\ndescription = """\nMake a plan.\n"""\n\n'
        in out
    )
    assert "Run the test suite" not in out


def test_a_comment_above_a_table_travels_with_that_table() -> None:
    text = '[[s]]\nid = "1"\n\n# about two\n[[s]]\nid = "2"\n\n# about three\n[[s]]\nid = "3"\n'
    out = edit(text, lambda d: d["s"].reverse())
    assert out.index("# about two") < out.index('id = "2"') < out.index('id = "1"')
    assert out.index("# about three") < out.index('id = "3"')
    out = edit(text, lambda d: d["s"].pop(1))
    assert "# about two" not in out
    assert "# about three" in out


def test_a_comment_left_at_the_end_of_a_removed_table_moves_to_the_next_one() -> None:
    text = '[t]\nk = 1\n\n# about s\n[[s]]\nid = "1"\n'
    out = edit(text, lambda d: d.pop("t"))
    assert "# about s" in out
    assert "[t]" not in out


def test_arrays_are_edited_element_by_element_keeping_comments() -> None:
    text = 'needs = [\n  "a",  # first\n  "b",\n]\nn = [ 1, 2, 3 ]\n'

    def change(d: Any) -> None:
        d["needs"].append("c")
        del d["n"][1]

    assert edit(text, change) == 'needs = [\n  "a",  # first\n  "b",\n  "c",\n]\nn = [ 1, 3 ]\n'


def test_dotted_quoted_and_inline_keys_are_edited_where_they_are() -> None:
    text = 'site."google.com" = true\na.b.c = 1\ninline = { x = 1, y = "two" }\n'

    def change(d: Any) -> None:
        d["site"]["google.com"] = False
        d["a"]["b"]["c"] = 2
        d["inline"]["x"] = 5

    out = edit(text, change)
    assert out.startswith('site."google.com" = false\na.b.c = 2\ninline = { x = 5, y = "two" }')


def test_a_merged_datetime_is_written_as_a_toml_datetime_not_a_string() -> None:
    theirs = parse(b"when = 2026-01-06T12:00:00Z\n", path="t.toml").data
    out = edit("when = 2025-01-01T00:00:00Z\n", lambda d: d.update(when=theirs["when"]))
    assert out == "when = 2026-01-06T12:00:00Z\n"


def test_null_has_no_toml_form_and_is_refused_by_a_parse_error() -> None:
    doc = parse(b"a = 1\n", path="t.toml")
    with pytest.raises(ParseError):
        doc.render({"a": None})


def test_dumps_writes_a_fresh_document_that_reads_back() -> None:
    value = {"template": "t", "steps": [{"id": "a", "description": "x\ny\n", "needs": []}]}
    text = dumps(value)
    assert tomllib.loads(text) == value
    assert '"""' in text


# -- property: any edit of any document reads back as the new data ---------------------------


@settings(max_examples=150, deadline=None)
@given(TABLES, TABLES)
def test_render_of_any_new_data_reads_back_as_that_data(
    old: dict[str, Any], new: dict[str, Any]
) -> None:
    text = dumps(old)
    doc = parse(text.encode(), path="t.toml")
    out = doc.render(new)
    assert tomllib.loads(out) == new


def test_an_empty_table_written_in_place_of_an_array_of_tables_ends_its_line() -> None:
    """Hypothesis found it: ``[[id.title]]`` became ``{}`` inside the first of two ``[[id]]``
    tables, and the new empty ``[id.title]`` header ran into the next ``[[id]]``."""
    old: dict[str, Any] = {
        "a": [],
        "title": [],
        "needs": {},
        "x-y": [],
        "id": [{"title": [{}]}, {}],
    }
    new: dict[str, Any] = {"title": {}, "id": [{"title": {}}, {}]}
    out = parse(dumps(old).encode(), path="t.toml").render(new)
    assert tomllib.loads(out) == new
    assert "[id.title]\n" in out
