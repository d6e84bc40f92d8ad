"""Writing a merge result: in ours' format and style, conflicts as markers or as data (M15)."""

from __future__ import annotations

from .. import document as doc
from ..record import replace
from .result import MISSING, ConflictNode, MergeResult
from .textmerge import Markers, common_prefix, common_suffix

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..codecs import Document


def render(
    ours: Document, result: MergeResult, *, structured: bool = False, markers: Markers | None = None
) -> str:
    """The merged text; conflicts become marker blocks, or ConflictResolution data."""
    if result.clean:
        return ours.render(result.data)
    if structured and doc.is_vcontext(result.data):
        # lazy: only for structured conflicts (M15)
        from .conflict_record import with_conflict_resolution

        return ours.render(with_conflict_resolution(result))
    return _with_markers(ours, result, markers or Markers())


def side_of(tree: Any, side: str, dirty: set[int] | None = None) -> Any:
    """The tree with every conflict replaced by one side's value ("ours"/"theirs"/"base").

    Parts without a conflict are the tree's own objects, so that rendering them is a
    matter of identity (``dirty``: ids of the containers holding a conflict).
    """
    return _version(tree, None, side, conflicted(tree) if dirty is None else dirty)


def conflicted(tree: Any) -> set[int]:
    """The ids of the objects and arrays that hold a conflict somewhere below them."""
    found: set[int] = set()

    def walk(node: Any) -> bool:
        if isinstance(node, ConflictNode):
            return True
        if isinstance(node, dict):
            hits = [walk(v) for v in node.values()]
        elif isinstance(node, list):
            hits = [walk(v) for v in node]
        else:
            return False
        if any(hits):
            found.add(id(node))
            return True
        return False

    walk(tree)
    return found


def _with_markers(ours: Document, result: MergeResult, markers: Markers) -> str:
    """One whole-line block per conflict: ours' text with each conflict's lines replaced by a
    block of ours', (base's) and theirs' lines; conflicts whose lines touch share a block."""
    nodes = _nodes(result.tree)
    text_o = ours.render(side_of(result.tree, "ours"))
    newline = "\r\n" if "\r\n" in text_o else "\n"
    markers = replace(markers, newline=newline)
    # lazy: conflicts only: a clean merge renders without markers
    from .inline import is_one_line

    inline = ours.format == "json" and is_one_line(text_o)
    if len(nodes) > MAX_SEPARATE_BLOCKS and not inline:
        return _by_line_diff(ours, result, markers, text_o)
    regions = _Regions(ours, result.tree, text_o, markers.diff3, inline)
    out: list[str] = []
    pos = 0
    for start, end, group in regions.grouped([id(n) for n in nodes]):
        out.append(text_o[pos:start])
        if inline and start and text_o[start - 1] != "\n":
            out.append(newline)  # the block goes on lines of its own
        theirs = regions.text(group, "theirs", start, end)
        base = regions.text(group, "base", start, end) if markers.diff3 else ""
        out.extend(markers.block(_lines(text_o[start:end]), _lines(base), _lines(theirs)))
        pos = end + (1 if inline and text_o[end : end + 1] == "\n" else 0)
    out.append(text_o[pos:])
    return "".join(out)


ABSENT_SIDE = "absent"
"""A rendering with the chosen conflicts left out: where their lines are in ours' text."""

MAX_SEPARATE_BLOCKS = 200
"""Above this many conflicts, blocks come from one line diff (cheaper, less grouped)."""


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _nodes(tree: Any) -> list[ConflictNode]:
    found: list[ConflictNode] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ConflictNode):
            found.append(node)
        elif isinstance(node, dict):
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            stack.extend(reversed(node))
    return found


def _version(tree: Any, chosen: frozenset[int] | None, side: str, dirty: set[int]) -> Any:
    """The tree with the chosen conflicts (None: all) on ``side`` and every other one on
    ours; containers without a conflict below are returned as they are."""
    if isinstance(tree, ConflictNode):
        if chosen is not None and id(tree) not in chosen:
            return tree.ours
        return MISSING if side == ABSENT_SIDE else getattr(tree, side)
    if id(tree) not in dirty:
        return tree
    if isinstance(tree, dict):
        out = {k: _version(v, chosen, side, dirty) for k, v in tree.items()}
        for v in tree.values():  # a status conflict's status fields go with it (M13)
            if isinstance(v, ConflictNode) and v.bound and (chosen is None or id(v) in chosen):
                out.update(v.bound_side("ours" if side == ABSENT_SIDE else side))
        return {k: v for k, v in out.items() if v is not MISSING}
    if isinstance(tree, list):
        items = (_version(x, chosen, side, dirty) for x in tree)
        return [v for v in items if v is not MISSING]
    return tree


class _Regions:
    """Where, in ours' text, each group of conflicts changes lines (renders cached per group)."""

    def __init__(
        self, ours: Document, tree: Any, text_o: str, diff3: bool, inline: bool = False
    ) -> None:
        self.ours, self.tree, self.text_o, self.diff3 = ours, tree, text_o, diff3
        self.inline = inline  # regions are JSON values inside one line, not whole lines
        self._renders: dict[tuple[frozenset[int], str], str] = {}
        self._dirty = conflicted(tree)

    def render(self, group: frozenset[int], side: str) -> str:
        key = (group, side)
        if key not in self._renders:
            self._renders[key] = self.ours.render(_version(self.tree, group, side, self._dirty))
        return self._renders[key]

    def span(self, group: frozenset[int]) -> tuple[int, int]:
        sides = ("theirs", "base") if self.diff3 else ("theirs",)
        if self.inline:
            # lazy: conflicts only: a clean merge renders without markers
            from .inline import aligned_region

            return aligned_region(self.text_o, [self.render(group, s) for s in sides])
        spans = [changed_span(self.text_o, self.render(group, s)) for s in sides]
        spans = [sp for sp in spans if sp[1] > sp[0] or sp[2] > sp[0]]
        if not spans:  # the sides read the same here (M18 move/move): the element's lines
            spans = [changed_span(self.text_o, self.render(group, ABSENT_SIDE))]
        return min(sp[0] for sp in spans), max(sp[1] for sp in spans)

    def grouped(self, ids: list[int]) -> list[tuple[int, int, frozenset[int]]]:
        """Spans per conflict; groups whose spans overlap or touch are merged until stable."""
        regions = sorted((*self.span(frozenset([i])), frozenset([i])) for i in ids)
        merged = True
        while merged:
            merged = False
            out: list[tuple[int, int, frozenset[int]]] = []
            for start, end, group in regions:
                if (out and start < out[-1][1]) or (out and start == out[-1][1] == out[-1][0]):
                    union = out[-1][2] | group
                    out[-1] = (*self.span(union), union)
                    merged = True
                else:
                    out.append((start, end, group))
            regions = out
        return regions

    def text(self, group: frozenset[int], side: str, start: int, end: int) -> str:
        """The lines the region [start, end) of ours' text reads as on ``side``."""
        text = self.render(group, side)
        return text[start : len(text) - (len(self.text_o) - end)]


def changed_span(a: str, b: str) -> tuple[int, int, int]:
    """Whole-line span where ``b`` differs from ``a``: (start, end in a, end in b)."""
    p = common_prefix(a, b)
    p = a.rfind("\n", 0, p) + 1  # back to the start of the line
    s = common_suffix(a, b, min(len(a), len(b)) - p)
    end_a, end_b = len(a) - s, len(b) - s
    at_line_end = (end_a == p or a[end_a - 1] == "\n") and (end_b == p or b[end_b - 1] == "\n")
    if not at_line_end and end_a < len(a):
        nl = a.find("\n", end_a)
        grow = (nl + 1 if nl >= 0 else len(a)) - end_a
        end_a, end_b = end_a + grow, end_b + grow
    elif not at_line_end:
        end_a, end_b = len(a), len(b)
    return p, end_a, end_b


def _by_line_diff(ours: Document, result: MergeResult, markers: Markers, text_o: str) -> str:
    """Blocks wherever ours' and theirs' renderings differ by lines (many conflicts)."""
    # lazy: difflib only for many conflict blocks
    from difflib import SequenceMatcher

    text_t = ours.render(side_of(result.tree, "theirs"))
    text_b = ours.render(side_of(result.tree, "base")) if markers.diff3 else ""
    o, t, b = _lines(text_o), _lines(text_t), _lines(text_b)
    to_base = _line_map(o, b) if markers.diff3 else []
    out: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, o, t, autojunk=False).get_opcodes():
        if tag == "equal":
            out.extend(o[i1:i2])
            continue
        base_lines = _base_region(to_base, b, i1, i2) if markers.diff3 else []
        out.extend(markers.block(o[i1:i2], base_lines, t[j1:j2]))
    return "".join(out)


def _line_map(o: list[str], b: list[str]) -> list[int | None]:
    # lazy: difflib only for many conflict blocks
    from difflib import SequenceMatcher

    out: list[int | None] = [None] * len(o)
    for x, y, size in SequenceMatcher(None, o, b, autojunk=False).get_matching_blocks():
        for k in range(size):
            out[x + k] = y + k
    return out


def _base_region(to_base: list[int | None], b: list[str], i1: int, i2: int) -> list[str]:
    """The base lines between the equal lines that surround ours' region [i1, i2)."""
    start = next((to_base[i] for i in range(i1 - 1, -1, -1) if to_base[i] is not None), -1)
    end = next((to_base[i] for i in range(i2, len(to_base)) if to_base[i] is not None), len(b))
    assert start is not None and end is not None
    return b[start + 1 : end]
