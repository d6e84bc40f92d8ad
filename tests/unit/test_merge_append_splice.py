"""Append-only logs merged without re-reading the base's text (issue 32; M1, M6, M16).

When ours and theirs both extend the base's text at the end of its last array (a playbook
that grows), the driver parses the base once and only the text each side added
(codecs.json_splice), renders without scanning the kept elements and verifies the result
by parsing every byte that is not the base's own. The output must be byte for byte what
the full path (every side parsed in full, the whole result re-parsed) writes: each test
runs both and compares them, on generated playbooks in many layouts and on every JSON
document of the corpus whose text ends with an array.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.codecs import json_splice, parse
from git_vcontext.codecs.json_text import JsonDocument
from git_vcontext.errors import ParseError
from git_vcontext.merging import files
from helpers.merging import merge_files


@pytest.fixture
def spliced_sides(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the sides read by splicing (so a test knows the fast path ran)."""
    seen: list[int] = []
    side = json_splice.Splice.side

    def counted(self: json_splice.Splice, raw: bytes) -> JsonDocument | None:
        doc = side(self, raw)
        if doc is not None:
            seen.append(1)
        return doc

    monkeypatch.setattr(json_splice.Splice, "side", counted)
    return seen


def _both(base: bytes, ours: bytes, theirs: bytes, path: str) -> tuple[Any, Any]:
    fast = merge_files(base, ours, theirs, path=path)
    real = files._spliced
    files._spliced = lambda inputs, fmt: (None, None, None)  # type: ignore[assignment]
    try:
        full = merge_files(base, ours, theirs, path=path)
    finally:
        files._spliced = real
    return fast, full


def _same(fast: Any, full: Any) -> None:
    assert fast.output == full.output
    assert (fast.status, fast.clean, fast.reasons) == (full.status, full.clean, full.reasons)
    assert fast.report() == full.report()


def _event(i: int, side: str, month: int, tail: Any = None) -> dict[str, Any]:
    e: dict[str, Any] = {
        "eventId": f"evt-{side}-{i:04d}",
        "targetId": f"entry-{i % 7}",
        "operation": "append" if i < 7 else "update",
        "kind": "learning",
        "narrative": {"Overview": f"Lesson {i} from {side} <é>."},
        "createdAt": f"2025-{month:02d}-{1 + i % 28:02d}T{i % 24:02d}:00:00Z",
        "confidence": 0.5,
    }
    if tail is not None:
        e["tags"] = tail
    return e


def _playbook(events: list[dict[str, Any]], **dump: Any) -> dict[str, Any]:
    return {
        "vContextInfo": {"version": "0.4"},
        "playbook": {"version": 1, "created": "2025-01-01T00:00:00Z", "items": events},
    }


def _texts(
    base: list[Any],
    ours: list[Any],
    theirs: list[Any],
    dump: dict[str, Any],
    newline: str,
    bom: str,
) -> tuple[bytes, bytes, bytes]:
    def text(events: list[Any]) -> bytes:
        out = json.dumps(_playbook(events), **dump) + "\n"
        return (bom + out.replace("\n", newline)).encode()

    return text(base), text(ours), text(theirs)


LAYOUTS: dict[str, tuple[dict[str, Any], str, str]] = {
    "indent 2": ({"indent": 2, "ensure_ascii": False}, "\n", ""),
    "indent 4, ascii": ({"indent": 4}, "\n", ""),
    "tabs, CRLF": ({"indent": "\t", "ensure_ascii": False}, "\r\n", ""),
    "BOM": ({"indent": 2, "ensure_ascii": False}, "\n", "\ufeff"),
    "one line": ({"separators": (",", ":"), "ensure_ascii": False}, "\n", ""),
}


def _cases() -> Iterator[tuple[str, list[Any], list[Any], list[Any]]]:
    base = [_event(i, "base", 1 + i % 12) for i in range(12)]
    ours = [_event(i, "ours", 1 + (i * 5) % 12) for i in range(4)]
    theirs = [_event(i, "theirs", 1 + (i * 7) % 12) for i in range(5)]
    yield "both append, times interleave", base, base + ours, base + theirs
    yield "both append the same event", base, base + ours, base + ours[:1] + theirs
    changed = {**ours[0], "confidence": 0.9}
    yield "one event added twice, differently (add/add)", base, base + ours, [*base, changed]
    edited = [*base[:3], {**base[3], "kind": "edited"}, *base[4:]]
    yield "ours also edits a base event (no splice for ours)", base, edited + ours, base + theirs
    tags = [_event(i, "base", 1, ["a", "b"]) for i in range(3)]
    yield "events end with an array", tags, tags + ours, tags + theirs
    yield (
        "numbers: -0, 1e5, long integer",
        base,
        [*base, {**ours[0], "n": [-0, 100000.0, 10**30]}],
        base + theirs,
    )


@pytest.fixture
def kept_prefixes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the arrays rendered without scanning their kept elements."""
    seen: list[int] = []
    kept = JsonDocument._kept_prefix

    def counted(self: JsonDocument, *args: Any) -> Any:
        found = kept(self, *args)
        if found is not None:
            seen.append(1)
        return found

    monkeypatch.setattr(JsonDocument, "_kept_prefix", counted)
    return seen


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("case", [c[0] for c in _cases()])
def test_m6_spliced_append_only_merge_is_byte_identical_to_the_full_path(
    layout: str, case: str, spliced_sides: list[int], kept_prefixes: list[int]
) -> None:
    _, base, ours, theirs = next(c for c in _cases() if c[0] == case)
    dump, newline, bom = LAYOUTS[layout]
    b, o, t = _texts(base, ours, theirs, dump, newline, bom)
    kept_prefixes.clear()
    fast, full = _both(b, o, t, "playbook.vcontext.json")
    _same(fast, full)
    assert spliced_sides, "the splice path was not taken"
    if case.startswith("both append") and layout != "one line":
        assert kept_prefixes, "the kept elements were scanned"
    if "add/add" not in case:
        assert fast.clean


def test_m6_splice_reads_each_side_exactly_as_a_full_parse() -> None:
    base = [_event(i, "base", 1) for i in range(5)]
    b, o, t = _texts(
        base, [*base, _event(1, "o", 2)], [*base, _event(2, "t", 3)], {"indent": 2}, "\n", ""
    )
    found_base, found = json_splice.splices(b)
    assert found_base is not None
    assert found
    log = found[0]
    for raw in (o, t):
        doc = log.side(raw)
        assert doc is not None
        assert doc.text == raw.decode()
        assert doc.data == parse(raw, format="json").data
        # kept elements are the base's very objects: the merge pairs them by identity
        assert doc.data["playbook"]["items"][0] is found_base.data["playbook"]["items"][0]


@pytest.mark.parametrize(
    "added",
    [
        ', {"eventId": 1, "eventId": 2}',  # a repeated key
        ", {nope}",  # not JSON
        ', {"n": NaN}',  # not JSON either
        " ,",  # nothing after the comma
        "",  # nothing added: not a splice
    ],
)
def test_m16_splice_refuses_what_it_cannot_prove(added: str) -> None:
    """Text that is not the base's with valid elements appended is never spliced: the
    full path parses it and says why (read_back: None, so the result is re-parsed)."""
    base = [_event(i, "base", 1) for i in range(3)]
    b = json.dumps(_playbook(base), indent=2).encode()
    _, found = json_splice.splices(b)
    log = found[0]
    text = log.prefix + added + log.suffix
    assert log.read_back(text) is None
    assert log.side(text.encode()) is None


def test_m16_splice_read_back_is_the_full_parse_of_the_result() -> None:
    base = [_event(i, "base", 1) for i in range(3)]
    b = json.dumps(_playbook(base), indent=2).encode()
    _, found = json_splice.splices(b)
    log = found[0]
    text = log.prefix + ",\n" + json.dumps(_event(9, "x", 2)) + log.suffix
    assert log.read_back(text) == parse(text, format="json").data
    assert log.read_back("{}") is None


def _appended_copies(data: Any, log: json_splice.Splice, who: str) -> Any:
    """The document's data with a changed copy of the log's last element appended."""
    element = copy.deepcopy(log.log[-1])
    if isinstance(element, dict):
        for key, value in list(element.items()):
            if isinstance(value, str):
                element[key] = f"{value} ({who})"
    else:
        element = f"{who}: {json.dumps(element)}"

    def grow(node: Any, depth: int) -> Any:
        if depth == len(log.chain):
            return [*node, element]
        step = log.chain[depth]
        out = dict(node) if isinstance(node, dict) else list(node)
        out[step] = grow(node[step], depth + 1)
        return out

    return grow(data, 0)


@pytest.mark.corpus
def test_m6_splice_on_every_corpus_json_document_ending_with_an_array(
    shared_dir: Path, spliced_sides: list[int]
) -> None:
    """Every corpus JSON document whose text ends with an array of two or more: ours and
    theirs each append an element (written by the minimal-edit writer); both paths agree."""
    merged = 0
    for path in sorted((shared_dir / "corpus").rglob("*.json")):
        raw = path.read_bytes()
        try:
            base = parse(raw, format="json")
        except ParseError:
            continue
        _, found = json_splice.splices(raw)
        for log in found:
            sides = []
            for who in ("ours", "theirs"):
                assert isinstance(base, JsonDocument)
                text = base.render(_appended_copies(base.data, log, who))
                sides.append(text.encode())
            fast, full = _both(raw, sides[0], sides[1], path.name)
            try:
                _same(fast, full)
            except AssertionError as exc:
                raise AssertionError(f"{path}: {exc}") from None
            merged += 1
    assert merged >= 20, merged
    assert spliced_sides


def test_m1_a_space_before_a_comma_is_rendered_as_the_full_path_renders_it(
    spliced_sides: list[int], kept_prefixes: list[int]
) -> None:
    """The renderer writes "," right after an element: where the text has a space before a
    comma, the kept elements are scanned as before (so both paths write the same bytes)."""
    _, base, ours, theirs = next(_cases())
    texts = _texts(base, ours, theirs, {"indent": 2}, "\n", "")
    b, o, t = (x.replace(b"},\n", b"} ,\n") for x in texts)
    kept_prefixes.clear()
    fast, full = _both(b, o, t, "playbook.vcontext.json")
    _same(fast, full)
    assert spliced_sides
    assert not kept_prefixes
