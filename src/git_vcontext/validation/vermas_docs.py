"""VerMAS documents (seed 004): templates (TOML), processes and evidence (JSON), assignments.

Each is checked against its schema in ``vermas.schema.json``, then by the rules a schema
cannot say: a template's step ids are unique, ``needs`` names steps of the template
and forms no cycle; a process names each step once; datetimes carry an offset; an
assignment file holds one ``{type}:{reference_id}`` line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..vermas.kinds import ASSIGNMENT_TYPES
from .checks import schema_issues
from .container_rules import Dependencies
from .rules import check_datetimes, check_markers

if TYPE_CHECKING:
    from typing import Any

    from .model import Issue

DATETIMES = frozenset({"created_at", "updated_at", "started_at", "completed_at", "timestamp"})
_ASSIGNMENT = re.compile(r"([a-z_]+):(\S+)\Z")


def check_vermas_document(kind: str, data: Any) -> list[Issue]:
    """Findings for a template, process, evidence or assignment file's parsed data."""
    if kind == "Assignment":
        return list(check_assignment(data))
    issues = list(schema_issues(f"vermas#/$defs/{kind}", data))
    if isinstance(data, dict):
        steps = data.get("steps")
        if isinstance(steps, list):
            issues.extend(check_steps(steps, needs=kind == "Template"))
        issues.extend(check_datetimes(data, DATETIMES))
    issues.extend(check_markers(data))
    return issues


def check_steps(steps: list[Any], *, needs: bool) -> Iterator[Issue]:
    """Unique step ids; with ``needs``: each names a step, and they form no cycle."""
    ids: dict[str, int] = {}
    for i, step in enumerate(steps):
        ident = step.get("id") if isinstance(step, dict) else None
        if not isinstance(ident, str):
            continue
        if ident in ids:
            msg = f'step id "{ident}" is used by steps[{ids[ident]}] too; give this step its own id'
            yield "unique-id", ("steps", i, "id"), msg
        else:
            ids[ident] = i
    if needs:
        yield from _needs(steps, set(ids))


def _needs(steps: list[Any], ids: set[str]) -> Iterator[Issue]:
    deps = Dependencies()
    for i, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        at = ("steps", i, "needs")
        for name, place in deps.references(step.get("id"), step.get("needs"), at, ids):
            msg = f'"{name}" is not the id of a step of this template; fix it or add the step'
            yield "dependency-missing", place, msg
    yield from deps.cycles(("steps",))


def check_assignment(text: Any) -> Iterator[Issue]:
    """One line ``{type}:{reference_id}`` with type work_order, mail or process."""
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    allowed = ", ".join(ASSIGNMENT_TYPES)
    if len(lines) != 1:
        found = "nothing" if not lines else f"{len(lines)} lines"
        msg = f"an assignment file holds one line {{type}}:{{reference_id}}, not {found}"
        yield "assignment", (), msg
        return
    m = _ASSIGNMENT.match(lines[0])
    if m is None:
        msg = f'"{lines[0]}" is not {{type}}:{{reference_id}} (e.g. "work_order:wo-abc123")'
        yield "assignment", (), msg
    elif m.group(1) not in ASSIGNMENT_TYPES:
        yield "assignment", (), f'unknown assignment type "{m.group(1)}"; use one of {allowed}'
