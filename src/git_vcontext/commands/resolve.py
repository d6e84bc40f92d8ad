"""``git vcontext resolve PATH [--conflict ID|POINTER] (--take SIDE | --value JSON)``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..codecs.json_text import parse_value as parse
from ..conflicts.report import short
from ..conflicts.session import NO_VALUE, open_file
from ..errors import ExitCode, ParseError, UsageError
from ..fsio import write_output
from ..merging.result import MISSING
from ..validation.model import quoted_path
from ..values import json_report

if TYPE_CHECKING:
    from typing import Any

    from ..conflicts.session import Outcome


def run(
    *,
    path: str,
    conflict: str | None = None,
    take: str | None = None,
    value: str | None = None,
    no_add: bool = False,
    dry_run: bool = False,
    fmt: str = "text",
) -> int:
    """Settle one conflict (or all that remain); exit 0 when none is left, 1 otherwise."""
    given = NO_VALUE if value is None else parse_value(value)
    session = open_file(path)
    if session.edited_copy is not None:
        _warn(
            f"{quoted_path(session.path)} changed since the merge stopped; resolving from "
            f"git's index stages (your text is kept in {session.edited_copy})"
        )
    chosen = session.asked(conflict, take, given)
    outcome = session.apply(chosen, add=not no_add, dry_run=dry_run)
    for line in outcome.warnings:
        _warn(line)
    # the file settled: what git's stopped merge waits on (one source for text and json)
    steps = [] if dry_run else session.next_steps(outcome)
    _report(outcome, fmt, dry_run, no_add, steps)
    if fmt != "json" and steps:
        print(f"next: {steps[0]}")
    return int(ExitCode.OK if outcome.done else ExitCode.FOUND)


def parse_value(text: str) -> Any:
    """A JSON value from the command line (UsageError when it is not JSON)."""
    try:
        return parse(text)
    except (ParseError, ValueError) as exc:
        reason = exc.one_line() if isinstance(exc, ParseError) else str(exc)
        raise UsageError(f"--value is not JSON: {reason}") from None


def _report(outcome: Outcome, fmt: str, dry_run: bool, no_add: bool, steps: list[str]) -> None:
    if fmt == "json":
        write_output(None, json_report({**outcome.to_json(), "next": steps}))
    elif dry_run:
        write_output(None, outcome.text if outcome.text is not None else "")
    lines = []
    name = quoted_path(outcome.path)
    for c, choice in outcome.chosen:
        shown = short(choice.value_for(c))
        gone = " (removed)" if choice.value_for(c) is MISSING else ""
        lines.append(f"{name}: {c.id} {c.where}: {choice.describe()} {shown}{gone}")
    if outcome.remaining:
        left = ", ".join(f"{c.id} ({c.where})" for c in outcome.remaining)
        lines.append(f"{name}: {len(outcome.remaining)} conflict(s) left: {left}")
    elif dry_run:
        lines.append(f"{name}: no conflict left (dry run: nothing written)")
    else:
        state = (
            "staged"
            if outcome.staged
            else "written" + (" (not staged: --no-add)" if no_add else _unstaged(outcome))
        )
        lines.append(f"{name}: resolved, {state}")
    stream = sys.stderr if dry_run or fmt == "json" else sys.stdout
    for line in lines:
        print(line, file=stream)


def _unstaged(outcome: Outcome) -> str:
    """Why a resolved file was not staged: validate rejects the result (the warnings)."""
    return (
        " (not staged: validate rejects the result, see the warnings)" if outcome.warnings else ""
    )


def _warn(line: str) -> None:
    print(f"git-vcontext: warning: {line}", file=sys.stderr)
