"""TRON laws for any JSON value: lossless round trips (data and key order), robust reading."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from git_vcontext.codecs import tron
from git_vcontext.errors import ParseError
from git_vcontext.values import same
from helpers.tron_documents import DOCUMENTS, FLAVORS, JSON, ordered

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def as_edited(value: object) -> object:
    """What a render must keep: key order, bool vs number, and each number's value; not
    int vs float, since an edit keeps ours' spelling of an equal number (1 and 1.0 are
    one number, PRODUCT.md Formats, as JSON render does)."""
    from decimal import Decimal

    if isinstance(value, dict):
        return ("{", tuple((k, as_edited(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("[", tuple(as_edited(v) for v in value))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ("n", Decimal(str(value)))
    return (type(value).__name__, value)


@SETTINGS
@given(value=JSON | DOCUMENTS, flavor=FLAVORS)
def test_dumps_then_loads_gives_the_same_data_and_key_order(value: Any, flavor: Any) -> None:
    text = tron.dumps(value, flavor)
    assert ordered(tron.loads(text).data) == ordered(value)


@SETTINGS
@given(value=JSON | DOCUMENTS, flavor=FLAVORS)
def test_dumps_is_deterministic_and_bytes_read_like_text(value: Any, flavor: Any) -> None:
    text = tron.dumps(value, flavor)
    assert tron.dumps(value, flavor) == text
    assert ordered(tron.loads(text.encode()).data) == ordered(value)


def objects(value: object) -> list[dict[str, Any]]:
    """Every object inside ``value``, at any depth."""
    found: list[dict[str, Any]] = []
    if isinstance(value, dict):
        found.append(value)
        for v in value.values():
            found.extend(objects(v))
    elif isinstance(value, list):
        for v in value:
            found.extend(objects(v))
    return found


def in_ours_order(keys: list[str], ours: dict[str, Any]) -> bool:
    """Whether ``keys`` are some of ``ours``' keys, in ours' order."""
    order = {k: i for i, k in enumerate(ours)}
    positions = [order.get(k, -1) for k in keys]
    return -1 not in positions and positions == sorted(positions)


def key_order_kept(out: object, new: object, ours: list[dict[str, Any]]) -> bool:
    """Each object of ``out`` has ``new``'s key order, or the order of an object of ours
    (PRODUCT.md Formats: output keeps the input's key order, and writing keeps ours'
    classes with their property order: an edited instance stays an instance)."""
    if isinstance(out, dict) and isinstance(new, dict):
        if list(out) != list(new) and not any(in_ours_order(list(out), o) for o in ours):
            return False
        return all(key_order_kept(out[k], new[k], ours) for k in new)
    if isinstance(out, list) and isinstance(new, list):
        return all(key_order_kept(a, b, ours) for a, b in zip(out, new, strict=True))
    return True


@SETTINGS
@given(old=JSON | DOCUMENTS, new=JSON | DOCUMENTS, flavor=FLAVORS)
@example(
    old={"c": [{"a": 1, "b": 2, "x": 3}]},
    new={"c": [{}, {"a": 1, "x": 3, "b": 2}]},
    flavor="vcontext",
)
@example(
    old={"items": [{}, {}, {"id": False, "title": False, "status": False}]},
    new={"items": [{}, {}, {"title": False, "id": False}]},
    flavor="vcontext",
)
@example(  # an edited instance keeps its class's property order, which no one object of
    # ours had (the class holds the union of two objects' keys)
    old={"items": [{"id": False, "title": False}, {"id": False, "tags": False}]},
    new={"items": [{"tags": False, "id": False, "title": False}]},
    flavor="vcontext",
)
@example(
    old=[[{"id": None, "title": None, "status": None, "tags": None, "priority": None}]],
    new=[[{"id": None, "title": None, "status": False, "priority": None, "tags": None}]],
    flavor="vcontext",
)
def test_render_round_trips_and_keeps_ours_class_lines(old: Any, new: Any, flavor: Any) -> None:
    doc = tron.loads(tron.dumps(old, flavor))
    text = doc.render(new)
    if same(new, doc.data):  # equal data (key order aside): ours unchanged, byte for byte
        assert text == doc.source()
    else:
        out = tron.loads(text).data
        assert same(out, new)
        classes = [dict.fromkeys(props) for props in doc.classes.values()]  # ours' classes
        assert key_order_kept(out, new, objects(doc.data) + classes)
    assert text.startswith(doc.header[: doc.classes_end])


def test_an_element_equal_but_for_key_order_keeps_ours_text_when_others_change() -> None:
    """PRODUCT.md Formats (output keeps the input's key order): an element whose data did
    not change keeps ours' text, key order included, also when an element is added before
    it; the JSON renderer does the same."""
    doc = tron.loads("class C: a, b, x\n\nc: [C(1, 2, 3)]\n")
    text = doc.render({"c": [{"k": 0}, {"a": 1, "x": 3, "b": 2}]})
    assert "C(1, 2, 3)" in text
    assert list(tron.loads(text).data["c"][1]) == ["a", "b", "x"]


def keeps_header(text: str, header: str) -> bool:
    """``text`` starts with ``header``'s lines, with only new class lines inserted."""
    want = header.splitlines()
    found = 0
    for line in text.splitlines():
        if found == len(want):
            break
        if line == want[found]:
            found += 1
        elif not line.startswith("class "):
            return False
    return found == len(want)


@SETTINGS
@given(value=DOCUMENTS, edit=JSON)
def test_render_of_an_edited_document_keeps_the_whole_header(value: Any, edit: Any) -> None:
    doc = tron.loads(tron.dumps(value, "vcontext"))
    new = {**value, "added": edit}
    text = doc.render(new)
    assert keeps_header(text, doc.header)
    assert as_edited(tron.loads(text).data) == as_edited(new)


TRON_ALPHABET = st.sampled_from(list('class A: x, y\n()[]{}"=#;-0123456789.eEtruefalsn\\ \t'))
FRAGMENTS = st.lists(
    st.sampled_from(
        [
            "class ",
            "A",
            "B",
            "(A)",
            ": ",
            ",",
            "\n",
            "  ",
            ";",
            "x",
            '"p"',
            "# c",
            "A(1, 2)",
            "a: ",
            "null",
            "x=",
            "[",
            "]",
            "{",
            "}",
            "(",
            ")",
            '"s"',
            "1",
            "true",
        ]
    ),
    max_size=30,
).map("".join)


@settings(max_examples=2000, deadline=None)
@given(
    text=st.text(TRON_ALPHABET, max_size=60)
    | FRAGMENTS
    | st.text(max_size=60)
    | st.binary(max_size=40)
)
def test_random_text_raises_nothing_but_parse_error(text: str | bytes) -> None:
    try:
        tron.loads(text)
    except ParseError:
        pass


def _load_error(text: str) -> ParseError | None:
    """The ParseError reading ``text`` raises; None when a damaged text still reads."""
    try:
        tron.loads(text)
    except ParseError as err:
        return err
    return None


@settings(max_examples=500, deadline=None)
@given(value=DOCUMENTS, flavor=FLAVORS, data=st.data())
def test_damaged_documents_raise_nothing_but_parse_error(
    value: Any, flavor: Any, data: st.DataObject
) -> None:
    text = tron.dumps(value, flavor)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, min(len(text), start + 5)))
    damaged = text[:start] + data.draw(st.text(TRON_ALPHABET, max_size=3)) + text[end:]
    err = _load_error(damaged)
    if err is not None:
        assert err.line is not None
        assert err.column is not None


def test_an_edited_instance_keeps_its_class_whatever_the_key_order_of_the_new_data() -> None:
    """PRODUCT.md Formats (writing keeps ours' classes, names and property order): a changed
    element whose keys still fit its class stays an instance of it, in the class's order."""
    doc = tron.loads("class C: a, b, x\n\nc: [C(1, 2, 3)]\n")
    text = doc.render({"c": [{"a": 1, "x": 4, "b": 2}]})
    assert text == "class C: a, b, x\n\nc: [C(1, 2, 4)]\n"
