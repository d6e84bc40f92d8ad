"""Semantic rules of PRODUCT.md "Validation", each with a stable rule id (pure functions of data).

Every check yields ``(rule, path parts, message)``; ``files`` turns them into located findings.
"""

from __future__ import annotations

from ..codecs.text import find_conflict_marker
from ..document import (
    CONTAINER_KEYS,
    DATETIME_FIELDS,
    EXTRA_CONTAINER_KEYS,
    ITEM_ARRAY_KEYS,
)
from ..spelling import dumps

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from re import Pattern
    from typing import Any

    from .model import Issue, Parts

    Stamp = tuple[str, str, str, str, str, str, str, str | None, str | None]
    """The groups of ``RFC3339``: year, month, day, hour, minute, second, offset, its hours
    and minutes (None for ``Z``)."""

RULES = {
    "parse": "the file is not valid JSON, TRON, JSONL or TOML",
    "conflict-markers": "git conflict markers left in the file or in a string",
    "conflict-unresolved": 'a structured conflict (Conflict with status "unresolved") is left',
    "duplicate-key": "a key appears twice in one object",
    "not-vcontext": "a file named explicitly that is not a vContext document",
    "schema": "a field is missing, has the wrong type or a value outside its enumeration",
    "version": 'vContextInfo.version must be the string "0.4" (an older document: migrate it, '
    'set version to "0.4")',
    "container": "exactly one container (todoList, plan or playbook)",
    "unique-id": "ids unique within their container",
    "unique-event-id": "eventId (event_id in JSONL) unique in the log",
    "datetime": "RFC 3339 datetimes with an explicit offset, on real calendar dates",
    "changelog-sequence": "changeLog sequences non-decreasing, not above the container's sequence",
    "dependency-missing": "dependencies and edges point at existing ids",
    "dependency-cycle": "dependencies and blocking edges form no cycle",
    "fork-parent-sequence": "fork.parentSequence is not negative",
    "fork-merge-status": "fork.mergeStatus agrees with fork.conflictResolution",
    "playbook-dangling-prev": "prevEventId names an event of the log",
    "playbook-cross-target-prev": "prevEventId names an event of the same targetId",
    "playbook-cycle": "prevEventId links form no cycle",
    "playbook-append-with-prev": "append/initial events have no prevEventId",
    "playbook-update-without-prev": "update/deprecate events have a prevEventId",
    "playbook-duplicate-creation": "concurrent creations of one targetId (a note: several roots)",
    "playbook-malformed-event": "log elements are events (objects with eventId and targetId)",
    "event-caused-by": "a VerMAS event's caused_by names an event of the same log",
    "event-type-unknown": "a VerMAS event_type seed 004 does not list (a note: the list grows)",
    "projection-drift": "work_orders.jsonl / messages.jsonl agree with what events.jsonl derives",
    "assignment": "a VerMAS assignment file holds one line {type}:{reference_id}",
    "event-id": "a VerMAS event_id has seed 004's form evt-{random}",
    "plan-proposal": "a plan holds narratives.proposal, the proposed solution (vContext 0.4)",
    "playbook-dangling-link": "supersedes, supersededBy and duplicateOf name a targetId of the "
    "playbook",
    "playbook-content": "append/initial events carry content: a narrative or text that is not "
    "empty",
    "symlink": "a vContext path that is a symbolic link (git merges the link, never the "
    "document, and a remote cannot follow it)",
    "narrative-object": "a plan narrative written as a {title, content} object (a note: the "
    "older form seed 001's own example uses; the string form is preferred)",
}
"""Every rule id validation reports, with what it checks (stable: reports and tests use them)."""

NOTE_RULES = frozenset({"event-type-unknown", "narrative-object", "playbook-duplicate-creation"})
"""Rules whose findings are notes: reported with a line and column, the file stays valid."""

RFC3339 = (
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))\Z"
)
"""An RFC 3339 datetime with an offset; ``_stamp`` reads the same texts without ``re``."""
DATE_TIME_START = r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}"
FULL_DATE = r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\Z"
DATE_FIELDS = frozenset({"startDate", "endDate"})
"""Schedule fields that may hold a calendar date (RFC 3339 full-date, as plans use them)."""
MIGRATABLE = ("0.1", "0.2", "0.3")


def containers(data: dict[str, Any]) -> list[str]:
    """The container keys present at the top of a document."""
    return [k for k in CONTAINER_KEYS + EXTRA_CONTAINER_KEYS if k in data]


def check_container(data: dict[str, Any]) -> Iterator[Issue]:
    """Exactly one container per document (seed 000 conformance)."""
    found = containers(data)
    if not found:
        yield "container", (), "no container; add exactly one of todoList, plan or playbook"
    elif len(found) > 1:
        names = ", ".join(found)
        msg = f"{len(found)} containers ({names}); keep one per document, move the others to files"
        yield "container", (found[1],), msg


def check_version(info_key: str | None, info: Any) -> Iterator[Issue]:
    """``vContextInfo.version`` must be the string "0.4": missing, numeric or other versions
    are invalid (an older one is migrated by setting version to "0.4", then mending what
    else 0.4 wants); a document without any info object too."""
    if info_key is None:
        msg = 'no vContextInfo at the top; add "vContextInfo": {"version": "0.4"}'
        yield "version", (), msg
        return
    if info_key != "vContextInfo":
        yield from _family_version(info_key, info)
        return
    where: Parts = ("vContextInfo", "version")
    version = info.get("version") if isinstance(info, dict) else None
    if version == "0.4":
        return
    if not isinstance(info, dict):
        msg = f'vContextInfo is {_kind(info)}; write {{"version": "0.4"}}'
        yield "version", ("vContextInfo",), msg
    elif "version" not in info:
        yield "version", ("vContextInfo",), 'vContextInfo has no version; add "version": "0.4"'
    elif not isinstance(version, str):
        msg = f'version is {_kind(version)}; write it as the string "0.4"'
        yield "version", where, msg
    elif version in MIGRATABLE:
        msg = (
            f'vContext {version} document; migrate it: set version to "0.4" (checked as 0.4'
            " already: any other finding names what else 0.4 wants)"
        )
        yield "version", where, msg
    else:
        msg = f'unknown vContext version "{version}"; vContext documents must be version "0.4"'
        yield "version", where, msg


def _family_version(info_key: str, info: Any) -> Iterator[Issue]:
    """A vBRIEF or vAgenda document names its version as a string too (every real one does):
    a missing or non-string version would otherwise turn its schema checks off unnoticed."""
    if not isinstance(info, dict):
        yield "schema", (info_key,), f'{info_key} must be an object holding "version"'
    elif "version" not in info:
        yield "version", (info_key,), f'{info_key} has no version; add "version" (a string)'
    elif not isinstance(info["version"], str):
        msg = f"version is {_kind(info['version'])}; write it as a string"
        yield "version", (info_key, "version"), msg


def _kind(value: Any) -> str:
    """How a value that should have been something else is named in a message."""
    if isinstance(value, bool) or value is None:
        return dumps(value)
    if isinstance(value, (int, float)):
        return f"the number {dumps(value)}"
    if isinstance(value, str):
        return f"the string {dumps(value)}"
    return "an array" if isinstance(value, list) else "an object"


def check_datetimes(value: Any, fields: frozenset[str] = DATETIME_FIELDS) -> Iterator[Issue]:
    """Datetime fields hold RFC 3339 timestamps with ``Z`` or ``±hh:mm``."""
    if not _any_date_issue(value, fields):
        return  # (the common case: one walk that builds no paths; issue 28)
    for parts, key, text in _strings_under(value, fields):
        said = _date_issue(key, text)
        if said is not None:
            yield "datetime", parts, said


def _date_issue(key: str, text: str) -> str | None:
    """What is wrong with the datetime (or date) field ``key`` holding ``text`` (None:
    nothing)."""
    if key in DATE_FIELDS and _compiled(FULL_DATE).match(text):
        if int(text[8:10]) > _days_in(int(text[:4]), int(text[5:7])):
            return f'{key} "{text}" is not a real calendar date; fix it'
        return None
    problem = datetime_problem(text)
    return f"{key} {problem}" if problem else None


def _any_date_issue(value: Any, fields: frozenset[str]) -> bool:
    """Whether ``check_datetimes`` finds anything: the strings ``_strings_under`` gives,
    each judged by ``_date_issue``, in a walk that makes no path."""
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, child in node.items():
                if key in fields and isinstance(child, str):
                    if _date_issue(key, child) is not None:
                        return True
                elif isinstance(child, (dict, list)):
                    stack.append(child)
        elif isinstance(node, list):
            stack.extend(node)
    return False


_JUDGED: dict[str, str | None] = {}
"""``datetime_problem``'s answers by text: a playbook's events repeat their timestamps (244
of them, 78 different, in a soak's playbook) and a push's documents share most of theirs."""
JUDGED_LIMIT = 8192


def datetime_problem(text: str) -> str | None:
    """Why a string is not an RFC 3339 datetime with an offset (None when it is one)."""
    try:
        return _JUDGED[text]
    except KeyError:
        pass
    problem = _datetime_problem(text)
    if len(_JUDGED) < JUDGED_LIMIT:
        _JUDGED[text] = problem
    return problem


def _datetime_problem(text: str) -> str | None:
    m = _stamp(text)
    if m is None:
        if _compiled(DATE_TIME_START).match(text) and not _compiled(
            r"(?:[Zz]|[+-]\d{2}:?\d{2})\Z"
        ).search(text):
            return f'"{text}" has no UTC offset; add "Z" or "+hh:mm" (RFC 3339)'
        return f'"{text}" is not an RFC 3339 datetime; write e.g. "2025-01-31T09:00:00Z"'
    year, month, day, hour, minute, second = (int(part) for part in m[:6])
    if m[7] is not None and (int(m[7]) > 23 or int(m[8] or "0") > 59):
        return f'"{text}" has an impossible UTC offset; fix it'
    if not 1 <= month <= 12 or not 1 <= day <= _days_in(year, month):
        return f'"{text}" is not a real calendar date; fix it'
    if hour > 23 or minute > 59 or second > 60:
        return f'"{text}" is not a real time of day; fix it'
    if second == 60 and not _leap_second(m, year, month, day):
        return (
            f'"{text}" has second 60, which only a leap second has (23:59:60 UTC '
            "on the last day of a month); fix it"
        )
    return None


def _stamp(text: str) -> Stamp | None:
    """The groups of ``RFC3339`` in ``text`` (None: no match), read by hand: the guard's
    light path judges every timestamp of a push without loading ``re`` (a few ms of each
    run). The same texts as the expression, digits as ``\\d`` reads them (``isdecimal``);
    a test holds the two to the same answers."""
    n = len(text)
    if n < 20 or text[4] != "-" or text[7] != "-" or text[10] not in "Tt " or text[13] != ":":
        return None
    if text[16] != ":":
        return None
    parts = (text[0:4], text[5:7], text[8:10], text[11:13], text[14:16], text[17:19])
    if not all(p.isdecimal() for p in parts):
        return None
    at = 19
    if text[at] == ".":
        end = at + 1
        while end < n and text[end].isdecimal():
            end += 1
        if end == at + 1:
            return None
        at = end
    rest = text[at:]
    if rest in ("Z", "z"):
        return (*parts, rest, None, None)
    if len(rest) != 6 or rest[0] not in "+-" or rest[3] != ":":
        return None
    hours, minutes = rest[1:3], rest[4:6]
    if not (hours.isdecimal() and minutes.isdecimal()):
        return None
    return (*parts, rest, hours, minutes)


def _compiled(pattern: str) -> Pattern[str]:
    """A regular expression of this module, compiled on first use (``re`` keeps it)."""
    import re  # lazy: see _stamp

    return re.compile(pattern)


def _days_in(year: int, month: int) -> int:
    """Days of a month of the proleptic Gregorian calendar (RFC 3339 years 0000-9999)."""
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def _leap_second(m: Stamp, year: int, month: int, day: int) -> bool:
    """RFC 3339 5.7: second 60 is a leap second, added at 23:59:60 UTC at the end of a month."""
    offset = 0
    if m[7] is not None:
        sign = -1 if m[6].startswith("-") else 1
        offset = sign * (int(m[7]) * 60 + int(m[8] or "0"))
    minutes = int(m[3]) * 60 + int(m[4]) - offset  # of the UTC day, maybe +-1 day
    shift, utc = divmod(minutes, 1440)
    if utc != 23 * 60 + 59:
        return False
    last = _days_in(year, month)
    if shift == 0:
        return day == last
    return day == 1 if shift < 0 else day + 1 == last


def _strings_under(value: Any, fields: frozenset[str]) -> Iterator[tuple[Parts, str, str]]:
    stack: list[tuple[Any, Parts]] = [(value, ())]
    while stack:
        node, parts = stack.pop()
        if isinstance(node, dict):
            for key, child in node.items():
                if key in fields and isinstance(child, str):
                    yield (*parts, key), key, child
                elif isinstance(child, (dict, list)):
                    stack.append((child, (*parts, key)))
        elif isinstance(node, list):
            stack.extend((child, (*parts, i)) for i, child in enumerate(node))


def check_markers(value: Any, *, text: str | None = None) -> Iterator[Issue]:
    """Conflict markers inside string values (a text merge left them in a narrative);
    ``text``: what ``value`` was parsed from, if known."""
    if not _may_hold(text, "<<<<<<<", ">>>>>>>") or not _any_string_with_marker(value):
        return  # (the common case: one walk that builds no paths)
    stack: list[tuple[Any, Parts]] = [(value, ())]
    while stack:
        node, parts = stack.pop()
        if isinstance(node, str):
            if ("<<<<<<<" in node or ">>>>>>>" in node) and find_conflict_marker(node) is not None:
                msg = "holds git conflict markers; resolve the conflict and remove them"
                yield "conflict-markers", parts, msg
        elif isinstance(node, dict):
            stack.extend((child, (*parts, key)) for key, child in node.items())
        elif isinstance(node, list):
            stack.extend((child, (*parts, i)) for i, child in enumerate(node))


def check_conflicts(value: Any, *, text: str | None = None) -> Iterator[Issue]:
    """No structured conflict left unresolved (a ``ConflictResolution`` anywhere: in the info's
    ``metadata`` or a ``fork``): it would be committed and pushed as if merged. ``text``:
    what ``value`` was parsed from, if known."""
    if not _may_hold(text, "conflictResolution") or not _any_key(value, "conflictResolution"):
        return  # (the common case: one walk that builds no paths)
    stack: list[tuple[Any, Parts]] = [(value, ())]
    while stack:
        node, parts = stack.pop()
        if isinstance(node, list):
            stack.extend((child, (*parts, i)) for i, child in enumerate(node))
            continue
        if not isinstance(node, dict):
            continue
        for key, child in node.items():
            if key == "conflictResolution" and isinstance(child, dict):
                yield from _unresolved(child, (*parts, key))
            elif isinstance(child, (dict, list)):
                stack.append((child, (*parts, key)))


def _may_hold(text: str | None, *words: str) -> bool:
    """Whether a value parsed from ``text`` (None: not known) may hold one of ``words`` in
    a key or a string: the text holds the word, or an escape (a backslash) that may spell
    it. Every format writes a key or a string's characters as themselves or escaped with
    a backslash (JSON, TRON, JSONL; TRON's class fields are names as written), so a text
    without either holds none: one search in C instead of a walk of the value."""
    return text is None or "\\" in text or any(word in text for word in words)


def _any_string_with_marker(value: Any) -> bool:
    """Whether a string value anywhere in ``value`` holds ``<<<<<<<`` or ``>>>>>>>`` (what
    ``check_markers`` looks closer at), found without building each node's path: the
    guard judges every document a push changes (issue 28)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if "<<<<<<<" in node or ">>>>>>>" in node:
                return True
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _any_key(value: Any, key: str) -> bool:
    """Whether an object anywhere in ``value`` has ``key`` (``check_conflicts``' pre-test)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if key in node:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _unresolved(resolution: dict[str, Any], where: Parts) -> Iterator[Issue]:
    conflicts = resolution.get("conflicts")
    for i, conflict in enumerate(conflicts if isinstance(conflicts, list) else ()):
        if isinstance(conflict, dict) and conflict.get("status") == "unresolved":
            at = conflict.get("path")
            shown = f" at {at}" if isinstance(at, str) and at else ""
            msg = (
                f"unresolved merge conflict{shown}: pick the value, then set this status to "
                '"resolved" or remove the conflict (a conflict cannot be pushed as merged)'
            )
            yield "conflict-unresolved", (*where, "conflicts", i, "status"), msg


def check_unique_ids(
    container: dict[str, Any], where: Parts, items: list[tuple[Parts, dict[str, Any]]] | None = None
) -> Iterator[Issue]:
    """``id`` values unique within one container, nested items included (Ext 2); ``items``:
    ``walk_items``'s, when walked already."""
    seen: dict[str, Parts] = {}
    for parts, item in walk_items(container, where) if items is None else items:
        ident = item.get("id")
        if not isinstance(ident, str):
            continue
        if ident in seen:
            msg = f'id "{ident}" is used twice in this container; give this item a new id'
            yield "unique-id", (*parts, "id"), msg
        else:
            seen[ident] = parts


def walk_items(container: dict[str, Any], where: Parts) -> Iterator[tuple[Parts, dict[str, Any]]]:
    """Every item of a container, depth first (subItems, phases, ACE entries; not nested lists)."""
    stack = [(container, where)]
    while stack:
        node, parts = stack.pop()
        for key in ITEM_ARRAY_KEYS:
            items = node.get(key)
            if not isinstance(items, list):
                continue
            for i in range(len(items) - 1, -1, -1):
                item = items[i]
                if isinstance(item, dict):
                    stack.append((item, (*parts, key, i)))
        if node is not container:
            yield parts, node
