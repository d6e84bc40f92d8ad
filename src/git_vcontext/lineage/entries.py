"""Playbook entries as traceable things: one per ``targetId`` of every event-log playbook."""

from __future__ import annotations

from typing import Any

from ..diffing.labels import id_label
from ..diffing.playbook import visible
from ..playbook import find_playbooks, playbook_view
from .slots import ENTRY, Slot


def entry_slots(data: Any) -> tuple[dict[str, Slot], dict[str, str]]:
    """Each entry's slot (value: the fields its view shows, plus the heads when there are
    several, as ``textconv`` prints them) and its winning head's eventId."""
    slots: dict[str, Slot] = {}
    winners: dict[str, str] = {}
    for path, book in find_playbooks(data):
        view = playbook_view(book, path=path)
        if view.kind != "events":
            continue
        anchor = ".".join(str(p) for p in path)
        for entry in view.entries:
            if entry.target_id in slots:
                continue
            facts = visible(entry)
            if entry.multi_head:
                facts["heads"] = list(entry.open_heads)
            label = id_label(entry.target_id, "targetId")
            parts = (*path, view.log_key)
            slot = Slot(ENTRY, entry.target_id, parts, facts, None)
            slots[entry.target_id] = slot.named(anchor + label)
            winners[entry.target_id] = entry.winner
    return slots, winners
