"""Reading a text with git-style conflict markers back into its sides (ours, base, theirs)."""

from __future__ import annotations

import re

from ..merge.textmerge import Markers
from ..record import record

_OPEN = re.compile(r"^(<{7,})(?: (.*))?$")


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


def has_markers(text: str) -> bool:
    """Whether a text holds at least one complete conflict block."""
    return split_markers(text) is not None


def split_markers(text: str) -> Marked | None:
    """The three sides of ``text``; None when it holds no complete, well-formed block."""
    first = next((m for m in map(_OPEN.match, text.splitlines()) if m), None)
    if first is None:
        return None
    size = len(first.group(1))
    sides: dict[str, list[str]] = {"ours": [], "base": [], "theirs": []}
    joined: dict[str, list[str]] = {"ours": [], "base": [], "theirs": []}
    labels = {"ours": first.group(2) or "", "base": "", "theirs": ""}
    state, blocks, every_base = "out", 0, True
    saw_base = False
    for line in text.splitlines(keepends=True):
        kind, label = _marker(line, size)
        if state == "out" and kind == "<":
            state, saw_base = "ours", False
            for pieces in joined.values():
                if pieces:
                    pieces[-1] = pieces[-1].rstrip("\r\n")
        elif state == "ours" and kind == "|":
            state, saw_base, labels["base"] = "base", True, label or labels["base"]
        elif state in ("ours", "base") and kind == "=":
            state = "theirs"
        elif state == "theirs" and kind == ">":
            state, blocks, labels["theirs"] = "out", blocks + 1, label or labels["theirs"]
            every_base = every_base and saw_base
        else:
            for side in ("ours", "base", "theirs") if state == "out" else (state,):
                sides[side].append(line)
                joined[side].append(line if state == "out" else line.rstrip("\r\n"))
    if state != "out" or not blocks:
        return None
    newline = "\r\n" if "\r\n" in text else "\n"
    markers = Markers(size, labels["ours"], labels["base"], labels["theirs"], every_base, newline)
    base = "".join(sides["base"]) if every_base else None
    one = {k: "".join(v) for k, v in joined.items()}
    one_line = all("\n" not in v.rstrip("\r\n") for v in one.values())
    flat = (one["ours"], one["base"] if every_base else None, one["theirs"]) if one_line else None
    return Marked("".join(sides["ours"]), base, "".join(sides["theirs"]), markers, blocks, flat)


def _marker(line: str, size: int) -> tuple[str | None, str]:
    """Which marker a line is (``<``, ``|``, ``=``, ``>``; None for content) and its label."""
    body = line.rstrip("\r\n")
    char = body[:1]
    if char not in ("<", "|", "=", ">") or body[:size] != char * size:
        return None, ""
    rest = body[size:]
    if char == "=":
        return ("=", "") if rest == "" else (None, "")
    if rest == "" or rest.startswith(" "):
        return char, rest[1:]
    return None, ""
