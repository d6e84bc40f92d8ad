"""Conflict regions inside one-line (minified) JSON: whole values or members, never a whole file.

Whole-line conflict blocks (M15) would cover the entire document when it is one
line. Here a block covers the smallest JSON value, or run of members with their
separator, of ours' text that holds every character where a side's text differs;
git-style markers then put it on lines of its own, which is still JSON once a side
is chosen.
"""

from __future__ import annotations

from .textmerge import common_prefix, common_suffix

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..codecs.json_text import Member


def is_one_line(text: str) -> bool:
    """A text with no line break except a final one: a minified document."""
    return "\n" not in text.rstrip("\r\n")


def aligned_region(text: str, others: Sequence[str]) -> tuple[int, int]:
    """[start, end) of ``text`` that is a whole value (or run of members) in ``text`` and, at
    the same place, in every other text, and outside of which all the texts are the same."""
    lo, hi = differing_window(text, others)
    for _ in range(64):  # each round can only widen the region
        start, end = value_region(text, lo, hi)
        lo, hi = start, end
        for other in others:
            shift = len(other) - len(text)
            o_start, o_end = value_region(other, start, end + shift)
            lo, hi = min(lo, o_start), max(hi, o_end - shift)
        if (lo, hi) == (start, end):
            return start, end
    return _document_span(text)


def value_region(text: str, lo: int, hi: int) -> tuple[int, int]:
    """[start, end) of the smallest value or run of members of ``text`` covering [lo, hi);
    an empty window between two members stays empty. The whole document when it cannot
    be scanned."""
    # lazy: this scan only for one-line JSON with conflicts
    from ..codecs.json_text import scan_container

    start, end = _document_span(text)
    try:
        while text[start] in "{[":
            members = scan_container(text, start).members
            if lo == hi and _between_members(members, lo):
                return lo, lo
            inner = _inner(members, lo, hi)
            if inner is None:
                return _run(members, lo, hi) or (start, end)
            start, end = inner
            if not (text[start] in "{[" and start < lo and hi < end):
                return start, end
    except (ValueError, IndexError):
        return _document_span(text)
    return start, end


def _document_span(text: str) -> tuple[int, int]:
    # lazy: this scan only for one-line JSON with conflicts
    from ..jsoncodec import skip_whitespace

    start = skip_whitespace(text, 1 if text.startswith("\ufeff") else 0)
    return start, len(text.rstrip("\r\n \t"))


def _between_members(members: Sequence[Member], pos: int) -> bool:
    return any(pos in (m.start, m.value_end) for m in members)


def _inner(members: Sequence[Member], lo: int, hi: int) -> tuple[int, int] | None:
    """The value span of the one member whose value holds [lo, hi), if there is one."""
    for m in members:
        if m.value_start <= lo and hi <= m.value_end:
            return m.value_start, m.value_end
    return None


def _run(members: Sequence[Member], lo: int, hi: int) -> tuple[int, int] | None:
    """The members overlapping [lo, hi) (keys included), with the separator the window
    reaches into; None when no member overlaps."""
    inside = [i for i, m in enumerate(members) if m.start < hi and lo < m.value_end]
    if not inside:
        return None
    first, last = members[inside[0]], members[inside[-1]]
    start, end = first.start, last.value_end
    if lo < start:
        start = members[inside[0] - 1].value_end if inside[0] else lo
    if hi > end:
        end = members[inside[-1] + 1].start if inside[-1] + 1 < len(members) else hi
    return start, end


def differing_window(text: str, others: Sequence[str]) -> tuple[int, int]:
    """[lo, hi) of ``text`` outside of which every other text is identical to it."""
    lo, hi = len(text), 0
    for other in others:
        a, b = _window(text, other)
        lo, hi = min(lo, a), max(hi, b)
    return lo, max(lo, hi)


def _window(text: str, other: str) -> tuple[int, int]:
    """Where ``other`` differs from ``text``; a pure insertion or deletion is slid left to
    the start of a member, so that it is one member and its separator."""
    lo = common_prefix(text, other)
    suffix = common_suffix(text, other, min(len(text), len(other)) - lo)
    hi, hi_other = len(text) - suffix, len(other) - suffix
    if (lo == hi) == (lo == hi_other):
        return lo, hi  # a change on both texts (or none): nothing to slide
    piece = other[lo:hi_other] if lo == hi else text[lo:hi]
    depth_at = _member_starts(text, lo)
    best: tuple[int, int] | None = None  # (depth, shift): the shallowest boundary wins
    for s in range(min(len(piece), lo) + 1):
        if s and text[lo - s] != piece[len(piece) - s]:
            break
        depth = depth_at.get(lo - s)
        if depth is not None and (best is None or depth < best[0]):
            best = (depth, s)
    return (lo, hi) if best is None else (lo - best[1], hi - best[1])


def _member_starts(text: str, pos: int) -> dict[int, int]:
    """Where the members of the containers holding ``pos`` start (and the last ones end),
    with the depth of their container."""
    # lazy: this scan only for one-line JSON with conflicts
    from ..codecs.json_text import scan_container

    found: dict[int, int] = {}
    start = _document_span(text)[0]
    depth = 0
    try:
        while start < len(text) and text[start] in "{[":
            members = scan_container(text, start).members
            for at in [m.start for m in members] + [m.value_end for m in members[-1:]]:
                found.setdefault(at, depth)
            depth += 1
            inner = next((m for m in members if m.value_start < pos < m.value_end), None)
            if inner is None:
                break
            start = inner.value_start
    except (ValueError, IndexError):
        pass
    return found
