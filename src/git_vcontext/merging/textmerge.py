"""The line merge: ``git merge-file``-like for the fallback (M16), by line for text fields (M7)."""

from __future__ import annotations

from ..codecs.text import git_lines, marker_line
from ..record import record
from .result import MISSING

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal

    Granularity = Literal["region", "line"]
    """What conflicts in a line merge: a region both sides changed, or one line."""


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


PLAIN = Markers()
"""Markers as ``git merge-file`` writes them by default."""


def merge_lines(
    base: str, ours: str, theirs: str, markers: Markers = PLAIN, *, by: Granularity = "region"
) -> tuple[str, int]:
    """Three-way merge of texts by lines: (result, number of conflict blocks).

    ``by="region"`` is ``git merge-file``'s (the fallback, M16): the base lines both
    sides kept cut the texts into regions, and a region both sides changed differently
    is one conflict block. ``by="line"`` is M4 over lines (multi-line strings, M7): only
    a line changed differently on both sides (or deleted on one, changed on the other)
    conflicts; edits to neighbouring lines merge and insertions at the same place keep
    both, ours' first. With ``markers.take_base`` a conflict keeps the base's lines
    instead of a marker block (a virtual merge base, M16) and counts as none.
    """
    b = base.splitlines(keepends=True)
    o = ours.splitlines(keepends=True)
    t = theirs.splitlines(keepends=True)
    out: list[str] = []
    how = None if markers.take_base else markers
    conflicts = (_by_line if by == "line" else _by_region)(b, o, t, how, out)
    return "".join(out), conflicts


def _by_region(
    b: list[str], o: list[str], t: list[str], markers: Markers | None, out: list[str]
) -> int:
    """diff3: the regions between base lines both sides kept, each resolved as a whole."""
    # lazy: only the line fallback aligns lines (M16)
    from .alignment import kept_at

    ours_at, theirs_at = kept_at(b, o), kept_at(b, t)
    conflicts = 0
    i = j = k = 0
    for p in range(len(b) + 1):
        oe, te = (ours_at[p], theirs_at[p]) if p < len(b) else (len(o), len(t))
        if oe is None or te is None:
            continue  # a base line some side changed: inside a region
        conflicts += _chunk(b[i:p], o[j:oe], t[k:te], markers, out)
        if p < len(b):
            out.append(b[p])
        i, j, k = p + 1, oe + 1, te + 1
    return conflicts


def _by_line(
    b: list[str], o: list[str], t: list[str], markers: Markers | None, out: list[str]
) -> int:
    """M4 over lines; a run of conflicting lines is one block."""
    # lazy: only the line fallback aligns lines (M16)
    from .alignment import Slot, merge_sequences

    def changed_both(i: int, base: str, ours: str, theirs: str) -> Slot:
        return Slot(ours, "merged") if ours == theirs else Slot((ours, theirs), "conflict")

    conflicts = 0
    run: list[Slot] = []
    for slot in [*merge_sequences(b, o, t, str, changed_both), None]:
        if slot is not None and slot.origin == "conflict":
            run.append(slot)
            continue
        if run:
            ours, theirs = ([s.value[n] for s in run if s.value[n] is not MISSING] for n in (0, 1))
            conflicts += _chunk([b[s.base_index] for s in run], ours, theirs, markers, out)
            run = []
        if slot is not None:
            out.append(slot.value)
    return conflicts


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


def base_sections(text: str) -> str | None:
    """``text`` with each conflict block replaced by its base section (diff3 style), or
    None when it holds no block, or a block has no base section or does not close.

    How a virtual merge base that still holds markers is read (M16): git's inner merge
    of a criss-cross history left them where the merge bases disagree.
    """
    lines = git_lines(text)
    out: list[str] = []
    blocks = 0
    i = 0
    while i < len(lines):
        opener = marker_line(lines[i])
        if opener is None or opener[0] != "<":
            out.append(lines[i])
            i += 1
            continue
        section, i = _base_section(lines, i + 1, len(lines[i]) - len(lines[i].lstrip("<")))
        if section is None:
            return None
        out.extend(section)
        blocks += 1
    return "".join(out) if blocks else None


def _base_section(lines: list[str], start: int, size: int) -> tuple[list[str] | None, int]:
    """The base lines of the block whose body starts at ``start``, and where it ends."""
    base: list[str] | None = None
    for i in range(start, len(lines)):
        marker = marker_line(lines[i], size)
        if marker is not None and marker[0] == "|":
            base = []
        elif marker is not None and marker[0] == "=":
            if base is None:
                return None, i
            for k in range(i + 1, len(lines)):
                closer = marker_line(lines[k], size)
                if closer is not None and closer[0] == ">":
                    return base, k + 1
            return None, len(lines)
        elif base is not None:
            base.append(lines[i])
    return None, len(lines)


def common_prefix(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` share at the start."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:  # binary search with C-speed slice comparisons
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def common_suffix(a: str, b: str, limit: int) -> int:
    """How many characters (at most ``limit``) ``a`` and ``b`` share at the end."""
    lo, hi = 0, max(0, limit)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid :] == b[len(b) - mid :]:
            lo = mid
        else:
            hi = mid - 1
    return lo
