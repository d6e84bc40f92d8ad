"""``git vcontext playbook add|update|deprecate FILE``: append a correct event, keep the style."""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Sequence
from typing import Any

from ..codecs import parse
from ..errors import ExitCode, OperationalError, UsageError
from ..fsio import read_bytes, write_atomic
from ..values import same

COUNTERS = ("helpfulCount", "harmfulCount")


def run(*, action: str, file: str, target: str, reason: str | None = None, **options: Any) -> int:
    """Append one event to FILE's playbook and write the file back in its own format."""
    from ..clock import now_rfc3339
    from ..playbook.edit import Edit, append_event

    edit = Edit(action, target, _fields(action, {**options, "reason": reason}), reason)
    doc = parse(read_bytes(file), path=file)
    entropy = None if os.environ.get("SOURCE_DATE_EPOCH") else secrets.token_hex(8)
    result = append_event(doc.data, edit, now=now_rfc3339(), entropy=entropy)
    text = doc.render(result.data)
    if not same(parse(text, path=file).data, result.data):  # never write what we cannot read
        raise OperationalError(f"{file}: the rewritten document does not read back; not written")
    write_atomic(file, text.encode("utf-8"))
    event = result.event
    prev = f", prevEventId {event['prevEventId']}" if "prevEventId" in event else ""
    print(f"{event['eventId']}: {event['operation']} of {target}{prev}")
    for note in result.notes:
        print(f"git-vcontext: note: {note}", file=sys.stderr)
    return int(ExitCode.OK)


def _fields(action: str, o: dict[str, Any]) -> dict[str, Any]:
    """The event's fields from the command-line options (only those given)."""
    fields: dict[str, Any] = {}
    for option, name in (("kind", "kind"), ("title", "title"), ("text", "text")):
        if o.get(option) is not None:
            fields[name] = o[option]
    if o.get("narrative"):
        fields["narrative"] = parse_narrative(o["narrative"])
    for option, name in (("tag", "tags"), ("evidence", "evidence"), ("supersedes", "supersedes")):
        if o.get(option):
            fields[name] = list(dict.fromkeys(o[option]))
    if o.get("confidence") is not None:
        fields["confidence"] = _confidence(o["confidence"])
    if o.get("delta"):
        fields["delta"] = parse_deltas(o["delta"])
    for option, name in _LINKS:
        if o.get(option) is not None:
            fields[name] = o[option]
    _status(action, o, fields)
    _check_content(action, fields)
    return fields


_LINKS = (
    ("feedback_type", "feedbackType"),
    ("superseded_by", "supersededBy"),
    ("duplicate_of", "duplicateOf"),
)


def _status(action: str, o: dict[str, Any], fields: dict[str, Any]) -> None:
    if action == "add":
        fields["status"] = "active"
    elif action == "deprecate":
        fields["status"] = "quarantined" if o.get("quarantine") else "deprecated"
        why = o.get("deprecated_reason") or o.get("reason")
        if why:
            fields["deprecatedReason"] = why
    elif o.get("status") is not None:
        fields["status"] = o["status"]


def _check_content(action: str, fields: dict[str, Any]) -> None:
    if action == "add" and "text" not in fields and "narrative" not in fields:
        raise UsageError("playbook add needs --text or --narrative KEY=TEXT")
    if action == "update" and not fields:
        raise UsageError("playbook update needs something to change (--delta, --text, ...)")


def parse_narrative(items: Sequence[str]) -> dict[str, str]:
    """``KEY=TEXT`` pairs as a narrative map (Title-Case keys are the spec's convention)."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UsageError(f"--narrative {item!r}: expected KEY=TEXT, e.g. Overview=...")
        if key in out:
            raise UsageError(f"--narrative: {key!r} given twice")
        out[key] = text
    return out


def parse_deltas(items: Sequence[str]) -> dict[str, int]:
    """``helpfulCount=+1`` / ``harmfulCount=2`` as a delta map (repeated counters add up)."""
    out: dict[str, int] = {}
    for item in items:
        name, sep, number = item.partition("=")
        name = name.strip()
        if name not in COUNTERS or not sep:
            raise UsageError(f"--delta {item!r}: expected helpfulCount=+N or harmfulCount=+N")
        try:
            value = int(number.strip())
        except ValueError:
            raise UsageError(f"--delta {item!r}: {number!r} is not an integer") from None
        out[name] = out.get(name, 0) + value
    return out


def _confidence(value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise UsageError(f"--confidence {value}: must be between 0.0 and 1.0")
    return value
