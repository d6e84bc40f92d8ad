"""Reading a text with git-style conflict markers back into its sides (ours, base, theirs)."""

from __future__ import annotations

from ..codecs.text import git_lines, marker_line
from ..merging.textmerge import Markers
from ..record import record


@record
class Marked:
    """The sides of a marked text and how its markers looked (to write them the same way)."""

    ours: str
    base: str | None  # None when a block has no base section (not diff3)
    theirs: str
    markers: Markers
    blocks: int
    joined: tuple[str, str | None, str] | None = None  # the sides with blocks joined to their
    # lines, when that makes each one line: a minified document whose blocks were laid out
    # on lines of their own (M15)


def split_markers(text: str) -> Marked | None:
    """The three sides of ``text``; None when it holds no complete, well-formed block."""
    if "<<<<<<<" not in text:
        return None  # (the common case, in C)
    lines = git_lines(text)
    openers = ((ln, m) for ln in lines if (m := marker_line(ln)) is not None and m[0] == "<")
    first = next(openers, None)
    if first is None:
        return None
    reader = _Reader(len(first[0]) - len(first[0].lstrip("<")), first[1][1])
    for line in lines:
        reader.line(line)
    return reader.marked("\r\n" if "\r\n" in text else "\n")


SIDES = ("ours", "base", "theirs")


class _Reader:
    """Reads a marked text line by line into its sides (and into one-line sides)."""

    def __init__(self, size: int, ours_label: str) -> None:
        self.size = size
        self.sides: dict[str, list[str]] = {s: [] for s in SIDES}
        self.joined: dict[str, list[str]] = {s: [] for s in SIDES}
        self.labels = {"ours": ours_label, "base": "", "theirs": ""}
        self.state, self.blocks, self.every_base, self.saw_base = "out", 0, True, False

    def line(self, line: str) -> None:
        kind, label = _marker(line, self.size)
        state = self.state
        if state == "out" and kind == "<":
            self.state, self.saw_base = "ours", False
            for pieces in self.joined.values():  # the block joins the line before it
                if pieces:
                    pieces[-1] = pieces[-1].rstrip("\r\n")
        elif state == "ours" and kind == "|":
            self.state, self.saw_base = "base", True
            self.labels["base"] = label or self.labels["base"]
        elif state in ("ours", "base") and kind == "=":
            self.state = "theirs"
        elif state == "theirs" and kind == ">":
            self.state, self.blocks = "out", self.blocks + 1
            self.labels["theirs"] = label or self.labels["theirs"]
            self.every_base = self.every_base and self.saw_base
        else:
            for side in SIDES if state == "out" else (state,):
                self.sides[side].append(line)
                self.joined[side].append(line if state == "out" else line.rstrip("\r\n"))

    def marked(self, newline: str) -> Marked | None:
        if self.state != "out" or not self.blocks:
            return None
        labels, every_base = self.labels, self.every_base
        markers = Markers(
            self.size, labels["ours"], labels["base"], labels["theirs"], every_base, newline
        )
        text = {k: "".join(v) for k, v in self.sides.items()}
        one = {k: "".join(v) for k, v in self.joined.items()}
        flat = None
        if all("\n" not in v.rstrip("\r\n") for v in one.values()):
            flat = (one["ours"], one["base"] if every_base else None, one["theirs"])
        base = text["base"] if every_base else None
        return Marked(text["ours"], base, text["theirs"], markers, self.blocks, flat)


def _marker(line: str, size: int) -> tuple[str | None, str]:
    """Which marker a line is (``<``, ``|``, ``=``, ``>``; None for content) and its label."""
    return marker_line(line, size) or (None, "")
