"""Edits of the arrays of a document, for the tests of a write read back without parsing
the runs of ours' elements it copied (JSON and TRON, issue 32, M16)."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import strategies as st

from helpers.tron_documents import JSON


def edited_arrays(old: Any, data: st.DataObject) -> Any:
    """``old`` with some arrays edited: an element changed, removed, added or moved."""
    new = copy.deepcopy(old)
    stack = [new]
    while stack:
        node = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        children = list(node.values()) if isinstance(node, dict) else node
        stack.extend(c for c in children if isinstance(c, (dict, list)))
        if not isinstance(node, list) or not node:
            continue
        action = data.draw(st.sampled_from(["keep", "keep", "change", "drop", "add", "move"]))
        i = data.draw(st.integers(0, len(node) - 1))
        if action == "change":
            node[i] = data.draw(JSON)
        elif action == "drop":
            del node[i]
        elif action == "add":
            node.insert(data.draw(st.integers(0, len(node))), data.draw(JSON))
        elif action == "move":
            node.append(node.pop(i))
    return new


def corpus_edits(data: Any) -> list[Any]:
    """Edits of every array of ``data`` (one at a time, the first 20): its middle element
    changed, its first removed, its last duplicated at the end."""
    out = []
    paths: list[tuple[Any, ...]] = []
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            stack.extend((v, (*path, k)) for k, v in node.items())
        elif isinstance(node, list):
            if node:
                paths.append(path)
            stack.extend((v, (*path, i)) for i, v in enumerate(node))
    for path in paths[:20]:
        for how in ("change", "drop", "add"):
            new = json.loads(json.dumps(data))
            node = new
            for part in path:
                node = node[part]
            if how == "change":
                node[len(node) // 2] = {"changed": True}
            elif how == "drop":
                del node[0]
            else:
                node.append(copy.deepcopy(node[-1]))
            out.append(new)
    return out


def todo(n: int) -> dict[str, Any]:
    """The merge benchmark's todo list of ``n`` items (tests/bench/bench_merge_driver.py)."""
    items = [
        {"id": f"t{i}", "title": f"Task {i}", "status": "pending", "tags": ["backend"],
         "narrative": {"Background": f"Context for task {i}."}}
        for i in range(n)
    ]  # fmt: skip
    return {"vContextInfo": {"version": "0.4"}, "todoList": {"sequence": 1, "items": items}}


def merged_like(data: dict[str, Any]) -> dict[str, Any]:
    """What the benchmark's merge writes over ``todo(n)``: every tenth item completed, the
    one after it retitled, one item appended."""
    new = copy.deepcopy(data)
    items = new["todoList"]["items"]
    for i in range(0, len(items) - 1, 10):
        items[i]["status"] = "completed"
        items[i + 1]["title"] += " (renamed)"
    items.append({"id": "b1", "title": "Theirs", "status": "pending"})
    return new
