"""What new playbook events do to each entry's view: status, text, counters, concurrent heads."""

from __future__ import annotations

from ..values import pointer, same
from .here import Here
from .labels import id_label
from .model import ABSENT, Change

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..playbook.model import Entry, PlaybookView

    Compare = Callable[[Any, Any, Here], list[Change]]  # the diff walker, given by ``core``

# Left out of the field-by-field comparison: the event list only grows (the events
# themselves are reported), and heads, winner and time stamps move with every event.
_IMPLIED = ("events", "heads", "winner", "settled", "updatedAt", "conflicts", "targetId")
CONCURRENT = "concurrent updates: {n} heads, {winner} shown"
RESOLVED = "concurrent heads joined again"
SETTLED = "concurrent heads settled by {winner}"


def may_hold_playbook(data: Any) -> bool:
    """Cheap test before the playbook view is even imported."""
    if not isinstance(data, dict):
        return False
    hosts = [data, data.get("todoList"), data.get("plan")]
    return any(isinstance(h, dict) and isinstance(h.get("playbook"), dict) for h in hosts)


def view_changes(old: Any, new: Any, compare: Compare) -> list[Change]:
    """Changes of the entries' views of every event-log playbook in ``new`` (``compare``:
    the changes between two values, the diff walker's)."""
    # lazy: a diff or textconv of a document without a playbook never loads the view
    from ..playbook import find_playbooks

    before = dict(find_playbooks(old))
    out: list[Change] = []
    for path, book in find_playbooks(new):
        was = before.get(path)
        if was is None or not same(was, book):
            out += _playbook(path, was, book, compare)
    return out


def entry_facts(data: Any) -> list[tuple[str, dict[str, Any]]]:
    """``(anchor, view)`` of every entry of every event-log playbook, for textconv: the
    fields a diff compares, plus the heads when there are several."""
    if not may_hold_playbook(data):
        return []
    # lazy: a textconv of a document without a playbook never loads the view
    from ..playbook import find_playbooks, playbook_view

    out = []
    for path, book in find_playbooks(data):
        view = playbook_view(book, path=path)
        if view.kind != "events":
            continue
        anchor = ".".join(str(p) for p in path)
        for entry in view.entries:
            facts = visible(entry)
            if entry.multi_head:
                facts["heads"] = list(entry.open_heads)
            out.append((anchor + id_label(entry.target_id, "targetId"), facts))
    return out


def _playbook(
    path: tuple[str | int, ...], old: Any, new: dict[str, Any], compare: Compare
) -> list[Change]:
    # lazy: loaded by view_changes already, which found the playbooks
    from ..playbook import playbook_view

    after = playbook_view(new, path=path)
    if after.kind != "events":  # ACE entries and v0.3 items are diffed as they are stored
        return []
    before = playbook_view(old, path=path) if isinstance(old, dict) else None
    log = pointer((*path, after.log_key))
    anchor = ".".join(str(p) for p in path)
    out: list[Change] = []
    for entry in after.entries:
        was = before.entry(entry.target_id) if before is not None else None
        name = anchor + id_label(entry.target_id, "targetId")
        here = Here(anchor=name, ident=entry.target_id, item=name, item_title=entry.title)
        out += _entry(was, entry, here, log, compare)
    out += _anomalies(before, after, anchor, log)
    return out


def _entry(old: Entry | None, new: Entry, here: Here, log: str, compare: Compare) -> list[Change]:
    if old is None:
        value = visible(new)
        return [_change("add", here, log, new=value, kind="entry")]
    out = [_relocated(c, log) for c in compare(visible(old), visible(new), here)]
    heads = _heads(old, new, here, log)
    return out + ([heads] if heads else [])


def visible(entry: Entry) -> dict[str, Any]:
    return {k: v for k, v in entry.to_json().items() if k not in _IMPLIED}


def _heads(old: Entry, new: Entry, here: Here, log: str) -> Change | None:
    """New concurrent heads (or heads joined again) are worth a line; a moving head is not."""
    if old.open_heads == new.open_heads or (not old.multi_head and not new.multi_head):
        return None
    if new.multi_head:
        note = CONCURRENT.format(n=len(new.open_heads), winner=new.winner)
    else:
        note = SETTLED.format(winner=new.winner) if new.settled else RESOLVED
    return _change(
        "change", here.key("heads"), log, old=list(old.heads), new=list(new.heads), note=note
    )


def _anomalies(
    before: PlaybookView | None, after: PlaybookView, anchor: str, log: str
) -> list[Change]:
    """Anomalies the new events brought (a dangling prevEventId, a second creation, ...)."""
    known = {(a.kind, a.event_ids) for a in before.anomalies} if before is not None else set()
    here = Here(anchor=anchor + ".anomalies")
    return [
        _change("add", here, log, new=a.to_json(), kind="anomaly")
        for a in after.anomalies
        if (a.kind, a.event_ids) not in known
    ]


def _change(
    op: Any,
    here: Here,
    log: str,
    *,
    old: Any = ABSENT,
    new: Any = ABSENT,
    kind: str = "value",
    note: str | None = None,
) -> Change:
    return Change(
        op=op,
        path=log,
        anchor=here.name,
        id=here.ident,
        old=old,
        new=new,
        kind=kind,
        note=note,
        item=here.item,
        item_title=here.item_title,
        view=True,
    )


def _relocated(change: Change, log: str) -> Change:
    """A view has no place in the document: its changes point at the playbook's log."""
    return change.replaced(path=log, view=True)
