"""Document names at the file-name limit (255 bytes on ext4), in one- to four-byte UTF-8
characters: a temporary written beside such a document must still fit."""

from __future__ import annotations

SUFFIX = ".vcontext.json"
NAMES = {
    "ascii-250": "a" * 236 + SUFFIX,
    "ascii-255": "a" * 241 + SUFFIX,
    "two-byte-255": "é" * 120 + "a" + SUFFIX,
    "three-byte-250": "日" * 78 + "aa" + SUFFIX,
    "four-byte-255": "😀" * 60 + "a" + SUFFIX,
}
