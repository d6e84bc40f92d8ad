"""Every document of the reference corpus, conflicted on one value: listed, resolved, read back.

Real documents are messier than ours (repeated ids, odd layouts, TRON comments): a
conflict in any of them must come out as data with a place, and each choice must give
the document with that value, in its own format.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.codecs import parse
from git_vcontext.errors import ParseError
from git_vcontext.merge.files import merge_files
from git_vcontext.resolution.core import from_marked, from_versions
from git_vcontext.resolution.markers import split_markers
from git_vcontext.resolution.model import Choice, Style
from git_vcontext.values import pointer

pytestmark = pytest.mark.corpus


def documents(shared: Path) -> list[Path]:
    corpus = shared / "corpus"
    found = [p for p in corpus.rglob("*") if p.suffix in (".json", ".tron") and p.is_file()]
    return sorted(p for p in found if "vContextInfo" in _head(p) or "vBRIEFInfo" in _head(p))


def _head(path: Path) -> str:
    return path.read_bytes()[:4096].decode("utf-8", "replace")


PLAIN_TEXT = ("title", "description", "text", "name", "summary", "content")
"""Fields no rule settles (not ids, timestamps, sets or logs): both changed, a conflict."""


def first_string(data: Any, parts: tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
    """The path of the first plain text field below a container (not in the info object)."""
    if isinstance(data, dict):
        items: Any = data.items()
    else:
        items = enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        if isinstance(key, str) and (key.endswith("Info") or key == "changeLog"):
            continue
        if isinstance(value, str) and "\n" not in value and key in PLAIN_TEXT:
            return (*parts, key)
        found = first_string(value, (*parts, key))
        if found:
            return found
    return None


def with_value(data: Any, parts: tuple[Any, ...], value: str) -> Any:
    out = copy.deepcopy(data)
    node = out
    for part in parts[:-1]:
        node = node[part]
    node[parts[-1]] = value
    return out


def test_every_corpus_document_conflicted_on_one_value_resolves_to_each_side(
    shared_dir: Path,
) -> None:
    checked = 0
    for path in documents(shared_dir):
        name = f"doc.vcontext{path.suffix}"
        raw = path.read_bytes()
        try:
            doc = parse(raw, path=name)
        except ParseError:
            continue  # unparsable documents fall back to lines: nothing to resolve as data
        parts = first_string(doc.data)
        if parts is None:
            continue
        sides = [with_value(doc.data, parts, v) for v in ("ours value", "theirs value")]
        ours, theirs = (doc.render(s).encode() for s in sides)
        r = from_versions(raw, ours, theirs, path=name, now="2026-01-01T00:00:00Z")
        assert len(r.conflicts) == 1, path
        [c] = r.conflicts
        changed = pointer(list(parts))  # the value, or the event holding it (M6)
        assert changed == c.pointer or changed.startswith(c.pointer + "/"), (path, c.pointer)
        for take, data in (("theirs", sides[1]), ("base", doc.data)):
            text = r.settle({c.id: Choice(take)}, Style()).text
            assert parse(text.encode(), path=name).data == data, (path, take)
        marked = split_markers(merge_files(raw, ours, theirs, path=name).output.decode())
        assert marked is not None, path
        again = from_marked(marked, name)  # no base section: the difference itself
        [d] = again.conflicts
        text = again.settle({d.id: Choice("theirs")}, Style()).text
        assert parse(text.encode(), path=name).data == sides[1], path
        checked += 1
    assert checked >= 20
