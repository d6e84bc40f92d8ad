"""M18: objects with a repeated key (invalid by the spec, written by some tools) still merge.

Such a document is read with each pair kept (the n-th pair of key ``k`` held as
``json_text.duplicate_name(k, n)``), merged as data and written back as an edit of
ours' text, so the pairs stay as they were. That holds only while no side changes a
repeated key: the merge compares each side's repeated pairs (where they are and what
they hold) with the base's, and any difference sends the file to the line merge (M16).
"""

from __future__ import annotations

from ..codecs.duplicate_keys import DUPLICATE_MARK, written_key
from ..errors import ParseError
from ..values import canonical

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..codecs import Document

RULE = "duplicate-key"


def is_duplicate_error(exc: ParseError) -> bool:
    return exc.rule == RULE


def parse_keeping(raw: bytes, fmt: str, exc: ParseError) -> Document:
    """``raw`` read with its repeated keys kept (JSON, TRON; other formats raise ``exc``)."""
    if fmt not in ("json", "tron") or not is_duplicate_error(exc):
        raise exc
    if fmt == "tron":
        # lazy: only for repeated keys, each format its own reader
        from ..codecs import tron

        return tron.loads(raw, keep_duplicates=True)
    # lazy: only for repeated keys, each format its own reader
    from ..codecs.json_text import loads

    return loads(raw, keep_duplicates=True)


def signature(data: Any) -> list[tuple[str, str, tuple[str, ...]]]:
    """Every repeated key: (where its object is, the key, what each pair holds), sorted.

    Elements on the way are named by their id where they have one, else by index."""
    out: list[tuple[str, str, tuple[str, ...]]] = []
    stack: list[tuple[Any, tuple[str, ...]]] = [(data, ())]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict):
            repeated = {written_key(k) for k in node if DUPLICATE_MARK in k}
            for key in sorted(repeated):
                pairs = [v for k, v in node.items() if written_key(k) == key]
                out.append(("/".join(where), key, tuple(canonical(v) for v in pairs)))
            for k, v in node.items():
                if isinstance(v, (dict, list)):
                    stack.append((v, (*where, k)))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                if isinstance(v, (dict, list)):
                    stack.append((v, (*where, _element_name(v, i))))
    out.sort()
    return out


def _element_name(element: Any, index: int) -> str:
    if isinstance(element, dict):
        for key in ("id", "uid", "eventId", "event_id"):
            ident = element.get(key)
            if isinstance(ident, (str, int)) and not isinstance(ident, bool):
                return f"[{key}={ident!r}]"
    return f"[{index}]"


def changed_keys(base: Any, ours: Any, theirs: Any) -> list[str]:
    """The repeated keys a side changed (added, removed or edited a pair of), if any."""
    b = signature(base)
    found = []
    for side in (ours, theirs):
        s = signature(side)
        if s != b:
            found += [key for _, key, _ in sorted(set(s) ^ set(b))]
    return sorted(set(found))
