"""Parsed documents cached by path and stat (mtime, ctime, size, inode): a read or write parses
a file once, and every call sees the file as it is now (a stat each; a file written within
the timestamps' tick has its bytes compared again, as git does with racily clean entries)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

from ..codecs import Document, format_from_name, parse
from ..errors import OperationalError, ParseError
from ..fsio import read_regular
from ..validation.files import check_document
from ..validation.model import FileReport
from .files import Stat, contents


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
    seen_ns: int = field(default=0, compare=False)  # the clock before ``stat`` was taken
    place: str | None = field(default=None, compare=False)  # the path in the repository

    @property
    def data(self) -> Any:
        return None if self.doc is None else self.doc.data


class Store:
    """The parse cache. Thread-safe: tools run in worker threads, the watcher in another."""

    def __init__(self, prefix: str = "") -> None:
        self._cache: dict[str, Loaded] = {}
        self._lock = threading.Lock()
        self.prefix = prefix  # the served folder in the repository ("" at its top)

    def place_of(self, rel: str) -> str | None:
        """The path of a served document as the repository names it, when the served folder
        is below its top (``--root .work``): a VerMAS file is judged by its place there, as
        ``validate`` and the pre-push hook judge it; None: ``rel`` is that path."""
        return f"{self.prefix}{rel}" if self.prefix else None

    def load(self, rel: str, real: str) -> Loaded | None:
        """The file now (parsed again only when its stat or, within the timestamps' tick,
        its bytes changed); None when it is gone."""
        seen = time.time_ns()
        stat = Stat.of(real)
        if stat is None:
            with self._lock:
                self._cache.pop(real, None)
            return None
        with self._lock:
            cached = self._cache.get(real)
        if cached is not None and cached.stat == stat and cached.rel == rel:
            if not stat.racy(cached.seen_ns):
                return cached
            if contents(real) == cached.raw:  # racily clean: the same bytes, seen later
                again = replace(cached, seen_ns=seen)
                with self._lock:
                    if self._cache.get(real) is cached:
                        self._cache[real] = again
                return again
        loaded = replace(_read(rel, real, stat, seen), place=self.place_of(rel))
        with self._lock:
            self._cache[real] = loaded
        return loaded

    def remember(self, rel: str, real: str, raw: bytes, doc: Document, report: FileReport) -> None:
        """What was just written, so the next read does not parse it again (its bytes are
        compared once: a save right after the rename, before this stat, has the stat)."""
        stat = Stat.of(real)
        if stat is None:
            return
        with self._lock:
            place = self.place_of(rel)
            self._cache[real] = Loaded(rel, real, stat, raw, doc, None, [report], place=place)

    def forget(self, real: str) -> None:
        with self._lock:
            self._cache.pop(real, None)


def _read(rel: str, real: str, stat: Stat, seen: int) -> Loaded:
    try:
        raw = read_regular(real)  # never a FIFO swapped in: it would block the server
    except OperationalError as exc:
        why = f"{rel}: {exc.message.split(': ', 1)[-1]}"
        return Loaded(rel, real, stat, b"", None, why, seen_ns=seen)
    try:
        doc = parse(raw, path=rel)
    except ParseError as exc:
        return Loaded(rel, real, stat, raw, None, exc.one_line(), seen_ns=seen)
    except RecursionError:  # belt and braces: the codecs limit nesting themselves
        why = f"{rel}: nesting too deep to read"
        return Loaded(rel, real, stat, raw, None, why, seen_ns=seen)
    return Loaded(rel, real, stat, raw, doc, None, seen_ns=seen)


def report_of(loaded: Loaded) -> FileReport:
    """The validation of a loaded document, computed once per file state."""
    if not loaded.report:
        assert loaded.doc is not None
        loaded.report.append(check_document(loaded.doc, loaded.rel, place=loaded.place))
    return loaded.report[0]


def format_of(loaded: Loaded) -> str:
    """``json`` or ``tron``: the document's own, else what its name says."""
    if loaded.doc is not None:
        return str(loaded.doc.format)

    return format_from_name(loaded.rel) or "json"
