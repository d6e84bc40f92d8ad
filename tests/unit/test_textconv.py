"""textconv: canonical, one fact per line, every line anchored by identity."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_vcontext.codecs import parse
from git_vcontext.diffing.textconv import textconv
from git_vcontext.errors import ParseError

DOC = {
    "vContextInfo": {"version": "0.4"},
    "todoList": {
        "items": [
            {"status": "pending", "id": "t1", "title": "Parse", "tags": ["b", "a"]},
            {"id": "t2", "title": "Two lines", "status": "completed",
             "narrative": {"Result": "first\nsecond"}, "metadata": {}, "uris": []},
        ]
    },
}  # fmt: skip


def test_every_line_is_one_fact_named_by_its_id_path() -> None:
    assert textconv(DOC).splitlines() == [
        'vContextInfo.version = "0.4"',
        'todoList.items[t1].id = "t1"',
        'todoList.items[t1].title = "Parse"',
        'todoList.items[t1].status = "pending"',
        'todoList.items[t1].tags[] = "a"',
        'todoList.items[t1].tags[] = "b"',
        'todoList.items[t2].id = "t2"',
        'todoList.items[t2].title = "Two lines"',
        'todoList.items[t2].status = "completed"',
        "todoList.items[t2].metadata = {}",
        "todoList.items[t2].narrative.Result | first",
        "todoList.items[t2].narrative.Result | second",
        "todoList.items[t2].uris = []",
    ]


def test_key_order_and_set_order_do_not_change_the_text() -> None:
    shuffled = json.loads(json.dumps(DOC, sort_keys=True))
    shuffled["todoList"]["items"][0]["tags"] = ["a", "b"]
    assert textconv(shuffled) == textconv(DOC)


def test_a_status_change_is_one_changed_line() -> None:
    changed = json.loads(json.dumps(DOC))
    changed["todoList"]["items"][1]["status"] = "blocked"
    before, after = set(textconv(DOC).splitlines()), set(textconv(changed).splitlines())
    assert before - after == {'todoList.items[t2].status = "completed"'}
    assert after - before == {'todoList.items[t2].status = "blocked"'}


def test_inserting_an_item_does_not_rename_the_others() -> None:
    grown = json.loads(json.dumps(DOC))
    grown["todoList"]["items"].insert(0, {"id": "t0", "title": "New", "status": "pending"})
    before, after = set(textconv(DOC).splitlines()), set(textconv(grown).splitlines())
    assert before <= after
    assert all(line.startswith("todoList.items[t0].") for line in after - before)


def test_items_without_ids_are_named_by_unique_title_else_by_position() -> None:
    titled = {"playbook": {"items": [{"title": "Small PRs", "status": "active"}]}}
    assert textconv(titled).startswith('playbook.items["Small PRs"].title = "Small PRs"\n')
    plain = {"notes": [{"text": "x"}, {"text": "x"}]}
    assert textconv(plain) == 'notes[0].text = "x"\nnotes[1].text = "x"\n'


def test_jsonl_records_and_root_scalars() -> None:
    doc = parse(
        b'{"event_id": "e1", "type": "a"}\n{"event_id": "e2", "type": "b"}\n',
        path=".work/events.jsonl",
    )
    assert textconv(doc.data) == (
        '[e1].event_id = "e1"\n[e1].type = "a"\n[e2].event_id = "e2"\n[e2].type = "b"\n'
    )
    assert textconv(3) == "(root) = 3\n"
    assert textconv({}) == "(root) = {}\n"


def test_odd_keys_and_ids_stay_unambiguous() -> None:
    doc = {"a b": {"items": [{"id": "x y", "v": "é"}, {"id": 7, "v": True}]}}
    assert textconv(doc).splitlines() == [
        '["a b"].items["x y"].id = "x y"',
        '["a b"].items["x y"].v = "é"',
        '["a b"].items[id=7].id = 7',
        '["a b"].items[id=7].v = true',
    ]


_LINE = re.compile(r'^(\(root\)|[A-Za-z_$"\[]).* (=|\|)( |$)')

values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3),
    max_leaves=15,
)


@settings(max_examples=300, deadline=None)
@given(values)
def test_any_value_gives_anchored_lines_and_survives_key_reordering(value: Any) -> None:
    text = textconv(value)
    assert text.endswith("\n")
    reordered = json.loads(json.dumps(value, sort_keys=True))
    assert textconv(reordered) == text
    for line in text.split("\n")[:-1]:  # git splits on "\n" only
        assert _LINE.match(line) or " | " in line or line.endswith(" |"), line


@pytest.mark.corpus
def test_textconv_runs_on_every_corpus_json_document(shared_dir: Path) -> None:
    paths = sorted((shared_dir / "corpus").rglob("*.json"))
    done = 0
    for path in paths:
        try:
            data = parse(path.read_bytes(), path=str(path)).data
        except ParseError:  # the corpus holds known-invalid documents on purpose
            continue
        text = textconv(data)
        assert text.endswith("\n"), path
        assert text.count("\n") >= 1, path
        done += 1
    assert done > 50


@pytest.mark.corpus
def test_json_and_tron_twins_in_the_corpus_give_the_same_text(shared_dir: Path) -> None:
    pytest.importorskip("git_vcontext.codecs.tron")
    docs = shared_dir / "corpus" / "docs"
    twins = [
        (p, p.with_suffix(".tron"))
        for p in sorted(docs.glob("*.json"))
        if p.with_suffix(".tron").exists()
    ]
    assert twins
    for json_path, tron_path in twins:
        a = parse(json_path.read_bytes(), path=str(json_path)).data
        b = parse(tron_path.read_bytes(), path=str(tron_path)).data
        if a == b:  # the corpus twins are not always the same data; compare where they are
            assert textconv(a) == textconv(b), json_path.name
