"""``vcontext_conflicts`` and ``vcontext_resolve``: the ``conflicts`` and ``resolve`` commands."""

from __future__ import annotations

from typing import Any

from ...conflicts.listing import list_conflicts
from ...conflicts.report import render_text
from ...conflicts.session import NO_VALUE, open_file
from ...errors import Refused, VContextError
from ...sync.advice import PERSON, finish_or_abort
from ...validation.model import command_path
from ..service import WRITABLE, Answer, Service


def conflicts(svc: Service, args: dict[str, Any]) -> Answer:
    """What a stopped merge, rebase or cherry-pick left (as ``conflicts --format json``)."""
    root = _top(svc, "vcontext_conflicts")
    listing = list_conflicts(list(args.get("paths") or ()), cwd=root, by=svc.resolver())
    text = render_text(listing) or "no vContext conflicts\n"
    return Answer(text.rstrip("\n"), listing.to_json())


def resolve(svc: Service, args: dict[str, Any]) -> Answer:
    """Settle one conflict (``conflict``: id, pointer or where) or all that remain: ``take``
    a side or put ``value`` there; the last one writes the document and stages it."""
    svc.may_write(None)
    root = _top(svc, "vcontext_resolve")
    value = args.get("value", NO_VALUE)
    try:
        session = open_file(args["path"], cwd=root, by=svc.resolver())
        _may_resolve(svc, session)
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
    elif outcome.written and outcome.warnings and not left:  # never staged (M19)
        text += (
            f"; not staged: git vcontext validate rejects the result "
            f"({'; '.join(outcome.warnings)}): take the other side (vcontext_resolve), or "
            f"{PERSON}mend {outcome.path} and stage it (git add -- {command_path(outcome.path)})"
        )
    return Answer(text, data)


def finish_merge(svc: Service, root: str, data: dict[str, Any]) -> str:
    """After the last conflict of a file, the next step of the operation stopped here:
    another file to resolve (``vcontext_conflicts``); else, the merge sync left stopped
    (``stopped_sync``, whatever prefix this server reads) committed here, as sync's own
    merge is whether or not this server commits its writes, then the ``vcontext_sync``
    that lands it, or a person's sync when this server sees no agent branch there; any
    other operation is a person's to finish (its steps marked, and the agent's
    ``vcontext_sync`` after them only where it serves an agent branch). What to add to
    the answer's text."""
    from ...branches.commits import stopped_sync
    from ...gitio.operation import current, find_git_dir
    from .sync import conclude, next_sync_call, said_sync

    git_dir = find_git_dir(root, env={})
    op = current(git_dir, env={}) if git_dir else None
    if git_dir is None or op is None or op.kind is None:
        return ""
    listing = list_conflicts(cwd=root, by=svc.resolver())
    if listing.found:
        files = [f.path for f in listing.files if f.conflicts or f.source == "stages"]
        files += list(listing.others)
        data["next"] = [{"tool": "vcontext_conflicts", "arguments": {}}]
        return f"; still conflicted: {', '.join(files)} (vcontext_conflicts lists them)"
    assert svc.git is not None  # (_top)
    own = svc.git.agent_branch()
    left = stopped_sync(git_dir) if op.kind == "merge" else None
    if left is None:
        return _persons_to_finish(svc, root, op.kind, op.theirs, own, data)
    committed = svc.git.locked(lambda _repo: conclude(root))
    data["mergeCommitted"] = True
    if own == left.agent and svc.git.branch() == left.branch:
        call = next_sync_call(svc)
        data["next"] = [call]
        return f"; {committed}; next: {said_sync(call)}"
    why = (
        f"{left.branch} is agent {left.agent}'s branch under the agent prefix "
        f"{left.prefix!r} the sync that left this merge read, and this server reads "
        f"vcontext.agentPrefix as {svc.git.prefix()!r}: no vcontext_sync of it can sync "
        "that branch"
    )
    step = f"sync it from the command line in {root} ({_cli_sync(svc, left)})"
    data["person"] = {"why": why, "steps": [step]}
    return f"; {committed}; {PERSON}{why}: {step}"


def _cli_sync(svc: Service, left: Any) -> str:
    """The command line that syncs ``left``'s agent under the prefix its branch has, with
    the remote its base tracks (as ``next_sync_args`` names it), credentials masked."""
    from ...errors import shown_url
    from ...validation.model import command_word
    from ...workflow.link import base_remote

    assert svc.git is not None
    found: str | None = svc.git.locked(lambda repo: base_remote(repo, left.agent))
    push = f" --push {command_word(shown_url(found))}" if found else ""
    prefix = command_word(f"vcontext.agentPrefix={left.prefix}")
    return f"git -c {prefix} vcontext sync {command_word(left.agent)}{push}"


def _persons_to_finish(
    svc: Service, root: str, kind: str, theirs: str, own: str | None, data: dict[str, Any]
) -> str:
    """Every conflict of an operation sync did not leave is settled: finishing it is the
    person's (this server commits no one else's merge); where an agent branch is served,
    its ``vcontext_sync`` follows, once the person has done it."""
    from .sync import next_sync_call, said_sync

    what = f"the merge of {theirs}" if kind == "merge" else f"the {kind}"
    step = finish_or_abort(kind, it=f"{what} in {root}")
    data["person"] = {"why": f"{what} is not one sync left", "steps": [step]}
    text = f"; every conflict is settled: {PERSON}{step}"
    if own is not None:
        call = {**next_sync_call(svc), "after": "person"}
        data["next"] = [call]
        text += f"; next, once the person has done it: {said_sync(call)}"
    return text


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
