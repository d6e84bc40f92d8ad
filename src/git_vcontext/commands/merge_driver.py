"""``git vcontext merge-driver %O %A %B -p %P -l %L``: the merge git runs for each file."""

from __future__ import annotations

import sys

from ..errors import ExitCode
from ..fsio import read_bytes, write_atomic
from ..merge.files import FileMerge, merge_files
from ..merge.result import MergeOptions
from ..merge.textmerge import Markers


def run(
    *,
    base: str,
    ours: str,
    theirs: str,
    path: str | None = None,
    marker_size: int = 7,
    base_label: str | None = None,
    ours_label: str | None = None,
    theirs_label: str | None = None,
    conflict_style: str | None = None,
    virtual_base: bool = False,
) -> int:
    """Merge into ``ours`` (%A) in place; exit 0 when clean, 1 when conflicts remain.

    ``virtual_base``: git's inner merge of a criss-cross history (``install`` names this
    for ``merge.vcontext.recursive``): every conflict takes the base's value, exit 0.
    """
    from ..clock import now_rfc3339

    raw = [read_bytes(p) for p in (base, ours, theirs)]
    options = MergeOptions(now=now_rfc3339(), path=path)
    if virtual_base:  # never a conflict: a valid document for the outer merge (M16)
        outcome = merge_files(
            *raw, path=path, options=options, markers=Markers(marker_size), virtual_base=True
        )
    else:
        labels = (
            _label(ours_label, "ours"),
            _label(base_label, "base"),
            _label(theirs_label, "theirs"),
        )
        outcome = _merged(raw, path, options, Markers(marker_size, *labels), conflict_style)
    if outcome.output != raw[1]:
        write_atomic(ours, outcome.output)
    describe(outcome, path or ours)
    return int(ExitCode.OK if outcome.clean or virtual_base else ExitCode.FOUND)


def _merged(
    raw: list[bytes],
    path: str | None,
    options: MergeOptions,
    markers: Markers,
    conflict_style: str | None,
) -> FileMerge:
    """The merge git asked for, in the conflict style of the options and git config."""
    outcome = merge_files(raw[0], raw[1], raw[2], path=path, options=options, markers=markers)
    if outcome.clean:
        return outcome
    # Style settings only matter for conflicts: read git config only then.
    diff3, structured = conflict_settings(conflict_style)
    if not diff3 and not structured:
        return outcome
    markers = Markers(
        markers.size, markers.ours_label, markers.base_label, markers.theirs_label, diff3
    )
    return merge_files(
        raw[0],
        raw[1],
        raw[2],
        path=path,
        options=options,
        markers=markers,
        structured=structured,
    )


def _label(given: str | None, default: str) -> str:
    """Labels git passes (%S %X %Y); older gits pass the placeholder itself."""
    if not given or given.startswith("%"):
        return default
    return given


def conflict_settings(explicit: str | None) -> tuple[bool, bool]:
    """(diff3 base sections?, structured conflicts?) from options and git config."""
    from ..gitio import git

    try:
        out = git(
            ["config", "--get-regexp", r"^merge\.(conflictstyle|vcontext\.conflictstyle)$"],
            check=False,
        ).stdout
    except Exception:
        out = ""
    values = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
    style = values.get("merge.conflictstyle", "merge")
    structured = (explicit or values.get("merge.vcontext.conflictstyle", "markers")) == "structured"
    return style in ("diff3", "zdiff3"), structured


def describe(outcome: FileMerge, name: str) -> None:
    """One line per problem on stderr, as git shows a driver's messages."""
    prefix = f"git-vcontext: {name}"
    for reason in outcome.reasons:
        print(f"{prefix}: merged by lines: {reason}", file=sys.stderr)
    if outcome.result is not None and outcome.status == "conflict":
        shown = outcome.result.conflicts[:10]
        listing = ", ".join(f"{c.path or '/'} ({c.kind})" for c in shown)
        more = len(outcome.result.conflicts) - len(shown)
        extra = f" and {more} more" if more > 0 else ""
        print(
            f"{prefix}: {len(outcome.result.conflicts)} conflict(s): {listing}{extra}",
            file=sys.stderr,
        )
