"""``git vcontext hook post-receive``: merge the agents' requests a push just wrote (server)."""

from __future__ import annotations

import sys

from ..errors import ExitCode
from ..gitio.places import open_pushing_repo
from ..remote.server import bases_requested, integrate


def run(*, text: str | None = None) -> int:
    """Merge the requests of the bases the pushed lines name; report on stderr; exit 0."""
    if text is None:
        stream = sys.stdin
        text = "" if stream is None or stream.isatty() else stream.read()
    bases = bases_requested(text)
    if not bases:
        return int(ExitCode.OK)
    lines = integrate(open_pushing_repo(), bases)
    if lines:
        sys.stderr.write("\n".join(lines) + "\n")
    return int(ExitCode.OK)
