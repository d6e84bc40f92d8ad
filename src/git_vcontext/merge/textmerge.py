"""Line-based three-way merge with git-style markers: the fallback when data cannot be trusted."""

from __future__ import annotations

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
    """diff3-style merge of texts: (result, number of conflict blocks)."""
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
        conflicts += _chunk(b[i:p], o[j:oe], t[k:te], markers, out)
        if p < len(b):
            out.append(b[p])
        i, j, k = p + 1, oe + 1, te + 1
    return "".join(out), conflicts


def _chunk(b: list[str], o: list[str], t: list[str], markers: Markers, out: list[str]) -> int:
    """Resolve one unstable chunk; 1 when it had to become a conflict block."""
    if o == b:
        out.extend(t)
    elif t == b or o == t:
        out.extend(o)
    else:
        out.extend(markers.block(o, b, t))
        return 1
    return 0
