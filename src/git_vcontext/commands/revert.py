"""``git vcontext revert [--no-commit] [--edit] [-m N] COMMIT…``: revert as new changes."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from ..errors import ExitCode
from ..workflow.revert import revert


def run(
    *,
    revisions: Sequence[str],
    no_commit: bool = False,
    edit: bool = False,
    mainline: int | None = None,
) -> int:
    """Exit 0 when every commit was reverted, 1 when one stopped on conflicts."""
    done = revert(revisions, commit=not no_commit, edit=edit, mainline=mainline, say=print)
    stopped = [r for r in done if r.stopped]
    if not stopped:
        return int(ExitCode.OK)
    last = stopped[0]
    rest = revisions_after(revisions, done)
    print(
        f"git-vcontext: the revert of {last.commit[:7]} stopped on conflicts: "
        + ", ".join(last.stopped),
        file=sys.stderr,
    )
    steps = [
        "git vcontext conflicts",
        "git vcontext resolve PATH --take ours|theirs   (or edit and git add other files)",
        "git commit --no-edit" if not no_commit else "",
    ]
    if rest:
        steps.append("git vcontext revert " + " ".join(rest))
    print("next:\n" + "\n".join(f"  {s}" for s in steps if s), file=sys.stderr)
    return int(ExitCode.FOUND)


def revisions_after(revisions: Sequence[str], done: Sequence[object]) -> list[str]:
    """The revisions given that were not reached (a stop ends the run)."""
    return list(revisions[len(done) :]) if len(done) < len(revisions) else []
