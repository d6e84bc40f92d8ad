"""What ``view --format dot|mermaid`` draws: which targets, under what title, with which notes."""

from __future__ import annotations

from collections.abc import Sequence

from ..playbook.fold import TargetState
from ..playbook.model import Entry, PlaybookView
from ..values import pointer
from .events import Drawing, Marks, draw_targets
from .labels import printable, shorten
from .model import Picture

LARGE = 12
"""More targets than this make a playbook large: only the interesting ones are drawn."""
MOST = 50
"""Of a large playbook's interesting targets, at most this many are drawn (unless --all):
more is no picture a person reads, and Graphviz takes minutes to lay it out."""
LEGEND = "thick blue outline: head · gold: winning head · dashed: deprecation · red: anomaly"


def interesting(view: PlaybookView, states: Sequence[TargetState]) -> set[str]:
    """Targets with several heads, concurrent edits or an anomaly."""
    found = {e.target_id for e in view.entries if e.multi_head or e.conflicts}
    target_of = {eid: s.target for s in states for eid in s.graph.ids}
    for a in view.anomalies:
        if a.target_id is not None:
            found.add(a.target_id)
        found.update(target_of[eid] for eid in a.event_ids if eid in target_of)
    return found


def choose(
    view: PlaybookView,
    states: Sequence[TargetState],
    shown: Sequence[Entry],
    *,
    every: bool,
) -> tuple[list[Entry], list[str]]:
    """The entries to draw, and a note when a large playbook was cut down to the interesting."""
    if every or len(shown) <= LARGE:
        return list(shown), []
    wanted = interesting(view, states)
    picked = [e for e in shown if e.target_id in wanted]
    note = (
        f"{len(picked):,} of {len(shown):,} targets drawn: those with several heads, "
        "concurrent edits or anomalies (--all draws every target)"
    )
    if len(picked) > MOST:
        note = (
            f"the first {MOST} of {len(picked):,} targets with several heads, concurrent "
            f"edits or anomalies drawn, of {len(shown):,} (--target ID picks, --all draws all)"
        )
        picked = picked[:MOST]
    return picked, [note]


def playbook_picture(
    view: PlaybookView,
    states: Sequence[TargetState],
    shown: Sequence[Entry],
    *,
    every: bool = False,
    name: str = "",
) -> Picture:
    """The event graphs of the entries shown (all of them, or a large playbook's interesting)."""
    picked, notes = choose(view, states, shown, every=every)
    by_target = {s.target: s for s in states}
    drawing = Drawing()
    draw_targets(
        drawing, [(e, by_target[e.target_id]) for e in picked], Marks.of(view.anomalies, picked)
    )
    shadowed = states[0].graph.shadowed if states else {}  # one log: one map for all
    ignored = sum(len(copies) for copies in shadowed.values())
    if ignored == 1:
        notes.append("1 event reuses another's eventId (drawn apart: the view ignores it)")
    elif ignored:
        notes.append(
            f"{ignored:,} events reuse others' eventIds (drawn apart: the view ignores them)"
        )
    loose = sum(1 for a in view.anomalies if a.kind == "malformed-event")
    if loose:
        what = "log element is not an event" if loose == 1 else "log elements are not events"
        notes.append(f"{loose} {what} (not drawn)")
    if not picked:
        notes.append("no target to draw")
    notes.append(LEGEND)
    where = pointer(view.path) or "/"
    title = f"{shorten(printable(name), 80)} {where}" if name else f"playbook {where}"
    title += f": {_count(len(view.entries), 'target')}, {_count(view.event_count, 'event')}"
    return Picture(
        title, tuple(drawing.nodes), tuple(drawing.edges), tuple(drawing.groups), tuple(notes)
    )


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")
