"""M8: the ``sequence`` number (Extension 10) of the info object, a container or an item."""

from __future__ import annotations

from .. import document as doc
from ..values import canonical, instant_key, parse_instant, same
from .result import MISSING

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .core import Merger, Path

TOOL_AGENT = {"id": "git-vcontext", "type": "system", "name": "git-vcontext"}


def is_number(value: Any) -> bool:
    """An int or float, not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def merge_sequence(m: Merger, path: Path, base: Any, ours: Any, theirs: Any) -> Any:
    """Both advanced: max + 1 (noted); a decrease is a violation and max wins."""
    values = [0 if v is MISSING else v for v in (base, ours, theirs)]
    if not all(is_number(v) for v in values):
        return _generic(m, path, base, ours, theirs)
    b, o, t = values
    if t != b and (o != b or t < b) and m.replay:
        # a replay applies theirs' own change on top of ours: its change of the sequence
        # is an advance on ours' (a revert advances too), noted only if the step met a
        # concurrent edit of one value (after_object: replayed_sequence)
        new = o + max(abs(t - b), 1)
        m.replayed[path[:-1]] = (o, t, b, path[-1])
        return new
    if o > b and t > b:
        new = max(o, t) + 1
        m.note("sequence-conflict", path, _conflict_message(o, t, b, new))
        m.sequence_conflicts[path[:-1]] = (o, t, b, path[-1], len(m.notes) - 1)
        return new
    if o < b or t < b:
        side = "ours" if o < b else "theirs"
        m.note("sequence-decrease", path, f"{side} decreased {path[-1]} below {b}; max kept")
        return ours if o >= t else theirs
    return _generic(m, path, base, ours, theirs)


def advanced_within(base: Any, value: Any, key: Any = None) -> bool:
    """Whether ``value`` holds a ``sequence`` (or ``playbook.version``) above the one at the
    same place in ``base``: objects key by key, array elements by identity; append-only
    logs are not looked into (their entries' sequences are no counters)."""
    return _moved_within(base, value, key, up=True)


def decreased_within(base: Any, value: Any, key: Any = None) -> bool:
    """Whether ``value`` holds a ``sequence`` (or ``playbook.version``) below the one at the
    same place in ``base`` (what a revert does), looked for as ``advanced_within`` does."""
    return _moved_within(base, value, key, up=False)


def _moved_within(base: Any, value: Any, key: Any, *, up: bool) -> bool:
    """A sequence above (``up``) or below the base's, somewhere inside ``value``."""
    if isinstance(value, dict) and isinstance(base, dict):
        # an object equal to the base's (most elements) moves none: each number stands where
        # the base has an equal one (one test in C, rather than one call per member; ``==``,
        # not ``same``: a boolean where the base has a number is no sequence, and the walk
        # that tells them apart costs a merge of 200 items ~0.5 ms, issue 32)
        if base == value:
            return False
        return any(_moved_member(base, name, v, key, up) for name, v in value.items())
    if isinstance(value, list) and isinstance(base, list):
        before = {_element_key(e): e for e in base if isinstance(e, dict)}
        before.pop(None, None)
        for e in value:
            b = before.get(_element_key(e)) if isinstance(e, dict) else None
            # (an element equal to the base's moves none: told in C, without the call)
            if b is not None and b is not e and b != e and _moved_within(b, e, key, up=up):
                return True
    return False


def _moved_member(base: dict[str, Any], name: str, value: Any, key: Any, up: bool) -> bool:
    if name == doc.SEQUENCE_FIELD or (name == "version" and key == doc.PLAYBOOK_KEY):
        b = base.get(name, 0)
        return is_number(value) and is_number(b) and (value > b if up else value < b)
    if not isinstance(value, (dict, list)) or name not in base or base[name] == value:
        return False
    if name == doc.CHANGELOG_FIELD or doc.is_playbook_log((key, name)):
        return False
    return _moved_within(base[name], value, name, up=up)


def replayed_sequence(
    m: Merger, path: Path, base: Any, ours: Any, theirs: Any, out: dict[str, Any]
) -> None:
    """After a replayed object is merged (M8 "In a replay"): the changeLog entries theirs'
    commit added follow ours' with sequences continuing from ours' maximum (strictly
    increasing), the sequence at least the last of them; only when the step met a
    concurrent edit of one value inside the object is it a sequence conflict (max + 1,
    noted, a ``merge`` Change logged)."""
    replayed = m.replayed.pop(path, None)
    if replayed is None:
        return
    o, t, b, field = replayed
    log = out.get(doc.CHANGELOG_FIELD)
    if isinstance(log, list):
        top = _renumbered(out, log, (base, ours), o, b)
        if top is not None and is_number(out.get(field)) and out[field] < top:
            out[field] = top
    if not any(c[: len(path)] == path for c in m.concurrent):
        return
    new = out[field] + 1
    out[field] = new
    m.note("sequence-conflict", (*path, field), _conflict_message(o, t, b, new, " (a replay)"))
    if isinstance(out.get(doc.CHANGELOG_FIELD), list):
        change = _merge_change(m, out[doc.CHANGELOG_FIELD], o, t, new)
        out[doc.CHANGELOG_FIELD] = [*out[doc.CHANGELOG_FIELD], change]
        kind, where, message, details = m.notes[-1]
        m.notes[-1] = (kind, where, message, (*details, ("logged", change)))


def _renumbered(out: dict[str, Any], log: list[Any], sides: tuple[Any, Any], o: Any, b: Any) -> Any:
    """Theirs' new entries (those after ours' in a replay) renumbered from ours' maximum;
    the last sequence given (None when none was). ``sides``: base and ours."""
    logs = [x.get(doc.CHANGELOG_FIELD) if isinstance(x, dict) else None for x in sides]
    base_log, own = (x if isinstance(x, list) else [] for x in logs)
    had = {canonical(e) for e in (*base_log, *own)}
    numbers: list[Any] = [e.get("sequence") for e in own if isinstance(e, dict)]
    top: Any = max((n for n in numbers if is_number(n)), default=None)
    entries = []
    last = None
    for e in log:
        seq = e.get("sequence") if isinstance(e, dict) else None
        if not is_number(seq) or canonical(e) in had:
            entries.append(e)
            continue
        wanted = o + (seq - b) if is_number(o) and is_number(b) else seq
        new = wanted if top is None else max(top + 1, wanted)
        entries.append(e if new == seq else {**e, "sequence": new})
        top = last = new
    out[doc.CHANGELOG_FIELD] = entries
    return last


def _element_key(element: dict[str, Any]) -> Any:
    ident = element.get("id")
    if type(ident) is str:  # the first identity key, as most elements carry it: one test
        return ("id", ident)
    for name in doc.IDENTITY_KEYS:
        ident = element.get(name)
        if isinstance(ident, (str, int)) and not isinstance(ident, bool):
            return (name, ident)
    return None


def _conflict_message(o: Any, t: Any, b: Any, merged: Any, how: str = "") -> str:
    return f"concurrent edits: ours at {o}, theirs at {t} (base {b}); merged as {merged}{how}"


def _generic(m: Merger, path: Path, base: Any, ours: Any, theirs: Any) -> Any:
    if same(ours, theirs):
        return ours
    if same(base, ours):
        return theirs
    if same(base, theirs):
        return ours
    return m.both_changed(path, base, ours, theirs)


def log_sequence_conflict(m: Merger, path: Path, base: Any, ours: Any, out: dict[str, Any]) -> None:
    """A ``merge`` Change in the object's changeLog when its sequence conflicted (its note
    names it: detail ``logged``); in an integration (``MergeOptions.integration``) the one
    an earlier merge of the integration logged there takes the new sequence instead, so
    the integration ends with one such Change, whose sequence is the highest of every
    side plus one."""
    seq = m.sequence_conflicts.pop(path, None)
    log = out.get(doc.CHANGELOG_FIELD)
    if seq is None or not isinstance(log, list):
        return
    o, t, b, field, note = seq
    kind, where, message, details = m.notes[note]
    earlier = _integration_change(m, base, ours) if m.options.integration else None
    if earlier is None:
        change = _merge_change(m, log, o, t, max(o, t) + 1)
        out[doc.CHANGELOG_FIELD] = [*log, change]
    else:
        folded = max(o, t + 1)  # o is already the integration's max + 1
        out[field] = folded
        message = _conflict_message(o, t, b, folded, " (one entry for the integration)")
        change = _folded_change(earlier, t, folded)
        out[doc.CHANGELOG_FIELD] = [*_without_last(log, earlier), change]
    m.notes[note] = (kind, where, message, (*details, ("logged", change)))


def _without_last(log: list[Any], entry: Any) -> list[Any]:
    """``log`` without its last element equal to ``entry``."""
    for i in range(len(log) - 1, -1, -1):
        if log[i] == entry:
            return log[:i] + log[i + 1 :]
    return log


def _integration_change(m: Merger, base: Any, ours: Any) -> dict[str, Any] | None:
    """The ``merge`` Change an earlier merge of this integration logged in ours' changeLog
    (the last one there), unless the base has it too."""
    log = ours.get(doc.CHANGELOG_FIELD) if isinstance(ours, dict) else None
    if not isinstance(log, list):
        return None
    tool = [e for e in log if isinstance(e, dict) and e.get("agent") == TOOL_AGENT]
    mine = [e for e in tool if canonical(e) in m.options.integration]
    if not mine:
        return None
    base_log = base.get(doc.CHANGELOG_FIELD) if isinstance(base, dict) else None
    return None if isinstance(base_log, list) and mine[-1] in base_log else mine[-1]


def _merge_change(m: Merger, log: list[Any], o: Any, t: Any, new: Any) -> dict[str, Any]:
    return {
        "sequence": new,
        "timestamp": m.options.now or _latest_timestamp(log),
        "agent": dict(TOOL_AGENT),
        "operation": "merge",
        "reason": f"{_REASON} {o} (ours) and {t} (theirs)",
    }


_REASON = "git-vcontext merged concurrent edits at sequence"


def _folded_change(earlier: dict[str, Any], t: Any, folded: Any) -> dict[str, Any]:
    """The integration's merge Change, now also naming theirs' sequence ``t``."""
    reason = earlier.get("reason")
    if isinstance(reason, str) and reason.startswith(_REASON) and reason.endswith(" (theirs)"):
        return {**earlier, "sequence": folded, "reason": f"{reason[:-9]}, {t} (theirs)"}
    return {**earlier, "sequence": folded}


def _latest_timestamp(log: list[Any]) -> str:
    stamps = [e.get("timestamp") for e in log if isinstance(e, dict)]
    valid = [s for s in stamps if parse_instant(s) is not None]
    return str(max(valid, key=instant_key)) if valid else "1970-01-01T00:00:00Z"
