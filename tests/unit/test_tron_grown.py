"""A TRON write on a long log that only grows, worked out on a stub (issue 37 finding 6):
byte for byte what the editor writes on the whole document, write after write.

PRODUCT.md, "Where agents' platforms run it": a write on a 1,000-item list with 1,000
changeLog entries costs about what the list without them costs; the stub (codecs/tron/
grown.py) must never change what is written (the minimal edit, M16's reading back).
"""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.codecs import parse
from git_vcontext.codecs.tron import TronDocument, grown, loads
from git_vcontext.errors import ParseError
from git_vcontext.values import same

WRITES = 40  # the stub's log takes its older elements into the middle twice (REBASE 16)

_HEADER = (
    "class TodoList: uid, items, sequence, changeLog\n"
    "class TodoItem: id, title, status\n"
    "class Agent: id, type\n"
    "class Change: sequence, agent, operation, description\n\n"
)


def _entry(n: int, layout: str) -> str:
    if layout == "objects":
        return f'{{"sequence": {n}, "agent": {{"id": "mcp"}}, "operation": "create"}}'
    if layout == "multiline":
        return (
            f'Change(\n      {n},\n      Agent("mcp", "aiAgent"),\n      "create",\n'
            f'      "made t{n}"\n    )'
        )
    return f'Change({n}, Agent("mcp", "aiAgent"), "create", "made t{n}")'


def _text(layout: str, changes: int, *, crlf: bool = False) -> str:
    """A todo list whose log is written in one of a few layouts by hand."""
    entries = [_entry(n, layout) for n in range(1, changes + 1)]
    if layout == "comments":
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
    elif layout == "middle only":  # a class and {} keys found in the middle elements only
        entries[3] = 'Odd("once", {bare: 1})'
        body = "[\n" + ",\n".join(f"    {e}" for e in entries) + "\n  ]"
    else:  # rows, multiline, objects
        body = "[\n" + ",\n".join(f"    {e}" for e in entries) + "\n  ]"
    header = _HEADER + (
        "class Odd: name, extra\nclass Info: version\n\n" if layout == "middle only" else ""
    )
    info = 'Info("0.4")' if layout == "middle only" else '{"version": "0.4"}'
    items = ", ".join(f'TodoItem("t{n}", "Task {n}", "pending")' for n in range(1, 30))
    text = (
        header
        + f"vContextInfo: {info}\n"
        + f'todoList: TodoList(\n  "list",\n  [{items}],\n  {changes},\n  {body}\n)\n'
    )
    return text.replace("\n", "\r\n") if crlf else text


LAYOUTS = [
    "rows",
    "multiline",
    "comments",
    "one line",
    "trailing comma",
    "two a line",
    "objects",
    "middle only",
]


def _log_chain(data: Any) -> list[Any] | None:
    """The chain of last keys to the log written last (as the editor finds it)."""
    chain: list[Any] = []
    node = data
    while isinstance(node, dict) and node:
        chain.append(next(reversed(node)))
        node = node[chain[-1]]
        if isinstance(node, list) and len(node) >= 2:
            return chain
    return None


def _at(data: Any, chain: list[Any]) -> Any:
    for step in chain:
        data = data[step]
    return data


def _set(data: Any, chain: list[Any], value: Any) -> Any:
    if not chain:
        return value
    out = dict(data)
    out[chain[0]] = _set(data[chain[0]], chain[1:], value)
    return out


def _edit(data: Any, step: int, rng: random.Random) -> Any:
    """One write: the log grows by an element like its last one (sometimes two), and
    something before it changes (a string of the first object that has one)."""
    chain = _log_chain(data)
    assert chain is not None
    log = _at(data, chain)
    added = [_like(log[-1], k) for k in range(1 + (step % 7 == 3))]
    new = _set(data, chain, [*log, *added])
    for key, value in new.items():
        if key == chain[0] or not isinstance(value, dict):
            continue
        for inner, v in value.items():
            if isinstance(v, str):
                new[key] = {**value, inner: f"{v[:20]} {rng.randrange(1000)}"}
                return new
    return _change_beside(new, chain, step)


def _like(last: Any, k: int) -> Any:
    """A new element like ``last``, its numbers counted on."""
    entry = copy.deepcopy(last)
    if isinstance(entry, dict):
        for key, value in entry.items():
            if isinstance(value, int) and not isinstance(value, bool):
                entry[key] = value + 1 + k
    return entry


def _change_beside(new: Any, chain: list[Any], step: int) -> Any:
    """``new`` with the first element of an array beside the log changed."""
    parent = _at(new, chain[:-1])
    for inner, v in parent.items():
        if isinstance(v, list) and v and isinstance(v[0], dict) and inner != chain[-1]:
            first = next((k for k, x in v[0].items() if isinstance(x, str)), None)
            if first is not None:
                changed = [{**v[0], first: f"changed {step}"}, *v[1:]]
                return _set(new, chain[:-1], {**parent, inner: changed})
    return new


def _compare(text: str, writes: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """``writes`` writes on ``text``, each by the stub and by the whole document's editor
    (each reading back its own last write, as the server does); how many took the stub."""
    fast: Any = loads(text)
    whole: Any = loads(text)
    taken: list[bool] = []
    real = grown.render

    def spy(doc: TronDocument, new: Any, loads: Any) -> Any:
        found = real(doc, new, loads)
        taken.append(found is not None)
        return found

    rng_a, rng_b = random.Random(7), random.Random(7)
    for step in range(writes):
        new = _edit(fast.data, step, rng_a)
        with monkeypatch.context() as m:
            m.setattr(grown, "render", spy)
            out = fast.render(new)
        expected_new = _edit(whole.data, step, rng_b)
        with monkeypatch.context() as m:
            m.setattr(grown, "render", lambda doc, new, loads: None)
            expected = whole.render(expected_new)
        assert out == expected, (step, _first_difference(out, expected))
        again = fast.read_back(out)
        reread = loads(out)
        assert same(reread.data, new)
        if again is not None:
            assert isinstance(again, TronDocument)
            assert same(again.data, new)
            # the classes recorded for its objects are a full parse's
            assert _classes(again.data, again.made_by) == _classes(reread.data, reread.made_by)
            if taken and taken[-1]:  # the old elements are the very objects, not parsed again
                chain = _log_chain(new)
                assert chain is not None
                old, now = _at(fast.data, chain), _at(again.data, chain)
                assert all(a is b for a, b in zip(old, now, strict=False))
            fast = again
        else:
            fast = reread
        whole = whole.read_back(expected) or loads(expected)
    return sum(taken)


def _classes(data: Any, made_by: dict[int, str]) -> list[str | None]:
    """The class (or "" for ``{}``) that wrote each object of ``data``, in order."""
    out: list[str | None] = []
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            out.append(made_by.get(id(value)))
            stack.extend(reversed(list(value.values())))
        elif isinstance(value, list):
            stack.extend(reversed(value))
    return out


def _first_difference(a: str, b: str) -> str:
    at = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    return f"at {at}: {a[at - 40 : at + 40]!r} != {b[at - 40 : at + 40]!r}"


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_grown_log_written_on_the_stub_is_the_whole_documents_edit(
    layout: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = _compare(_text(layout, 120), WRITES, monkeypatch)
    if layout == "one line":  # no element there starts a line: never a stub
        assert taken == 0
    elif layout == "two a line":  # a stub when the last element starts a line
        assert taken >= WRITES // 2
    else:
        assert taken == WRITES


def test_a_grown_log_with_crlf_line_ends_is_the_whole_documents_edit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _compare(_text("rows", 120, crlf=True), WRITES, monkeypatch) == WRITES


@pytest.mark.parametrize("seed", range(6))
def test_generated_histories_written_on_the_stub_are_the_whole_documents_edit(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Random layouts, lengths and comments in the middle of the log."""
    rng = random.Random(seed)
    layout = rng.choice(LAYOUTS)
    text = _text(layout, rng.randrange(60, 200))
    if layout in ("rows", "trailing comma", "multiline"):
        lines = text.split("\n")
        for _ in range(rng.randrange(1, 5)):  # a comment line somewhere in the log
            at = rng.randrange(len(lines) // 3, len(lines) - 3)
            if lines[at].startswith("    Change("):
                lines.insert(at, "    # a note")
        text = "\n".join(lines)
    _compare(text, 25, monkeypatch)


def test_a_write_that_changes_an_old_log_element_is_left_to_the_whole_document() -> None:
    doc = loads(_text("rows", 120))
    new = copy.deepcopy(doc.data)
    new["todoList"]["changeLog"][50]["operation"] = "edited"
    assert grown.render(doc, new, loads) is None
    assert same(loads(doc.render(new)).data, new)


def test_corpus_tron_documents_written_on_the_stub_are_the_whole_documents_edit(
    shared_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Real documents (../shared/corpus) with a long trailing log, five writes each."""
    used = 0
    for path in sorted((shared_dir / "corpus").rglob("*.tron")):
        try:
            doc = parse(path.read_bytes(), path=str(path))
        except ParseError:
            continue
        assert isinstance(doc, TronDocument)
        chain = _log_chain(doc.data)
        if chain is None:
            continue
        log = _at(doc.data, chain)
        if not isinstance(log[-1], dict):
            continue
        # the log grown long first (by the whole document's editor), then written on
        more = [copy.deepcopy(log[-1]) for _ in range(80)]
        with monkeypatch.context() as m:
            m.setattr(grown, "render", lambda doc, new, loads: None)
            text = doc.render(_set(doc.data, chain, [*log, *more]))
        used += _compare(text.lstrip("\ufeff"), 5, monkeypatch)
    assert used > 100  # most of the corpus's logs take the stub (64 of 85 documents, 5 writes)


def _tricky(changes: int, two_lines: bool) -> str:
    """A log whose middle alone holds what decides how a new element's fresh parts are
    written: the first object at its agent's place (class Actor, though Bot fits as well),
    the only ``{}`` keys (bare), a CRLF line end, an element on two lines."""
    lines = []
    for n in range(1, changes + 1):
        if n == 5:
            lines.append(f'    Change({n}, Actor("x", "y"), "create"),')
        elif n == 7 and two_lines:
            lines.append(f'    Change(\n      {n}, "none", "create"),')
        elif n == 9:
            lines.append(f'    Change({n}, "none", {{bare: 1}}),\r')
        else:
            lines.append(f'    Change({n}, "none", "create"),')
    lines[-1] = lines[-1].rstrip(",")
    items = "\n".join(f'    TodoItem("t{n}", "Task {n}", "pending"),' for n in range(1, 30))
    return (
        "class Info: version\nclass TodoList: uid, items, changeLog\n"
        "class TodoItem: id, title, status\nclass Bot: id, type\nclass Actor: id, type\n"
        "class Change: sequence, agent, operation\n\n"
        'vContextInfo: Info("0.4")\n'
        f'todoList: TodoList(\n  "list",\n  [\n{items.rstrip(",")}\n  ],\n  [\n'
        + "\n".join(lines)
        + "\n  ]\n)\n"
    )


@pytest.mark.parametrize("two_lines", [False, True])
@pytest.mark.parametrize("fresh", ["agent", "operation", "both"])
def test_what_the_middle_alone_decides_is_the_whole_documents(
    fresh: str, two_lines: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new element with parts its neighbour does not have (written afresh): its class,
    its keys' quotes, its line ends and its layout as the whole document has them."""
    text = _tricky(150, two_lines)
    fast: Any = loads(text)
    whole: Any = loads(text)
    taken: list[bool] = []
    real = grown.render

    def spy(doc: TronDocument, new: Any, loads: Any) -> Any:
        found = real(doc, new, loads)
        taken.append(found is not None)
        return found

    def edit(data: Any, n: int) -> Any:
        entry: dict[str, Any] = {"sequence": 200 + n, "agent": "none", "operation": "create"}
        if fresh in ("agent", "both"):
            entry["agent"] = {"id": f"a{n}", "type": "aiAgent"}
        if fresh in ("operation", "both"):
            entry["operation"] = {
                "kind": "update",
                "path": f"$.items[{n}]",
                "why": "a long explanation " * 8,
            }
        log = data["todoList"]["changeLog"]
        items = [
            {**data["todoList"]["items"][0], "status": f"s{n}"},
            *data["todoList"]["items"][1:],
        ]
        return {
            **data,
            "todoList": {**data["todoList"], "items": items, "changeLog": [*log, entry]},
        }

    for n in range(3):
        with monkeypatch.context() as m:
            m.setattr(grown, "render", spy)
            out = fast.render(edit(fast.data, n))
        with monkeypatch.context() as m:
            m.setattr(grown, "render", lambda doc, new, loads: None)
            expected = whole.render(edit(whole.data, n))
        assert out == expected, (n, _first_difference(out, expected))
        fast = fast.read_back(out) or loads(out)
        whole = whole.read_back(expected) or loads(expected)
    # the stub is taken unless an element of the middle is not a row as the stub's are
    assert taken == [not two_lines] * 3


def test_a_line_end_only_the_middle_has_is_the_whole_documents(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One CRLF line end, in the middle of the log: the whole document is a CRLF one, so
    what a write lays out on new lines ends them so (as the whole document's edit does),
    write after write."""
    text = _text("multiline", 120)
    at = text.index("      60,\n")
    text = text[: at + 9] + "\r" + text[at + 9 :]
    fast: Any = loads(text)
    whole: Any = loads(text)
    for n in range(3):
        outs = []
        for doc in (fast, whole):
            data = doc.data
            entry = {
                "sequence": 500 + n,
                "agent": {"id": "mcp", "type": "aiAgent"},
                "operation": {"kind": "update", "why": "a long explanation " * 6, "n": n}
                if n  # the first write lays out no new line: the stub's own text has no CRLF
                else "update",
                "description": "made it",
            }
            todo = data["todoList"]
            new = {**data, "todoList": {**todo, "changeLog": [*todo["changeLog"], entry]}}
            with monkeypatch.context() as m:
                if doc is whole:
                    m.setattr(grown, "render", lambda doc, new, loads: None)
                outs.append(doc.render(new))
        if n:  # new lines, CRLF ended
            assert "\r\n" in outs[1][outs[1].index(f"{500 + n}") :]
        assert outs[0] == outs[1], (n, _first_difference(outs[0], outs[1]))
        fast = fast.read_back(outs[0]) or loads(outs[0])
        whole = whole.read_back(outs[1]) or loads(outs[1])
