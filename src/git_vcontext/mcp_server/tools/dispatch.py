"""Calling a tool by name: which tools a server lists, argument checks, refusals as answers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...edits.stamp import Unchanged
from ...errors import Refused, VContextError
from ..service import Answer, Service
from . import (
    conflicts as conflict_tools,
)
from . import (
    engine as engine_tools,
)
from . import (
    forks as fork_tools,
)
from . import (
    plans as plan_tools,
)
from . import (
    playbooks as playbook_tools,
)
from . import (
    todos as todo_tools,
)
from .arguments import checked
from .specs import ALL, BY_NAME, ToolSpec

IMPLEMENTATIONS: dict[str, Callable[[Service, dict[str, Any]], Answer]] = {
    "vbrief_create_todo": todo_tools.create_todo,
    "vbrief_update_todo": todo_tools.update_todo,
    "vbrief_delete_todo": todo_tools.delete_todo,
    "vbrief_create_plan": plan_tools.create_plan,
    "vbrief_update_plan": plan_tools.update_plan,
    "vbrief_add_plan_item": plan_tools.add_plan_item,
    "vbrief_update_plan_item": plan_tools.update_plan_item,
    "vbrief_delete_plan": plan_tools.delete_plan,
    "vbrief_delete_plan_item": plan_tools.delete_plan_item,
    "vbrief_add_learning": playbook_tools.add_learning,
    "vbrief_rate_learning": playbook_tools.rate_learning,
    "vbrief_deprecate_learning": playbook_tools.deprecate_learning,
    "vbrief_query_playbook": playbook_tools.query_playbook,
    "vbrief_create_fork": fork_tools.create_fork,
    "vbrief_merge_fork": fork_tools.merge_fork,
    "vcontext_view": playbook_tools.view,
    "vcontext_diff": engine_tools.diff,
    "vcontext_validate": engine_tools.validate,
    "vcontext_status": engine_tools.status,
    "vcontext_sync": engine_tools.sync,
    "vcontext_conflicts": conflict_tools.conflicts,
    "vcontext_resolve": conflict_tools.resolve,
}


def offered(svc: Service) -> list[ToolSpec]:
    """The tools this server lists: no writes when read-only, only the ``--allow``ed kinds."""
    out = []
    for spec in ALL:
        if spec.writes and svc.options.read_only:
            continue
        if spec.kind is not None and spec.kind not in svc.options.allow:
            continue
        out.append(spec)
    return out


def call(svc: Service, name: str, args: Any) -> Answer:
    """Run one tool; every expected failure is an answer with ``error`` set and one line.
    What the engine advises meanwhile is said to an agent with MCP tools alone
    (``advice.for_tools``: a sync is a ``vcontext_sync`` call, any other command a
    person's step, marked)."""
    from ...sync.advice import for_tools

    with for_tools():
        return _call(svc, name, args)


def _call(svc: Service, name: str, args: Any) -> Answer:
    try:
        spec = BY_NAME.get(name)
        if spec is None or spec not in offered(svc):
            raise Refused("unknown-tool", f"unknown tool {name!r}")
        finished = _finish_pending(svc)
        answer = IMPLEMENTATIONS[name](svc, _numbers(spec, checked(spec, args)))
        return _noted(answer, finished)
    except Unchanged as exc:
        return unchanged(exc)
    except Refused as exc:
        return refusal(exc.kind, exc.one_line())
    except VContextError as exc:
        return refusal("refused", exc.one_line())
    except OSError as exc:
        if exc.errno not in (1, 13, 30):  # EPERM, EACCES, EROFS: the file system said no
            raise
        where = exc.filename or "a file it needs"
        return refusal(
            "permission",
            f"{name}: refused: {exc.strerror.lower() if exc.strerror else 'permission denied'}"
            f" for {where} (this server's user may not change it)",
        )


def _finish_pending(svc: Service) -> list[str]:
    """Writes a killed server left between a file's replace and its commit, finished (or
    named) before any tool runs: ``vcontext_sync`` then finds no local change of its own."""
    if svc.git is None or svc.options.read_only:
        return []
    return svc.git.finish_pending()


def _noted(answer: Answer, notes: list[str]) -> Answer:
    if not notes:
        return answer
    data = dict(answer.data)
    data["recovered"] = notes
    return Answer("\n".join([answer.text, *notes]), data, error=answer.error)


def unchanged(exc: Unchanged) -> Answer:
    """A write that would change nothing: said, as a success; nothing written."""
    where = f" in {exc.rel}" if exc.rel else ""
    data: dict[str, Any] = {"id": exc.item_id, "changed": False, "sequence": exc.sequence}
    if exc.item is not None:
        data["item"] = exc.item
    if exc.rel:
        data["document"] = {"path": exc.rel}
    text = f"No change: {exc.what}{where}; nothing written (sequence {exc.sequence})"
    return Answer(text, data)


def refusal(kind: str, line: str) -> Answer:
    return Answer(line, {"error": {"kind": kind, "message": line}}, error=True)


def _numbers(spec: ToolSpec, args: dict[str, Any]) -> dict[str, Any]:
    """JSON integers may arrive as ``3.0``; the tools get ints."""
    out = dict(args)
    for key, value in args.items():
        if spec.properties.get(key, {}).get("type") == "integer" and isinstance(value, float):
            out[key] = int(value)
    return out
