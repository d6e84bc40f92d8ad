"""``git vcontext status [--format text|json|dot|mermaid]``: one row per agent branch, or a map."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..branches.agents import running_agent
from ..errors import ExitCode
from ..fsio import write_output
from ..gitio import open_repo
from ..pictures.render import render
from ..sync.interrupted import finish
from ..sync.picture import agent_picture
from ..sync.status import agents_status, base_tracking, status_json, table
from ..values import json_report
from ..workflow.status import fetch_bases

if TYPE_CHECKING:
    from ..sync.status import AgentStatus
    from ..sync.trials import Clash


def run(
    *, fmt: str = "text", exit_code: bool = False, fetch: bool = False, everyone: bool = False
) -> int:
    """Print the rows; exit 1 when a sync would stop on a conflict (alone, or after another
    agent's), else 0. A picture printed is a success (``status --format dot | dot -Tpng``
    pipelines): it exits 1 for a predicted conflict only with ``exit_code``. ``fetch``:
    fetch the bases' upstreams and the agent branches first (else as last fetched). In an
    agent's clone the other agents only a remote has are left out (``sync.status.listed``)
    unless ``everyone`` (``--all``)."""
    repo = open_repo(".")

    def say(line: str) -> None:
        print(f"git-vcontext: {line}", file=sys.stderr)

    finish(repo, say=say)
    gone = fetch_bases(repo, say) if fetch else frozenset()
    rows, clashes, unlisted = agents_status(repo, None if everyone else running_agent(repo))
    tracking = base_tracking(repo, rows, gone)
    if fmt in ("dot", "mermaid"):
        _picture(rows, clashes, fmt)
    elif fmt == "json":
        sys.stdout.write(json_report(status_json(rows, tracking, unlisted)))
    else:
        for line in table(rows, tracking, unlisted):
            print(line)
    conflicted = any(r.conflicts or r.clashes for r in rows)
    if fmt in ("dot", "mermaid") and not exit_code:
        return int(ExitCode.OK)
    return int(ExitCode.FOUND if conflicted else ExitCode.OK)


def _picture(rows: list[AgentStatus], clashes: list[Clash], fmt: str) -> None:
    """The agents around their bases, agents that would conflict linked in red."""
    picture = agent_picture(rows, clashes)
    text, warning = render(picture, fmt, name="agents")
    if warning:
        print(f"git-vcontext: warning: {warning}", file=sys.stderr)
    write_output(None, text)
