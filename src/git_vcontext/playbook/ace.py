"""ACE playbooks (seed 002): reading an ``AcePatch`` and applying its operations (pure)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from ..errors import Refused
from ..values import same
from .edit import bump_host
from .fold import as_count
from .log import log_kind, log_of
from .metrics import recompute_metrics
from .view import locate

OPS = ("appendEntry", "updateEntry", "incrementCounter", "deprecateEntry")
COUNTERS = ("helpfulCount", "harmfulCount")


@dataclass(frozen=True)
class AceOp:
    """One operation of a patch, with its position for messages."""

    index: int
    op: str
    entry_id: str
    entry: dict[str, Any] | None
    delta: dict[str, Any] | None
    reason: str | None

    def label(self) -> str:
        """``operations[2] updateEntry entry-1``."""
        return f"operations[{self.index}] {self.op} {self.entry_id}"


@dataclass(frozen=True)
class AcePatch:
    """A parsed ``AcePatch``."""

    operations: tuple[AceOp, ...]
    base_sequence: int | None = None
    playbook_id: str | None = None


@dataclass(frozen=True)
class Applied:
    """The document after a patch, and the operations that did not apply (with why)."""

    data: Any
    problems: tuple[tuple[AceOp, str], ...] = ()
    skipped: tuple[AceOp, ...] = ()  # appendEntry of an identical entry: already applied


def read_patch(value: Any) -> AcePatch:
    """Check the shape of an AcePatch; every problem in one AceError."""
    if not isinstance(value, dict) or not isinstance(value.get("operations"), list):
        raise Refused("refused", "not an AcePatch: expected an object with an 'operations' array")
    base = value.get("baseDocumentSequence")
    if base is not None and (not isinstance(base, int) or isinstance(base, bool)):
        raise Refused("refused", f"baseDocumentSequence must be an integer, not {base!r}")
    ops, problems = [], []
    for i, raw in enumerate(value["operations"]):
        op, problem = _read_op(i, raw)
        if problem:
            problems.append(f"operations[{i}]: {problem}")
        elif op is not None:
            ops.append(op)
    if problems:
        raise Refused("refused", "; ".join(problems))
    playbook_id = value.get("playbookId")
    return AcePatch(tuple(ops), base, playbook_id if isinstance(playbook_id, str) else None)


def _read_op(i: int, raw: Any) -> tuple[AceOp | None, str | None]:
    if not isinstance(raw, dict) or raw.get("op") not in OPS:
        name = raw.get("op") if isinstance(raw, dict) else raw
        return None, f"unknown op {name!r} (expected one of {', '.join(OPS)})"
    entry, delta = raw.get("entry"), raw.get("delta")
    if entry is not None and not isinstance(entry, dict):
        return None, "'entry' must be an object"
    if delta is not None and not isinstance(delta, dict):
        return None, "'delta' must be an object"
    entry_id = raw.get("entryId")
    if entry_id is None and entry is not None:
        entry_id = entry.get("id")
    if not isinstance(entry_id, str):
        return None, f"{raw['op']} needs an entryId (or an entry with an id)"
    if raw["op"] in ("appendEntry", "updateEntry") and entry is None:
        return None, f"{raw['op']} needs an 'entry'"
    if raw["op"] == "incrementCounter" and not delta:
        return None, "incrementCounter needs a 'delta'"
    reason = raw.get("reason")
    op = AceOp(i, raw["op"], entry_id, entry, delta, reason if isinstance(reason, str) else None)
    return op, None


def document_sequence(data: Any) -> int:
    """The ``sequence`` of the container that holds the playbook (a missing one counts as 0)."""
    where, _ = locate(data)
    host = data[where[0]] if where else data
    seq = host.get("sequence") if isinstance(host, dict) else None
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else 0


def apply_patch(data: Any, patch: AcePatch, *, now: str) -> Applied:
    """The document with every operation applied, ``sequence``/``version``/metrics advanced.

    The input is not modified. Operations that do not apply are returned as
    problems; the caller decides (the command applies nothing then).
    """
    where, playbook = locate(data)
    log_key, log = log_of(playbook)
    if log and log_kind(log) != "ace":
        raise Refused(
            "refused", "not an ACE playbook (its log holds events): use 'git vcontext playbook'"
        )
    entries = copy.deepcopy(log)
    problems: list[tuple[AceOp, str]] = []
    skipped: list[AceOp] = []
    for op in patch.operations:
        outcome = _apply(entries, op, now)
        if outcome == "skipped":
            skipped.append(op)
        elif outcome:
            problems.append((op, outcome))
    new_playbook = {**playbook, log_key: entries}
    _advance(new_playbook, now)
    new_data = _put(data, where, new_playbook, now, patch.base_sequence is not None)
    return Applied(new_data, tuple(problems), tuple(skipped))


def _apply(entries: list[Any], op: AceOp, now: str) -> str | None:
    """Apply one operation in place; a problem, ``"skipped"``, or None when done."""
    index = {e.get("id"): i for i, e in enumerate(entries) if isinstance(e, dict)}
    at = index.get(op.entry_id)
    if op.op == "appendEntry":
        assert op.entry is not None
        if at is None:
            entries.append(copy.deepcopy(op.entry))
            return None
        return "skipped" if same(entries[at], op.entry) else f"entry {op.entry_id} exists"
    if at is None:
        return f"no entry {op.entry_id}"
    entry = entries[at]
    problem = _change(entry, op)
    if problem is None and "updatedAt" in entry and not (op.entry and "updatedAt" in op.entry):
        entry["updatedAt"] = now
    return problem


def _change(entry: dict[str, Any], op: AceOp) -> str | None:
    if op.op == "updateEntry":
        assert op.entry is not None
        if op.entry.get("id", op.entry_id) != op.entry_id:
            return f"entry id {op.entry.get('id')!r} differs from entryId {op.entry_id}"
        entry.update(copy.deepcopy(op.entry))
        return None
    if op.op == "incrementCounter":
        return _increment(entry, op.delta or {})
    status = (op.entry or {}).get("status")
    entry["status"] = status if status in ("deprecated", "quarantined") else "deprecated"
    if op.reason is not None:
        entry["deprecatedReason"] = op.reason
    return None


def _increment(entry: dict[str, Any], delta: dict[str, Any]) -> str | None:
    for name, value in delta.items():
        step = as_count(value)
        if name not in COUNTERS or step is None:
            return f"delta {name}={value!r}: expected helpfulCount or harmfulCount by an integer"
        current = entry.get(name, 0)
        if as_count(current) is None:
            return f"{name} holds {current!r}, not a number"
        entry[name] = current + step
    return None


def _advance(playbook: dict[str, Any], now: str) -> None:
    version = playbook.get("version")
    if isinstance(version, int) and not isinstance(version, bool):
        playbook["version"] = version + 1
    if "updated" in playbook:
        playbook["updated"] = now
    if isinstance(playbook.get("metrics"), dict):
        playbook["metrics"] = recompute_metrics(playbook)


def _put(
    data: Any, where: tuple[str | int, ...], playbook: dict[str, Any], now: str, start: bool
) -> Any:
    """The document with the new playbook; the host's ``sequence`` advances.

    A host without ``sequence`` gets one only when the patch guards with one.
    """
    if not where:
        return playbook
    if len(where) == 1:
        host = playbook
        out = {**data, where[0]: playbook}
    else:
        host = dict(data[where[0]])
        host[str(where[1])] = playbook
        out = {**data, where[0]: host}
    if start:
        host.setdefault("sequence", 0)
    bump_host(host, now)
    return out
