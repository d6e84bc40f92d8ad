"""``git mergetool -t vcontext``: a person walks through each conflict in the terminal.

git runs ``git-vcontext mergetool "$BASE" "$LOCAL" "$REMOTE" "$MERGED"`` at the top of the
work tree; the conflicts come from the index stages of MERGED (as ``resolve`` reads them),
each shown with where it is and the three values; the person takes a side or edits the
value in their editor. Exit 0 when none is left (the file is written and staged), 1 otherwise.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..conflicts.session import open_file
from ..errors import ExitCode, UsageError
from ..gitio import git
from ..merging.result import MISSING
from ..resolution.model import Choice
from ..spelling import dumps as json_dumps
from .resolve import parse_value

if TYPE_CHECKING:
    from typing import Any

    from ..conflicts.session import Session
    from ..resolution.model import FileConflict

ASK = "Take [o]urs, [t]heirs, [b]ase, [e]dit the value, [s]kip, [q]uit? "
SIDES = {"o": "ours", "t": "theirs", "b": "base"}
MAX_LINES = 20


def run(
    *,
    base: str,
    local: str,
    remote: str,
    merged: str,
    ask: Callable[[str], str | None] | None = None,
    say: Callable[[str], None] | None = None,
) -> int:
    """Ask about each conflict left in MERGED, then write (and stage) it."""
    del base, local, remote  # git's copies of MERGED's index stages, which are read directly
    ask = ask or _ask
    say = say or _say
    session = open_file(merged)
    labels = session.labels
    sides = f"ours = {labels['ours']}, theirs = {labels['theirs']}"
    say(f"{session.path}: {len(session.remaining)} conflict(s); {sides}")
    outcome = session.apply(_walk(session, ask, say))
    for line in outcome.warnings:
        say(f"warning: {line}")
    if outcome.done:
        say(f"{session.path}: resolved" + (", staged" if outcome.staged else ""))
        return int(ExitCode.OK)
    say(f"{session.path}: {len(outcome.remaining)} conflict(s) left (choices so far are kept)")
    return int(ExitCode.FOUND)


def _walk(
    session: Session, ask: Callable[[str], str | None], say: Callable[[str], None]
) -> dict[str, Choice]:
    """The person's choices, conflict after conflict, until the last one or "quit"."""
    todo = session.remaining
    chosen: dict[str, Choice] = {}
    for number, c in enumerate(todo, start=1):
        say("")
        say(f"[{number}/{len(todo)}] {c.where} ({c.kind}, id {c.id})")
        for line in _sides(c, session.labels, base_known=session.base_known):
            say(line)
        answer = _choose(session, c, chosen, ask, say)
        if isinstance(answer, str):  # "quit"
            break
        if answer is not None:
            chosen[c.id] = answer
    return chosen


def _choose(
    session: Session,
    c: FileConflict,
    chosen: dict[str, Choice],
    ask: Callable[[str], str | None],
    say: Callable[[str], None],
) -> Choice | str | None:
    """A choice for ``c``; None to skip it, "quit" to stop asking."""
    prompt = ASK if session.base_known else ASK.replace("[b]ase, ", "")
    while True:
        answer = ask(prompt)
        if answer is None or answer.strip().lower() in ("q", "quit"):
            return "quit"
        key = answer.strip().lower()[:1]
        if key == "s":
            return None
        if key in SIDES:
            choice: Choice | None = Choice(SIDES[key])
        elif key == "e":
            choice = _edited(c, say)
        else:
            say("  answer o, t, b, e, s or q")
            continue
        if choice is not None and _acceptable(session, {**chosen, c.id: choice}, say):
            return choice


def _acceptable(session: Session, choices: dict[str, Choice], say: Callable[[str], None]) -> bool:
    try:
        session.apply(choices, dry_run=True)
    except UsageError as exc:
        say(f"  refused: {exc.one_line()}")
        return False
    return True


def _edited(c: FileConflict, say: Callable[[str], None]) -> Choice | None:
    """The value written in the person's editor (None: left empty, or not JSON)."""
    start = next((c.side(s) for s in ("ours", "theirs", "base") if c.side(s) is not MISSING), None)
    header = [f"# The value of {c.where} (JSON). Lines starting with # are ignored;"]
    header += ["# an empty file keeps the conflict."]
    header += [f"# {side}: {_one_line(c.side(side))}" for side in ("base", "ours", "theirs")]
    text = edit_in_editor("\n".join(header) + "\n" + json_dumps(start, indent="  ") + "\n")
    body = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("#")).strip()
    if not body:
        say("  nothing written: the conflict stays")
        return None
    try:
        return Choice(None, parse_value(body))
    except UsageError as exc:
        say(f"  {exc.one_line()}")
        return None


def edit_in_editor(text: str) -> str:
    """``text`` as the person leaves it in git's editor (GIT_EDITOR, core.editor, VISUAL…)."""
    editor = git(["var", "GIT_EDITOR"], check=False).stdout.strip() or "vi"
    fd, name = tempfile.mkstemp(prefix="vcontext-value-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        subprocess.run(["sh", "-c", f'{editor} "$@"', editor, name], check=False)
        with open(name, encoding="utf-8", errors="surrogateescape") as fh:
            return fh.read()
    finally:
        os.unlink(name)


def _sides(c: FileConflict, labels: dict[str, str], *, base_known: bool = True) -> list[str]:
    names = {
        "base": "base",
        "ours": f"ours ({labels['ours']})",
        "theirs": f"theirs ({labels['theirs']})",
    }
    lines = []
    for side in ("base", "ours", "theirs"):
        value = c.side(side)
        shown = (
            ["(unknown: the markers have no base section)"]
            if side == "base" and not base_known
            else ["(absent)"]
            if value is MISSING
            else json_dumps(value, indent="  ", ensure_ascii=False).splitlines()
        )
        if len(shown) > MAX_LINES:
            shown = [*shown[: MAX_LINES - 1], f"… ({len(shown) - MAX_LINES + 1} more lines)"]
        lines.append(f"  {names[side]}: {shown[0]}")
        lines += [f"      {line}" for line in shown[1:]]
    for name, *values in c.bound:  # chosen with the status (M13)
        sides = zip(("base", "ours", "theirs"), values, strict=True)
        each = ", ".join(f"{side} {_one_line(v)}" for side, v in sides)
        lines.append(f"  with {name}: {each}")
    return lines


def _one_line(value: Any) -> str:
    return "(absent)" if value is MISSING else json_dumps(value, ensure_ascii=False)


def _ask(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None


def _say(line: str) -> None:
    print(line, file=sys.stdout, flush=True)
