"""A ``\\ud800`` escape is valid JSON syntax but not a Unicode character: every writer puts
it back as an escape, so what we write is always UTF-8 and reads back as the same value."""

from __future__ import annotations

from typing import Any

import pytest

from git_vcontext.codecs import dumps, parse

LONE = "a\ud800b\udfff"  # a high and a low surrogate, each on its own
VALUE: dict[str, Any] = {"vContextInfo": {"version": "0.4"}, "todoList": {"items": [LONE]}}


def _round_trip(text: str, path: str) -> Any:
    raw = text.encode("utf-8")  # raises if a raw surrogate was written
    return parse(raw, path=path).data


@pytest.mark.parametrize(
    ("fmt", "path", "flavor"),
    [
        ("json", "x.json", "vcontext"),
        ("tron", "x.tron", "vcontext"),
        ("tron", "x.tron", "standard"),
    ],
)
def test_fresh_text_escapes_lone_surrogates(fmt: Any, path: str, flavor: Any) -> None:
    text = dumps(VALUE, fmt, tron_flavor=flavor)
    assert "\\ud800" in text
    assert "\\udfff" in text
    assert _round_trip(text, path) == VALUE


@pytest.mark.parametrize(
    ("source", "path"),
    [
        ('{"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}\n', "x.json"),
        ('vContextInfo: {version: "0.4"}\ntodoList: {items: []}\n', "x.tron"),
        ('{"id": 1}\n', "x.jsonl"),
    ],
)
def test_rendered_edits_escape_lone_surrogates(source: str, path: str) -> None:
    doc = parse(source.encode(), path=path)
    new: Any = [{"id": 1}, {"id": 2, "t": LONE}] if path.endswith("l") else VALUE
    assert _round_trip(doc.render(new), path) == new


def test_jsonl_fresh_text_escapes_lone_surrogates() -> None:
    records = [{"t": LONE}]
    assert _round_trip(dumps(records, "jsonl"), "x.jsonl") == records
