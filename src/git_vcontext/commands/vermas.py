"""``git vcontext vermas project [DIR] [--check]``: rebuild VerMAS projections from the events.

DIR holds ``events.jsonl`` (default: ``.work`` here, else at the top of the repository).
``work_orders.jsonl`` and ``messages.jsonl`` are rebuilt in their own style and record
order; nothing is written unless every file reads (then each is replaced atomically).
``--check`` writes nothing and exits 1 when a rebuild would change something (for CI).
"""

from __future__ import annotations

import os

from ..errors import ExitCode, OperationalError
from ..fsio import read_regular, write_atomic
from ..gitio import git
from ..validation.rebuild import plan_rebuild
from ..vermas.project import PROJECTIONS

EVENTS = "events.jsonl"


def run(*, directory: str | None = None, check: bool = False) -> int:
    """Rebuild (or with ``check`` only compare) the projections of one ``.work`` directory."""
    work = work_directory(directory)
    events = os.path.join(work, EVENTS)
    planned = plan_rebuild(events, read_regular(events), _projections(work))
    changed = [p for p in planned if p.changed]
    for p in planned:
        print(p.summary(check=check))
    if not changed:
        return int(ExitCode.OK)
    if check:
        for p in changed:
            for line in p.drift_lines():
                print(f"  {line}")
        return int(ExitCode.FOUND)
    top = _project_top(work)
    for p in changed:  # files picked here: never through a link leading out of the project
        write_atomic(p.path, p.output, inside=top)
    return int(ExitCode.OK)


def _project_top(work: str) -> str:
    """The repository around ``work`` (its top), else the folder holding ``work``."""
    try:
        out = git(["rev-parse", "--show-toplevel"], cwd=work, check=False)
    except OperationalError:
        out = None
    if out is not None and out.returncode == 0 and out.stdout.strip():
        return out.stdout.strip()
    return os.path.dirname(os.path.abspath(work))


def work_directory(given: str | None) -> str:
    """DIR if it holds events.jsonl, else DIR/.work; without DIR: here, then the repo's top."""
    candidates = [given, os.path.join(given, ".work")] if given else _defaults()
    for folder in candidates:
        if folder and os.path.isfile(os.path.join(folder, EVENTS)):
            return os.path.normpath(folder)
    where = given or "here or at the top of the repository"
    raise OperationalError(
        f"no {EVENTS} in {where} (nor in .work under it); give the .work directory"
    )


def _defaults() -> list[str]:
    found = [".", ".work"]

    try:
        top = git(["rev-parse", "--show-toplevel"], check=False).stdout.strip()
    except OperationalError:
        top = ""
    if top:
        found.append(os.path.relpath(os.path.join(top, ".work")))
    return found


def _projections(work: str) -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    for name in PROJECTIONS:
        path = os.path.join(work, name)
        out[path] = read_regular(path) if os.path.exists(path) else None
    return out
