"""The TRON fast path gives exactly what the lark grammar gives, and gives up on everything else.

tron_parser.parse_data_fast (recursive descent, None when it gives up) and
parse_data_lark (the reference grammar, the only source of errors) are run side by side.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_vcontext.codecs import tron
from git_vcontext.codecs.tron import parser as tron_parser
from git_vcontext.codecs.tron.header import HeaderError, read_header
from git_vcontext.errors import ParseError
from git_vcontext.values import MAX_DEPTH
from helpers.tron_documents import DOCUMENTS, FLAVORS, JSON, ordered

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# Hand-written texts with what dumps never writes: named arguments, comments, trailing
# commas, bare keys, escapes, pairs without commas, nested classes, numbers of every form.
HANDWRITTEN = [
    'class A: x, y\nclass B(A): z\n\nkey: A(1, y=B(null, "s", z=[1, 2,],),)  # c\n'
    'k2: {a: 1, "b\\n": -2.5e3,}\n',
    'class P: id, name\n[P("a", name="b"), P(id="c", name=null), P(null, null), {x: true}]',
    "class T: a\n# only a comment line\nt: T([])\nu: T({})\nv: T(T(T(false)))",
    '{"a": [0, -0, 1.0, 1E+2, 12e-1], "é\\u00e9": "\\ud834\\udd1e", "": ""}',
    "a: 1 b: 2, c: [3]",
    'class C: "with space", plain\nc: C(plain="y", "with space"="x")',
    '"just a string"',
    "123",
]

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def made_by_paths(data: Any, made_by: dict[int, str]) -> dict[str, str]:
    """made_by keyed by where each object sits (ids differ between two parses)."""
    out: dict[str, str] = {}
    stack: list[tuple[str, Any]] = [("$", data)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            if id(node) in made_by:
                out[path] = made_by[id(node)]
            stack += [(f"{path}.{k!r}", v) for k, v in node.items()]
        elif isinstance(node, list):
            stack += [(f"{path}[{i}]", v) for i, v in enumerate(node)]
    return out


def both_paths(text: str, absent_null: bool) -> tuple[Any, Any]:
    """(fast result or None, lark result or the ParseError it raised); results as comparables."""
    header = read_header(text)
    fast: Any = tron_parser.parse_data_fast(text, header, absent_null=absent_null)
    try:
        lark: Any = tron_parser.parse_data_lark(text, header, absent_null=absent_null)
    except ParseError as exc:
        lark = exc
    if fast is not None:
        fast = (ordered(fast[0]), made_by_paths(*fast))
    if not isinstance(lark, ParseError):
        lark = (ordered(lark[0]), made_by_paths(*lark))
    return fast, lark


def assert_same_on_both_paths(text: str) -> bool:
    """Both paths agree for both dialect rules; True when the text parses."""
    parses = []
    for absent_null in (False, True):
        fast, lark = both_paths(text, absent_null)
        if isinstance(lark, ParseError):
            assert fast is None, f"the fast path accepts what lark rejects ({lark}): {text!r}"
        else:
            assert fast == lark, f"the paths differ on {text!r}"
        parses.append(fast is not None)
    return all(parses)


@SETTINGS
@given(value=JSON | DOCUMENTS, flavor=FLAVORS)
def test_fast_path_serves_every_written_tron_with_the_data_and_classes_lark_gives(
    value: Any, flavor: Any
) -> None:
    text = tron.dumps(value, flavor)
    assert assert_same_on_both_paths(text), f"the fast path gave up on {text!r}"


@pytest.mark.parametrize("text", HANDWRITTEN)
def test_fast_path_serves_handwritten_tron_the_writer_never_produces(text: str) -> None:
    assert assert_same_on_both_paths(text)


_PIECES = [*'"(){}[],:=#\n\\ -.0eEa_', "null", "A(", "x=", "1e999", "0" * 5000, "\\u"]


@st.composite
def mutants(draw: st.DrawFn) -> str:
    """A valid text with 1-3 small edits: delete, insert or duplicate a character or token."""
    base = draw(
        st.sampled_from(HANDWRITTEN)
        | st.builds(tron.dumps, JSON | DOCUMENTS, FLAVORS).filter(lambda t: len(t) < 2000)
    )
    text = base
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, max(len(text) - 1, 0)))
        edit = draw(st.sampled_from(["delete", "insert", "duplicate", "token"]))
        if edit == "delete":
            text = text[:at] + text[at + 1 :]
        elif edit == "insert":
            text = text[:at] + draw(st.sampled_from(_PIECES)) + text[at:]
        elif edit == "duplicate":
            text = text[:at] + text[at : at + 1] + text[at:]
        else:  # delete or duplicate the token that starts at or after ``at``
            tokens = list(tron_parser._TOKEN().finditer(text, at))
            if tokens:
                tok = tokens[0]
                keep = draw(st.booleans())
                rest = tok.group() + text[tok.end() :] if keep else text[tok.end() :]
                text = text[: tok.start()] + rest
    return text


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=mutants())
def test_mutated_tron_either_fails_on_both_paths_or_parses_the_same_on_both(text: str) -> None:
    try:
        read_header(text)
    except HeaderError:
        return  # the data section is never reached
    assert_same_on_both_paths(text)


def _tron_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.tron"))


def test_every_tron_example_parses_identically_on_both_paths() -> None:
    files = _tron_files(EXAMPLES)
    assert files, "tests/examples holds TRON files"
    for path in files:
        text = path.read_text(encoding="utf-8-sig")
        assert_same_on_both_paths(text)


@pytest.mark.corpus
def test_every_corpus_tron_file_parses_identically_on_both_paths(shared_dir: Path) -> None:
    files = _tron_files(shared_dir / "corpus")
    assert files, "the corpus holds TRON files"
    served = 0
    for path in files:
        text = path.read_text(encoding="utf-8-sig")
        try:
            read_header(text)
        except HeaderError:
            continue
        served += assert_same_on_both_paths(text)
    assert served, "the fast path serves the corpus"


def test_errors_still_come_from_the_grammar_with_their_position() -> None:
    text = 'class A: x, y\na: A(1, 2, 3)\nb: {"k": 1, "k": 2}\n'
    assert tron_parser.parse_data_fast(text, read_header(text), absent_null=True) is None
    with pytest.raises(ParseError) as err:
        tron.loads(text)
    assert "A takes 2 arguments, got 3" in str(err.value)
    assert err.value.line == 2


def test_fast_path_gives_up_instead_of_raising_recursion_error() -> None:
    text = "[" * 20_000 + "]" * 20_000
    assert tron_parser.parse_data_fast(text, read_header(text), absent_null=False) is None


def test_fast_path_serves_nesting_up_to_the_depth_limit() -> None:
    text = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert tron_parser.parse_data_fast(text, read_header(text), absent_null=False) is not None
    expected: list[Any] = []
    for _ in range(MAX_DEPTH - 1):
        expected = [expected]
    assert tron.loads(text).data == expected


def test_the_depth_limit_counts_instances_objects_and_arrays_alike() -> None:
    """The descent counts its levels as it goes (issue 32: no pass over the tokens first):
    ``Name(``, ``{`` and ``[`` each one level, up to the limit served, one more given up
    and located by the grammar."""

    def nested(levels: int) -> str:
        opening = ("W(", "{k: ", "[")
        closing = (")", "}", "]")
        heads = "".join(opening[i % 3] for i in range(levels))
        tails = "".join(closing[i % 3] for i in reversed(range(levels)))
        return f"class W: v\nroot: {heads}1{tails}\n"

    served = nested(MAX_DEPTH)
    assert tron_parser.parse_data_fast(served, read_header(served), absent_null=True)
    assert tron_parser.parse_data(served, read_header(served), absent_null=True)
    deep = nested(MAX_DEPTH + 1)
    assert tron_parser.parse_data_fast(deep, read_header(deep), absent_null=True) is None
    with pytest.raises(ParseError, match=f"nesting deeper than {MAX_DEPTH} levels") as err:
        tron.loads(deep)
    assert err.value.line == 2


def test_fast_path_parses_in_threads_without_a_lock() -> None:
    texts = [tron.dumps({"items": [{"id": f"t{i}", "n": j} for j in range(50)]}) for i in range(8)]
    expected = [tron.loads(t).data for t in texts]
    results: dict[int, list[Any]] = {}

    def work(i: int) -> None:
        results[i] = [tron.loads(texts[i]).data for _ in range(20)]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: [value] * 20 for i, value in enumerate(expected)}


def test_a_document_that_parses_does_not_import_lark() -> None:
    code = (
        "import sys\n"
        "from git_vcontext.codecs import tron\n"
        "tron.loads('class A: x\\na: A(1)\\nb: [A(2), {c: null}]')\n"
        "print('lark' in sys.modules)\n"
        "try:\n"
        "    tron.loads('a: A(1)')\n"
        "except Exception:\n"
        "    print('lark' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
