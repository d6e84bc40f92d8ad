"""``git vcontext validate [PATHS…]``: schema and semantic checks of vContext files.

No paths: every vContext file tracked in the repository (working-tree content).
A directory: the vContext files under it. A file named explicitly is always checked.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence

from ..document import matches_file_patterns
from ..errors import ExitCode, OperationalError
from ..fsio import read_bytes, sniffed_vcontext, write_output
from ..validate.files import check_bytes
from ..validate.model import FileReport
from ..values import json_report


def run(*, paths: Sequence[str] = (), fmt: str = "text") -> int:
    """Validate; exit 0 all valid, 1 any invalid, 3 when a path could not be read."""
    names = list(_tracked()) if not paths else list(_expand(paths))
    reports: list[FileReport] = []
    problems: list[str] = []
    for name in names:
        try:
            raw = read_bytes(name)
        except OperationalError as err:
            problems.append(err.one_line())
            continue
        reports.append(check_bytes(raw, name))
    problems.extend(f"{p}: no such file" for p in paths if p != "-" and not os.path.exists(p))
    write_output(None, _render(reports, fmt))
    for line in problems:
        print(f"git-vcontext: error: {line}", file=sys.stderr)
    if reports or not problems:  # a lone unreadable path: its error line says it all
        _summary(reports)
    if problems:
        return int(ExitCode.OPERATIONAL)
    return int(ExitCode.OK if all(r.valid for r in reports) else ExitCode.FOUND)


def _render(reports: list[FileReport], fmt: str) -> str:
    if fmt == "json":
        return json_report({"files": [r.to_json() for r in reports]})
    lines: list[str] = []
    for r in reports:
        lines.extend(r.lines())
        lines.extend(f"{r.path}: skipped: {s}" for s in r.skipped)
    return "".join(line + "\n" for line in lines)


def _summary(reports: list[FileReport]) -> None:
    if not reports:
        print("no vContext files to validate", file=sys.stderr)
        return
    invalid = [r for r in reports if not r.valid]
    findings = sum(len(r.findings) for r in invalid)
    if invalid:
        print(
            f"{len(invalid)} of {len(reports)} file(s) invalid ({findings} finding(s))",
            file=sys.stderr,
        )


def _expand(paths: Sequence[str]) -> Iterator[str]:
    """Files as given; directories walked for vContext files (``.git`` skipped)."""
    for path in paths:
        if os.path.isdir(path):
            yield from _walk(path)
        elif os.path.exists(path) or path == "-":
            yield path


def _walk(top: str) -> Iterator[str]:
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in sorted(files):
            full = os.path.join(folder, name)
            if not os.path.isfile(full):
                continue  # a FIFO, a device, a dangling link: reading it could block forever
            tail = f"{os.path.basename(folder)}/{name}"
            if matches_file_patterns(tail) or sniffed_vcontext(full):
                yield full


def _tracked() -> Iterator[str]:
    """vContext files tracked in the repository around the current directory."""
    from ..gitio import git

    top = git(["rev-parse", "--show-toplevel"]).stdout.strip()
    listing = git(["ls-files", "-z"], cwd=top).stdout
    here = os.getcwd()
    for rel in filter(None, listing.split("\0")):
        full = os.path.join(top, rel)
        if not os.path.isfile(full):
            continue  # deleted in the working tree
        if matches_file_patterns(rel) or sniffed_vcontext(full):
            yield os.path.relpath(full, here)
