"""Playbook entries as traceable things: one per ``targetId`` of every event-log playbook."""

from __future__ import annotations

from typing import Any

from ..diffing.labels import id_label
from ..diffing.playbook import event_entries
from .slots import ENTRY, Slot


def entry_slots(data: Any) -> tuple[dict[str, Slot], dict[str, str]]:
    """Each entry's slot (value: the fields its view shows, plus the heads when there are
    several, as ``textconv`` prints them) and its winning head's eventId."""
    slots: dict[str, Slot] = {}
    winners: dict[str, str] = {}
    for path, anchor, log_key, entry, facts in event_entries(data):
        if entry.target_id in slots:
            continue
        label = id_label(entry.target_id, "targetId")
        slot = Slot(ENTRY, entry.target_id, (*path, log_key), facts, None)
        slots[entry.target_id] = slot.named(anchor + label)
        winners[entry.target_id] = entry.winner
    return slots, winners
