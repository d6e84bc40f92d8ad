"""``git vcontext status [--format text|json|dot|mermaid]``: one row per agent branch, or a map."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..errors import ExitCode
from ..fsio import write_output
from ..gitio import open_repo
from ..pictures.render import render
from ..sync.interrupted import finish
from ..sync.picture import agent_picture
from ..sync.status import all_status, table
from ..sync.trials import predicted_clashes
from ..values import json_report

if TYPE_CHECKING:
    from pygit2 import Repository

    from ..sync.status import AgentStatus


def run(*, fmt: str = "text", exit_code: bool = False) -> int:
    """Print the rows; exit 1 when a sync would stop on a conflict, else 0. A picture
    printed is a success (``status --format dot | dot -Tpng`` pipelines): it exits 1 for
    a predicted conflict only with ``exit_code``."""
    repo = open_repo(".")
    finish(repo, say=lambda line: print(f"git-vcontext: {line}", file=sys.stderr))
    rows = all_status(repo)
    if fmt in ("dot", "mermaid"):
        _picture(repo, rows, fmt)
    elif fmt == "json":
        sys.stdout.write(json_report({"agents": [r.to_json() for r in rows]}))
    else:
        for line in table(rows):
            print(line)
    conflicted = any(r.conflicts for r in rows)
    if fmt in ("dot", "mermaid") and not exit_code:
        return int(ExitCode.OK)
    return int(ExitCode.FOUND if conflicted else ExitCode.OK)


def _picture(repo: Repository, rows: list[AgentStatus], fmt: str) -> None:
    """The agents around their bases, agents that would conflict linked in red."""
    picture = agent_picture(rows, predicted_clashes(repo, rows))
    text, warning = render(picture, fmt, name="agents")
    if warning:
        print(f"git-vcontext: warning: {warning}", file=sys.stderr)
    write_output(None, text)
