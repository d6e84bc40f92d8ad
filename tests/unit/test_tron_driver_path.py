"""The TRON write path the merge driver takes (issue 32): a merge's data are new objects,
so the stub of a long log (codecs/tron/grown.py, for a write that keeps the log's old
elements) is not made for it; the text written is the editor's either way."""

from __future__ import annotations

import copy

from git_vcontext.codecs import tron


def _history(n: int) -> str:
    entries = [
        {"at": f"2025-01-{1 + i % 28:02d}T00:00:00Z", "note": f"change {i}"} for i in range(n)
    ]
    items = [{"id": f"t{i}", "title": f"Task {i}", "status": "pending"} for i in range(5)]
    return tron.dumps(
        {"vContextInfo": {"version": "0.4"}, "todoList": {"items": items, "changeLog": entries}}
    )


def test_a_write_with_new_objects_makes_no_stub_and_writes_the_editors_text() -> None:
    doc = tron.loads(_history(200))
    new = copy.deepcopy(doc.data)  # a merge's result: equal elements, other objects
    new["todoList"]["items"][1]["status"] = "completed"
    new["todoList"]["changeLog"].append({"at": "2025-02-01T00:00:00Z", "note": "merged"})
    text = doc.render(new)
    assert "grown" not in doc.memo
    assert tron.loads(text).data == new
    # the very text the editor writes on the whole document
    from git_vcontext.codecs.tron.edit import render

    assert text == render(tron.loads(_history(200)), new)


def test_a_write_that_keeps_the_old_elements_still_takes_the_stub() -> None:
    doc = tron.loads(_history(200))
    new = dict(doc.data)
    new["todoList"] = dict(doc.data["todoList"])
    new["todoList"]["changeLog"] = [
        *doc.data["todoList"]["changeLog"],
        {"at": "2025-02-01T00:00:00Z", "note": "x"},
    ]
    text = doc.render(new)
    assert doc.memo.get("grown") is not None
    assert tron.loads(text).data == new
