"""Reading an edited text back without parsing its log's old elements again (issue 37
finding 6): whatever text is handed over, the answer is None or exactly a full parse.

PRODUCT.md, "Where agents' platforms run it": a write on a 1,000-item list with 1,000
changeLog entries costs what the list without them costs; "the write path": the result
is read back before it is written (M16: what does not read back is never written).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.codecs import parse
from git_vcontext.codecs.json_text import JsonDocument
from git_vcontext.codecs.tron import TronDocument
from git_vcontext.codecs.tron import grown as tron_grown
from git_vcontext.codecs.tron.edit import instance_counts
from git_vcontext.codecs.tron.spans import Spans
from git_vcontext.errors import ParseError
from git_vcontext.values import same


def _todo(changes: int, items: int = 3) -> dict[str, Any]:
    return {
        "vContextInfo": {"version": "0.4"},
        "todoList": {
            "items": [
                {"id": f"t{n}", "title": f"T {n}", "status": "pending"} for n in range(items)
            ],
            "sequence": changes,
            "changeLog": [
                {
                    "sequence": n + 1,
                    "timestamp": "2026-01-01T00:00:00Z",
                    "agent": {"id": "mcp", "type": "aiAgent"},
                    "operation": "create",
                    "description": f'created t{n} [with] {{brackets}} \\"quoted\\"',
                }
                for n in range(changes)
            ],
        },
    }


def _write(data: Any, bom: bool = False) -> JsonDocument:
    doc = parse(("\ufeff" if bom else "") + json.dumps(data, indent=2) + "\n", format="json")
    assert isinstance(doc, JsonDocument)
    return doc


def _edit(data: dict[str, Any], n: int) -> dict[str, Any]:
    container = dict(data["todoList"])
    items = list(container["items"])
    items[1] = {**items[1], "status": "completed"}
    change = {**container["changeLog"][-1], "sequence": n, "description": "new <<<"}
    container.update(items=items, sequence=n, changeLog=[*container["changeLog"], change])
    return {**data, "todoList": container}


def _agrees(doc: JsonDocument, text: str) -> JsonDocument | None:
    """read_back answers None or what a full parse of ``text`` gives."""
    again = doc.read_back(text)
    if again is not None:
        full = parse(text, format="json")
        assert same(again.data, full.data)
        assert again.source() == text
    return again


@pytest.mark.parametrize("bom", [False, True])
def test_an_edit_reads_back_without_parsing_the_old_changelog_again(bom: bool) -> None:
    doc = _write(_todo(200), bom)
    new = _edit(doc.data, 201)
    text = doc.render(new)
    again = _agrees(doc, text)
    assert again is not None
    old_log = doc.data["todoList"]["changeLog"]
    new_log = again.data["todoList"]["changeLog"]
    assert all(a is b for a, b in zip(old_log, new_log, strict=False))  # not parsed again
    assert same(again.data, new)
    # and the next write from that reading does it again, the log grown by one
    newer = _edit(again.data, 202)
    assert _agrees(again, again.render(newer)) is not None


def test_a_text_that_is_not_such_an_edit_is_parsed_in_full() -> None:
    doc = _write(_todo(200))
    text = doc.render(_edit(doc.data, 201))
    body_start = text.index('"changeLog": [') + len('"changeLog": [')
    cases = [
        text.replace('"sequence": 7,', '"sequence": 8,', 1),  # an old change edited
        text[:body_start] + text[body_start:].replace("},", "}, 5,", 1),  # something between
        text.replace('"changeLog": [', '"changeLog": {"x": [', 1),  # does not parse
        text.replace('"changeLog"', '"otherLog"', 1),  # the log moved elsewhere
        text[:-20],  # cut short
        "\ufeff" + text,  # a BOM came
        json.dumps({"wrapped": [text]}),  # the log's text inside a string
        json.dumps(
            {
                "vContextInfo": {},
                "todoList": {"changeLog": json.loads(text)["todoList"]["changeLog"][:-1]},
            },
            indent=2,
        ),
    ]
    for case in cases:
        try:
            parse(case, format="json")
        except Exception:
            assert doc.read_back(case) is None
            continue
        _agrees(doc, case)


def test_the_old_elements_text_wrapped_in_another_array_is_not_taken_for_the_log() -> None:
    doc = _write(_todo(200))
    text = doc.render(_edit(doc.data, 201))
    kept = doc.kept_log
    assert kept is not None
    at = text.index(kept.body)
    wrapped = f"{text[:at]}[{kept.body}]{text[at + len(kept.body) :]}"
    assert len(parse(wrapped, format="json").data["todoList"]["changeLog"]) == 2
    assert doc.read_back(wrapped) is None


def test_a_small_document_is_read_back_in_full() -> None:
    doc = _write(_todo(3))
    assert doc.kept_log is None
    assert doc.read_back(doc.render(_edit(doc.data, 4))) is None


def _tron(changes: int) -> TronDocument:
    header = (
        "class TodoItem: id, title, status\n"
        "class Agent: id, type\n"
        "class Change: sequence, timestamp, agent, operation, description\n\n"
    )
    data = _todo(changes)
    items = ", ".join(
        f'TodoItem("{i["id"]}", "{i["title"]}", "pending")' for i in data["todoList"]["items"]
    )
    entries = ",\n".join(
        f'    Change({c["sequence"]}, "{c["timestamp"]}", Agent("mcp", "aiAgent"), "create", '
        f"{json.dumps(c['description'])})"
        for c in data["todoList"]["changeLog"]
    )
    text = (
        f'{header}vContextInfo: {{"version": "0.4"}}\n'
        f"todoList: {{\n  items: [{items}],\n  sequence: {changes},\n"
        f"  changeLog: [\n{entries}\n  ]\n}}\n"
    )
    doc = parse(text, format="tron")
    assert isinstance(doc, TronDocument)
    assert same(doc.data, data)
    return doc


def test_a_tron_edit_reads_back_without_parsing_the_old_changelog_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the editor on the whole document (the stub, codecs/tron/grown.py, left out: when
    # it declines, this reading back is what a write on a long log takes)
    monkeypatch.setattr(tron_grown, "render", lambda doc, new, loads: None)
    doc = _tron(200)
    new = _edit(doc.data, 201)
    text = doc.render(new)
    again = doc.read_back(text)
    assert isinstance(again, TronDocument)
    assert same(again.data, parse(text, format="tron").data)
    assert same(again.data, new)
    old_log, new_log = doc.data["todoList"]["changeLog"], again.data["todoList"]["changeLog"]
    assert all(a is b for a, b in zip(old_log, new_log, strict=False))  # not parsed again
    assert "Change(201" in text  # the new change written with the class
    # its next edit's spans: the kept stretch's tokens taken over, the rest cut again
    fresh = Spans(again.text, len(again.header))
    spliced = again.memo["spans"]
    assert (spliced.tokens, spliced.starts, spliced.ends, spliced.match) == (
        fresh.tokens,
        fresh.starts,
        fresh.ends,
        fresh.match,
    )
    counts = {k: v for k, v in again.memo["instances"].items() if v}
    assert counts == instance_counts(fresh.tokens)
    # the old changes keep their class in the next edit too
    newer = _edit(again.data, 202)
    text2 = again.render(newer)
    assert text2.count("Change(") == 202
    assert same(parse(text2, format="tron").data, newer)


def test_a_tron_edit_that_changes_the_classes_is_parsed_in_full() -> None:
    doc = _tron(200)
    new = _edit(doc.data, 201)
    text = doc.render(new)
    changed = text.replace("class Change: sequence,", "class Change: seq,", 1)
    assert doc._kept_read(changed) is None
    assert doc._kept_read(text) is not None


def test_corpus_documents_with_a_log_appended_read_back_as_a_full_parse(shared_dir: Path) -> None:
    """Real documents (../shared/corpus): a log that ends the text grown by one element;
    where the kept reading is used, it is exactly the full parse."""
    used = 0
    for path in sorted((shared_dir / "corpus").rglob("*")):
        if path.suffix not in (".json", ".tron"):
            continue
        try:
            doc = parse(path.read_bytes(), path=str(path))
        except ParseError:
            continue
        new = _grown(doc.data)
        if new is None:
            continue
        text = doc.render(new)
        again = doc.read_back(text)
        if again is None:
            continue
        used += 1
        assert same(again.data, parse(text, path=str(path)).data), path
        assert same(again.data, new), path
    assert used > 10  # the corpus has long logs (playbooks, change logs)


def _grown(data: Any) -> Any:
    """``data`` with the last element of the log that ends it repeated (None: no log)."""
    chain: list[str] = []
    node = data
    while isinstance(node, dict) and node:
        chain.append(next(reversed(node)))
        node = node[chain[-1]]
    if not isinstance(node, list) or len(node) < 2:
        return None
    element = copy.deepcopy(node[-1])

    def grow(value: Any, depth: int) -> Any:
        if depth == len(chain):
            return [*value, element]
        return {**value, chain[depth]: grow(value[chain[depth]], depth + 1)}

    return grow(data, 0)
