"""``git vcontext status [--format text|json|dot|mermaid]``: one row per agent branch, or a map."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ..errors import ExitCode
from ..fsio import write_output
from ..gitio import open_repo
from ..pictures.agents import agent_picture
from ..pictures.render import render
from ..sync.interrupted import finish
from ..sync.status import BLOCKED, all_status
from ..sync.trials import predicted_clashes
from ..values import json_report

if TYPE_CHECKING:
    from pygit2 import Repository

    from ..sync.status import AgentStatus

COLUMNS = ("AGENT", "BASE", "AHEAD", "BEHIND", "DOCS", "SEQ", "FORK", "STATE")


def run(*, fmt: str = "text") -> int:
    """Print the rows; exit 1 when a sync would stop on a conflict, else 0."""
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
    return int(ExitCode.FOUND if conflicted else ExitCode.OK)


def _picture(repo: Repository, rows: list[AgentStatus], fmt: str) -> None:
    """The agents around their bases, agents that would conflict linked in red."""
    picture = agent_picture(rows, predicted_clashes(repo, rows))
    text, warning = render(picture, fmt, name="agents")
    if warning:
        print(f"git-vcontext: warning: {warning}", file=sys.stderr)
    write_output(None, text)


def table(rows: list[AgentStatus]) -> list[str]:
    """The text report: one row per agent, then the details of each (shared with ``mcp``)."""
    if not rows:
        return ["no agent branches"]
    lines: list[str] = []
    cells = [COLUMNS] + [
        (
            r.agent,
            r.base,
            str(r.ahead),
            str(r.behind),
            str(len(r.documents)),
            f"+{r.divergence}" if r.divergence > 0 else str(r.divergence),
            r.merge_status,
            r.state,
        )
        for r in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(COLUMNS))]
    for row in cells:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    for r in rows:
        details = [f"  {p}" for p in r.documents]
        label = "blocked" if r.state == BLOCKED else "conflict"
        details += [f"  {label}: {c.describe()}" for c in r.conflicts]
        details += [
            f"  sequence: {f.path} ({f.container}): forked at {f.parent_sequence}, "
            f"base now at {f.base_sequence}"
            for f in r.forks
            if f.divergence
        ]
        if r.message:
            details.append(f"  {r.message}")
        if details:
            lines += [f"{r.branch}:", *details]
    return lines
