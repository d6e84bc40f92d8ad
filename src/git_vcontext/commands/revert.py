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
    rest = list(last.rest)  # by id: the revisions as given may name others now HEAD moved
    print(
        f"git-vcontext: the revert of {last.commit[:7]} stopped on conflicts: "
        + ", ".join(last.stopped),
        file=sys.stderr,
    )
    steps = [
        "git vcontext conflicts",
        "git vcontext resolve PATH --take <ours|theirs>   (or edit and git add other files)",
        "git commit --no-edit" if not no_commit else "",
    ]
    if rest:
        flags = (["--no-commit"] if no_commit else []) + ([f"-m {mainline}"] if mainline else [])
        steps.append("git vcontext revert " + " ".join([*flags, *rest]))
    print("next:\n" + "\n".join(f"  {s}" for s in steps if s), file=sys.stderr)
    return int(ExitCode.FOUND)
