"""One version of a document as read: its data (a derived one parsed in full only when
asked), its text, its index of identified elements and where they stand."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from ..codecs.json_text import parse_value
from .items import Index
from .layout import Layout, layout

_NOT_YET = object()


class Unparsed:
    """The data of a version read from its neighbour: parsed in full only when asked for.

    Held by the version and by its index (not the version itself: no reference cycle,
    so the commands can run without the cycle collector)."""

    __slots__ = ("_data", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._data: Any = _NOT_YET

    @property
    def data(self) -> Any:
        if self._data is _NOT_YET:
            self._data = parse_value(self.text)
        return self._data


class Version:
    """One version of a file: its data (None when the file is absent or empty) or why it
    does not parse. ``path`` is the name it was first read under. JSON versions keep their
    text, so the next version can be read from this one."""

    def __init__(
        self,
        blob: str | None,
        path: str,
        data: Any = None,
        error: str | None = None,
        *,
        text: str | None = None,
        bom: bool = False,
    ) -> None:
        self.blob = blob
        self.path = path
        self._data = data
        self.error = error
        self.text = text
        self.bom = bom

    @property
    def data(self) -> Any:
        data = self._data
        return data.data if type(data) is Unparsed else data

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

    @cached_property
    def lines(self) -> list[str]:
        return (self.text or "").split("\n")

    @cached_property
    def newlines(self) -> int:
        """How many line breaks the text has (cheaper than its lines)."""
        return len(self.lines) - 1 if "lines" in self.__dict__ else (self.text or "").count("\n")

    @cached_property
    def layout(self) -> Layout | None:
        """Where each item of the text is (JSON versions only)."""
        if self.text is None or self.data is None:
            return None
        return layout(self.text, self.index.slots)


def absent(path: str) -> Version:
    """The file does not exist here."""
    return Version(None, path, None)
