"""TRON's hand-written scanners (codecs/tron/lexer.py, issue 32) give exactly what the regular
expressions they stand for give: the data section's tokens (the fast parser's, with the end
marker), the editor's tokens with their offsets, the header's readers, the editor's style
readers and the writer's names; on generated TRON (with comments, escapes, odd whitespace
and characters that start no token mixed in), on every TRON file of the tests' examples and
of the corpus. Where a scanner says it does not read a text (None), the regular expression
cuts it: the answer is the same either way, and so are the parses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_vcontext.codecs import tron
from git_vcontext.codecs.tron import edit, fast, lexer, names, plan, spans
from git_vcontext.codecs.tron.header import HeaderError, read_header
from git_vcontext.errors import ParseError
from helpers.tron_documents import DOCUMENTS, FLAVORS, JSON

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# The expressions the hand-written readers replaced, as they were.
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"')
CLASS = re.compile(r"class[ \t]+")
SKIP = re.compile(r"(?:[ \t\r\n;]+|#[^\n]*)*")
BLANK = re.compile(r"[ \t\r]*(?:#[^\n]*)?")
PAIR_START = re.compile(r'(?:[A-Za-z_][A-Za-z0-9_]*|"(?:[^"\\\x00-\x1f]|\\.)*")[ \t\r\n]*:')
NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
NOT_NAME = re.compile(r"[^A-Za-z0-9_]+")
LETTERS = re.compile(r"[A-Z][0-9]*")

# What generated TRON never holds: comments (with quotes in them), escaped quotes and
# backslashes, whitespace str.split cuts at but TRON does not skip, control characters,
# words that are neither names nor numbers, class rows.
PIECES = [
    *'"(){}[],:=#\n\\ -.0eEa_;\t\r',
    "# a comment\n",
    '# "quoted" in a comment\n',
    "#",
    '\\"',
    '"\\\\"',
    '"a\\"b"',
    "\x0c",
    "\xa0",
    "\u2028",
    "\x00",
    "\x01",
    "\x7f",
    "é",
    "01",
    "1.",
    "1e",
    "-0.5E+3",
    "1.5.3",
    "a-b",
    "true",
    "null",
    "A(",
    "x=",
    "\n  Row(1, 2),  # c\r\n",
    "\nclass B: x\n",
]


@st.composite
def texts(draw: st.DrawFn) -> str:
    """Generated TRON with up to 4 pieces inserted anywhere."""
    text = draw(st.builds(tron.dumps, JSON | DOCUMENTS, FLAVORS).filter(lambda t: len(t) < 3000))
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(PIECES)) + text[at:]
    return text


def tron_files() -> list[Path]:
    return sorted(EXAMPLES.rglob("*.tron"))


def corpus_tron(shared: Path) -> list[Path]:
    found = sorted((shared / "corpus").rglob("*.tron"))
    if not found:
        pytest.skip("no TRON file in the corpus")
    return found


def upto_end(tokens: list[str]) -> list[str]:
    """Tokens up to the first end marker "" (findall repeats it after skipped text)."""
    return tokens[: tokens.index("") + 1]


def data_start(text: str) -> int:
    try:
        return read_header(text).data_start
    except HeaderError:
        return 0


def clean(text: str, start: int, end: int) -> bool:
    """Only tokens, comments and TRON's whitespace: every token the expression finds is one
    of TRON's, and no character is a control character or whitespace TRON does not skip
    (other than a tab, CR or LF outside strings)."""
    stretch = text[start:end]
    if any(
        (c.isspace() and c not in " \t\r\n") or (c < " " and c not in "\t\r\n") for c in stretch
    ):
        return False
    found = fast.SCAN().findall(stretch)
    tokens = upto_end(found)[:-1]
    if any(t[0] == '"' and ("\t" in t or "\r" in t) for t in tokens):
        return False  # a tab or CR after a backslash: the expression takes it, the scanner not
    if not all(
        (t[0] == '"' and len(t) > 1) or t in "{}[]():,=" or lexer.is_name(t) or lexer.is_number(t)
        for t in tokens
    ):
        return False
    words, starts, ends = spans.regex_tokens(text, start, end)
    word = [t[0] not in '"{}[]():,=' for t in words]
    # two names or numbers glued together ("01", "a-1") are not read by hand
    return not any(
        word[i] and word[i + 1] and ends[i] == starts[i + 1] for i in range(len(words) - 1)
    )


def parses(text: str) -> bool:
    try:
        tron.loads(text)
    except ParseError:
        return False
    return True


def assert_tokens_as_the_expressions(text: str, start: int, end: int | None = None) -> None:
    """The fast parser's tokens and the editor's tokens with offsets, as by the expressions."""
    end = len(text) if end is None else end
    if end == len(text):
        expected = upto_end(fast.SCAN().findall(text, start))
        assert upto_end(fast.scan_tokens(text, start)) == expected
        found = lexer.words(text, start, end)
        if found is not None:
            assert [*found, ""] == expected
    reference = spans.regex_tokens(text, start, end)
    cut = lexer.cut(text, start, end, True)
    if clean(text, start, end):
        assert cut is not None  # the scanner reads every text that is only tokens
    if cut is not None:
        assert cut[0] == reference[0]
        assert cut[1] == reference[1]
    plain = lexer.cut(text, start, end, False)
    if plain is not None:
        assert plain[0] == reference[0]
        if end == len(text):
            assert [*plain[0], ""] == upto_end(fast.SCAN().findall(text, start))
    if end == len(text) and start == data_start(text) and parses(text):  # as the editor does
        made = spans.Spans(text, start)
        assert (made.tokens, made.starts, made.ends) == reference


def assert_readers_as_the_expressions(text: str, pos: int) -> None:
    """The header's readers and the dialect's test at ``pos``, as by the expressions."""
    name = NAME.match(text, pos)
    assert lexer.name_end(text, pos) == (name.end() if name else pos)
    string = STRING.match(text, pos)
    assert lexer.string_end(text, pos) == (string.end() if string else -1)
    opened = CLASS.match(text, pos)
    assert lexer.class_end(text, pos) == (opened.end() if opened else -1)
    assert lexer.skip_end(text, pos) == SKIP.match(text, pos).end()  # type: ignore[union-attr]
    assert lexer.blank_end(text, pos) == BLANK.match(text, pos).end()  # type: ignore[union-attr]
    assert lexer.pair_starts(text, pos) == (PAIR_START.match(text, pos) is not None)
    assert edit.indentation(text, pos) == (
        m.group(1) if (m := edit.INDENTED().search(text, pos)) else None
    )
    for end in (len(text), pos + 7):
        assert edit.has_row(text, pos, end) == (edit.ROW().search(text, pos, end) is not None)


@SETTINGS
@given(text=texts())
def test_tokens_are_the_regular_expressions_tokens_on_generated_tron(text: str) -> None:
    assert_tokens_as_the_expressions(text, data_start(text))
    assert_tokens_as_the_expressions(text, 0)


@SETTINGS
@given(text=texts(), data=st.data())
def test_tokens_of_a_stretch_are_the_regular_expressions_tokens(
    text: str, data: st.DataObject
) -> None:
    """``cut`` bounded at both ends, as the editor asks for the text around a kept log."""
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert_tokens_as_the_expressions(text, start, end)


@SETTINGS
@given(text=texts(), data=st.data())
def test_header_and_style_readers_read_as_the_regular_expressions(
    text: str, data: st.DataObject
) -> None:
    for pos in {0, data_start(text), data.draw(st.integers(0, len(text)))}:
        assert_readers_as_the_expressions(text, pos)


@SETTINGS
@given(word=st.text(alphabet="-+.0123456789eEaZ_é", max_size=8) | st.sampled_from(PIECES))
def test_words_are_names_and_numbers_exactly_as_the_expressions_say(word: str) -> None:
    assert lexer.is_name(word) == (NAME.fullmatch(word) is not None)
    assert lexer.is_number(word) == (NUMBER.fullmatch(word) is not None)
    assert plan.is_letter_name(word) == (LETTERS.fullmatch(word) is not None)


@SETTINGS
@given(key=st.text(max_size=12) | st.sampled_from(["a-b c", "9lives", "vContext", "v", "été"]))
def test_class_names_from_keys_are_those_of_the_expressions(key: str) -> None:
    parts = [p for p in NOT_NAME.split(key) if p]
    name = "".join(p[0].upper() + p[1:] for p in parts) or "Object"
    assert names.capitalised(key) == ("C" + name if name[0].isdigit() else name)
    same = key in {"vContextInfo", "vAgendaInfo", "vBRIEFInfo"} or re.match(r"v[A-Z]", key)
    if same:
        expected = key if NAME.fullmatch(key) else names.capitalised(key)
        assert names.object_name(key, None) == expected


def test_tokens_and_readers_of_every_tron_example() -> None:
    files = tron_files()
    assert len(files) > 50
    for path in files:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        start = data_start(text)
        assert_tokens_as_the_expressions(text, start)
        for pos in range(0, min(len(text), 300), 3):
            assert_readers_as_the_expressions(text, pos)


def test_tokens_and_readers_of_every_corpus_tron_file(shared_dir: Path) -> None:
    for path in corpus_tron(shared_dir):
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        start = data_start(text)
        assert_tokens_as_the_expressions(text, start)
        for pos in range(0, min(len(text), 300), 3):
            assert_readers_as_the_expressions(text, pos)


def test_the_examples_and_the_corpus_are_cut_without_the_expressions(shared_dir: Path) -> None:
    """The point of the scanners: real documents are cut by them, not handed back (those that
    do not parse aside: conflict markers, an ellipsis standing for more)."""
    files = [*tron_files(), *corpus_tron(shared_dir)]
    handed_back = [
        p.name
        for p in files
        if lexer.cut(t := p.read_text(encoding="utf-8"), data_start(t), len(t), True) is None
        and parses(t)
    ]
    assert handed_back == []


@pytest.mark.parametrize(
    "text",
    [
        'a: "x\\"y", b: "\\\\", c: ["\\\\\\"", 1], d: "\\\\\\\\"',
        'a: 1 # "a quote" in a comment\nb: "# not a comment" # one\n',
        'class A: x\nk: A("\\"") # c',
    ],
)
def test_escaped_quotes_and_comments_are_cut_by_hand(text: str) -> None:
    start = data_start(text)
    assert lexer.cut(text, start, len(text), True) is not None
    assert_tokens_as_the_expressions(text, start)
    assert parses(text)


def test_a_text_the_scanners_do_not_read_is_cut_by_the_expressions() -> None:
    text = 'a: "x"\x0c\nb: 1'  # a form feed: str.split cuts there, TRON does not skip it
    assert lexer.words(text, 0, len(text)) is None
    assert lexer.cut(text, 0, len(text), True) is None
    assert upto_end(fast.scan_tokens(text, 0)) == upto_end(fast.SCAN().findall(text, 0))
    assert fast.parse(text, 0, {}, True) is None  # the form feed starts no token: lark says so


def test_large_texts_go_to_the_expressions_unless_words_reads_them() -> None:
    text = "a: [" + '"# x", ' * (lexer.LARGE // 6) + "]\n# end\n"
    assert lexer.cut(text, 0, len(text), False) is None
    assert lexer.words(text, 0, len(text)) is None  # a comment
    assert upto_end(fast.scan_tokens(text, 0)) == upto_end(fast.SCAN().findall(text, 0))
