"""The fork block a document receives (Ext 11, M11) and how it is written back in its style."""

from __future__ import annotations

import difflib
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from git_vcontext.codecs import parse
from git_vcontext.errors import ParseError
from git_vcontext.sync.fork import fork_block, fork_bytes, with_fork

AT = "2026-01-01T00:00:00Z"


def todo_list(**container: Any) -> dict[str, Any]:
    return {"vContextInfo": {"version": "0.4"}, "todoList": {**container, "items": []}}


def test_m11_block_names_the_documents_own_uid_and_sequence() -> None:
    block = fork_block({"uid": "u1", "sequence": 7}, forked_at=AT, reason="why")
    assert block == {
        "parentUid": "u1",
        "parentSequence": 7,
        "forkedAt": AT,
        "forkReason": "why",
        "mergeStatus": "unmerged",
    }


@pytest.mark.parametrize("sequence", [None, True, "3", 2.5])
def test_missing_or_odd_sequence_counts_as_zero(sequence: Any) -> None:
    container = {"uid": "u1"} if sequence is None else {"uid": "u1", "sequence": sequence}
    block = fork_block(container, forked_at=AT, reason=None)
    assert block["parentSequence"] == 0
    assert "forkReason" not in block


def test_fork_goes_after_the_version_control_fields() -> None:
    data = todo_list(id="tl", uid="u", title="T", sequence=1, changeLog=[], tags=["x"])
    out = with_fork(data, forked_at=AT, reason=None)
    assert out is not None
    keys = list(out["todoList"])
    assert keys == ["id", "uid", "title", "sequence", "changeLog", "fork", "tags", "items"]


def test_an_existing_fork_is_replaced_in_place() -> None:
    old = {"parentUid": "u", "parentSequence": 1, "forkedAt": "2020-01-01T00:00:00Z"}
    data = todo_list(uid="u", fork=old, sequence=4, title="T")
    again = with_fork(data, forked_at=AT, reason="again")
    assert again is not None
    out = again["todoList"]
    assert list(out) == ["uid", "fork", "sequence", "title", "items"]
    assert out["fork"]["parentSequence"] == 4
    assert out["fork"]["forkReason"] == "again"


def test_every_container_with_a_uid_gets_a_block() -> None:
    data = {
        "vContextInfo": {"version": "0.4"},
        "plan": {"uid": "p", "items": []},
        "playbook": {"items": []},
    }
    out = with_fork(data, forked_at=AT, reason=None)
    assert out is not None
    assert out["plan"]["fork"]["parentUid"] == "p"
    assert "fork" not in out["playbook"]


@pytest.mark.parametrize(
    "data",
    [
        todo_list(id="tl"),  # no uid
        todo_list(uid=7),  # not a string uid
        {"todoList": {"uid": "u", "items": []}},  # no info object: not vContext
        [1, 2],
    ],
)
def test_documents_without_a_container_uid_are_left_alone(data: Any) -> None:
    assert with_fork(data, forked_at=AT, reason=None) is None


uids = st.text(min_size=1, max_size=8)
scalars = st.one_of(st.integers(), st.text(max_size=5), st.booleans(), st.none())


@given(uid=uids, extra=st.dictionaries(st.text(min_size=1, max_size=6), scalars, max_size=5))
def test_nothing_but_the_fork_block_changes(uid: str, extra: dict[str, Any]) -> None:
    extra.pop("fork", None)
    data = todo_list(**{**extra, "uid": uid})
    out = with_fork(data, forked_at=AT, reason=None)
    assert out is not None
    assert out["todoList"].pop("fork")["parentUid"] == uid
    assert out == data
    assert list(out["todoList"]) == list(data["todoList"])


def test_json_style_is_kept_and_only_fork_lines_are_added() -> None:
    lines = ["{", '\t"vContextInfo": {"version": "0.4"},', '\t"todoList": {', '\t\t"uid": "u",']
    lines += ['\t\t"items": [],', '\t\t"metadata": {', '\t\t\t"weights": [1.0, 1e2]', "\t\t}"]
    lines += ["\t}", "}", ""]  # a valid document (validate's findings are never forked)
    raw = "\r\n".join(lines)
    new = fork_bytes(raw.encode(), "a.vcontext.json", forked_at=AT, reason=None)
    assert new is not None
    diff = list(difflib.ndiff(raw.splitlines(True), new.decode().splitlines(True)))
    assert [d for d in diff if d.startswith("- ")] == []
    added = "".join(d[2:] for d in diff if d.startswith("+ "))
    assert '\t\t"fork": {\r\n' in added
    assert '"parentUid": "u"' in added


def test_tron_keeps_its_class_header() -> None:
    header = "class TodoList: uid, items\n\n"
    raw = header + 'vContextInfo: {"version": "0.4"}\ntodoList: TodoList("u", [])\n'
    new = fork_bytes(raw.encode(), "a.vcontext.tron", forked_at=AT, reason=None)
    assert new is not None
    assert new.decode().startswith(header)
    assert parse(new, path="a.vcontext.tron").data["todoList"]["fork"]["parentUid"] == "u"


def test_unparsable_documents_raise_parse_error() -> None:
    with pytest.raises(ParseError):
        fork_bytes(b'{"vContextInfo": {', "a.vcontext.json", forked_at=AT, reason=None)


def test_documents_without_uid_are_not_rewritten() -> None:
    raw = json.dumps(todo_list(id="x")).encode()
    assert fork_bytes(raw, "a.vcontext.json", forked_at=AT, reason=None) is None
