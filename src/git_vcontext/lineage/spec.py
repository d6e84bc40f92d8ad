"""``FILE#ID#ID…`` arguments: which document, and which of its items (an id may be quoted).

``#`` separates the file from the ids and the ids from each other. An id that
holds ``#`` (or starts with a quote, or is empty) is written as a JSON string:
``todo.vcontext.json#t1#"step #2"`` names ``t1`` and ``step #2``. A file whose own
name holds ``#`` is recognised because it exists: the longest part of the
argument before a ``#`` that names a file is the file.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from ..errors import UsageError
from ..record import record

_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]


@record
class Target:
    """A document and the ids asked about (none: the whole document)."""

    file: str
    ids: tuple[str, ...] = ()


def split_target(arg: str, is_file: Callable[[str], bool]) -> Target:
    """``FILE`` or ``FILE#ID[#ID…]``; ``is_file(name)`` says whether a name is a file."""
    if "#" not in arg or is_file(arg):
        return Target(arg)
    cuts = [i for i, ch in enumerate(arg) if ch == "#"]
    at = next((i for i in reversed(cuts) if is_file(arg[:i])), cuts[0])
    if at == 0:
        raise UsageError(f"{arg}: no file before '#'")
    return Target(arg[:at], parse_ids(arg[at + 1 :], arg))


def parse_ids(text: str, arg: str = "") -> tuple[str, ...]:
    """``a#b#"c#d"`` -> ``("a", "b", "c#d")``; a quoted id is a JSON string literal."""
    ids: list[str] = []
    pos = 0
    while True:
        if text.startswith('"', pos):
            try:
                ident, end = _scanstring(text, pos + 1)
            except ValueError as exc:
                raise UsageError(f"{arg or text}: bad quoted id ({exc.args[0]})") from None
            if end < len(text) and text[end] != "#":
                raise UsageError(f"{arg or text}: '#' expected after the quoted id {text[pos:end]}")
        else:
            end = text.find("#", pos)
            end = len(text) if end < 0 else end
            ident = text[pos:end]
            if not ident:
                raise UsageError(f'{arg or text}: empty id (write "" for an empty id)')
        ids.append(ident)
        if end >= len(text):
            return tuple(dict.fromkeys(ids))
        pos = end + 1


def show_id(ident: str) -> str:
    """An id as ``FILE#ID`` takes it back: plain, or quoted when it needs to be."""
    if not ident or "#" in ident or ident.startswith('"') or not ident.isprintable():
        return json.dumps(ident, ensure_ascii=False)
    return ident
