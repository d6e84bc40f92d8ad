"""A TRON write on a grown log (issue 37 finding 6): the shortcuts a write takes when a log
only grows at its end give exactly what the full editor gives, byte for byte.

PRODUCT.md, "Where agents' platforms run it": a write on a 1,000-item list with 1,000
changeLog entries costs what the list without them costs; the shortcuts must never change
what is written (the minimal edit, M16's reading back).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.codecs import parse
from git_vcontext.codecs.matching import match_elements
from git_vcontext.codecs.tron import TronDocument
from git_vcontext.codecs.tron import edit as tron_edit
from git_vcontext.errors import ParseError
from git_vcontext.values import same

_HEADER = "class Agent: id, type\nclass Change: sequence, agent, operation, description\n\n"


def _log_text(layout: str, changes: int) -> str:
    """A TRON todo list whose changeLog is written in one of a few layouts by hand."""
    entries = [
        f'Change({n}, Agent("mcp", "aiAgent"), "create", "made t{n}")'
        for n in range(1, changes + 1)
    ]
    if layout == "rows":
        body = "[\n" + ",\n".join(f"    {e}" for e in entries) + "\n  ]"
    elif layout == "comments":
        body = (
            "[ # the history\n"
            + "".join(f"    # change {n}\n    {e}, # done\n" for n, e in enumerate(entries, 1))
            + "    # end of the history\n  ]"
        )
    elif layout == "one line":
        body = "[" + ", ".join(entries) + "]"
    elif layout == "trailing comma":
        body = "[\n" + "".join(f"    {e},\n" for e in entries) + "  ]"
    elif layout == "two a line":
        pairs = [", ".join(entries[k : k + 2]) for k in range(0, len(entries), 2)]
        body = "[\n    " + ",\n    ".join(pairs) + "\n  ]"
    else:  # "objects": braces, keys quoted, no classes
        objs = [
            f'{{"sequence": {n}, "agent": {{"id": "mcp"}}, "operation": "create"}}'
            for n in range(1, changes + 1)
        ]
        body = "[\n    " + ",\n\n    ".join(objs) + "\n  ]"
    return (
        _HEADER
        + 'vContextInfo: {"version": "0.4"}\n'
        + 'todoList: {\n  items: [{"id": "t1", "title": "T", "status": "pending"}],\n'
        + f"  changeLog: {body}\n}}\n"
    )


LAYOUTS = ["rows", "comments", "one line", "trailing comma", "two a line", "objects"]


def _grown(data: Any, more: int = 1) -> Any:
    """``data`` with the log that ends it grown by ``more`` copies of its last element (the
    old elements the very same objects, as a write appends); None: no such log."""
    chain: list[str] = []
    node = data
    while isinstance(node, dict) and node:
        chain.append(next(reversed(node)))
        node = node[chain[-1]]
    if not isinstance(node, list) or len(node) < 2:
        return None
    added = [copy.deepcopy(node[-1]) for _ in range(more)]

    def grow(value: Any, depth: int) -> Any:
        if depth == len(chain):
            return [*value, *added]
        return {**value, chain[depth]: grow(value[chain[depth]], depth + 1)}

    return grow(data, 0)


def _both_ways(doc: TronDocument, new: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """``new`` written with the grown-log shortcut and by the full editor (matching every
    element), each on a fresh reading of the same text."""
    taken: list[bool] = []
    real = tron_edit._appended

    def spy(old: list[Any], new: list[Any]) -> list[int | None] | None:
        found = real(old, new)
        taken.append(found is not None)
        return found

    with monkeypatch.context() as m:
        m.setattr(tron_edit, "_appended", spy)
        shortcut = doc.render(new)
    assert any(taken)  # the shortcut was taken
    with monkeypatch.context() as m:
        m.setattr(tron_edit, "_appended", lambda old, new: None)
        full = parse(doc.text, format="tron").render(new)
    return shortcut, full


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("more", [1, 3])
def test_a_grown_log_is_written_as_the_full_editor_writes_it(
    layout: str, more: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = parse(_log_text(layout, 6), format="tron")
    assert isinstance(doc, TronDocument)
    new = _grown(doc.data, more)
    new["todoList"]["items"] = [{**new["todoList"]["items"][0], "status": "completed"}]
    shortcut, full = _both_ways(doc, new, monkeypatch)
    assert shortcut == full
    assert same(parse(shortcut, format="tron").data, new)


def test_the_shortcut_pairs_as_match_elements_or_not_at_all() -> None:
    a, b, c = {"n": 1}, {"n": 2}, {"n": 3}
    assert tron_edit._appended([a, b], [a, b, c]) == match_elements([a, b], [a, b, c])
    assert tron_edit._appended([a, b], [a, b, dict(a)]) == match_elements([a, b], [a, b, dict(a)])
    assert tron_edit._appended([a, a], [a, a, c]) is None  # an object twice
    assert tron_edit._appended([a, b], [a, b, a]) is None  # an old one again
    assert tron_edit._appended(["x", "y"], ["x", "y", "z"]) is None  # scalars
    assert tron_edit._appended([a, b], [b, a, c]) is None  # not in order
    assert tron_edit._appended([a, b], [a, b]) is None  # nothing appended


def test_corpus_tron_documents_with_grown_logs_are_written_as_the_full_editor_writes_them(
    shared_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Real documents (../shared/corpus), their trailing log grown by one and by three."""
    used = 0
    for path in sorted((shared_dir / "corpus").rglob("*.tron")):
        try:
            doc = parse(path.read_bytes(), path=str(path))
        except ParseError:
            continue
        assert isinstance(doc, TronDocument)
        for more in (1, 3):
            new = _grown(doc.data, more)
            if new is None:
                break
            shortcut, full = _both_ways(doc, new, monkeypatch)
            assert shortcut == full, path
            used += 1
    assert used > 4


def test_the_kept_logs_classes_carry_over_from_write_to_write() -> None:
    """Three writes in a row, each reading the last one's text back with the old changes
    kept: the classes recorded for the log's objects are a full parse's."""
    doc = parse(_log_text("rows", 300), format="tron")
    assert isinstance(doc, TronDocument)
    for _ in range(3):
        new = _grown(doc.data)
        text = doc.render(new)
        again = doc.read_back(text)
        assert isinstance(again, TronDocument)
        full = parse(text, format="tron")
        assert isinstance(full, TronDocument)
        log, full_log = again.data["todoList"]["changeLog"], full.data["todoList"]["changeLog"]
        assert log[0] is doc.data["todoList"]["changeLog"][0]  # kept, not parsed again
        for ours, theirs in zip(log, full_log, strict=True):
            assert again.made_by.get(id(ours)) == full.made_by.get(id(theirs)) == "Change"
            agent, full_agent = ours["agent"], theirs["agent"]
            assert again.made_by.get(id(agent)) == full.made_by.get(id(full_agent)) == "Agent"
        doc = again
