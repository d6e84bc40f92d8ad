"""Versions of a document in history: parsed once per blob, indexed on demand, kept a while."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from functools import cached_property
from typing import Any

from ..codecs import format_from_name
from ..diff.files import load
from ..errors import ParseError
from .items import Index

CACHE_SIZE = 64
"""Parsed versions kept at once: a walk needs a commit's version and its parents' for a
while; keeping every version of a long history would hold all of them in memory."""


class Version:
    """One version of a file: its data (None when the file is absent or empty) or why it
    does not parse. ``path`` is the name it was first read under."""

    def __init__(self, blob: str | None, path: str, data: Any, error: str | None = None) -> None:
        self.blob = blob
        self.path = path
        self.data = data
        self.error = error

    @property
    def readable(self) -> bool:
        return self.error is None

    @property
    def present(self) -> bool:
        """The file exists at this version (an empty file counts: it has no items)."""
        return self.blob is not None

    @cached_property
    def index(self) -> Index:
        return Index(self.data)


def absent(path: str) -> Version:
    """The file does not exist here."""
    return Version(None, path, None)


class Versions:
    """Parse blobs on demand (``read(blob id) -> bytes``), each blob once while it is cached.

    The same blob under two names is parsed once per format the names announce (a
    ``.tron`` name parses as TRON, a ``.json`` one as JSON).
    """

    def __init__(self, read: Callable[[str], bytes], size: int = CACHE_SIZE) -> None:
        self._read = read
        self._size = size
        self._cache: OrderedDict[tuple[str, Any], Version] = OrderedDict()
        self.parsed = 0  # how many blobs were parsed (for tests and benchmarks)

    def get(self, blob: str | None, path: str) -> Version:
        """The version a blob holds, read as the file ``path``; absent for no blob."""
        if blob is None:
            return absent(path)
        key = (blob, format_from_name(path))
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._parse(blob, path)
            if len(self._cache) > self._size:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)  # most recently used last
        return found

    def _parse(self, blob: str, path: str) -> Version:
        self.parsed += 1
        try:
            doc = load(self._read(blob), path)
        except ParseError as exc:
            return Version(blob, path, None, exc.one_line())
        return Version(blob, path, None if doc is None else doc.data)
