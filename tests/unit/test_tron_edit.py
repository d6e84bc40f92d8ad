"""TRON render as a minimal edit of ours' text (PRODUCT.md, Formats): one case per promise."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.codecs import tron
from git_vcontext.spelling import float_of

OURS = """\
# The team's list (a comment in the header)
class vContextInfo: version
class TodoList: items
class TodoItem: id, title, status, priority

vContextInfo: vContextInfo("0.4")

todoList: TodoList([
  TodoItem("t1", "Implement authentication", "pending", "high"),  # started Monday
  # the documentation is late
  TodoItem("t2", "Write API documentation", "pending", null),
  TodoItem("t3", "Deploy", "pending", "low")  # last one
])
"""


def edited(text: str, change: Any) -> tuple[Any, str]:
    """The document of ``text``, and its render after ``change`` edited a copy of the data."""
    doc = tron.loads(text)
    new = copy.deepcopy(doc.data)
    change(new)
    out = doc.render(new)
    assert tron.loads(out).data == new
    return doc, out


def items(data: Any) -> list[dict[str, Any]]:
    return data["todoList"]["items"]  # type: ignore[no-any-return]


def test_a_changed_value_is_the_only_change_and_every_comment_stays() -> None:
    _, out = edited(OURS, lambda d: items(d)[1].update(status="completed"))
    assert out == OURS.replace('documentation", "pending"', 'documentation", "completed"')


def test_a_removed_element_takes_its_comments_along_and_the_commas_follow() -> None:
    _, out = edited(OURS, lambda d: items(d).pop(1))
    removed = '  TodoItem("t2", "Write API documentation", "pending", null),\n'
    assert out == OURS.replace("  # the documentation is late\n" + removed, "")
    _, out = edited(OURS, lambda d: items(d).pop())
    assert out == OURS.replace(
        'null),\n  TodoItem("t3", "Deploy", "pending", "low")  # last one\n', "null)\n"
    )


def test_a_new_element_is_written_like_its_neighbour_without_its_comments() -> None:
    def add(d: Any) -> None:
        items(d).append({"id": "t4", "title": "Announce", "status": "pending"})

    _, out = edited(OURS, add)
    assert out == OURS.replace(
        '"low")  # last one\n',
        '"low"),  # last one\n  TodoItem("t4", "Announce", "pending", null)\n',
    )


def test_a_new_element_between_two_goes_where_the_merge_put_it() -> None:
    def insert(d: Any) -> None:
        items(d).insert(1, {"id": "t1b", "title": "Review", "status": "pending", "priority": "x"})

    _, out = edited(OURS, insert)
    assert out == OURS.replace(
        "  # the documentation",
        '  TodoItem("t1b", "Review", "pending", "x"),\n  # the documentation',
    )


def test_a_removed_key_becomes_the_dialect_s_positional_null() -> None:
    _, out = edited(OURS, lambda d: items(d)[0].pop("priority"))
    assert out == OURS.replace('"pending", "high")', '"pending", null)')


def test_a_real_null_cannot_be_positional_so_that_object_gets_braces() -> None:
    """PRODUCT.md: in the dialect an object that really holds null is written with {}."""
    _, out = edited(OURS, lambda d: items(d)[0].update(priority=None))
    assert (
        '{"id": "t1", "title": "Implement authentication", "status": "pending", "priority": null}'
        ",  # started Monday\n" in out
    )
    assert out.count("\n") == OURS.count("\n")


MULTILINE = """\
class vBRIEFInfo: version
class PlanItem: id, title, status

vBRIEFInfo: {
  version: "0.5",  # bumped by hand
  created: "2026-02-07T04:48:00Z"
}

plan: {
  id: "p",
  items: [
    PlanItem(
      "a",
      "First",  # the title
      "pending"
    )
  ]
}
"""


def test_bare_keys_stay_bare_and_a_new_key_follows_its_neighbours() -> None:
    _, out = edited(MULTILINE, lambda d: d["vBRIEFInfo"].update(updated="2026-03-01T00:00:00Z"))
    assert out == MULTILINE.replace(
        '  created: "2026-02-07T04:48:00Z"\n',
        '  created: "2026-02-07T04:48:00Z",\n  updated: "2026-03-01T00:00:00Z"\n',
    )


def test_a_new_element_copies_a_multiline_neighbour_s_layout() -> None:
    def add(d: Any) -> None:
        d["plan"]["items"].append({"id": "b", "title": "Second", "status": "running"})

    _, out = edited(MULTILINE, add)
    assert out.endswith(
        '      "pending"\n    ),\n    PlanItem(\n      "b",\n      "Second",\n'
        '      "running"\n    )\n  ]\n}\n'
    )


def test_an_object_that_no_longer_fits_its_class_keeps_its_argument_texts() -> None:
    """Another instance of the class exists: this one is written with ``{}`` around its
    argument texts (comments kept); the other and the class stay as they are."""
    two = MULTILINE.replace(
        '      "pending"\n    )\n',
        '      "pending"\n    ),\n'
        '    PlanItem(\n      "b",\n      "Second",\n      "pending"\n    )\n',
    )
    _, out = edited(two, lambda d: d["plan"]["items"][0].update(owner="jt"))
    assert out == two.replace(
        '    PlanItem(\n      "a",\n      "First",  # the title\n      "pending"\n    )',
        '    {\n      id: "a",\n      title: "First",  # the title\n      status: "pending",\n'
        '      owner: "jt"\n    }',
    )


def test_write_path_the_only_instance_of_a_class_gains_the_field_at_its_end() -> None:
    """PRODUCT.md, "The write path": the class gains a field its only instance now has (at
    the end of the class), so the instance stays one (its argument texts kept)."""
    _, out = edited(MULTILINE, lambda d: d["plan"]["items"][0].update(owner="jt"))
    assert out == MULTILINE.replace(
        "class PlanItem: id, title, status\n", "class PlanItem: id, title, status, owner\n"
    ).replace('      "pending"\n    )', '      "pending",\n      "jt"\n    )')


@pytest.mark.parametrize("order", ["extended first", "new one first"])
def test_write_path_a_class_gains_a_field_only_while_no_new_element_takes_it_as_it_was(
    order: str,
) -> None:
    """The only instance gaining a field and a new element written like it, in one edit:
    every instance of the class has as many arguments as the class has fields (found by
    hypothesis: the new element kept the old count, and the result did not parse)."""
    from git_vcontext.codecs.tron import edit

    text = "class TodoList: title, status\n\nvContextInfo: null\n\n"
    doc = tron.loads(text + "todoList: [TodoList(false, false)]\n")
    grown: dict[str, Any] = {"id": False}
    fresh: dict[str, Any] = {}
    new = {**doc.data, "todoList": [grown, fresh] if order == "extended first" else [fresh, grown]}
    out = edit.render(doc, new)  # the minimal edit itself, before the codec's safety net
    assert out is not None
    assert tron.loads(out).data == new
    assert out.startswith("class TodoList: title, status")


def test_a_class_a_new_element_needs_goes_after_ours_last_one() -> None:
    def add(d: Any) -> None:
        d["plan"]["reviewer"] = {"id": "r1", "name": "R", "role": "lead"}  # a shape seen once
        d["plan"]["items"].append({"id": "b", "title": "x", "status": "y", "p": 1})
        d["plan"]["items"].append({"id": "c", "title": "x", "status": "y", "p": 2})

    _, out = edited(MULTILINE, add)
    header, _data = MULTILINE.split("\n\n", 1)
    assert out.startswith(header + "\nclass PlanItem2: id, title, status, p\n\n")
    assert '    PlanItem2("b", "x", "y", 1),\n    PlanItem2("c", "x", "y", 2)\n' in out
    assert 'reviewer: {id: "r1", name: "R", role: "lead"}' in out  # braces, ours' bare keys
    assert out.count("class ") == 3


def test_top_level_pairs_keep_ours_separation() -> None:
    _, out = edited(OURS, lambda d: d.update(note={"text": "hi"}))
    assert out == OURS + '\nnote: {"text": "hi"}\n'
    tight = "a: 1\nb: 2\n"
    _, out = edited(tight, lambda d: d.update(c=3))
    assert out == "a: 1\nb: 2\nc: 3\n"
    _, out = edited(OURS, lambda d: d.pop("vContextInfo"))
    assert out == OURS.replace('vContextInfo: vContextInfo("0.4")\n\n', "")


def test_crlf_bom_and_a_missing_final_newline_are_kept() -> None:
    text = "\ufeff" + OURS.replace("\n", "\r\n").rstrip("\r\n")

    def add(d: Any) -> None:
        items(d).append({"id": "t4", "title": "x", "status": "y"})
        d["more"] = [{"k": 1, "v": 2}, {"k": 3, "v": 4}]

    _, out = edited(text, add)
    expected = OURS.replace(
        "class TodoItem: id, title, status, priority\n",
        "class TodoItem: id, title, status, priority\nclass More: k, v\n",
    ).replace('"low")  # last one\n', '"low"),  # last one\n  TodoItem("t4", "x", "y", null)\n')
    expected = expected.rstrip("\n") + "\n\nmore: [\n  More(1, 2),\n  More(3, 4)\n]"
    assert out == "\ufeff" + expected.replace("\n", "\r\n")


def test_trailing_commas_and_named_arguments_stay() -> None:
    text = "class P: x, y\n\na: [\n  P(1, y=2),\n  P(3, y=4),\n]\n"
    _, out = edited(text, lambda d: d["a"][1].update(y=5))
    assert out == text.replace("y=4", "y=5")
    _, out = edited(text, lambda d: d["a"].pop())
    assert out == "class P: x, y\n\na: [\n  P(1, y=2),\n]\n"


def test_numbers_keep_their_spelling_in_an_edit() -> None:
    text = "a: [1.50, 0.1e-5]\nb: 1\n"
    _, out = edited(text, lambda d: d.update(b=float_of("3.141592653589793238462643383279")))
    assert out == "a: [1.50, 0.1e-5]\nb: 3.141592653589793238462643383279\n"


def test_what_ours_wrote_on_one_line_stays_on_one_line() -> None:
    text = 'class T: id, s\n\nx: {"items": [T("a", "b")], "tags": ["x"]}\n'
    _doc, out = edited(text, lambda d: d["x"]["items"].append({"id": "c", "s": "d"}))
    assert out == 'class T: id, s\n\nx: {"items": [T("a", "b"), T("c", "d")], "tags": ["x"]}\n'


def test_a_standard_document_stays_standard() -> None:
    text = "class A: x, y\n\n[\n  A(1, 2),  # one\n  A(3, 4)\n]\n"
    _doc, out = edited(text, lambda d: d.append({"x": 5, "y": None}))
    assert out == "class A: x, y\n\n[\n  A(1, 2),  # one\n  A(3, 4),\n  A(5, null)\n]\n"
    assert tron.loads(out).dialect == "standard"


def test_corpus_gantt_status_change_is_one_line(shared_dir: Path) -> None:
    """The issue's example: one status change turned its 220 lines into 756."""
    path = shared_dir / "corpus/docs/examples__construction-project-gantt.vbrief.tron"
    text = path.read_text()

    def start(d: Any) -> None:
        item = next(i for i in d["plan"]["items"] if i["id"] == "parking.p1-deck")
        item["status"] = "running"

    _, out = edited(text, start)
    old = '"parking.p1-deck", "P1 Level Deck Pour", "pending"'
    assert out == text.replace(old, old.replace("pending", "running"))


@pytest.mark.parametrize("depth", [50, 127])  # two levels each: 254 of MAX_DEPTH 256
def test_deep_documents_edit_without_recursion_errors(depth: int) -> None:
    value: Any = {"leaf": "x"}
    for _ in range(depth):
        value = {"k": [value]}
    text = tron.dumps({"root": value})
    doc, out = edited(text, lambda d: None)
    assert out == text
    new = copy.deepcopy(doc.data)
    node = new["root"]
    for _ in range(depth):
        node = node["k"][0]
    node["leaf"] = "y"
    assert doc.render(new) == text.replace('"x"', '"y"')


def test_equal_scalars_keep_their_own_places_and_comments() -> None:
    """Minimal edit (PRODUCT.md Formats): None, booleans and small numbers are shared objects
    in Python, so two equal ones must not swap places (and comments) when a neighbour changes."""
    text = 'a: [\n  null,  # first\n  # second\n  null,\n  {"t": "x"}\n]\n'
    _, out = edited(text, lambda d: d["a"][2].update(t="y"))
    assert out == text.replace('"x"', '"y"')


def test_a_value_edited_to_equal_its_neighbour_is_edited_in_place() -> None:
    """Minimal edit (PRODUCT.md Formats): ["x", true] becoming [true, true] changes the first
    value's text only; the neighbour that was already true keeps its text and comment."""
    text = 'a: [\n  "x",  # first\n  true,  # second\n  {}\n]\n'
    _, out = edited(text, lambda d: d["a"].__setitem__(0, True))
    assert out == text.replace('"x"', "true")


def _done(data: Any) -> None:
    data["todoList"]["items"][0]["status"] = "completed"


def test_render_hands_over_its_own_reading_of_exactly_the_text_it_returned() -> None:
    """The edit is parsed once to check it; the merge driver and the MCP writer take that
    reading instead of parsing the same text again — only for that very text."""
    doc, out = edited(OURS, _done)
    again = doc.read_back(out)
    assert again is not None
    fresh = tron.loads(out)
    assert (again.data, again.text, again.bom, again.header) == (
        fresh.data,
        fresh.text,
        fresh.bom,
        fresh.header,
    )
    assert doc.read_back(out) is None  # handed over, not kept
    doc.render({**doc.data, "extra": 1})
    assert doc.read_back(out) is None  # another text than the last render's: parse it


def test_render_hands_over_no_reading_when_it_wrote_more_than_it_parsed() -> None:
    """A BOM added in front, or a document read with repeated keys kept (M18): the reading
    render checked is not what a plain parse of the written text gives."""
    with_bom = tron.loads("\ufeff" + OURS)
    new = copy.deepcopy(with_bom.data)
    _done(new)
    assert with_bom.read_back(with_bom.render(new)) is None
    kept = tron.loads(OURS, keep_duplicates=True)
    new = copy.deepcopy(kept.data)
    _done(new)
    assert kept.read_back(kept.render(new)) is None


def test_m16_a_tron_merge_is_read_back_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """M16 trusts a written merge only once it parses back to the merged data; the TRON
    edit is parsed for that once (render's own check), not a second time by the driver."""
    from git_vcontext.merging.files import merge_files

    calls: list[str] = []
    real = tron.loads

    def counted(raw: Any, **kwargs: Any) -> Any:
        calls.append(raw if isinstance(raw, str) else raw.decode())
        return real(raw, **kwargs)

    monkeypatch.setattr(tron, "loads", counted)
    ours = OURS.replace('"t1", "Implement authentication", "pending"', '"t1", "Impl", "pending"')
    theirs = OURS.replace('"t3", "Deploy", "pending"', '"t3", "Deploy", "completed"')
    merged = merge_files(OURS.encode(), ours.encode(), theirs.encode(), path="t.vcontext.tron")
    assert merged.clean
    text = merged.output.decode()
    assert '"Impl"' in text
    assert '"completed"' in text
    assert calls.count(text) == 1  # read back: once
    assert len(calls) == 4  # base, ours, theirs, the result


def test_the_editor_takes_the_tokens_the_parse_cut_for_that_very_text() -> None:
    """A parse keeps the tokens it cut (issue 32: a TRON merge cut ours' text twice); the
    editor's spans made from them are those cut afresh, and a text that is not that very
    one (a document whose text was replaced) is cut again."""
    from git_vcontext.codecs.tron.spans import Spans

    text = (
        "class Item: id, title, tags\n\n"
        'todoList: {"items": [Item("a", "A", ["x"]), Item("b", "B \\u00e9", []),],\n'
        '  "n": -0.5e3, "m": {"k": null}}\n'
    )
    doc = tron.loads(text)
    kept = doc.memo["words"]
    assert kept[0] is doc.text
    assert kept[1] == len(doc.header)
    fresh = Spans(doc.text, len(doc.header))
    taken = Spans(doc.text, len(doc.header), kept)
    assert taken.tokens is kept[2]
    assert (taken.tokens, taken.starts, taken.ends, taken.match) == (
        fresh.tokens,
        fresh.starts,
        fresh.ends,
        fresh.match,
    )
    other = "".join(list(doc.text))  # equal, not the same object
    assert Spans(other, len(doc.header), kept).tokens is not kept[2]
    data: Any = copy.deepcopy(doc.data)
    data["todoList"]["n"] = 2
    data["todoList"]["items"].append({"id": "c", "title": "C", "tags": []})
    cut_again = tron.loads(text)
    del cut_again.memo["words"]  # its editor cuts the text itself, as before issue 32
    assert doc.render(data) == cut_again.render(data)
    assert "words" not in doc.memo  # taken by the editor's spans, not held after
