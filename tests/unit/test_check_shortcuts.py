"""The checks' shortcuts (history rules, semantic rules' pre-tests) give exactly the full findings.

PRODUCT.md "The remote guards itself": the guard refuses what the hook refuses, with the
same ``file:line:col: … [rule]`` lines; "Validation": the history rules (append-only
``changeLog``, events, sequences, unmerged forks). The shortcuts (a ``changeLog``'s start
kept alike matched in one text per side, a document's walk remembered inside
``ReusedParses``, a merged blob that cannot say ``unmerged`` never parsed) must change
what the guard spends, never what it finds: each is compared here with the rules run the
long way on generated histories (spellings Python's ``==`` conflates included: ``true``
and ``1``, ``1`` and ``1.0``, ``1.5`` and ``1.50``, escapes).
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_vcontext.branches.treemerge import without_fork
from git_vcontext.codecs import ReusedParses, dumps
from git_vcontext.document import may_hold_fork
from git_vcontext.validation import history
from git_vcontext.validation.history import check_change, check_merge_arrival

PATH = "memory/todo.vcontext.json"

SEQUENCES = ["1", "1.0", "true", "2", "2.50", "2.5", "0.1", "0.10000000000000001", '"3"', "null"]
REASONS = ["a", "b", "\\u0061", "c\\n"]


@st.composite
def entry(draw: Any) -> str:
    sequence = draw(st.sampled_from(SEQUENCES))
    reason = draw(st.sampled_from(REASONS))
    flag = draw(st.sampled_from(["", ', "ok": true', ', "ok": 1', ', "ok": 1.0']))
    return f'{{"sequence": {sequence}, "reason": "{reason}"{flag}}}'


@st.composite
def histories(draw: Any) -> tuple[bytes, bytes]:
    """An old ``changeLog`` and a new one: kept, appended, inserted into, edited, cut."""
    old = draw(st.lists(entry(), max_size=8))
    new = list(old)
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(new)))
        edit = draw(st.sampled_from(["insert", "replace", "drop", "append"]))
        if edit == "insert" or not new:
            new.insert(at, draw(entry()))
        elif edit == "append":
            new.append(draw(entry()))
        elif edit == "replace":
            new[min(at, len(new) - 1)] = draw(entry())
        else:
            del new[min(at, len(new) - 1)]
    return _todo(old), _todo(new)


def _todo(log: list[str]) -> bytes:
    entries = ",\n      ".join(log)
    return (
        '{\n  "vContextInfo": {"version": "0.4"},\n  "todoList": {\n    "items": [],\n'
        f'    "sequence": 9,\n    "changeLog": [\n      {entries}\n    ]\n  }}\n}}\n'
    ).encode()


def _shown(findings: list[Any]) -> list[tuple[Any, ...]]:
    return [(f.rule, f.pointer, f.message, f.line, f.column, f.where) for f in findings]


@settings(max_examples=300, deadline=None)
@given(histories(), st.booleans())
def test_changelog_kept_start_finds_what_entry_by_entry_matching_finds(
    pair: tuple[bytes, bytes], merge: bool
) -> None:
    old, new = pair
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(history, "_same_start", lambda _before, _after: 0)
        slow = _shown(check_change(old, new, PATH, merge=merge))
    assert _shown(check_change(old, new, PATH, merge=merge)) == slow
    with ReusedParses():  # the guard's way: parses shared, walks remembered
        for _ in range(2):
            assert _shown(check_change(old, new, PATH, merge=merge)) == slow


def test_changelog_entries_only_python_calls_equal_are_still_told_apart() -> None:
    """``true`` where ``1`` stood is a modified entry, as the full matching says."""
    old = _todo(['{"sequence": 1, "reason": "a", "ok": 1}', '{"sequence": 2, "reason": "b"}'])
    new = _todo(['{"sequence": 1, "reason": "a", "ok": true}', '{"sequence": 2, "reason": "b"}'])
    found = check_change(old, new, PATH)
    assert [f.rule for f in found] == [history.CHANGELOG_MODIFIED]
    assert found[0].pointer == "/todoList/changeLog/0"


STATUSES = ['"merged"', '"unmerged"', '"\\u0075nmerged"', '"un\\u006derged"', "null"]


@st.composite
def fork_doc(draw: Any) -> bytes | None:
    if draw(st.booleans()) and draw(st.booleans()):
        return None
    fork = ""
    if draw(st.booleans()):
        status = draw(st.sampled_from(STATUSES))
        forked = draw(st.sampled_from(["2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"]))
        fork = f', "fork": {{"parentUid": "u", "forkedAt": "{forked}", "mergeStatus": {status}}}'
    return (
        f'{{"vContextInfo": {{"version": "0.4"}}, "todoList": {{"uid": "u", "items": []{fork}}}}}'
    ).encode()


@settings(max_examples=300, deadline=None)
@given(fork_doc(), fork_doc(), st.lists(fork_doc(), min_size=1, max_size=3))
def test_merge_arrival_without_unmerged_in_the_bytes_finds_what_the_parse_finds(
    first: bytes | None, merged: bytes | None, others: list[bytes | None]
) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(history, "_may_say_unmerged", lambda _raw: True)
        slow = _shown(check_merge_arrival(first, merged, others, PATH))
    assert _shown(check_merge_arrival(first, merged, others, PATH)) == slow


def test_merge_arrival_of_an_escaped_unmerged_fork_is_still_found() -> None:
    """A ``mergeStatus`` spelled with escapes is ``unmerged`` all the same."""
    fork = b'"fork": {"parentUid": "u", "forkedAt": "t", "mergeStatus": "\\u0075nmerged"}'
    merged = b'{"vContextInfo": {"version": "0.4"}, "todoList": {"items": [], ' + fork + b"}}"
    first = b'{"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}'
    found = check_merge_arrival(first, merged, [merged], PATH)
    assert [f.rule for f in found] == [history.UNMERGED_FORK]


# -- the semantic rules' text pre-test (validation.rules._may_hold) --------------------

TITLES = [
    '"a"',
    '"<<<<<<< ours"',
    '"\\u003c<<<<<< ours"',
    '"x\\n>>>>>>> theirs"',
    '">>>>>>\\u003e theirs"',
    '"b\\\\c"',
]
KEYS = ['"conflictResolution"', '"\\u0063onflictResolution"', '"conflictresolution"']


@st.composite
def marked_doc(draw: Any) -> str:
    titles = draw(st.lists(st.sampled_from(TITLES), max_size=3))
    items = ", ".join(
        f'{{"id": "t{i}", "title": {title}, "status": "pending"}}' for i, title in enumerate(titles)
    )
    meta = ""
    if draw(st.booleans()):
        key = draw(st.sampled_from(KEYS))
        status = draw(st.sampled_from(['"unresolved"', '"resolved"']))
        meta = f', "metadata": {{{key}: {{"conflicts": [{{"path": "$.a", "status": {status}}}]}}}}'
    return f'{{"vContextInfo": {{"version": "0.4"{meta}}}, "todoList": {{"items": [{items}]}}}}'


@settings(max_examples=200, deadline=None)
@given(marked_doc(), st.booleans())
def test_markers_and_conflicts_pre_tested_on_the_text_find_what_the_walks_find(
    text: str, tron: bool
) -> None:
    from git_vcontext.codecs.tron import dumps
    from git_vcontext.jsoncodec import loads
    from git_vcontext.validation import rules
    from git_vcontext.validation.files import check_bytes

    path = "memory/todo.vcontext.tron" if tron else PATH
    raw = (dumps(loads(text)) if tron else text).encode()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rules, "_may_hold", lambda _text, *_words: True)
        slow = check_bytes(raw, path, covered=True)
    fast = check_bytes(raw, path, covered=True)
    assert _shown(list(fast.as_findings())) == _shown(list(slow.as_findings()))


def test_an_escaped_conflict_marker_is_still_found() -> None:
    from git_vcontext.validation.files import check_bytes

    raw = b'{"vContextInfo": {"version": "0.4"}, "todoList": {"items": [{"id": "t", '
    raw += b'"title": "\\u003c<<<<<< ours", "status": "pending"}]}}'
    assert [f.rule for f in check_bytes(raw, PATH, covered=True).findings] == ["conflict-markers"]


# -- the fork rules' byte pre-test (document.may_hold_fork) ---------------------------

FORMATS = {"json": "t.vcontext.json", "tron": "t.vcontext.tron", "toml": "t.vcontext.toml"}
_WORD = re.compile(r'"?\b(fork|forkedAt|unmerged)\b"?')


def _escaped(text: str, escape: list[bool]) -> str:
    """``text`` with each of its words fork, forkedAt, unmerged (keys, bare or quoted, and
    values) written as a quoted string whose first letter is a ``\\u`` escape, when drawn."""
    turns = iter(escape * 20)

    def one(match: re.Match[str]) -> str:
        word = match.group(1)
        if not next(turns, False):
            return match.group(0)
        return f'"\\u{ord(word[0]):04x}{word[1:]}"'

    return _WORD.sub(one, text)


@st.composite
def escaped_fork_doc(draw: Any) -> tuple[bytes, str]:
    fork: dict[str, Any] = {"parentUid": "u", "forkedAt": "2026-01-01T00:00:00Z"}
    fork["mergeStatus"] = draw(st.sampled_from(["unmerged", "merged", "abandoned"]))
    container: dict[str, Any] = {"uid": "u", "items": []}
    if draw(st.booleans()):
        container["fork"] = fork
    data = {"vContextInfo": {"version": "0.4"}, "todoList": container}
    kind = draw(st.sampled_from(sorted(FORMATS)))
    text = _escaped(dumps(data, kind), draw(st.lists(st.booleans(), min_size=1, max_size=4)))
    assert history._parse(text.encode(), FORMATS[kind])[0] == data  # the same document
    return text.encode(), FORMATS[kind]


@settings(max_examples=300, deadline=None)
@given(escaped_fork_doc(), escaped_fork_doc())
def test_fork_pre_tests_skip_no_document_whose_parse_holds_a_fork_block(
    merged: tuple[bytes, str], first: tuple[bytes, str]
) -> None:
    """The guard's light path (``may_hold_unmerged_fork`` before a fast-forward's note,
    ``may_hold_fork`` before history-unmerged-fork) and the full check (``may_hold_fork``
    before both) skip only documents the parse finds no fork block in, whatever the words
    are spelled with escapes in JSON, TRON or TOML."""
    raw, path = merged
    marks = history.unmerged_fork_marks(raw, path)
    if history.fork_marks(raw, path):
        assert may_hold_fork(raw)
    if marks:
        assert history.may_hold_unmerged_fork(raw)
    old = first[0] if first[1] == path else None
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(history, "_may_say_unmerged", lambda _raw: True)
        slow = _shown(check_merge_arrival(old, raw, [raw], path))
    assert _shown(check_merge_arrival(old, raw, [raw], path)) == slow
    assert not slow or may_hold_fork(raw)


@pytest.mark.parametrize("kind", sorted(FORMATS))
def test_an_escaped_fork_key_is_a_fork_block_to_every_pre_test(
    kind: Literal["json", "tron", "toml"],
) -> None:
    """No byte of the document says ``fork``: the pre-tests look (a backslash) and the
    parse finds the unmerged block."""
    fork = {"parentUid": "u", "forkedAt": "t", "mergeStatus": "unmerged"}
    data = {"vContextInfo": {"version": "0.4"}, "todoList": {"items": [], "fork": fork}}
    raw = _escaped(dumps(data, kind), [True]).encode()
    assert b"fork" not in raw
    assert b"unmerged" not in raw
    assert history.unmerged_fork_marks(raw, FORMATS[kind]) == {("todoList", "u", "t")}
    assert may_hold_fork(raw)
    assert history.may_hold_unmerged_fork(raw)
    found = check_merge_arrival(None, raw, [raw], FORMATS[kind])
    assert [f.rule for f in found] == [history.UNMERGED_FORK]


def test_sync_leaves_no_escaped_fork_block_on_the_base() -> None:
    """M11: a base never holds fork blocks; ``without_fork`` takes one out however its key
    is spelled."""
    fork = {"parentUid": "u", "forkedAt": "t", "mergeStatus": "unmerged"}
    data = {"vContextInfo": {"version": "0.4"}, "todoList": {"items": [], "fork": fork}}
    raw = _escaped(dumps(data, "json"), [True]).encode()
    assert b"fork" not in raw
    assert json.loads(without_fork(raw, PATH)) == {
        "vContextInfo": {"version": "0.4"},
        "todoList": {"items": []},
    }
