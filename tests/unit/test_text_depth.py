"""The fast bracket-depth check agrees with a plain scanner on any JSON text."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from git_vcontext.codecs.text import exceeds_depth

NASTY = st.text(alphabet='[]{}()"\\ab\n\té', max_size=8)


def _nested(depth: int, leaf: str) -> object:
    value: object = leaf
    for i in range(depth):
        value = [value] if i % 2 else {leaf: value}
    return value


def _reference_depth(text: str) -> int:
    """Deepest bracket nesting outside strings, scanning character by character."""
    best = level = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            level += 1
            best = max(best, level)
        elif ch in "]}":
            level -= 1
    return best


@settings(max_examples=300)
@given(depth=st.integers(0, 12), leaf=NASTY, limit=st.integers(0, 12), indent=st.booleans())
def test_exceeds_depth_matches_a_character_scanner(
    depth: int, leaf: str, limit: int, indent: bool
) -> None:
    text = json.dumps(_nested(depth, leaf), indent=2 if indent else None, ensure_ascii=False)
    assert exceeds_depth(text, limit) == (_reference_depth(text) > limit)


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps(["[" * 400, "\\", '"{{{{'])
    assert not exceeds_depth(text, 5)
    assert exceeds_depth("[" * 300 + "]" * 300, 256)
