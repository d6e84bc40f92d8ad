"""codecs/tron/quick.py: the C scanner's reading of a TRON data section is fast.parse's.

Whatever ``quick.parse`` reads, ``fast.parse`` reads too, to the same data (types, key
order) and the same classes for each object (``made_by``); fast.parse is held to lark's
grammar by tests/unit/test_tron_fast.py. Random documents in both flavours, the same
texts with a character inserted or removed (so most are invalid, or valid otherwise),
hand-made traps, and every TRON document of the corpus.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_vcontext.codecs import tron
from git_vcontext.codecs.tron import fast, quick
from git_vcontext.codecs.tron.header import HeaderError, read_header
from git_vcontext.errors import ParseError
from git_vcontext.values import MAX_DEPTH
from helpers.tron_documents import DOCUMENTS, FLAVORS, JSON, object_pairs, ordered

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NOISE = st.sampled_from([*'()[]{},:="#\\ \n1-.eaNxI', "()", "A(", "true", "null", ",]"])


def _check(text: str) -> bool:
    """quick's reading, where it reads ``text``, is fast's; True when quick read it."""
    try:
        header = read_header(text)
    except HeaderError:
        return False
    start = header.data_start
    if start >= len(text):
        return False
    for absent_null in (True, False):
        got = quick.parse(text, start, header.classes, absent_null)
        if got is None:
            continue
        want = fast.parse(text, start, header.classes, absent_null)
        assert want is not None, text
        assert ordered(got[0]) == ordered(want[0]), text
        pairs = object_pairs(got[0], want[0])
        assert [got[1].get(id(x)) for x, _ in pairs] == [want[1].get(id(y)) for _, y in pairs]
        assert len(got[1]) == len(want[1])
        return True
    return False


@SETTINGS
@given(value=DOCUMENTS | JSON, flavor=FLAVORS)
def test_quick_reads_what_tron_dumps_wrote_as_fast_does(value: Any, flavor: Any) -> None:
    text = tron.dumps(value, flavor)
    read = _check(text)
    doc = tron.loads(text)
    assert ordered(doc.data) == ordered(tron.loads(text).data)
    if '\\"' not in text and "#" not in text and "=" not in text:
        assert read, text  # written by us, plain: read by the scanner


@SETTINGS
@given(value=DOCUMENTS, flavor=FLAVORS, data=st.data())
def test_quick_never_reads_a_changed_text_otherwise_than_fast(
    value: Any, flavor: Any, data: st.DataObject
) -> None:
    text = tron.dumps(value, flavor)
    header = len(tron.loads(text).header)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(header, len(text)))
        if data.draw(st.booleans()) and at < len(text):
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + data.draw(NOISE) + text[at:]
    _check(text)


CLASSES = "class A: x\nclass B: x, y\n\n"


_LEFT = [
    "v: A(1]}",  # a ")" missing, "]}" closing the instance: not JSON's nesting
    "v: [A(1]}, 2)]",
    "v: A(1, 2)",  # too many arguments
    "v: B(1)",  # too few
    "v: C(1)",  # unknown class
    "v: A (1)",  # a space before "(": fast decides
    "v: A(x=1)",  # a named argument
    "v: A(1,)",
    "v: [1, 2,]",
    "v: {a: 1}",  # a bare key in an object
    'v: {"a": 1, "a": 2}',  # a repeated key
    "v: 1\nv: 2",
    "v: NaN",
    "v: -Infinity",
    "v: [1 2]",
    "v: A()",  # every class has a property: no instance without arguments
    "v: [A( ), 1]",
    'v: "a\\"b"',  # an escaped quote: fast cuts it
    "v: 1 # a comment",
    "true: 1",
]


@pytest.mark.parametrize("data", _LEFT)
def test_quick_leaves_what_is_not_plainly_json_to_fast(data: str) -> None:
    text = CLASSES + data + "\n"
    header = read_header(text)
    assert quick.parse(text, header.data_start, header.classes, True) is None
    _check(text)


_READ = [
    ("v: A(1)", {"v": {"x": 1}}),
    ("v: A(null)", {"v": {}}),  # the dialect's positional null: absent
    ("v: [A(1), B(A(2), null)]", {"v": [{"x": 1}, {"x": {"x": 2}}]}),
    ("v: B(A([]), {})", {"v": {"x": {"x": []}, "y": {}}}),
    ('v: B("(", ")")', {"v": {"x": "(", "y": ")"}}),  # brackets in strings stay
    ("a: 1, b: 2\nc: 3", {"a": 1, "b": 2, "c": 3}),
    ('"quoted key": -2.5', {"quoted key": -2.5}),
]


@pytest.mark.parametrize(("data", "expected"), _READ)
def test_quick_reads_instances_and_pairs(data: str, expected: Any) -> None:
    text = CLASSES + data + "\n"
    header = read_header(text)
    got = quick.parse(text, header.data_start, header.classes, True)
    assert got is not None
    assert ordered(got[0]) == ordered(expected)
    assert _check(text)


def test_quick_gives_nesting_deeper_than_the_limit_to_fast() -> None:
    for depth in (MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1):
        for opening, closing in (("[", "]"), ("A(", ")")):
            text = CLASSES + "v: " + opening * depth + "1" + closing * depth + "\n"
            header = read_header(text)
            got = quick.parse(text, header.data_start, header.classes, True)
            want = fast.parse(text, header.data_start, header.classes, True)
            assert (got is None) == (want is None), (depth, opening)


def test_the_merge_reads_a_todo_list_s_sides_by_the_scanner(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The benchmark's documents (a 200-item list with classes): never cut into tokens."""
    items = [
        {"id": f"t{i}", "title": f"Task {i}", "status": "pending", "tags": ["backend"],
         "narrative": {"Background": f"Context for task {i}."}}
        for i in range(200)
    ]  # fmt: skip
    text = tron.dumps({"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}})

    def no_tokens(*args: Any, **kw: Any) -> None:
        raise AssertionError("cut into tokens")

    monkeypatch.setattr(fast, "parse", no_tokens)
    doc = tron.loads(text)
    assert doc.data["todoList"]["items"] == items
    assert doc.made_by[id(doc.data["todoList"]["items"][0])] != ""


_TRON_MERGE = """
import sys
from git_vcontext.codecs import tron
from git_vcontext.merging.files import merge_files
items = [{"id": f"t{i}", "title": f"Task {i}", "status": "pending", "tags": ["backend"],
          "narrative": {"Background": f"Context for task {i}."}} for i in range(200)]
base = tron.loads(tron.dumps({"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}}))
sides = []
for side, field, value in (("o", "status", "completed"), ("t", "title", "Renamed")):
    data = tron.loads(base.source()).data
    for item in data["todoList"]["items"][::10]:
        item[field] = value
    data["todoList"]["items"].append({"id": side, "title": side, "status": "pending"})
    sides.append(base.render(data).encode())
out = merge_files(base.source().encode(), *sides, path="todo.vcontext.tron")
assert out.clean, out.reasons
print(" ".join(sorted(m for m in sys.modules if m.startswith(("git_vcontext.codecs", "_cont")))))
"""


def test_a_merge_of_tron_twins_loads_no_token_cutter_for_the_parse() -> None:
    """The sides, the base and the merged result are read by the scanner, and the editor
    cuts ours' tokens itself: ``fast`` (the parse that cuts tokens) is never loaded."""
    done = subprocess.run(
        [sys.executable, "-c", _TRON_MERGE], capture_output=True, text=True, check=True
    )
    loaded = done.stdout.split()
    assert "git_vcontext.codecs.tron.quick" in loaded, loaded
    assert "git_vcontext.codecs.tron.edit" in loaded, loaded  # a minimal edit was written
    assert "git_vcontext.codecs.tron.fast" not in loaded, loaded
    # nor the parse memo's context variable (codecs.reuse: only a ReusedParses block)
    assert "_contextvars" not in loaded, loaded


@pytest.mark.corpus
def test_quick_reads_every_corpus_tron_document_as_fast_does(shared_dir: Path) -> None:
    read = total = 0
    for path in sorted((shared_dir / "corpus").rglob("*.tron")):
        text = path.read_bytes().decode("utf-8", "replace")
        try:
            tron.loads(text)
        except ParseError:
            continue
        total += 1
        read += _check(text)
    assert total >= 100, total
    assert read >= total // 3, (read, total)


_SCANNER_ERRORS = [
    "v: [1, 2,]",  # a trailing comma: TRON's, not JSON's
    'v: {"a": 1,}',
    "v: [A(1,), 2]",
    "v: [1,, 2]",
    "v: [tru]",
    'v: {"a" 1}',
    "v: [1, 2",
]

_READ_IN_A_FRESH_PROCESS = """
import sys
if sys.argv[1] == "loaded":
    import json.decoder  # what CPython 3.12+'s C scanner imports itself on an error
from git_vcontext.codecs import tron
from git_vcontext.codecs.tron import quick
from git_vcontext.codecs.tron.header import read_header
from git_vcontext.errors import ParseError
assert ("json.decoder" in sys.modules) == (sys.argv[1] == "loaded")
out = []
for text in sys.argv[2].split("\\x1e"):
    header = read_header(text)
    declined = quick.parse(text, header.data_start, header.classes, True) is None
    try:
        out.append([declined, tron.loads(text).data])
    except ParseError as exc:
        out.append([declined, exc.one_line()])
print(repr(out))
"""


def test_a_scanner_error_leaves_the_text_to_fast_whatever_the_scanner_imports() -> None:
    """The C scanner raises its error class from ``json.decoder``: CPython 3.11 without it
    loaded raises a SystemError, 3.12+ imports it (and ``re``) first. Either way quick
    declines the text, and the reading (data or error) is fast's, in a fresh process
    with or without ``json.decoder`` loaded (issue 32 point 4)."""
    texts = [CLASSES + data + "\n" for data in _SCANNER_ERRORS]
    expected = []
    for text in texts:
        try:
            expected.append([True, tron.loads(text).data])
        except ParseError as exc:
            expected.append([True, exc.one_line()])
    for state in ("fresh", "loaded"):
        done = subprocess.run(
            [sys.executable, "-c", _READ_IN_A_FRESH_PROCESS, state, "\x1e".join(texts)],
            capture_output=True,
            text=True,
            check=True,
        )
        assert ast.literal_eval(done.stdout) == expected, (state, done.stderr)
    assert any(isinstance(e[1], dict) for e in expected)  # some read (trailing commas)
    assert any(isinstance(e[1], str) for e in expected)  # some refused, with the place


def test_quick_rewrites_class_by_class_as_instance_by_instance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rewriting class by class (``_as_json_by_class``: a text with many instances of
    few classes, as the benchmark's) reads what fast reads, or leaves the text to fast:
    every test above again with it taken for any text (issue 32)."""
    monkeypatch.setattr(quick, "BY_CLASS", -1)
    test_quick_reads_what_tron_dumps_wrote_as_fast_does()
    test_quick_never_reads_a_changed_text_otherwise_than_fast()
    for data, expected in _READ:
        test_quick_reads_instances_and_pairs(data, expected)
    for data in _LEFT:
        text = CLASSES + data + "\n"
        header = read_header(text)
        assert quick.parse(text, header.data_start, header.classes, True) is None, data
        _check(text)
    test_quick_gives_nesting_deeper_than_the_limit_to_fast()


@pytest.mark.corpus
def test_quick_by_class_reads_every_corpus_tron_document_as_fast_does(
    monkeypatch: pytest.MonkeyPatch, shared_dir: Path
) -> None:
    monkeypatch.setattr(quick, "BY_CLASS", -1)
    test_quick_reads_every_corpus_tron_document_as_fast_does(shared_dir)


def test_a_name_glued_to_a_longer_word_or_a_blank_before_the_list_goes_to_fast(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``XA(`` (A a class, XA not), ``BA(`` (both classes), ``A (``, ``A( )``, and a class
    whose name ends another's: the rewriting class by class leaves the first ones to fast
    and reads the last as the loop does."""
    monkeypatch.setattr(quick, "BY_CLASS", -1)
    classes = "class A: x\nclass BA: x\n\n"
    for data in ("v: XA(1)", "v: [1, xA(1)]", "v: A (1)", "v: A( )", "k: 1, zA(2)"):
        text = classes + data + "\n"
        header = read_header(text)
        assert quick.parse(text, header.data_start, header.classes, True) is None, data
        _check(text)
    text = classes + "v: [BA(A(1)), A(BA(2))]\n"
    header = read_header(text)
    got = quick.parse(text, header.data_start, header.classes, True)
    assert got is not None
    assert got[0] == {"v": [{"x": {"x": 1}}, {"x": {"x": 2}}]}
    assert _check(text)
    assert sorted(got[1].values()) == ["A", "A", "BA", "BA"]


_TRAILING_COMMAS = [
    "v: [1, 2,]",
    'v: {"a": 1,}',
    "v: [A(1,), 2]",
    "v: [1, 2,\n  ]",
    "v: B(A(1), 2,\n\t\r\n)",
    'v: {"a": [1],\n}',
]


@pytest.mark.parametrize("data", _TRAILING_COMMAS)
def test_a_trailing_comma_is_left_to_fast_before_the_scanner_runs(
    data: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trailing comma (TRON's, not JSON's) is seen in the text outside strings before
    the rewriting where the C scanner imports json.decoder and re for the error it
    raises there (CPython 3.12+): it is not run; fast reads the text."""
    text = CLASSES + data + "\n"
    header = read_header(text)

    def no_scan(*args: object) -> None:
        raise AssertionError("the scanner ran on a text with a trailing comma")

    monkeypatch.setattr(quick, "SCANNER_IMPORTS_ON_ERROR", True)  # as on CPython 3.12+
    monkeypatch.delitem(sys.modules, "json.decoder", raising=False)  # (pytest loaded it)
    monkeypatch.setattr(quick, "_value", no_scan)
    monkeypatch.setattr(quick, "_pairs", no_scan)
    assert quick._as_json(text[header.data_start :], header.classes) is None
    assert quick.parse(text, header.data_start, header.classes, True) is None
    _check(text)


def test_a_comma_before_a_bracket_inside_a_string_is_no_trailing_comma() -> None:
    for data in ['v: ",]"', 'v: [",}", ",)", 1]', 'v: A(", ]")']:
        text = CLASSES + data + "\n"
        header = read_header(text)
        assert quick.parse(text, header.data_start, header.classes, True) is not None, data
        _check(text)


def test_a_tron_text_with_trailing_commas_loads_no_json_decoder() -> None:
    """What the merge driver reading a hand-written TRON text pays: no ``json.decoder``
    (nor ``re``) on any CPython, the trailing comma seen before the scanner runs."""
    texts = [CLASSES + data + "\n" for data in _TRAILING_COMMAS]
    script = (
        "import sys\n"
        "before = set(sys.modules)\n"  # (site may have loaded re)
        "from git_vcontext.codecs import tron\n"
        "for text in sys.argv[1].split('\\x1e'):\n"
        "    tron.loads(text)\n"
        "new = set(sys.modules) - before\n"
        "print('json.decoder' in new, 're' in new)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "\x1e".join(texts)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == ["False", "False"], done.stderr
