"""``vcontext_conflicts`` and ``vcontext_resolve``: the ``conflicts`` and ``resolve`` commands."""

from __future__ import annotations

import json
from typing import Any

from ...conflicts.listing import list_conflicts
from ...conflicts.report import render_text
from ...conflicts.session import NO_VALUE, open_file
from ...errors import Refused, VContextError
from ..gitside import PERSON
from ..service import WRITABLE, Answer, Service


def conflicts(svc: Service, args: dict[str, Any]) -> Answer:
    """What a stopped merge, rebase or cherry-pick left (as ``conflicts --format json``)."""
    root = _top(svc, "vcontext_conflicts")
    listing = list_conflicts(list(args.get("paths") or ()), cwd=root)
    text = render_text(listing) or "no vContext conflicts\n"
    return Answer(text.rstrip("\n"), listing.to_json())


def resolve(svc: Service, args: dict[str, Any]) -> Answer:
    """Settle one conflict (``conflict``: id, pointer or where) or all that remain: ``take``
    a side or put ``value`` there; the last one writes the document and stages it."""
    svc.may_write(None)
    root = _top(svc, "vcontext_resolve")
    value = args.get("value", NO_VALUE)
    try:
        session = open_file(args["path"], cwd=root)
        _may_resolve(svc, session)
        session.by = {"id": svc.agent(), "type": "aiAgent"}
        session.inside = svc.catalog.root  # never written through a link leading out
        chosen = session.asked(args.get("conflict"), args.get("take"), value)
        outcome = session.apply(chosen, add=args.get("add", True), dry_run=bool(args.get("dryRun")))
    except VContextError as exc:
        raise Refused("resolve", exc.one_line()) from None
    svc.catalog.refresh()
    data = outcome.to_json()
    left = len(outcome.remaining)
    done = "resolved" + (", staged" if outcome.staged else "") if not left else f"{left} left"
    text = f"{outcome.path}: {len(outcome.chosen)} settled; {done}"
    if outcome.staged and not left:
        text += finish_merge(svc, root, data)
    return Answer(text, data)


def finish_merge(svc: Service, root: str, data: dict[str, Any]) -> str:
    """After the last conflict of a file: the next step of the merge sync left stopped here
    (another file to resolve, else the merge committed, on an agent branch, and
    ``vcontext_sync`` next); what to add to the answer's text."""
    from .sync import conclude, is_sync_merge, next_sync_args

    if not is_sync_merge(root):
        return ""
    listing = list_conflicts(cwd=root)
    if listing.found:
        files = [f.path for f in listing.files if f.conflicts or f.source == "stages"]
        files += list(listing.others)
        data["next"] = [{"tool": "vcontext_conflicts", "arguments": {}}]
        return f"; still conflicted: {', '.join(files)} (vcontext_conflicts lists them)"
    sync_args = next_sync_args(svc)
    data["next"] = [{"tool": "vcontext_sync", "arguments": sync_args}]
    if svc.git is None or not svc.git.commits():
        # writes are not committed on this branch: the merge's commit is a person's
        data["next"][0]["after"] = "person"
        data["person"] = {
            "why": "this server commits nothing on this branch",
            "steps": [f"commit the merge in {root} (git commit --no-edit)"],
        }
        return (
            f"; every conflict is settled: {PERSON}commit the merge in {root} "
            "(git commit --no-edit); next, once the person has done it: vcontext_sync "
            f"{json.dumps(sync_args)}"
        )
    committed = svc.git.locked(lambda _repo: conclude(root))
    data["mergeCommitted"] = True
    return f"; {committed}; next: vcontext_sync {json.dumps(sync_args)}"


def _may_resolve(svc: Service, session: Any) -> None:
    """``--allow`` governs resolve too: it writes and stages the document, so its kind must
    be one the server may write (a file of no kind only when every kind may be)."""
    if svc.options.allow >= frozenset(WRITABLE.values()):
        return
    data = session.settle(session.choices, text=False).data
    kind = next((k for k in WRITABLE.values() if isinstance(data, dict) and k in data), None)
    if kind is None:
        raise Refused(
            "not-allowed",
            f"{session.path}: not a todo list, plan or playbook, and --allow limits writes here",
        )
    svc.may_write(kind)


def _top(svc: Service, tool: str) -> str:
    if svc.git is None or svc.git.top is None:
        raise Refused("no-git", f"{tool} needs a git work tree; this folder is not in one")
    return str(svc.git.top)
