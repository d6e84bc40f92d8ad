"""A conflict marker is a line as git reads lines: after a ``\\n`` only (PRODUCT.md, M19
and "Validation": no leftover conflict markers; one judgement of a marker line for
validate, ``conflicts``, ``resolve`` and the virtual base, ``codecs.text.marker_line``).

A JSON string may hold a raw U+2028 (or U+2029, U+0085), another text a form feed:
Python's ``splitlines`` ends a line there, git does not. A string ending in
``\\u2028<<<<<<< x`` is no marker for validate (``find_conflict_marker``) nor for git;
``resolve`` (``split_markers``) and the virtual base (``base_sections``) took it for a
block's opener. Pure logic."""

from __future__ import annotations

import pytest

from git_vcontext.codecs.text import find_conflict_marker
from git_vcontext.merging.textmerge import base_sections
from git_vcontext.resolution.markers import split_markers

BREAKS = ["\u2028", "\u2029", "\x85", "\x0c", "\x1c"]


@pytest.mark.parametrize("brk", BREAKS)
def test_a_marker_after_a_line_break_git_does_not_know_is_content(brk: str) -> None:
    fake = f'{{"a": "p{brk}<<<<<<< q"}}\n'
    text = fake + "<<<<<<< ours\n1\n=======\n2\n>>>>>>> theirs\n"
    assert find_conflict_marker(text) == len(fake)  # the real block's opener, not the fake
    marked = split_markers(text)
    assert marked is not None
    assert (marked.ours, marked.theirs, marked.blocks) == (fake + "1\n", fake + "2\n", 1)
    diff3 = fake + "<<<<<<< ours\n1\n||||||| base\n0\n=======\n2\n>>>>>>> theirs\n"
    assert base_sections(diff3) == fake + "0\n"
