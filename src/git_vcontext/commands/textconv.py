"""``git vcontext textconv FILE``: canonical line-per-fact text for ``git diff``/``git log -p``."""

from __future__ import annotations

import sys

from ..diffing.files import load
from ..diffing.textconv import textconv
from ..errors import ExitCode, ParseError
from ..fsio import read_bytes, write_output


def run(*, file: str) -> int:
    """Print the canonical text; a file that does not parse is printed unchanged (exit 0)."""
    raw = read_bytes(file)

    try:
        doc = load(raw, None if file == "-" else file)
    except ParseError:
        doc = None
    if doc is None:  # empty, or not parsable: git must still show something; the raw text helps
        _write_raw(raw)
    else:
        write_output(None, textconv(doc.data))
    return int(ExitCode.OK)


def _write_raw(raw: bytes) -> None:
    sys.stdout.buffer.write(raw)
    sys.stdout.buffer.flush()
