"""Parsed documents cached by path, mtime, size and inode: a read or write parses a file once."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from ..codecs import Document, format_from_name, parse
from ..errors import OperationalError, ParseError
from ..fsio import read_regular
from ..validation.files import check_document
from ..validation.model import FileReport
from .files import Stat


@dataclass(frozen=True)
class Loaded:
    """One file as last read: its bytes, and the document or why it does not parse."""

    rel: str
    real: str
    stat: Stat
    raw: bytes
    doc: Document | None
    error: str | None  # "file:line:col: reason" when it does not parse or cannot be read
    report: list[FileReport] = field(default_factory=list, compare=False)  # validation, once

    @property
    def data(self) -> Any:
        return None if self.doc is None else self.doc.data


class Store:
    """The parse cache. Thread-safe: tools run in worker threads, the watcher in another."""

    def __init__(self) -> None:
        self._cache: dict[str, Loaded] = {}
        self._lock = threading.Lock()

    def load(self, rel: str, real: str) -> Loaded | None:
        """The file now (parsed again only when its stat changed); None when it is gone."""
        stat = Stat.of(real)
        if stat is None:
            with self._lock:
                self._cache.pop(real, None)
            return None
        with self._lock:
            cached = self._cache.get(real)
        if cached is not None and cached.stat == stat and cached.rel == rel:
            return cached
        loaded = _read(rel, real, stat)
        with self._lock:
            self._cache[real] = loaded
        return loaded

    def remember(self, rel: str, real: str, raw: bytes, doc: Document, report: FileReport) -> None:
        """What was just written, so the next read does not parse it again."""
        stat = Stat.of(real)
        if stat is None:
            return
        with self._lock:
            self._cache[real] = Loaded(rel, real, stat, raw, doc, None, [report])

    def forget(self, real: str) -> None:
        with self._lock:
            self._cache.pop(real, None)


def _read(rel: str, real: str, stat: Stat) -> Loaded:
    try:
        raw = read_regular(real)  # never a FIFO swapped in: it would block the server
    except OperationalError as exc:
        return Loaded(rel, real, stat, b"", None, f"{rel}: {exc.message.split(': ', 1)[-1]}")
    try:
        doc = parse(raw, path=rel)
    except ParseError as exc:
        return Loaded(rel, real, stat, raw, None, exc.one_line())
    except RecursionError:  # belt and braces: the codecs limit nesting themselves
        return Loaded(rel, real, stat, raw, None, f"{rel}: nesting too deep to read")
    return Loaded(rel, real, stat, raw, doc, None)


def report_of(loaded: Loaded) -> FileReport:
    """The validation of a loaded document, computed once per file state."""
    if not loaded.report:
        assert loaded.doc is not None
        loaded.report.append(check_document(loaded.doc, loaded.rel))
    return loaded.report[0]


def format_of(loaded: Loaded) -> str:
    """``json`` or ``tron``: the document's own, else what its name says."""
    if loaded.doc is not None:
        return str(loaded.doc.format)

    return format_from_name(loaded.rel) or "json"
