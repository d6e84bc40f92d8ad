"""TRON render is a minimal edit (PRODUCT.md, Formats): laws over random documents.

Documents are written by ``tron.dumps`` in both flavours, then given comments (trailing
ones and whole lines) the way people add them, so the laws hold for commented text too.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from git_vcontext.codecs import tron
from git_vcontext.codecs.tron import edit as tron_edit
from git_vcontext.spelling import float_of
from git_vcontext.values import same
from helpers.tron_documents import DOCUMENTS, FLAVORS, JSON

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_COMMENTABLE = re.compile(r"[,(\[{]$|[\])}\"0-9el]$")  # line ends after which a comment fits


def commented(text: str, every: int) -> str:
    """``text`` with a trailing comment on every ``every``-th data line and a comment line
    above every other one (never inside the class header)."""
    doc = tron.loads(text)
    header, data = text[: len(doc.header)], text[len(doc.header) :]
    out = []
    for n, line in enumerate(data.split("\n")):
        if n % every == 1 and _COMMENTABLE.search(line):
            line += f'  # note {n}, with "quotes" and a [bracket'
        if n % (every + 1) == 2 and line.strip():
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}# about the next line {n}")
        out.append(line)
    return header + "\n".join(out)


def first_difference(a: str | None, b: str) -> str:
    """Where two texts part (pytest's own diff of long one-line texts takes gigabytes)."""
    if a is None:
        return "no edit"
    n = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return f"at {n}: {a[max(0, n - 80) : n + 80]!r} != {b[max(0, n - 80) : n + 80]!r}"


@st.composite
def leaf_documents(draw: st.DrawFn) -> tuple[Any, list[str]]:
    """A document whose string leaves are distinct labels ("leaf-0", "leaf-1", ...)."""
    value = draw(DOCUMENTS)
    labels: list[str] = []

    def relabel(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: relabel(v) for k, v in node.items()}
        if isinstance(node, list):
            return [relabel(v) for v in node]
        if isinstance(node, str):
            labels.append(f"leaf-{len(labels)}")
            return labels[-1]
        return node

    return relabel(value), labels


def _paths(node: Any, path: tuple[Any, ...] = ()) -> dict[str, tuple[Any, ...]]:
    if isinstance(node, dict):
        return {k: p for key, v in node.items() for k, p in _paths(v, (*path, key)).items()}
    if isinstance(node, list):
        return {k: p for i, v in enumerate(node) for k, p in _paths(v, (*path, i)).items()}
    return {node: path} if isinstance(node, str) else {}


def _set(node: Any, path: tuple[Any, ...], value: Any) -> None:
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


NEW_VALUES = st.sampled_from(
    [
        ("changed", '"changed"'),
        ("a much longer string than the one it replaces, past the width", None),
        ('é\u2028"q"', None),
        (7, "7"),
        (True, "true"),
        (float_of("0.1e-5"), "0.1e-5"),
        (float_of("3.141592653589793238462643383279"), "3.141592653589793238462643383279"),
    ]
)


@SETTINGS
@given(doc=leaf_documents(), flavor=FLAVORS, every=st.integers(2, 5), data=st.data())
def test_a_single_value_edit_changes_only_that_value_s_span(
    doc: tuple[Any, list[str]], flavor: Any, every: int, data: st.DataObject
) -> None:
    value, labels = doc
    assume(labels)
    text = commented(tron.dumps(value, flavor), every)
    parsed = tron.loads(text)
    label = data.draw(st.sampled_from(labels))
    new_value, spelling = data.draw(NEW_VALUES)
    new = copy.deepcopy(parsed.data)
    path = _paths(parsed.data)[label]
    # An element whose identity changes is another element unless most of it stays.
    assume(path[-1] not in ("id", "uid", "eventId", "event_id"))
    _set(new, path, new_value)
    out = tron_edit.render(parsed, new)
    spelling = spelling or json.dumps(new_value, ensure_ascii=False)
    expected = text.replace(f'"{label}"', spelling, 1)
    assert out == expected, first_difference(out, expected)


@SETTINGS
@given(value=JSON | DOCUMENTS, flavor=FLAVORS, every=st.integers(2, 5))
def test_rendering_ours_own_data_is_ours_byte_for_byte(value: Any, flavor: Any, every: int) -> None:
    text = commented(tron.dumps(value, flavor), every)
    doc = tron.loads(text)
    out = doc.render(copy.deepcopy(doc.data))
    assert out == text, first_difference(out, text)
    edited = tron_edit.render(doc, copy.deepcopy(doc.data))  # the editor, without that shortcut
    assert edited is None or edited == text, first_difference(edited, text)


@SETTINGS
@given(old=JSON | DOCUMENTS, new=JSON | DOCUMENTS, flavor=FLAVORS, every=st.integers(2, 5))
# the only instance of a class gains a field (PRODUCT.md, "The write path"): its class
# grows at its end, so ours' header is not a prefix of the result (the claim was so)
@example(
    old={"": {"items": [{"id": False, "title": False}]}},
    new={"": {"id": False}},
    flavor="vcontext",
    every=2,
)
def test_an_edit_always_reads_back_as_the_new_data(
    old: Any, new: Any, flavor: Any, every: int
) -> None:
    """The editor alone (render falls back to a whole rewrite if it ever did not)."""
    doc = tron.loads(commented(tron.dumps(old, flavor), every))
    out = tron_edit.render(doc, new)
    if out is not None:
        back = tron.loads(out)
        assert same(back.data, new), first_difference(out, "")
        assert_ours_classes_kept(doc, back, out)


def assert_ours_classes_kept(doc: Any, back: Any, out: str) -> None:
    """Ours' class definitions start the result, in their order, each line as it was or
    only grown at its end by properties its class gained (PRODUCT.md, "The write path":
    the only instance of a class that gains a field makes the class gain it at its end)."""
    assert list(back.classes)[: len(doc.classes)] == list(doc.classes)
    grown = {}
    for name, props in doc.classes.items():
        assert back.classes[name][: len(props)] == props, name
        grown[name] = back.classes[name][len(props) :]
    ours = doc.header[: doc.classes_end].split("\n") if doc.classes_end else []
    for n, (line, written) in enumerate(zip(ours, out.split("\n"), strict=False)):
        name = _CLASS_NAME.match(line)
        extra = grown.get(name[1], []) if name else []
        grown_line = line + "".join(f", {_spelled(p)}" for p in extra)
        # the last class line ends with its last property here (a comment may follow)
        last = n == len(ours) - 1
        assert written.startswith(grown_line) if last else written == grown_line, (line, written)
    if not any(grown.values()):
        assert out.startswith(doc.header[: doc.classes_end])


_CLASS_NAME = re.compile(r"class[ \t]+(\w+)")


def _spelled(prop: str) -> str:
    """A property as a class line writes it (a name bare, anything else quoted)."""
    return prop if re.fullmatch(r"[A-Za-z_]\w*", prop) else json.dumps(prop, ensure_ascii=False)


@SETTINGS
@given(value=DOCUMENTS, flavor=FLAVORS, every=st.integers(2, 5), data=st.data())
def test_edits_of_one_top_level_pair_leave_the_others_byte_for_byte(
    value: Any, flavor: Any, every: int, data: st.DataObject
) -> None:
    assume(flavor == "vcontext" and len(value) >= 2)
    text = commented(tron.dumps(value, flavor), every)
    doc = tron.loads(text)
    key = data.draw(st.sampled_from(sorted(value)))
    new = {**doc.data, key: data.draw(JSON)}
    out = tron_edit.render(doc, new)
    assert out is not None
    assert same(tron.loads(out).data, new)
    for other in value:
        if other == key:
            continue
        untouched = _pair_text(doc, other)
        assert untouched in out, (other, untouched[:200])


def _pair_text(doc: Any, key: str) -> str:
    """The text of a top-level pair, without its separation from the next."""
    spans = tron_edit._Editor(doc).spans
    pairs = spans.pairs()
    member = next(m for m in pairs.members if m.key == key)
    return str(doc.text[member.lead_start : member.value_end])
