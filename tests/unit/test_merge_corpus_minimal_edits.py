"""Real documents by others merge as minimal edits (PRODUCT.md, Formats; M1, M2).

On every TRON and JSON file of ../shared/corpus: ours changes one value, theirs another
(different places); the merge must be the base text with exactly those two spellings
replaced, byte for byte: comments, bare keys, layouts and classes all stay.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.codecs import parse
from git_vcontext.errors import ParseError
from helpers.merging import merge_files

pytestmark = pytest.mark.corpus

_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
# Values a merge rule treats specially when one side edits them: append-only logs (M6)
# keep the old entry too, and a fork block (M11) never travels. Not what this test is about.
_RULED = frozenset({"changeLog", "fork"})
_EVENT_KEYS = ("eventId", "event_id")


def _differences(a: Any, b: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The paths where two parsed documents differ (leaves, and containers of another size)."""
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        for k in a:
            yield from _differences(a[k], b[k], (*path, k))
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            yield from _differences(x, y, (*path, i))
    elif a != b or type(a) is not type(b):
        yield path


def _plain_field(data: Any, path: tuple[Any, ...]) -> bool:
    """An object member that no merge rule treats specially when only one side edits it."""
    if not path or not isinstance(path[-1], str):
        return False  # an array element: set-like arrays re-order their additions
    node = data
    for part in path[:-1]:
        if part in _RULED:
            return False
        node = node[part]
        if isinstance(node, list) and any(
            isinstance(e, dict) and any(k in e for k in _EVENT_KEYS) for e in node
        ):
            return False  # an event log (M6)
    return path[-1] not in _RULED


def _edit(text: str, m: re.Match[str], who: str) -> str:
    return text[: m.start()] + m.group()[:-1] + f' ({who})"' + text[m.end() :]


def _two_fields(text: str, data: Any, path: Path, *, unique: bool) -> list[re.Match[str]]:
    """The first plain string field and the last one (with ``unique``, only spellings that
    occur once in the text)."""
    tokens = list(_STRING.finditer(text))
    counts: dict[str, int] = {}
    for m in tokens:
        counts[m.group()] = counts.get(m.group(), 0) + 1
    chosen: list[re.Match[str]] = []
    for m in (*tokens, *reversed(tokens)):
        if (unique and counts[m.group()] != 1) or (chosen and m.start() <= chosen[0].start()):
            continue
        if re.match(r"\s*[:=]", text[m.end() :]):
            continue  # a key
        found = list(_differences(data, parse(_edit(text, m, "x"), path=str(path)).data))
        if len(found) == 1 and _plain_field(data, found[0]):
            chosen.append(m)
            if len(chosen) == 2:
                break
    return chosen


def _two_edits(path: Path, raw: bytes) -> tuple[str, str, str] | None:
    """(ours, theirs, expected) texts, or None when the file offers no two plain fields.

    Spellings that occur once are preferred; a document with fewer of them (the spec's
    small playbooks repeat every date) edits one occurrence of a repeated spelling."""
    text = raw.decode("utf-8")
    data = parse(raw, path=str(path)).data
    chosen = _two_fields(text, data, path, unique=True)
    if len(chosen) < 2:
        chosen = _two_fields(text, data, path, unique=False)
    if len(chosen) < 2:
        return None
    a, b = chosen
    expected = _edit(_edit(text, b, "theirs"), a, "ours")  # b after a: a's offsets hold
    return _edit(text, a, "ours"), _edit(text, b, "theirs"), expected


def _corpus_documents(shared: Path) -> list[tuple[Path, bytes]]:
    found = []
    for path in sorted((shared / "corpus").rglob("*")):
        if path.suffix not in (".json", ".tron"):
            continue
        raw = path.read_bytes()
        try:
            parse(raw, path=str(path))
        except ParseError:
            continue  # the corpus keeps a few broken files on purpose
        found.append((path, raw))
    return found


def test_m2_two_edits_to_every_corpus_document_merge_byte_for_byte(shared_dir: Path) -> None:
    merged = {".json": 0, ".tron": 0}
    failures = []
    without_values = []
    for path, raw in _corpus_documents(shared_dir):
        edits = _two_edits(path, raw)
        if edits is None:
            without_values.append(path)
            continue
        ours, theirs, expected = edits
        out = merge_files(raw, ours.encode(), theirs.encode(), path=path.name)
        if out.status != "clean" or out.output != expected.encode():
            failures.append(str(path.relative_to(shared_dir)))
        merged[path.suffix] += 1
    assert not failures, failures
    # every document is merged, except those with nothing to edit (the spec's TRON snippets
    # that only declare classes)
    assert [p.name for p in without_values if parse(p.read_bytes(), path=str(p)).data != {}] == []
    assert merged[".tron"] >= 100, merged
    assert merged[".json"] >= 800, merged
