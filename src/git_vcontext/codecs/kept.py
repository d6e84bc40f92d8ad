"""A log kept byte for byte in an edited text, read back without parsing it again (issue 37).

A write on a document with a long ``changeLog`` (or any log) changes a few members and
appends to the log; the text of the log's old elements stays as it was. Reading the
written text back (nothing is written that does not read back, M16) then need not parse
those elements again: the text with that stretch replaced by a string no text holds (a
random nonce) is parsed, the nonce found as the first element of the array at the log's
place, and the old elements (the very same objects) put in its stead. That is exactly what
a full parse gives: the stretch is the old text of those elements, separators and
comments between them included, and a sequence of values reads the same wherever it
stands in an array (for TRON: under the same header, which the caller checks). Anything
else (the stretch not found, the nonce not where the log is, a text that does not parse)
answers None: the caller parses in full, which also says where and why.
"""

from __future__ import annotations

from ..errors import ParseError
from ..oscalls import system

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

SMALLEST = 4096
"""A log whose old elements take fewer characters is parsed again (nothing to gain)."""
PROBE = 64
TRIES = 8


class KeptLog:
    """A log in a document's text: the chain of keys and indexes from the root to it, the
    text of its elements (the first one's start to the last one's end), where that text
    starts, and their data."""

    __slots__ = ("body", "chain", "elements", "start")

    def __init__(self, chain: list[Any], body: str, elements: list[Any], start: int) -> None:
        self.chain = chain
        self.body = body
        self.elements = elements
        self.start = start


def find(text: str, kept: KeptLog) -> int | None:
    """Where ``text`` holds the log's old elements' text, looked for back from its end (the
    log is written last in documents that grow it); None when it does not."""
    body = kept.body
    probe = body[-PROBE:]
    high = len(text)
    for _ in range(TRIES):
        at = text.rfind(probe, 0, high)
        if at < 0:
            return None
        start = at + len(probe) - len(body)
        if start >= 0 and text.startswith(body, start):
            return start
        high = at + len(probe) - 1
    return None


def read(text: str, kept: KeptLog, parse: Callable[[str], Any]) -> tuple[Any, int] | None:
    """The data ``text`` parses to, with the log's old elements taken from ``kept`` rather
    than parsed again, and where their text starts; None when that cannot be shown.

    ``parse`` reads a whole text as the caller's format would (raising ParseError)."""
    if len(kept.body) < SMALLEST:
        return None
    start = find(text, kept)
    if start is None:
        return None
    nonce = "vcontext-kept-" + random_hex()
    if nonce in text:  # never: 128 random bits
        return None
    skeleton = f'{text[:start]}"{nonce}"{text[start + len(kept.body) :]}'
    try:
        data = parse(skeleton)
    except (ParseError, RecursionError):
        return None
    log = at_chain(data, kept.chain)
    if not isinstance(log, list) or not log or log[0] != nonce:
        return None
    log[0:1] = kept.elements
    return data, start


def random_hex(size: int = 16) -> str:
    """``size`` random bytes (128 bits unless told) as hex: a nonce no text holds. From
    ``os.urandom``, as ``secrets.token_hex`` draws them (importing ``secrets`` costs a
    process base64, hashlib, hmac and random: issue 32)."""
    return system.urandom(size).hex()


def at_chain(data: Any, chain: list[Any]) -> Any:
    """The value the chain of keys and indexes leads to in ``data`` (None: it leads nowhere)."""
    node = data
    for step in chain:
        in_object = isinstance(node, dict) and isinstance(step, str) and step in node
        in_array = isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node)
        if not (in_object or in_array):
            return None
        node = node[step]
    return node


def put_back(data: Any, nonce: str, elements: dict[str, list[Any]]) -> dict[str, int] | None:
    """Each nonce of ``elements`` found once, as an element of an array in ``data``, and
    replaced there by its elements: the level of each one's array (the root is 1); None
    when one is not (or is found twice)."""
    found = nonces(data, nonce)
    if found is None or len(found) != len(elements):
        return None
    if {name for _, _, name, _ in found} != elements.keys():
        return None
    for array, j, name, _ in sorted(found, key=lambda f: (id(f[0]), -f[1])):
        array[j : j + 1] = elements[name]
    return {name: level for _, _, name, level in found}


def nonces(data: Any, nonce: str) -> list[tuple[list[Any], int, str, int]] | None:
    """Where ``data``'s arrays hold a string that starts with ``nonce``: (array, index,
    string, the array's level); None when an object holds one (a run is never an object's
    value)."""
    found: list[tuple[list[Any], int, str, int]] = []
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, level = stack.pop()
        is_dict = type(value) is dict
        for j, v in enumerate(value.values() if is_dict else value):
            if type(v) is dict or type(v) is list:
                stack.append((v, level + 1))
            elif type(v) is str and v.startswith(nonce):
                if is_dict:
                    return None
                found.append((value, j, v, level))
    return found
