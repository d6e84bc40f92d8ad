"""A revert written as new changes (PRODUCT.md M6, M8 "In a replay"; issue 36 point 3).

A revert is a replay whose base is the reverted commit's version (C) and whose theirs is
its parent's (C^): the engine applies C^ - C on top of ours — items back as they were,
the sequence advanced (a revert advances too), every changeLog entry and playbook event
kept (append-only). What the log cannot say by losing entries it says by new ones:

- each playbook event C added is answered by one that undoes it, chained to the target's
  current head: an ``append`` by a ``deprecate``, an ``update`` by an ``update`` that sets
  the fields back (and the counters' ``delta`` negated), a ``deprecate`` by an ``update``
  that gives the entry its status back;
- each container C changed that keeps Extension 10 bookkeeping (a ``changeLog`` or a
  ``sequence``) gets one changeLog entry naming the reverted commit, at the new sequence.

The playbook's ``version`` and a container's ``sequence`` advance once for the revert, not
once per event written. What ``Reverting`` says (which commit, who, when) comes from the
caller: the merge driver during ``git revert``, ``resolve`` of a stopped one, and ``git
vcontext revert``.
"""

from __future__ import annotations

from .. import document as doc
from ..values import same
from .logs import added_events, is_playbook
from .result import MISSING, ConflictNode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..playbook.edit import Edit
    from .result import Reverting

META = frozenset(
    ("eventId", "targetId", "operation", "prevEventId", "createdAt", "reason", "delta", "status")
)
"""Event fields that are bookkeeping, not the entry's content (status is handled apart)."""


def written_as_new_changes(
    base: Any, ours: Any, theirs: Any, tree: Any, reverting: Reverting
) -> tuple[Any, list[str]]:
    """The merged ``tree`` with the revert's own changes added; what was written, in words."""
    if not isinstance(tree, dict) or not isinstance(base, dict) or not isinstance(theirs, dict):
        return tree, []
    out = dict(tree)
    said: list[str] = []
    for key in doc.CONTAINER_KEYS:
        b, t, r = base.get(key), theirs.get(key), out.get(key)
        if not isinstance(b, dict) or not isinstance(t, dict) or not isinstance(r, dict):
            continue
        if same(b, t):
            continue  # the reverted commit did not touch this container
        o = ours.get(key) if isinstance(ours, dict) else None
        r = _undo_events(b, t, o, r, reverting, said)
        if isinstance(o, dict) and same(_content(r, key), _content(o, key)):
            out[key] = o  # already undone here: nothing reverted, nothing to log (as git)
            continue
        if _keeps_bookkeeping(r, o):
            r = _logged(r, o, reverting)
        out[key] = r
    return out, said


STAMPS = (doc.SEQUENCE_FIELD, "updated", "lastModifiedBy")
"""What a merge bumps on a container whatever it merged: not what a revert undoes (and a
playbook's ``version``)."""


def _content(container: dict[str, Any], key: str) -> dict[str, Any]:
    stamps = (*STAMPS, "version") if key == doc.PLAYBOOK_KEY else STAMPS
    return {k: v for k, v in container.items() if k not in stamps}


def _keeps_bookkeeping(container: dict[str, Any], ours: Any) -> bool:
    return any(
        isinstance(c, dict) and (doc.CHANGELOG_FIELD in c or doc.SEQUENCE_FIELD in c)
        for c in (container, ours)
    )


def _logged(container: dict[str, Any], ours: Any, reverting: Reverting) -> dict[str, Any]:
    """One changeLog entry naming the reverted commit, at the sequence the revert reaches."""
    out = dict(container)
    log = out.get(doc.CHANGELOG_FIELD)
    entries = [e for e in log if isinstance(e, dict)] if isinstance(log, list) else []
    last = max((_int(e.get(doc.SEQUENCE_FIELD)) or 0 for e in entries), default=0)
    own = _int(ours.get(doc.SEQUENCE_FIELD)) if isinstance(ours, dict) else None
    current = _int(out.get(doc.SEQUENCE_FIELD)) or 0
    sequence = max(current, last + 1, (own or 0) + 1)
    if doc.SEQUENCE_FIELD in out or own is not None:
        out[doc.SEQUENCE_FIELD] = sequence
    entry = {
        "sequence": sequence,
        "timestamp": reverting.now,
        "agent": dict(reverting.by),
        "operation": "update",
        "reason": reverting.reason,
    }
    out[doc.CHANGELOG_FIELD] = [*(log if isinstance(log, list) else []), entry]
    if "updated" in out:
        out["updated"] = reverting.now
    if "lastModifiedBy" in out:
        out["lastModifiedBy"] = dict(reverting.by)
    return out


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _undo_events(
    base: dict[str, Any],
    theirs: dict[str, Any],
    ours: Any,
    result: dict[str, Any],
    reverting: Reverting,
    said: list[str],
) -> dict[str, Any]:
    """``result`` (a container, or a host of an embedded playbook) with an event undoing
    each event the reverted commit added to its playbook."""
    if is_playbook(base):
        return _undone_in(base, theirs, ours, result, reverting, said)
    b, t, r = (x.get(doc.PLAYBOOK_KEY) if isinstance(x, dict) else None
               for x in (base, theirs, result))  # fmt: skip
    if not isinstance(b, dict) or not isinstance(t, dict) or not isinstance(r, dict):
        return result
    o = ours.get(doc.PLAYBOOK_KEY) if isinstance(ours, dict) else None
    playbook = _undone_in(b, t, o, r, reverting, said)
    if playbook is r:
        return result
    out = dict(result)
    out[doc.PLAYBOOK_KEY] = playbook
    return out


def _undone_in(
    base: dict[str, Any],
    theirs: dict[str, Any],
    ours: Any,
    result: dict[str, Any],
    reverting: Reverting,
    said: list[str],
) -> dict[str, Any]:
    """One playbook with the reverted commit's events undone by new events."""
    added = added_events(base, theirs)
    if not added or _holds_conflicts(result):
        return result
    from ..errors import NoPlaybookError, Refused
    from ..playbook.edit import append_event
    from ..playbook.view import playbook_view

    try:
        before = playbook_view(theirs)  # the entries as they were before the commit
    except (NoPlaybookError, ValueError):
        return result
    version = _int(result.get("version"))
    out = result
    for event in reversed(added):
        edit = _inverse(event, before, out, reverting)
        if edit is None:
            continue
        try:
            done = append_event(
                out, edit, now=reverting.now, entropy=f"{reverting.commit}/{event['eventId']}"
            )
        except (Refused, NoPlaybookError):
            continue
        out = done.data
        said.append(f"{done.event['operation']} of {edit.target} (undoes {event['eventId']})")
    if out is result:
        return result
    own = _int(ours.get("version")) if isinstance(ours, dict) else None
    if version is not None:  # one step for the revert, not one per event
        out = {**out, "version": max(version, (own or 0) + 1)}
    return out


def _inverse(
    event: dict[str, Any], before: Any, now_playbook: dict[str, Any], reverting: Reverting
) -> Edit | None:
    """The Edit that undoes ``event``, or None when there is nothing to undo."""
    from ..playbook.edit import Edit
    from ..playbook.view import playbook_view

    target = event.get("targetId")
    if not isinstance(target, str):
        return None
    current = playbook_view(now_playbook).entry(target)
    if current is None:
        return None
    previous = before.entry(target)
    reason = reverting.reason
    if event.get("operation") in ("append", "initial") or previous is None:
        if current.status == "deprecated":
            return None  # deprecated since: nothing left to undo
        return Edit(
            "deprecate", target, {"status": "deprecated", "deprecatedReason": reason}, reason
        )
    fields = _restored(event, previous.fields)
    if "status" in event and previous.status != current.status:
        fields["status"] = previous.status
    return Edit("update", target, fields, reason) if fields else None


def _restored(event: dict[str, Any], previous: dict[str, Any]) -> dict[str, Any]:
    """The fields ``event`` changed, set back to ``previous``'s values; its counters' delta
    negated."""
    fields: dict[str, Any] = {}
    for name, value in event.items():
        old = previous.get(name, MISSING)
        if name not in META and old is not MISSING and not same(old, value):
            fields[name] = old
    delta = event.get("delta")
    if isinstance(delta, dict):
        undone = {k: -v for k, v in delta.items() if _is_number(v)}
        if undone:
            fields["delta"] = undone
    return fields


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _holds_conflicts(value: Any) -> bool:
    if isinstance(value, ConflictNode):
        return True
    if isinstance(value, dict):
        return any(_holds_conflicts(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_conflicts(v) for v in value)
    return False
