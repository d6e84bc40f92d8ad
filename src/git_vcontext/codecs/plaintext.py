"""Plain text (VerMAS ``.work/.assignment-*``): no structure; merged by lines, never parsed."""

from __future__ import annotations

from ..values import JsonValue
from .text import SourceText, decode


class TextDocument(SourceText):
    """A plain-text file; ``data`` is its text (BOM excluded)."""

    format = "text"

    def __init__(self, text: str, bom: bool) -> None:
        self.text = text
        self.data = text
        self.bom = bom

    def render(self, new: JsonValue) -> str:
        """The new text (a plain-text document holds one string)."""
        if not isinstance(new, str):
            raise TypeError("a plain-text document holds a string")
        return self.with_bom(new)


def loads(raw: bytes | str) -> TextDocument:
    """Any UTF-8 text (a ParseError only for binary content or bytes that are not UTF-8)."""
    text, bom = decode(raw)
    return TextDocument(text, bom)


def dumps(value: JsonValue) -> str:
    """The text itself."""
    if not isinstance(value, str):
        raise ValueError("a plain-text document holds a string")
    return value
