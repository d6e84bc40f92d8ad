"""Validating one file's bytes: the entry point the command, the hook and the library share.

First version: parsing only (rules ``parse`` and ``conflict-markers``); the schema and
semantic rules are added by the validation work (issue 6).
"""

from __future__ import annotations

from ..errors import ParseError
from .model import FileReport, Finding


def check_bytes(raw: bytes, path: str) -> FileReport:
    """Validate the content ``raw`` of the file ``path`` (format from the name, else content)."""
    from ..codecs import parse

    try:
        parse(raw, path=path)
    except ParseError as err:
        finding = Finding(err.rule, "", err.reason, err.line, err.column)
        return FileReport(path, (finding,))
    return FileReport(path)
