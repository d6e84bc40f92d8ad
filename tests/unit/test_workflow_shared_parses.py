"""sync parses each document once and shares it (codecs.ReusedParses): the engine must not
change what it is given, or one pair's merge would leak into the next."""

from __future__ import annotations

import copy
import threading
from pathlib import Path

import pytest

from git_vcontext.codecs import Document, ReusedParses, parse, reusing_parses
from git_vcontext.errors import ParseError
from helpers.merging import merge_files

CASES = sorted(
    p for p in (Path(__file__).parents[1] / "examples" / "merge").iterdir() if p.is_dir()
)


def _sides(case: Path) -> tuple[list[bytes], str] | None:
    found = {f.stem: f for f in case.iterdir() if f.stem in ("base", "ours", "theirs")}
    if set(found) != {"base", "ours", "theirs"}:
        return None
    suffix = found["ours"].suffix
    name = ".work/events.jsonl" if suffix == ".jsonl" else f"doc.vcontext{suffix}"
    return [found[k].read_bytes() for k in ("base", "ours", "theirs")], name


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_merging_leaves_shared_parsed_documents_unchanged(case: Path) -> None:
    sides = _sides(case)
    if sides is None:
        pytest.skip("not a three-file case")
    raws, name = sides
    with ReusedParses():
        try:
            docs = [parse(raw, path=name) for raw in raws]
        except ParseError:
            pytest.skip("a side does not parse (a fallback case)")
        before = [copy.deepcopy(d.data) for d in docs]
        merge_files(raws[0], raws[1], raws[2], path=name)
        merge_files(raws[0], raws[2], raws[1], path=name)
        assert [parse(raw, path=name) for raw in raws] == docs  # the same objects again
    assert [d.data for d in docs] == before


def test_reused_parses_returns_the_same_document_only_inside_the_block() -> None:
    raw = b'{"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}'
    with ReusedParses():
        assert parse(raw, path="a.vcontext.json") is parse(raw, path="a.vcontext.json")
    assert parse(raw, path="a.vcontext.json") is not parse(raw, path="a.vcontext.json")


def test_a_nested_block_keeps_the_outer_memo_and_a_given_memo_outlives_its_block() -> None:
    raw = b'{"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}'
    kept: dict[tuple[str, bytes | str], Document] = {}
    with ReusedParses(kept):
        first = parse(raw, path="a.vcontext.json")
        with ReusedParses():  # an inner block shares the outer documents
            assert parse(raw, path="a.vcontext.json") is first
        assert reusing_parses()
    assert not reusing_parses()
    assert list(kept.values()) == [first]
    with ReusedParses(kept):
        assert parse(raw, path="a.vcontext.json") is first


def test_shared_parses_belong_to_the_thread_that_opened_the_block() -> None:
    raw = b'{"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}'
    seen: list[bool] = []
    with ReusedParses():
        other = threading.Thread(target=lambda: seen.append(reusing_parses()))
        other.start()
        other.join()
        assert reusing_parses()
        assert parse(raw, path="a.vcontext.json") is parse(raw, path="a.vcontext.json")
    assert seen == [False]
