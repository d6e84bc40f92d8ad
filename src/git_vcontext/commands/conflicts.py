"""``git vcontext conflicts [PATHS…] [--format text|json]``: what is left to resolve, as data."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..conflicts.listing import list_conflicts
from ..conflicts.report import render_text
from ..errors import ExitCode
from ..fsio import write_output
from ..validation.model import command_path
from ..values import json_report

if TYPE_CHECKING:
    from ..conflicts.listing import Listing

HINT = "resolve with: git vcontext resolve PATH [--conflict ID] --take <ours|theirs|base>"


def run(*, paths: Sequence[str] = (), fmt: str = "text") -> int:
    """List the conflicts; exit 1 when there are any, 0 when none is left."""
    listing = list_conflicts(paths)
    if fmt == "json":
        write_output(None, json_report(listing.to_json()))
    else:
        write_output(None, render_text(listing))
        _summary(listing)
    return int(ExitCode.FOUND if listing.found else ExitCode.OK)


def _summary(listing: Listing) -> None:
    count = sum(len(f.conflicts) for f in listing.files)
    files = sum(1 for f in listing.files if f.conflicts)
    if count:
        named = [f.path for f in listing.files if f.conflicts]
        hint = HINT.replace("PATH", command_path(named[0])) if files == 1 else HINT
        print(f"{count} conflict(s) in {files} file(s); {hint}", file=sys.stderr)
    elif listing.found and (listing.others or any(f.source == "stages" for f in listing.files)):
        print("no vContext conflict left as data; files still unmerged", file=sys.stderr)
    elif listing.found:  # only stray markers: no merge stopped, nothing unmerged
        print("no conflict to take a side of; edit the file(s) named above", file=sys.stderr)
    elif not listing.found:
        print("no vContext conflicts", file=sys.stderr)
