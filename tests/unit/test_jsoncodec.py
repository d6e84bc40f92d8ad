"""jsoncodec (JSON on the ``_json`` C module) against the ``json`` package as the oracle:
the same values, the same text, the same errors, for random documents with long numbers,
non-ASCII text, surrogate escapes and repeated keys."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from git_vcontext import jsoncodec

LONG_NUMBERS = st.sampled_from(
    [
        "3.141592653589793238462643383279",
        "123456789012345678901234567890",
        "-123456789012345678901234567890",
        "1e400",
        "-0",
        "0.1e-5",
        "1.50",
        "1E2",
    ]
)
TEXT = st.text(
    st.characters(exclude_categories=["Cs"]) | st.sampled_from(["\ud800", "\udfff", "\x00"])
)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT
VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(TEXT, children, max_size=5),
    max_leaves=30,
)


def _escaped(text: str) -> str:
    """A JSON string literal spelling some characters as ``\\u`` escapes (surrogates too)."""
    out = []
    for ch in text:
        if ord(ch) < 0x20 or 0xD800 <= ord(ch) <= 0xDFFF or ch in '"\\' or ord(ch) % 3 == 0:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


@st.composite
def documents(draw: st.DrawFn, depth: int = 0) -> str:
    """JSON text with long numbers, escapes (lone surrogates too), repeated keys, odd spacing."""
    space = draw(st.sampled_from(["", " ", "\n  ", "\t", "\r\n"]))
    kind = draw(
        st.sampled_from(["scalar", "number", "array", "object"] if depth < 4 else ["scalar"])
    )
    if kind == "number":
        return space + draw(LONG_NUMBERS) + space
    if kind == "scalar":
        value = draw(SCALARS)
        text = _escaped(value) if isinstance(value, str) else json.dumps(value)
        return space + text + space
    if kind == "array":
        items = draw(st.lists(documents(depth + 1), max_size=4))
        return space + "[" + ",".join(items) + "]" + space
    keys = draw(st.lists(st.sampled_from(["a", "b", "é", "\ud83d\ude00", ""]), max_size=4))
    members = [_escaped(k) + space + ":" + draw(documents(depth + 1)) for k in keys]
    return space + "{" + ",".join(members) + "}" + space


def _both(text: str, **hooks: Any) -> tuple[Any, Any]:
    """(json's outcome, jsoncodec's outcome): the value, or the error's type and fields."""

    def outcome(load: Any) -> Any:
        try:
            return ("value", load(text))
        except json.JSONDecodeError as exc:
            return ("error", exc.msg, exc.pos)
        except ValueError as exc:
            return ("other", type(exc).__name__, str(exc))

    ours = jsoncodec.Scanner(**hooks)
    return outcome(json.JSONDecoder(**hooks).decode), outcome(ours.loads)


def _same(a: Any, b: Any) -> bool:
    """Equal, NaN included (json.dumps of both)."""
    return json.dumps(a, sort_keys=False) == json.dumps(b, sort_keys=False)


@given(documents())
def test_scanner_reads_as_json_loads(text: str) -> None:
    theirs, ours = _both(text)
    assert ours[0] == theirs[0]
    assert _same(ours, theirs)


@given(documents())
def test_scanner_keeps_hooks_and_duplicate_keys_as_json(text: str) -> None:
    hooks: dict[str, Any] = {"object_pairs_hook": list, "parse_float": str, "parse_int": str}
    theirs, ours = _both(text, **hooks)
    assert ours == theirs


@given(st.text(max_size=30))
def test_invalid_text_fails_with_json_s_message_and_offset(text: str) -> None:
    theirs, ours = _both(text)
    assert ours == theirs or _same(ours, theirs)


@pytest.mark.parametrize(
    "text",
    ["", " ", "[1,", "[1] x", '{"a" 1}', "nul", "[1,]", '"\\ud800', "01", '{"a":1,}', '["\n"]'],
)
def test_errors_are_json_decode_errors_with_the_same_fields(text: str) -> None:
    with pytest.raises(json.JSONDecodeError) as theirs:
        json.loads(text)
    with pytest.raises(json.JSONDecodeError) as ours:
        jsoncodec.loads(text)
    assert (ours.value.msg, ours.value.pos) == (theirs.value.msg, theirs.value.pos)
    assert jsoncodec.decode_error(ours.value) == (theirs.value.msg, theirs.value.pos)
    assert jsoncodec.decode_error(ValueError("x")) is None


def test_deep_nesting_is_a_recursion_error_as_in_json() -> None:
    text = "[" * 100_000 + "]" * 100_000
    with pytest.raises(RecursionError):
        json.loads(text)
    with pytest.raises(RecursionError):
        jsoncodec.loads(text)


STYLES: list[dict[str, Any]] = [
    {},
    {"indent": "  "},
    {"indent": "\t", "separators": (",", ":")},
    {"indent": "    ", "ensure_ascii": False},
    {"separators": (",", ":"), "ensure_ascii": False, "sort_keys": True},
    {"separators": (", ", ": "), "sort_keys": True, "indent": " "},
]


@given(VALUES, st.sampled_from(STYLES))
def test_dumps_writes_what_json_dumps_writes(value: Any, style: dict[str, Any]) -> None:
    assert jsoncodec.dumps(value, **style) == json.dumps(value, **style)


@given(st.floats() | st.integers(), st.sampled_from(STYLES))
def test_dumps_writes_numbers_and_nan_as_json(value: Any, style: dict[str, Any]) -> None:
    doc = {"n": [value, {"m": value}]}
    assert jsoncodec.dumps(doc, **style) == json.dumps(doc, **style)


def test_dumps_takes_number_writers_and_refuses_what_json_refuses() -> None:
    value = {"a": [1.5, 2], 3: 4, 1.5: None, True: 1, None: 2}
    text = jsoncodec.dumps(value, floatstr=lambda f: "F", intstr=lambda i: f"I{i}")
    assert text == '{"a": [F, I2], "I3": I4, "F": null, "true": I1, "null": I2}'
    assert jsoncodec.dumps(value, indent="  ") == json.dumps(value, indent="  ")
    for bad in ({"a": object()}, {(1,): 2}, {1j: 1}):
        for style in ({}, {"indent": "  "}):
            with pytest.raises(TypeError) as theirs:
                json.dumps(bad, **style)  # type: ignore[arg-type]
            with pytest.raises(TypeError) as ours:
                jsoncodec.dumps(bad, **style)  # type: ignore[arg-type]
            assert str(ours.value) == str(theirs.value)


def test_dumps_of_tuples_and_strings_as_json() -> None:
    for value in [(1, (2, "x")), "é\ud800", "plain", [], {}, ()]:
        for style in STYLES:
            assert jsoncodec.dumps(value, **style) == json.dumps(value, **style)


@pytest.mark.parametrize("text", ["", "x", "  x", "\t\n\r x", "   "])
def test_skip_whitespace_is_json_s_whitespace(text: str) -> None:
    assert jsoncodec.skip_whitespace(text, 0) == len(text) - len(text.lstrip(" \t\n\r"))


@given(
    st.text(alphabet=" \t\n\rx\u00a0\f\v", max_size=300),  # (\xa0, \f, \v: not JSON's)
    st.integers(min_value=0, max_value=320),
)
def test_skip_whitespace_from_anywhere_over_any_run(text: str, pos: int) -> None:
    """Runs longer than the window skip_whitespace strips at a time, from any offset."""
    want = (
        len(text) if pos >= len(text) else pos + len(text[pos:]) - len(text[pos:].lstrip(" \t\n\r"))
    )
    assert jsoncodec.skip_whitespace(text, pos) == want


@pytest.mark.parametrize("pos", [0, 1, 2, 63, 64, 65, 128, 129, 199, 200, 201, 260])
@pytest.mark.parametrize("tail", ["x", "", "\u00a0"])
def test_skip_whitespace_over_runs_longer_than_its_window(pos: int, tail: str) -> None:
    text = "\r\n" + " \t" * 99 + tail
    assert jsoncodec.skip_whitespace(text, pos) == max(min(pos, len(text)), 200)


INVALID = ["", " ", "[1,", "[1] x", '{"a" 1}', "nul", "[1,]", '"\\ud800', "01", '{"a":1,}',
           '["\n"]', '{"a": 1,\n<<<<<<< ours\n', '["\\x"]',
           "[NaN, -Infinity, Infinity]"]  # fmt: skip


def test_errors_in_a_process_that_never_loaded_json_are_json_s() -> None:
    """The C module finds its error class in ``sys.modules`` without importing it (CPython
    3.11 raises a SystemError when it is not there): jsoncodec loads it on a failure and
    reads again, so the first error of a process is json's, with json's message."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from git_vcontext import jsoncodec\n"
        "assert 'json' not in sys.modules\n"
        "def outcome(f):\n"
        "    try:\n"
        "        return ['value', repr(f())]\n"
        "    except ValueError as exc:\n"
        "        return [type(exc).__name__, exc.msg, exc.pos]\n"
        f"texts = {INVALID!r}\n"
        "for t in texts:\n"
        "    print(outcome(lambda: jsoncodec.loads(t)))\n"
        "for t in texts:\n"
        "    print(outcome(lambda: jsoncodec.scanstring(t + '\"', 1)))\n"
    )
    for first in range(len(INVALID)):  # each text the first error of its process
        mine = INVALID[first:] + INVALID[:first]
        out = subprocess.run(
            [sys.executable, "-c", probe.replace(repr(INVALID), repr(mine))],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()

        def outcome(f: Any) -> str:
            try:
                return str(["value", repr(f())])
            except ValueError as exc:
                return str([type(exc).__name__, exc.msg, exc.pos])  # type: ignore[attr-defined]

        expected = [outcome(lambda t=t: json.loads(t)) for t in mine]
        expected += [
            outcome(lambda t=t: json.decoder.scanstring(t + '"', 1))  # type: ignore[attr-defined]
            for t in mine
        ]
        assert out == expected
