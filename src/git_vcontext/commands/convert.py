"""``git vcontext convert``: lossless JSON <-> TRON for any JSON value."""

from __future__ import annotations

from ..codecs import Format, TronFlavor, dumps, parse
from ..errors import ExitCode
from ..fsio import read_bytes, write_output


def run(*, path: str, to: Format, tron_flavor: TronFlavor, output: str | None) -> int:
    """Read ``path`` (any format), write it as ``to``; the output file is replaced whole."""
    doc = parse(read_bytes(path), path=None if path == "-" else path)
    if doc.format == "jsonl" and to != "json":
        text = dumps(doc.data, "tron", tron_flavor=tron_flavor)
    else:
        text = dumps(doc.data, to, tron_flavor=tron_flavor)
    write_output(output, text)
    return int(ExitCode.OK)
