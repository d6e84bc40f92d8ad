"""``git vcontext playbook add|update|deprecate FILE``: append a correct event, keep the style."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

from ..clock import now_rfc3339
from ..errors import ExitCode, NoPlaybookError, OperationalError, UsageError
from ..fsio import TargetChanged, read_bytes, write_atomic
from ..playbook.edit import Edit, OldItemsLog, append_event
from ..record import record
from ..sync.judge import parsed_or_refused, refuse_unplayable, refuse_unwritable

COUNTERS = ("helpfulCount", "harmfulCount")


@record
class EventOptions:
    """The event's fields as given on the command line (None, empty or False: not given)."""

    kind: str | None = None
    title: str | None = None
    text: str | None = None
    narrative: Sequence[str] = ()  # KEY=TEXT
    tag: Sequence[str] = ()
    evidence: Sequence[str] = ()
    supersedes: Sequence[str] = ()
    confidence: float | None = None
    delta: Sequence[str] = ()  # COUNTER=+N
    feedback_type: str | None = None
    superseded_by: str | None = None
    duplicate_of: str | None = None
    status: str | None = None
    deprecated_reason: str | None = None
    quarantine: bool = False


def run(
    *,
    action: str,
    file: str,
    target: str,
    reason: str | None = None,
    given: EventOptions | None = None,
) -> int:
    """Append one event to FILE's playbook and write the file back in its own format."""
    edit = Edit(action, target, _fields(action, given or EventOptions(), reason), reason)
    if file != "-":  # never an event added to the files an interrupted sync left behind
        from ..sync.interrupted import finish_near

        finish_near(file, say=lambda line: print(f"git-vcontext: {line}", file=sys.stderr))
    # os.urandom is what secrets.token_hex reads, without importing secrets (hmac, hashlib,
    # random, base64: ~12 ms of every call an agent makes)
    entropy = None if os.environ.get("SOURCE_DATE_EPOCH") else os.urandom(8).hex()
    for _ in range(ATTEMPTS):
        new = action == "add" and file != "-" and not os.path.lexists(file)
        raw = None if new else read_bytes(file)
        try:
            result = _write(file, raw, edit, entropy)
            break
        except TargetChanged:
            continue  # someone wrote the file since it was read: the edit again, on theirs
    else:
        raise OperationalError(f"{file}: changed by someone else {ATTEMPTS} times while "
                               "the event was added; not written, try again")  # fmt: skip
    if new:
        _say_created(file)
    event = result.event
    prev = f", prevEventId {event['prevEventId']}" if "prevEventId" in event else ""
    print(f"{event['eventId']}: {event['operation']} of {target}{prev}")
    for note in result.notes:
        print(f"git-vcontext: note: {note}", file=sys.stderr)
    return int(ExitCode.OK)


ATTEMPTS = 5
"""How often an edit is redone on a file someone else wrote meanwhile (an agent, the MCP
server, a person's editor) before giving up."""


def _write(file: str, raw: bytes | None, edit: Edit, entropy: str | None) -> Any:
    """Add the event to ``raw`` (None: a new playbook) and write the file, unless it
    changed since it was read (``TargetChanged``: nothing written)."""
    now = now_rfc3339()
    doc = None if raw is None else parsed_or_refused(raw, file)
    data = _new_playbook(file, now) if doc is None else doc.data
    try:
        result = append_event(data, edit, now=now, entropy=entropy)
    except (NoPlaybookError, OldItemsLog) as exc:
        if doc is not None:  # validate's findings name the way on, when it rejects it
            from .validate import place_of

            refuse_unplayable(file, doc, exc, place=place_of(file))
        raise
    text = _new_text(file, result.data) if doc is None else doc.render(result.data)
    from .validate import place_of  # lazy: a git rev-parse, only once an edit is made

    # what does not read back, or validate would reject, is never written (a VerMAS file
    # known by its place)
    refuse_unwritable(file, text, result.data, doc, place=place_of(file))
    if file == "-":
        write_atomic(file, text.encode("utf-8"))
        return result
    if raw is None:
        try:
            os.makedirs(os.path.dirname(file) or ".", exist_ok=True)
        except OSError as exc:
            raise OperationalError(f"{file}: cannot make its folder ({exc.strerror})") from None
    write_atomic(file, text.encode("utf-8"), guard=lambda: _still(file, raw))
    return result


def _still(file: str, raw: bytes | None) -> bool:
    """Whether ``file`` still holds ``raw`` (None: still does not exist)."""
    if raw is None:
        return not os.path.lexists(file)
    try:
        with open(file, "rb") as fh:
            return fh.read() == raw
    except OSError:
        return False


def _new_playbook(file: str, now: str) -> Any:
    """An empty playbook for ``playbook add`` on a file that does not exist yet, in the
    format its name says (the MCP server's new playbook: one shape for both)."""
    from ..codecs import format_from_name
    from ..edits.learnings import new_document
    from ..edits.stamp import Stamp

    if format_from_name(file) not in ("json", "tron"):
        raise UsageError(
            f"{file}: no such file; a new playbook's name says its format: *.json or *.tron "
            "(e.g. .vcontext/playbook.vcontext.json)"
        )
    return new_document(Stamp(agent="", now=now))


def _new_text(file: str, data: Any) -> str:
    from ..codecs import dumps, format_from_name

    return dumps(data, "tron" if format_from_name(file) == "tron" else "json")


def _say_created(file: str) -> None:
    """Say the file is new, and when git would not send it to the merge driver (the
    hook, the guard and validate would not check it either)."""
    print(f"git-vcontext: created {file} (a new playbook)", file=sys.stderr)
    try:
        from ..gitio import open_repo, work_tree
        from ..gitio.fileset import work_tree_files

        repo = open_repo(os.path.dirname(os.path.abspath(file)))
        top = work_tree(repo)
        if top is None:
            return
        rel = os.path.relpath(os.path.realpath(file), os.path.realpath(top))
        if not work_tree_files(repo).routed(rel.replace(os.sep, "/")):
            print(
                f"git-vcontext: note: {file} is not a vContext file to git: .gitattributes "
                "does not send it to the merge driver, and validate, the pre-push hook and "
                "the guard do not check it (name it *.vcontext.json or *.vcontext.tron, "
                "or add its pattern: see git vcontext install)",
                file=sys.stderr,
            )
    except OperationalError:
        return  # not in a repository: nothing to route


def _fields(action: str, o: EventOptions, reason: str | None) -> dict[str, Any]:
    """The event's fields from the command-line options (only those given)."""
    fields: dict[str, Any] = {}
    for name, value in (("kind", o.kind), ("title", o.title), ("text", o.text)):
        if value is not None:
            fields[name] = value
    if o.narrative:
        fields["narrative"] = parse_narrative(o.narrative)
    for name, values in (("tags", o.tag), ("evidence", o.evidence), ("supersedes", o.supersedes)):
        if values:
            fields[name] = list(dict.fromkeys(values))
    if o.confidence is not None:
        fields["confidence"] = _confidence(o.confidence)
    if o.delta:
        fields["delta"] = parse_deltas(o.delta)
    links = (
        ("feedbackType", o.feedback_type),
        ("supersededBy", o.superseded_by),
        ("duplicateOf", o.duplicate_of),
    )
    for name, link in links:
        if link is not None:
            fields[name] = link
    _status(action, o, reason, fields)
    _check_content(action, fields)
    return fields


def _status(action: str, o: EventOptions, reason: str | None, fields: dict[str, Any]) -> None:
    if action == "add":
        fields["status"] = "active"
    elif action == "deprecate":
        fields["status"] = "quarantined" if o.quarantine else "deprecated"
        why = o.deprecated_reason or reason
        if why:
            fields["deprecatedReason"] = why
    elif o.status is not None:
        fields["status"] = o.status


def _check_content(action: str, fields: dict[str, Any]) -> None:
    if action == "add" and not _says_something(fields.get("text"), fields.get("narrative")):
        raise UsageError("playbook add needs content: --text or --narrative KEY=TEXT")
    if action == "update" and not fields:
        raise UsageError("playbook update needs something to change (--delta, --text, ...)")


def _says_something(text: Any, narrative: Any) -> bool:
    """A non-blank text, or a narrative with a non-blank section (an empty one is not
    content: validation refuses it, rule ``playbook-content``)."""
    sections = narrative.values() if isinstance(narrative, dict) else []
    return any(isinstance(v, str) and v.strip() for v in [text, *sections])


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
