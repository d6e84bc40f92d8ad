"""Pictures of the playbook targets whose heads a change moved into or out of a branch.

For ``diff --format markdown``: a pull request that adds a concurrent update (or joins
heads again) shows the new branch of the chain. Each picture holds the new events, the
heads before and after, and their ancestors back to where they meet; the rest of a long
chain is one "… N more events" box.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..playbook.fold import TargetState
from ..playbook.log import find_playbooks
from ..playbook.model import Entry, PlaybookView
from ..playbook.view import view_and_states
from .events import Drawing, Marks, draw_targets
from .model import Picture

Path = tuple[str | int, ...]


def changed_heads(old: Any, new: Any) -> Iterator[tuple[Path, Entry, Picture]]:
    """For each target of each event-log playbook in ``new`` whose heads changed with
    concurrency on either side: where the playbook is, the entry, its picture."""
    before = dict(find_playbooks(old))
    for path, book in find_playbooks(new):
        after, states = view_and_states(book, path=path)
        if after.kind != "events":
            continue
        was = before.get(path)
        old_view, old_states = view_and_states(was, path=path) if was is not None else (None, [])
        known = {eid for s in old_states for eid in s.graph.ids}
        for entry, state in zip(after.entries, states, strict=True):
            heads_before = _heads(old_view, entry.target_id)
            if _moved(heads_before, entry.heads):
                yield path, entry, _picture(after, entry, state, known, heads_before)


def _heads(view: PlaybookView | None, target: str) -> tuple[str, ...]:
    entry = view.entry(target) if view is not None and view.kind == "events" else None
    return entry.heads if entry is not None else ()


def _moved(before: tuple[str, ...], after: tuple[str, ...]) -> bool:
    """A branch appeared, changed or joined; a single head moving along is no picture."""
    return before != after and (len(before) > 1 or len(after) > 1)


def _picture(
    view: PlaybookView,
    entry: Entry,
    state: TargetState,
    known: set[str],
    heads_before: tuple[str, ...],
) -> Picture:
    new = {eid for eid in state.graph.ids if eid not in known}
    relevant = new | set(entry.heads) | {h for h in heads_before if h in state.graph.by_id}
    keep = around(state, relevant)
    drawing = Drawing()
    marks = Marks.of(view.anomalies, [entry], new)
    draw_targets(drawing, [(entry, state)], marks, {state.target: keep})
    return Picture("", tuple(drawing.nodes), tuple(drawing.edges), tuple(drawing.groups))


def around(state: TargetState, relevant: set[str]) -> set[str]:
    """The relevant events and their ancestors, less the common trunk above where they meet.

    One walk up from each relevant event, stopping at an event already seen: linear
    in the events, however long the chain.
    """
    parent = state.graph.parent
    seen: set[str] = set()
    children: dict[str, list[str]] = {}
    roots = []
    for eid in relevant:
        while eid not in seen:
            seen.add(eid)
            up = parent.get(eid)
            if up is None:
                roots.append(eid)
                break
            children.setdefault(up, []).append(eid)
            eid = up
    if len(roots) != 1:
        return seen  # separate trees meet nowhere: keep every path
    top = roots[0]
    while top not in relevant and len(children.get(top, ())) == 1:
        seen.discard(top)
        top = children[top][0]
    return seen
