"""M16 virtual bases (no git): the inner merge keeps the base's value at each conflict, and a
base that still holds markers is read from the base sections of its blocks."""

from __future__ import annotations

import json
from typing import Any

from git_vcontext.merging.result import MergeOptions
from git_vcontext.merging.textmerge import Markers, base_sections
from helpers.merging import merge_files

NOW = MergeOptions(now="2026-01-01T00:00:00Z")


def todo(*items: dict[str, Any]) -> bytes:
    data = {"vContextInfo": {"version": "0.4"}, "todoList": {"items": list(items)}}
    return (json.dumps(data, indent=2) + "\n").encode()


def it(i: str, status: str = "pending", **more: Any) -> dict[str, Any]:
    return {"id": i, "title": i.upper(), "status": status, **more}


def test_m16_virtual_base_takes_the_base_value_of_every_conflict() -> None:
    base = todo(it("t1"), it("t2", priority="low"))
    ours = todo(it("t1", "completed"), it("t3", note="a"))  # t2 deleted, t3 added
    theirs = todo(it("t1", "blocked"), it("t2", priority="high"), it("t3", note="b"))
    out = merge_files(base, ours, theirs, path="x.vcontext.json", options=NOW, virtual_base=True)
    assert out.clean
    assert out.status == "clean"
    assert out.result is not None
    data = json.loads(out.output)
    # status conflict: base's pending; delete/modify: base's t2; add/add of t3: merged
    # against {} where only the conflicting note falls back to "no value"
    assert data["todoList"]["items"] == [it("t1"), it("t3"), it("t2", priority="low")]
    kinds = [n.kind for n in out.result.notes]
    assert kinds.count("virtual-base") == 3
    assert b"<<<<<<<" not in out.output


def test_m16_virtual_base_of_two_different_documents_added_is_empty() -> None:
    plan = json.dumps({"vContextInfo": {"version": "0.4"}, "plan": {"title": "P"}}).encode()
    out = merge_files(None, todo(it("t1")), plan, path="x.vcontext.json", virtual_base=True)
    assert out.clean
    assert out.output == b""


def test_m16_virtual_base_of_unparsable_sides_keeps_the_base_lines_instead_of_markers() -> None:
    base = b"line 1\nshared\nline 3\n"
    ours = b"line 1\nours\nline 3\n{"
    theirs = b"line 1\ntheirs\nline 3\n"
    out = merge_files(base, ours, theirs, path="x.vcontext.json", virtual_base=True)
    assert out.output == b"line 1\nshared\nline 3\n{"
    assert b"<<<<<<<" not in out.output


def test_m16_a_base_with_diff3_markers_is_read_from_the_base_sections() -> None:
    """What an inner merge without the base driver leaves under conflictStyle=diff3."""
    base = (
        b'{"vContextInfo": {"version": "0.4"}, "todoList": {"items": [\n'
        b"<<<<<<<<< Temporary merge branch 1\n"
        b'  {"id": "t1", "status": "completed"}\n'
        b"||||||||| merged common ancestors\n"
        b'  {"id": "t1", "status": "pending"}\n'
        b"=========\n"
        b'  {"id": "t1", "status": "blocked"}\n'
        b">>>>>>>>> Temporary merge branch 2\n"
        b"]}}\n"
    )
    ours = b'{"vContextInfo": {"version": "0.4"}, "todoList": {"items": [{"id": "t1", "status": "completed"}, {"id": "a"}]}}\n'  # noqa: E501
    theirs = b'{"vContextInfo": {"version": "0.4"}, "todoList": {"items": [{"id": "t1", "status": "completed"}, {"id": "b"}]}}\n'  # noqa: E501
    out = merge_files(base, ours, theirs, path="x.vcontext.json", options=NOW)
    assert out.clean
    assert out.result is not None
    assert [i["id"] for i in json.loads(out.output)["todoList"]["items"]] == ["t1", "a", "b"]
    assert [n.kind for n in out.result.notes] == ["virtual-base"]


def test_m16_markers_without_base_sections_still_fall_back_to_lines() -> None:
    base = b'{"a": [\n<<<<<<< x\n1\n=======\n2\n>>>>>>> y\n]}\n'
    out = merge_files(base, b'{"a": [1, 3]}\n', b'{"a": [1, 4]}\n', path="x.json")
    assert out.status == "fallback"
    assert "conflict markers" in out.reasons[0]


def test_base_sections_reads_each_block_whatever_its_marker_size_and_line_ending() -> None:
    text = "a\r\n<<<<<<< ours\r\nx\r\n||||||| base\r\nb\r\n=======\r\ny\r\n>>>>>>> theirs\r\nc\r\n"
    assert base_sections(text) == "a\r\nb\r\nc\r\n"
    nine = "<<<<<<<<<\nx\n|||||||||\n=========\ny\n>>>>>>>>>\nrest\n"
    assert base_sections(nine) == "rest\n"  # an empty base section is a base section
    assert base_sections("no markers\n") is None
    assert base_sections("<<<<<<< o\nx\n||||||| b\nb\n=======\ny\n") is None  # never closed
    assert base_sections("<<<<<<< o\nx\n=======\ny\n>>>>>>> t\n") is None  # no base section


def test_m16_line_merge_keeps_base_lines_when_markers_say_take_base() -> None:
    from git_vcontext.merging.textmerge import merge_lines

    merged, blocks = merge_lines("a\nb\nc\n", "a\nB\nc\n", "a\nβ\nc\n", Markers(take_base=True))
    assert (merged, blocks) == ("a\nb\nc\n", 0)
