"""Versions of a document in history: parsed once per blob, indexed on demand, kept a while.

A JSON version is read from the version read just before it when their texts
differ only inside items (``derive``): a walk through history meets mostly such
neighbours (an agent ticks an item), and parsing one item is far cheaper than
parsing the document.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..codecs import format_from_name
from ..codecs.text import decode
from ..diffing.files import load
from ..errors import ParseError
from .derive import derive
from .parsed import Version, absent

CACHE_SIZE = 64
"""Parsed versions kept at once: a walk needs a commit's version and its parents' for a
while; keeping every version of a long history would hold all of them in memory."""


class Versions:
    """Parse blobs on demand (``read(blob id) -> bytes``), each blob once while it is cached.

    The same blob under two names is parsed once per format the names announce (a
    ``.tron`` name parses as TRON, a ``.json`` one as JSON).
    """

    def __init__(self, read: Callable[[str], bytes], size: int = CACHE_SIZE) -> None:
        self._read = read
        self._size = size
        self._cache: OrderedDict[tuple[str, Any], Version] = OrderedDict()
        self._near: Version | None = None  # the JSON version read last
        self.parsed = 0  # how many blobs were parsed in full (for tests and benchmarks)
        self.derived = 0  # how many were read from a neighbour

    def get(self, blob: str | None, path: str) -> Version:
        """The version a blob holds, read as the file ``path``; absent for no blob."""
        if blob is None:
            return absent(path)
        fmt = format_from_name(path)
        key = (blob, fmt)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._load(blob, path, fmt)
            if len(self._cache) > self._size:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)  # most recently used last
        if found.text is not None:
            self._near = found
        return found

    def _load(self, blob: str, path: str, fmt: Any) -> Version:
        raw = self._read(blob)
        near = self._near
        if fmt == "json" and near is not None and near.path == path:
            found = derive(near, blob, raw)
            if found is not None:
                self.derived += 1
                return found
        return self._parse(blob, path, raw, fmt)

    def _parse(self, blob: str, path: str, raw: bytes, fmt: Any) -> Version:
        self.parsed += 1
        try:
            doc = load(raw, path)
        except ParseError as exc:
            return Version(blob, path, None, exc.one_line())
        if doc is None:
            return Version(blob, path, None)
        if fmt == "json" and doc.format == "json":
            text, bom = decode(raw)
            return Version(blob, path, doc.data, text=text, bom=bom)
        return Version(blob, path, doc.data)
