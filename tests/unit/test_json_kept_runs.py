"""A JSON edit read back without parsing the runs of ours' elements it copied (issue 32, M16).

``JsonDocument.render`` records the runs of array elements it copied from ours' text (and
an appended log's old elements); ``read_back`` of what it wrote reads a skeleton (each run
one nonce string, its elements put back from ours' data) via ``json_text.read_runs``. Its
verdict must be the full re-parse's: the same data (types, key order), or None, then the
text is parsed in full. A wrong byte anywhere is still caught.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_vcontext.codecs import json_text
from git_vcontext.codecs.json_text import JsonDocument
from git_vcontext.errors import ParseError
from git_vcontext.values import same
from helpers.array_edits import corpus_edits, edited_arrays, merged_like, todo
from helpers.tron_documents import DOCUMENTS, JSON, ordered

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

STYLES = st.sampled_from(
    [
        {"indent": 2},
        {"indent": 4, "ensure_ascii": False},
        {"indent": None},
        {"indent": None, "separators": (",", ":")},
        {"indent": "\t", "separators": (", ", ": ")},  # blanks before the newline
    ]
)


_UNREADABLE = object()


def _full(text: str) -> Any:
    try:
        return json_text.loads(text).data
    except ParseError:
        return _UNREADABLE


def _assert_reads_as_full(doc: JsonDocument, new: Any) -> bool:
    """Render ``new``: the reading read_back gives of it is the full parse's (or None), and
    trusting it is trusting the full re-parse. True when the proof held."""
    text = doc.render(new)
    ran = doc._ran
    proved = doc.read_back(text)
    full = _full(text)
    if proved is not None:
        assert full is not _UNREADABLE
        assert ordered(proved.data) == ordered(full)
        assert proved.text == (text[1:] if doc.bom else text)
        assert doc._ran is None  # the runs handed over once
    assert full is not _UNREADABLE
    assert same(full, new)
    return proved is not None and ran is not None


@SETTINGS
@given(old=DOCUMENTS | JSON, style=STYLES, data=st.data())
def test_m16_a_json_read_that_keeps_ours_runs_is_the_full_re_parse(
    old: Any, style: dict[str, Any], data: st.DataObject
) -> None:
    doc = json_text.loads(json.dumps(old, **style))
    new = edited_arrays(doc.data, data) if data.draw(st.booleans()) else data.draw(DOCUMENTS | JSON)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(json_text, "KEPT_RUN", 1)  # every run, however short
        mp.setattr(json_text, "KEPT_RUNS_TEXT", 0)  # in every text
        _assert_reads_as_full(doc, new)


def test_m16_a_json_merge_s_write_reads_back_without_parsing_ours_runs_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The benchmark's merge (a 200-item list, 41 items changed or added): the text read
    back is the changed items' text and one nonce a run, not the whole document."""
    doc = json_text.loads(json.dumps(todo(200), indent=2) + "\n")
    new = merged_like(doc.data)
    parsed: list[int] = []
    parse_value = json_text.parse_value

    def spy(text: str, **kw: Any) -> Any:
        parsed.append(len(text))
        return parse_value(text, **kw)

    monkeypatch.setattr(json_text, "parse_value", spy)
    text = doc.render(new)
    again = doc.read_back(text)
    assert isinstance(again, JsonDocument)
    assert same(again.data, new)
    assert parsed
    assert max(parsed) < len(text) // 3, (parsed, len(text))  # never in full
    old_items = doc.data["todoList"]["items"]
    assert sum(any(x is y for y in old_items) for x in again.data["todoList"]["items"]) > 150
    monkeypatch.setattr(json_text, "parse_value", parse_value)
    assert ordered(again.data) == ordered(json_text.loads(text).data)


def test_m16_an_appended_log_s_old_elements_are_one_run() -> None:
    log = [{"id": f"e{i}", "summary": f"event {i}"} for i in range(120)]
    doc = json_text.loads(json.dumps({"log": log}, indent=2))
    new = {"log": [*log, {"id": "e120", "summary": "new"}]}
    text = doc.render(new)
    assert doc._ran is not None
    ((start, end, run),) = doc._ran[1]
    assert len(run) == len(log)  # ours' very elements, all of them
    assert all(x is y for x, y in zip(run, doc.data["log"], strict=True))
    assert doc.text[start] == "{"
    assert doc.text[end - 1] == "}"
    again = doc.read_back(text)
    assert again is not None
    assert ordered(again.data) == ordered(json_text.loads(text).data)


def _runs_of(doc: JsonDocument, new: Any) -> tuple[str, list[tuple[int, int, list[Any]]]]:
    text = doc.render(new)
    assert doc._ran is not None
    return text, doc._ran[1]


@pytest.mark.parametrize("where", ["run", "own"])
def test_m16_a_json_write_with_a_wrong_byte_is_caught(where: str) -> None:
    """A wrong byte in a run's text: no proof (the full parse judges); elsewhere: the
    skeleton reads it as the full parse does, and the data is not the merge's."""
    doc = json_text.loads(json.dumps(todo(60), indent=2))
    new = merged_like(doc.data)
    text, runs = _runs_of(doc, new)
    start, end, _ = runs[0]
    at = text.find(doc.text[start:end])
    if where == "run":
        at = text.index('"pending"', at)
        bad = text[:at] + '"pendinG"' + text[at + len('"pending"') :]
    else:
        bad = text.replace('"completed"', '"complete"', 1)
    full = json_text.loads(bad).data
    assert not same(full, new)
    proved = json_text.read_runs(doc.text, bad, runs)
    if where == "run":
        assert proved is None
    else:
        assert proved is not None
        assert ordered(proved) == ordered(full)


@pytest.mark.parametrize(
    ("text", "data"),
    [
        ("[-1, 2, 3]", [-1, 2, 3]),  # a sign glued before the run's first number
        ("[1, 2, 3e5]", [1, 2, 300000.0]),  # an exponent glued after its last
        ("[91, 2, 3]", [91, 2, 3]),
    ],
)
def test_m16_a_run_next_to_a_token_it_would_run_into_is_parsed_in_full(
    text: str, data: list[Any]
) -> None:
    source = "[1, 2, 3]"
    runs = [(1, 8, [1, 2, 3])]
    assert json_text.read_runs(source, text, runs) is None
    assert json_text.loads(text).data == data
    assert json_text.read_runs(source, "[0, 1, 2, 3]", runs) == [0, 1, 2, 3]


def test_m16_a_json_read_back_beyond_the_nesting_limit_is_parsed_in_full() -> None:
    """Ours' elements put back deeper than they stood: the limit is checked as a parse
    checks it (the full parse then says where)."""
    deep: Any = 0
    for _ in range(250):
        deep = [deep]
    source = json.dumps([deep, deep])
    runs = [(1, len(source) - 1, json.loads(source))]
    wrapped = "[" * 10 + source[:-1] + "]" + "]" * 10
    assert json_text.read_runs(source, wrapped, runs) is None
    with pytest.raises(ParseError):
        json_text.loads(wrapped)
    within = "[" * 4 + source[:-1] + "]" + "]" * 4  # 256 levels: the limit itself
    proved = json_text.read_runs(source, within, runs)
    assert proved is not None
    assert proved == json_text.loads(within).data


def _corpus_json(shared: Path) -> list[JsonDocument]:
    found = []
    for path in sorted((shared / "corpus").rglob("*.json")):
        try:
            doc = json_text.loads(path.read_bytes())
        except ParseError:
            continue  # the corpus keeps a few broken files on purpose
        found.append(doc)
    return found


@pytest.mark.corpus
def test_m16_every_corpus_json_edit_reads_back_as_its_full_re_parse(shared_dir: Path) -> None:
    proved = checked = 0
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(json_text, "KEPT_RUN", 1)
        mp.setattr(json_text, "KEPT_RUNS_TEXT", 0)
        for doc in _corpus_json(shared_dir):
            for new in corpus_edits(doc.data):
                checked += 1
                proved += _assert_reads_as_full(doc, new)
    assert checked >= 1000, checked
    assert proved >= checked // 2, (proved, checked)
