"""``git vcontext merge BASE OURS THEIRS``: the same merge outside git, with a JSON report."""

from __future__ import annotations

import sys

from ..clock import now_rfc3339
from ..errors import ExitCode, UsageError
from ..fsio import read_bytes, write_output
from ..gitio.settings import checked_favor, merge_settings
from ..merging.files import merge_files
from ..merging.result import MergeOptions
from ..merging.textmerge import Markers
from ..values import json_report
from .merge_driver import describe, warn


def run(
    *,
    base: str,
    ours: str,
    theirs: str,
    output: str | None = None,
    path: str | None = None,
    report: str | None = None,
    conflict_style: str | None = None,
    favor: str | None = None,
) -> int:
    """Merge three files; result to OUT or stdout; exit 0 clean, 1 conflicts."""
    if report == "-" and output in (None, "-"):
        raise UsageError("--report - writes the report to stdout: give -o OUT for the result")
    raw = [b"" if p == "/dev/null" else read_bytes(p) for p in (base, ours, theirs)]
    name = path or ours
    settings = merge_settings(conflict_style)
    warn(settings.warnings)
    markers = Markers(7, ours, base, theirs, settings.diff3)
    outcome = merge_files(
        raw[0],
        raw[1],
        raw[2],
        path=name,
        markers=markers,
        options=MergeOptions(now=now_rfc3339(), path=name),
        structured=settings.structured,
        favor=checked_favor(favor)[0] or settings.favor,
    )
    write_output(output, outcome.output.decode("utf-8", "surrogateescape"))
    if report is not None:
        text = json_report(outcome.report())
        if report == "-":
            sys.stdout.write(text)
        else:
            write_output(report, text)
    describe(outcome, name)
    return int(ExitCode.OK if outcome.clean else ExitCode.FOUND)
