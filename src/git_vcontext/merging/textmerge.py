"""Line-based three-way merge with git-style markers: the fallback when data cannot be trusted."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..record import record


@record
class Markers:
    """How conflict blocks look: marker length, labels, and whether to show the base (diff3)."""

    size: int = 7
    ours_label: str = "ours"
    base_label: str = "base"
    theirs_label: str = "theirs"
    diff3: bool = False
    newline: str = "\n"
    take_base: bool = False  # no blocks: a conflict keeps the base's lines (a virtual base)

    def block(self, ours: Sequence[str], base: Sequence[str], theirs: Sequence[str]) -> list[str]:
        """The lines of one conflict block (every line ends with a newline)."""
        nl = self.newline
        out = [_marker("<", self.size, self.ours_label) + nl, *_terminated(ours, nl)]
        if self.diff3:
            out += [_marker("|", self.size, self.base_label) + nl, *_terminated(base, nl)]
        out += ["=" * self.size + nl, *_terminated(theirs, nl)]
        out.append(_marker(">", self.size, self.theirs_label) + nl)
        return out


def _marker(char: str, size: int, label: str) -> str:
    return char * size + (" " + label if label else "")


def _terminated(lines: Sequence[str], nl: str) -> list[str]:
    return [ln if ln.endswith("\n") else ln + nl for ln in lines]


def _matches(base: Sequence[str], side: Sequence[str]) -> list[int | None]:
    """For each base line, the index of the equal line of ``side`` it is aligned with."""
    from difflib import SequenceMatcher

    out: list[int | None] = [None] * len(base)
    for a, b, size in SequenceMatcher(None, base, side, autojunk=False).get_matching_blocks():
        for k in range(size):
            out[a + k] = b + k
    return out


def merge_lines(base: str, ours: str, theirs: str, markers: Markers) -> tuple[str, int]:
    """diff3-style merge of texts: (result, number of conflict blocks).

    With ``markers.take_base`` a conflicting region keeps the base's lines instead of
    a marker block (a virtual merge base, M16), and counts as no conflict.
    """
    b = base.splitlines(keepends=True)
    o = ours.splitlines(keepends=True)
    t = theirs.splitlines(keepends=True)
    om, tm = _matches(b, o), _matches(b, t)
    out: list[str] = []
    conflicts = 0
    i = j = k = 0
    for p in range(len(b) + 1):
        if p < len(b) and (om[p] is None or tm[p] is None or om[p] < j or tm[p] < k):  # type: ignore[operator]
            continue
        oe = om[p] if p < len(b) else len(o)
        te = tm[p] if p < len(b) else len(t)
        assert oe is not None and te is not None
        conflicts += _chunk(b[i:p], o[j:oe], t[k:te], None if markers.take_base else markers, out)
        if p < len(b):
            out.append(b[p])
        i, j, k = p + 1, oe + 1, te + 1
    return "".join(out), conflicts


def _chunk(
    b: list[str], o: list[str], t: list[str], markers: Markers | None, out: list[str]
) -> int:
    """Resolve one unstable chunk; 1 when it had to become a conflict block (none: the
    base's lines are kept)."""
    if o == b:
        out.extend(t)
    elif t == b or o == t:
        out.extend(o)
    elif markers is None:
        out.extend(b)
    else:
        out.extend(markers.block(o, b, t))
        return 1
    return 0


_OPENER = re.compile(r"(<{7,})(?: .*)?\r?\n?")


def base_sections(text: str) -> str | None:
    """``text`` with each conflict block replaced by its base section (diff3 style), or
    None when it holds no block, or a block has no base section or does not close.

    How a virtual merge base that still holds markers is read (M16): git's inner merge
    of a criss-cross history left them where the merge bases disagree.
    """
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    blocks = 0
    i = 0
    while i < len(lines):
        opener = _OPENER.fullmatch(lines[i])
        if opener is None:
            out.append(lines[i])
            i += 1
            continue
        section, i = _base_section(lines, i + 1, len(opener.group(1)))
        if section is None:
            return None
        out.extend(section)
        blocks += 1
    return "".join(out) if blocks else None


def _base_section(lines: list[str], start: int, size: int) -> tuple[list[str] | None, int]:
    """The base lines of the block whose body starts at ``start``, and where it ends."""
    base: list[str] | None = None
    for i in range(start, len(lines)):
        bare = lines[i].rstrip("\r\n")
        if _is_marker(bare, "|", size):
            base = []
        elif bare == "=" * size:
            if base is None:
                return None, i
            for k in range(i + 1, len(lines)):
                if _is_marker(lines[k].rstrip("\r\n"), ">", size):
                    return base, k + 1
            return None, len(lines)
        elif base is not None:
            base.append(lines[i])
    return None, len(lines)


def _is_marker(line: str, char: str, size: int) -> bool:
    return line.startswith(char * size) and (len(line) == size or line[size] == " ")
