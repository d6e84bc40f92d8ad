"""Numbers keep their spelling (PRODUCT.md, Formats): parsing, equality, every writer."""

from __future__ import annotations

import copy
import json
import pickle
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from git_vcontext import spelling
from git_vcontext.codecs import dumps, parse
from git_vcontext.spelling import Number, float_of, int_of
from git_vcontext.values import canonical, json_report, same

# The examples and the other spellings repr would change.
SPELLINGS = [
    "3.141592653589793238462643383279",
    "100000000000000000000000000000000000000000000000001.5",
    "0.1e-5",
    "1e2",
    "1E2",
    "1.50",
    "2.0e0",
    "0.00001",
    "-0.0000",
    "12345678901234567",
]


@pytest.mark.parametrize("text", SPELLINGS)
def test_a_number_repr_would_respell_is_a_number_with_its_spelling(text: str) -> None:
    value = float_of(text)
    assert type(value) is Number
    assert value.spelling == text
    assert float(value) == float(text)


@pytest.mark.parametrize("text", ["1.5", "0.1", "1.0", "-2.25", "1e-05", "1.5e+300", "0.0001"])
def test_a_number_repr_spells_alike_stays_a_plain_float(text: str) -> None:
    assert type(float_of(text)) is float


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_the_quick_test_never_takes_a_respelled_number_for_a_plain_one(x: float) -> None:
    for text in {repr(x), f"{x:.15g}", f"{x:.17g}", f"{x:.3f}", f"{x:e}"}:
        if not _json_number(text) or not any(c in text for c in ".eE"):
            continue  # float_of reads numbers with a fraction or an exponent
        if abs(float(text)) == float("inf"):
            continue  # 17 digits of the largest double round up to 1.8e308
        value = float_of(text)
        assert (type(value) is float) == (repr(float(text)) == text), text


def _json_number(text: str) -> bool:
    import re

    return re.fullmatch(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?", text) is not None


def test_negative_zero_integer_keeps_its_sign() -> None:
    value = int_of("-0")
    assert str(value) == "-0"
    assert value == 0
    assert same(value, 0)
    assert type(int_of("-12")) is int


# -- equality (values.same, ==, hash, canonical) -----------------------------------------


def test_equal_values_spelled_differently_are_the_same_data() -> None:
    """1.0 vs 1.00 vs 1e0: one number (a re-spelling is no change)."""
    for a, b in [("1.0", "1.00"), ("1e0", "1.00"), ("1.5", "1.50"), ("0.1e-5", "1e-06")]:
        x, y = float_of(a), float_of(b)
        assert same(x, y)
        assert hash(x) == hash(y)
        assert canonical(x) == canonical(y)
    assert same(float_of("1.00"), 1)
    assert hash(float_of("1.00")) == hash(1)


def test_different_decimals_one_double_holds_are_different_data() -> None:
    long, short = float_of("3.14159265358979323"), float_of("3.141592653589793")
    assert float(long) == float(short)  # one double...
    assert not same(long, short)
    assert long != short  # ...two numbers
    assert canonical([long]) != canonical([short])
    assert not same({"x": long}, {"x": short})


def test_a_decimal_spelling_of_a_huge_integer_compares_like_python_does() -> None:
    """1e50 the double is not 10**50 (Python says so too); equal values hash alike."""
    assert float_of("1e50") != 10**50
    assert float_of("1e50") == float_of("100000000000000000000000000000000000000000000000000.0")


_NUMBERS = st.one_of(
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.decimals(allow_nan=False, allow_infinity=False, places=None).map(str),
)


def _number(x: Any) -> Any:
    if isinstance(x, str):
        text = x if _json_number(x) else None
        if text is None:
            try:
                text = format(Decimal(x), "f")
            except ValueError:
                return 0
            if not _json_number(text) or len(text) > 400:
                return 0
        return float_of(text) if any(c in text for c in ".eE") else int(text)
    return x


@given(_NUMBERS, _NUMBERS)
def test_equal_numbers_hash_alike_and_share_a_canonical_text(a: Any, b: Any) -> None:
    x, y = _number(a), _number(b)
    if x == y:
        assert hash(x) == hash(y)
    if type(x) is not int and type(y) is not int and isinstance(x, float) | isinstance(y, float):
        assert (canonical(x) == canonical(y)) == (x == y)


def test_numbers_survive_copy_deepcopy_and_pickle() -> None:
    value = float_of("0.1e-5")
    for again in (copy.copy(value), copy.deepcopy([value])[0], pickle.loads(pickle.dumps(value))):
        assert type(again) is Number
        assert again.spelling == "0.1e-5"


# -- writers ---------------------------------------------------------------------------------


def test_spelled_dumps_is_json_dumps_for_every_other_value() -> None:
    float_of("1e2")  # a Number exists: the pure-Python encoder is in use from now on
    value = {"a": [1, 2.5, None, True, "é\u2028", {"b": -0.0}], "c": 1e300, "d": {}}
    for kw in (
        {},
        {"indent": "  "},
        {"indent": "\t", "separators": (",", ":")},
        {"ensure_ascii": False, "sort_keys": True},
    ):
        assert spelling.dumps(value, **kw) == json.dumps(value, **kw)


@pytest.mark.parametrize("fmt", ["json", "tron", "jsonl"])
@pytest.mark.parametrize("text", [*SPELLINGS, "-0"])
def test_every_writer_puts_the_spelling_back(fmt: str, text: str) -> None:
    source = f'[{{"x": {text}, "y": [{text}]}}]'
    value = parse(source, format="json").data
    out = dumps(value, fmt)  # type: ignore[arg-type]
    assert out.count(text) == 2, out
    assert same(parse(out, format=fmt).data, value)  # type: ignore[arg-type]


def test_reports_and_textconv_show_the_spelling() -> None:
    from git_vcontext.diffing.textconv import textconv

    data = parse('{"vContextInfo": {"version": "0.4"}, "n": 0.1e-5}', format="json").data
    assert '"n": 0.1e-5' in json_report(data)
    assert "0.1e-5" in textconv(data)


# -- integers longer than Python converts (issue 31, point 7) ---------------------------

LONG = "7" + "3" * 5000  # 5,001 digits: over Python's 4,300-digit limit of int(str)


@pytest.mark.parametrize("text", [LONG, "-" + LONG, "1" + "0" * 100_000])
def test_an_integer_of_any_length_keeps_its_spelling_in_json(text: str) -> None:
    doc = f'{{"n": {text}, "list": [{text}, 1]}}\n'
    parsed = parse(doc, format="json")
    value = parsed.data["n"]
    assert type(value) is spelling.BigInt
    assert str(value) == repr(value) == f"{value}" == text
    assert parsed.render({**parsed.data, "m": 2}).startswith(f'{{"n": {text}, "list": [{text}, 1]')
    assert dumps(parsed.data, "json").count(text) == 2
    assert same(parsed.data, parse(dumps(parsed.data, "json"), format="json").data)
    assert canonical(value) == text


def test_a_long_integer_keeps_its_spelling_in_tron_both_dialects() -> None:
    data = {"vContextInfo": {"version": "0.4"}, "todoList": {"sequence": 1, "n": [2]}}
    for flavor in ("vcontext", "standard"):
        text = dumps(data, "tron", tron_flavor=flavor).replace("1", LONG, 1)
        parsed = parse(text, format="tron")
        assert str(parsed.data["todoList"]["sequence"]) == LONG
        again = dumps(parsed.data, "tron", tron_flavor=flavor)
        assert LONG in again
        assert same(parse(again, format="tron").data, parsed.data)


def test_long_integers_compare_and_count_exactly() -> None:
    a, b = int_of(LONG), int_of(LONG[:-1] + "4")
    assert a < b
    assert max(a, b) is b
    assert a == int_of(LONG)
    assert hash(a) == hash(int_of(LONG))
    assert a != int_of("1" + LONG)
    bumped = a + 1  # a write's sequence + 1 stays a long integer with its spelling
    assert type(bumped) is spelling.BigInt
    assert str(bumped) == LONG[:-1] + "4"
    assert str(1 + a) == str(bumped)
    assert str(b - 1) == LONG
    assert pickle.loads(pickle.dumps(a)) == a
    assert str(copy.deepcopy(a)) == LONG


def test_an_integer_computed_past_the_limit_is_written_in_full() -> None:
    value = 10**6000 + 7  # a plain int Python refuses to convert to text at once
    with pytest.raises(ValueError, match="4300"):
        str(value)
    text = spelling.int_text(value)
    assert text == "1" + "0" * 5999 + "7"
    assert spelling.int_text(-value) == "-" + text
    assert json_report({"n": int_of(LONG), "m": value}).count("0" * 5999) == 1
