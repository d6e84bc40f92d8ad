"""Reading a playbook's log: where playbooks are, which form the log has, its events by id."""

from __future__ import annotations

from ..values import canonical

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    # "events": a vContext event log; "ace": entries keyed by id; "items": v0.3 items
    LogKind = Literal["events", "ace", "items"]
    LogKey = Literal["items", "entries"]

    Path = tuple[str | int, ...]
    RawAnomaly = tuple[str, tuple[str, ...], "str | None", str]
    Key = tuple[tuple[int, int, str], str]


HOSTS = ("todoList", "plan")
"""Containers a playbook may be embedded in (seeds 001, 002)."""

CREATION_OPS = ("append", "initial")
CHAINED_OPS = ("update", "deprecate")


def find_playbooks(data: Any) -> list[tuple[Path, dict[str, Any]]]:
    """Root ``playbook`` and the ones embedded in ``todoList``/``plan``, with their paths."""
    if not isinstance(data, dict):
        return []
    found: list[tuple[Path, dict[str, Any]]] = []
    if isinstance(data.get("playbook"), dict):
        found.append((("playbook",), data["playbook"]))
    for host in HOSTS:
        container = data.get(host)
        if isinstance(container, dict) and isinstance(container.get("playbook"), dict):
            found.append(((host, "playbook"), container["playbook"]))
    return found


def looks_like_playbook(value: Any) -> bool:
    """A playbook object handed over on its own (it has an ``items`` or ``entries`` list)."""
    return isinstance(value, dict) and any(
        isinstance(value.get(k), list) for k in ("items", "entries")
    )


def log_of(playbook: dict[str, Any]) -> tuple[LogKey, list[Any]]:
    """The log key and list: ``items`` (core) unless only ``entries`` (extension, ACE) has data."""
    items, entries = playbook.get("items"), playbook.get("entries")
    if isinstance(items, list) and (items or not isinstance(entries, list)):
        return "items", items
    if isinstance(entries, list):
        return "entries", entries
    return "items", []


def log_kind(log: list[Any]) -> LogKind:
    """``events`` (vContext event log), ``ace`` (entries keyed by ``id``) or ``items`` (v0.3).

    An element carrying ``eventId`` or ``targetId`` makes the whole log an event
    log (elements that are not events are then reported); an empty log is one.
    """
    objects = [e for e in log if isinstance(e, dict)]
    if not log or any("eventId" in e or "targetId" in e for e in objects):
        return "events"
    if len(objects) == len(log) and all(isinstance(e.get("id"), str) for e in objects):
        return "ace"
    return "items"


class Keys(dict[str, "Key"]):
    """Tie-order keys ``(createdAt instant, eventId)``, computed when first asked for.

    Most targets are single chains whose order needs no key at all.
    """

    def __init__(self, by_id: dict[str, dict[str, Any]]) -> None:
        super().__init__()
        self.by_id = by_id

    def __missing__(self, eid: str) -> Key:
        # lazy: most targets are single chains, whose order needs no key (nor instants)
        from .instants import instant

        flag, micros, text = instant(self.by_id[eid].get("createdAt"))
        # equal instants tie by eventId, whatever their spelling; unparsable ones by text
        key = ((flag, micros, "" if flag else text), eid)
        self[eid] = key
        return key


class EventIndex:
    """The events of a log by ``eventId`` and by ``targetId``, with their tie-order keys."""

    __slots__ = ("anomalies", "by_id", "key", "shadowed", "targets")

    def __init__(self, log: list[Any]) -> None:
        self.by_id: dict[str, dict[str, Any]] = {}
        # events that share an eventId with the one kept (pictures draw them apart)
        self.shadowed: dict[str, list[dict[str, Any]]] = {}
        self.anomalies: list[RawAnomaly] = []
        self.targets: dict[str, list[str]] = {}
        dups: dict[str, list[dict[str, Any]]] = {}
        by_id, targets = self.by_id, self.targets
        for index, e in enumerate(log):
            if type(e) is not dict:
                self.anomalies.append(_malformed(index, e))
                continue
            eid, target = e.get("eventId"), e.get("targetId")
            if type(eid) is not str or type(target) is not str:
                self.anomalies.append(_malformed(index, e))
            elif eid in by_id:
                dups.setdefault(eid, [by_id[eid]]).append(e)
            else:
                by_id[eid] = e
                if target in targets:
                    targets[target].append(eid)
                else:
                    targets[target] = [eid]
        if dups:
            for eid, group in dups.items():
                self._keep_one(eid, group)
            self.targets = {}
            for eid, e in by_id.items():
                self.targets.setdefault(e["targetId"], []).append(eid)
        self.key: dict[str, Key] = Keys(by_id)

    def _keep_one(self, eid: str, group: list[dict[str, Any]]) -> None:
        """Of events sharing an id keep the earliest by (createdAt instant, content).

        So the choice does not depend on where they sit in the file.
        """
        from .instants import instant  # lazy: only events sharing an id

        kept = min(group, key=lambda e: (instant(e.get("createdAt")), canonical(e)))
        self.by_id[eid] = kept
        self.shadowed[eid] = [e for e in group if e is not kept]
        targets = sorted({str(e["targetId"]) for e in group})
        msg = f"eventId {eid} is used by {len(group)} events"
        if len(targets) > 1:
            msg += f" (targets {', '.join(targets)})"
        target = targets[0] if len(targets) == 1 else None
        self.anomalies.append(("duplicate-event-id", (eid,), target, msg))


def _malformed(index: int, e: Any) -> RawAnomaly:
    if not isinstance(e, dict):
        return ("malformed-event", (), None, f"element {index} of the log is not an object")
    eid, tid = e.get("eventId"), e.get("targetId")
    if not isinstance(eid, str):
        target = tid if isinstance(tid, str) else None
        return ("malformed-event", (), target, f"element {index} has no string eventId")
    return ("malformed-event", (eid,), None, f"{eid}: event (element {index}) has no targetId")
