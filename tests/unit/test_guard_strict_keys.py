"""The guard's quicker comparisons (issue 28) answer exactly as the canonical texts do.

PRODUCT.md "The remote guards itself": every rule the hook applies, the guard applies, with
the same findings. Two shortcuts compare values by their ``marshal`` bytes before their
canonical texts: the history rules' common start of a change log
(``history._same_texts``: the same answer as the canonical texts, always) and the light
path's undone-sync-merge keys (``values.strict_key``: equal keys only where the canonical
texts are equal, so "all it holds kept" by them is kept by the rule's keys too). The
datetime rule first walks a document without making paths, and makes them only when it
finds something (``rules._any_date_issue``). Values
are generated as JSON text and parsed by the package's own parser, so numbers keeping
their spelling (``1.50``, ``1e2``), ``true`` where ``1`` stood, ``-0.0`` and reordered keys
all occur.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from git_vcontext.codecs.json_text import parse_value
from git_vcontext.document import DATETIME_FIELDS
from git_vcontext.prepush.undone import record_keys
from git_vcontext.validation import rules
from git_vcontext.validation.history import _same_texts
from git_vcontext.values import canonical, strict_key

# JSON literals, each with others Python's == finds equal to it (the canonical texts differ
# for some: a boolean for a number, a spelling, a sign of zero)
TWINS = {
    "1": ["1", "1.0", "true", "1e0", "1.00"],
    "0": ["0", "0.0", "-0.0", "false", "-0"],
    "1.5": ["1.5", "1.50", "15e-1"],
    "100": ["100", "1e2", "100.0", "1E2"],
    "0.1": ["0.1", "0.10", "1e-1"],
    '"a"': ['"a"', '"\\u0061"'],
    '"\\ud800"': ['"\\ud800"'],
    "null": ["null"],
    "12345678901234567890123": ["12345678901234567890123", "1.2345678901234567890123e22"],
}
KEYS = ("a", "b", "id", "sequence", "x")

Tree = Any  # a literal (str) | ("list", [Tree]) | ("dict", [(key, Tree)])


def _trees() -> st.SearchStrategy[Tree]:
    leaves = st.sampled_from(sorted(TWINS))
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4).map(lambda items: ("list", items)),
            st.dictionaries(st.sampled_from(KEYS), inner, max_size=4).map(
                lambda d: ("dict", list(d.items()))
            ),
        ),
        max_leaves=12,
    )


def _text(tree: Tree, draw: st.DrawFn | None) -> str:
    """JSON text of ``tree``; with ``draw``, a twin: each literal maybe another Python's ==
    finds equal, each object's keys maybe in another order."""
    if isinstance(tree, str):
        return draw(st.sampled_from(TWINS.get(tree, [tree]))) if draw is not None else tree
    kind, items = tree
    if kind == "list":
        return "[" + ",".join(_text(item, draw) for item in items) + "]"
    pairs = list(items)
    if draw is not None and draw(st.booleans()):
        pairs = draw(st.permutations(pairs))
    return "{" + ",".join(f'"{key}":{_text(value, draw)}' for key, value in pairs) + "}"


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[Any, Any]:
    """Two values, most often twins of one tree (equal by ==), sometimes unrelated."""
    tree = draw(_trees())
    first = parse_value(_text(tree, draw))
    other = draw(_trees()) if draw(st.integers(0, 4)) == 0 else tree
    return first, parse_value(_text(other, draw))


@settings(max_examples=250)
@given(_pairs())
def test_the_change_log_start_compares_as_its_canonical_texts(pair: tuple[Any, Any]) -> None:
    a, b = pair
    assert _same_texts([a], [b]) == (canonical([a]) == canonical([b]))
    assert _same_texts([a, b], [b, a]) == (canonical([a, b]) == canonical([b, a]))


@settings(max_examples=250)
@given(_pairs())
def test_equal_strict_keys_are_equal_canonical_keys(pair: tuple[Any, Any]) -> None:
    a, b = pair
    if strict_key(a) == strict_key(b):
        assert canonical(a) == canonical(b)
    assert strict_key(a) == strict_key(a)  # a key of its own: the same value, the same key


@st.composite
def _logs(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """A document's changeLog and its next version's: entries kept (maybe respelled, keys
    reordered), dropped or added."""
    trees = draw(st.lists(_trees(), min_size=1, max_size=5))
    entries = [("dict", [("sequence", str(n)), ("x", tree)]) for n, tree in enumerate(trees)]
    kept = [e for e in entries if draw(st.integers(0, 5))]
    kept += [("dict", [("x", tree)]) for tree in draw(st.lists(_trees(), max_size=2))]

    def doc(log: list[Tree], twin: bool) -> bytes:
        body = ",".join(_text(e, draw if twin else None) for e in log)
        return ('{"todoList": {"items": [], "changeLog": [' + body + "]}}").encode()

    return doc(entries, False), doc(kept, True)


@settings(max_examples=200)
@given(_logs())
def test_all_kept_by_strict_keys_is_all_kept_by_the_rules_keys(logs: tuple[bytes, bytes]) -> None:
    merged, commit = logs
    path = "todo.vcontext.json"
    strict = record_keys(merged, path, strict=True), record_keys(commit, path, strict=True)
    if strict[0].keys() <= strict[1].keys():
        assert record_keys(merged, path).keys() <= record_keys(commit, path).keys()


STAMPS = (
    "2026-01-05T10:00:00Z",
    "2026-02-30T10:00:00Z",
    "2026-01-05",
    "yesterday",
    "2026-01-05T10:00:00",
)


def _reference_datetimes(value: Any) -> list[Any]:
    """``check_datetimes`` as it was: every field's string judged, with its path."""
    out = []
    for parts, key, text in rules._strings_under(value, DATETIME_FIELDS):
        said = rules._date_issue(key, text)
        if said is not None:
            out.append(("datetime", parts, said))
    return out


@settings(max_examples=200)
@given(
    st.recursive(
        st.sampled_from([*STAMPS, 1, None]),
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(st.sampled_from(["createdAt", "startDate", "title", "items"]), inner),
        ),
        max_leaves=10,
    )
)
def test_the_datetime_rule_finds_what_its_walk_with_paths_finds(value: Any) -> None:
    assert list(rules.check_datetimes(value)) == _reference_datetimes(value)
