"""What a playbook view is made of: entries, field conflicts, anomalies; their JSON forms."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..record import record
from ..values import pointer

if TYPE_CHECKING:
    from .log import LogKey, LogKind


@record
class Anomaly:
    """Something wrong in the log, with the events involved (never fatal to a view)."""

    kind: str  # one of ANOMALY_KINDS
    event_ids: tuple[str, ...]
    target_id: str | None
    message: str

    def to_json(self) -> dict[str, Any]:
        """PRODUCT.md's anomaly object (``eventId`` = the first event involved)."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.event_ids:
            out["eventId"] = self.event_ids[0]
            out["eventIds"] = list(self.event_ids)
        if self.target_id is not None:
            out["targetId"] = self.target_id
        out["message"] = self.message
        return out


@record
class FieldConflict:
    """Concurrent events (neither an ancestor of the other) that set a field differently."""

    field: str
    event_ids: tuple[str, ...]  # causal order
    values: tuple[Any, ...]  # the value each of those events set

    def to_json(self) -> dict[str, Any]:
        return {"field": self.field, "eventIds": list(self.event_ids), "values": list(self.values)}


VIEW_KEYS = (
    "targetId",
    "status",
    "kind",
    "title",
    "narrative",
    "text",
    "helpfulCount",
    "harmfulCount",
    "heads",
    "winner",
    "settled",
    "conflicts",
    "events",
    "supersedes",
    "supersededBy",
    "duplicateOf",
    "duplicates",
    "createdAt",
    "updatedAt",
)
"""Keys the view writes itself; folded fields of the same name are not repeated."""


@record
class Entry:
    """One logical playbook entry as it stands now."""

    target_id: str
    status: str
    kind: str | None
    title: str | None
    narrative: dict[str, Any] | None
    text: str | None
    fields: dict[str, Any]  # the full fold (every field the events set)
    helpful_count: int
    harmful_count: int
    heads: tuple[str, ...]  # causal order
    winner: str
    conflicts: tuple[FieldConflict, ...]
    event_ids: tuple[str, ...]  # causal order
    supersedes: tuple[str, ...]
    superseded_by: str | None  # its own supersededBy, else an entry that supersedes it
    duplicate_of: str | None
    duplicates: tuple[str, ...] = ()  # entries whose duplicateOf names this one
    created_at: str | None = None  # createdAt of its first event in causal order
    updated_at: str | None = None  # createdAt of its winning head
    settled: tuple[str, ...] = ()  # heads an update after the winner settled (causal order)

    @classmethod
    def build(cls, values: dict[str, Any]) -> Entry:
        """An entry from a value for every field, without the generated ``__init__``.

        A frozen dataclass sets each field through ``object.__setattr__`` (6 µs per
        entry here); views of big logs build tens of thousands of entries.
        """
        entry = object.__new__(cls)
        entry.__dict__.update(values)
        return entry

    @property
    def multi_head(self) -> bool:
        """Concurrent updates left more than one head that no later update settled."""
        return len(self.heads) - len(self.settled) > 1

    @property
    def open_heads(self) -> tuple[str, ...]:
        """The heads not settled (the winner among them), in causal order."""
        if not self.settled:
            return self.heads
        return tuple(h for h in self.heads if h not in self.settled)

    def head_values(self) -> list[dict[str, Any]]:
        """For an entry with concurrent heads no update settled: each open head, winner
        included, with the values it set for the fields the heads disagree on (causal
        order); empty otherwise."""
        if not self.multi_head:
            return []
        out: list[dict[str, Any]] = []
        for head in self.open_heads:
            values = {
                c.field: c.values[c.event_ids.index(head)]
                for c in self.conflicts
                if head in c.event_ids
            }
            out.append({"eventId": head, "winner": head == self.winner, **values})
        return out

    def to_json(self) -> dict[str, Any]:
        """PRODUCT.md's view entry; every other folded field follows under its own name."""
        out: dict[str, Any] = {"targetId": self.target_id, "status": self.status, "kind": self.kind}
        for key, value in (("title", self.title), ("narrative", self.narrative)):
            if value is not None:
                out[key] = value
        if self.text is not None:
            out["text"] = self.text
        out["helpfulCount"] = self.helpful_count
        out["harmfulCount"] = self.harmful_count
        out["heads"] = list(self.heads)
        out["winner"] = self.winner
        if self.settled:
            out["settled"] = list(self.settled)
        out["conflicts"] = [c.to_json() for c in self.conflicts]
        out["events"] = list(self.event_ids)
        self._links_json(out)
        for key, value in self.fields.items():
            if key not in VIEW_KEYS:
                out[key] = value
        return out

    def _links_json(self, out: dict[str, Any]) -> None:
        if self.supersedes:
            out["supersedes"] = list(self.supersedes)
        if self.superseded_by is not None:
            out["supersededBy"] = self.superseded_by
        if self.duplicate_of is not None:
            out["duplicateOf"] = self.duplicate_of
        if self.duplicates:
            out["duplicates"] = list(self.duplicates)
        if self.created_at is not None:
            out["createdAt"] = self.created_at
        if self.updated_at is not None:
            out["updatedAt"] = self.updated_at


@record
class PlaybookView:
    """The current view of one playbook: one entry per target, anomalies of the log."""

    path: tuple[str | int, ...]  # where the playbook is, e.g. ("plan", "playbook")
    log_key: LogKey
    entries: tuple[Entry, ...]
    anomalies: tuple[Anomaly, ...]
    kind: LogKind
    event_count: int = 0
    notes: tuple[Anomaly, ...] = ()  # concurrency worth knowing, no fault (concurrent creations)

    @cached_property
    def _by_target(self) -> dict[str, Entry]:
        return {e.target_id: e for e in self.entries}

    def entry(self, target_id: str) -> Entry | None:
        """The entry of a targetId (an ACE entry id), if there is one."""
        return self._by_target.get(target_id)

    def to_json(self, *, entries: Iterable[Entry] | None = None) -> dict[str, Any]:
        """``{"entries": [...], "anomalies": [...]}`` plus where and what the log is.

        ``entries`` replaces the view's entries (a filtered selection).
        """
        return {
            "path": pointer(self.path),
            "kind": self.kind,
            "logKey": self.log_key,
            "eventCount": self.event_count,
            "entries": [e.to_json() for e in (self.entries if entries is None else entries)],
            "anomalies": [a.to_json() for a in self.anomalies],
            **({"notes": [a.to_json() for a in self.notes]} if self.notes else {}),
        }
