"""Playbook learnings: ``vbrief_add_learning`` (events chained by ``playbook.edit``), the query."""

from __future__ import annotations

from typing import Any

from ..errors import Refused
from ..playbook.edit import Edit, append_event, event_log
from ..playbook.model import Entry, PlaybookView
from ..playbook.render import matches
from ..playbook.view import locate, playbook_view
from ..record import record
from ..values import instant_key
from .items import slug_id
from .stamp import Stamp, check_expected

KINDS = ("strategy", "learning", "rule", "warning", "note")
EVENT_FIELDS = ("kind", "title", "narrative", "tags", "evidence", "confidence")
CATEGORIES = {
    "strategies": "strategy",
    "decisions": "rule",
    "patterns": "learning",
    "gotchas": "warning",
    "notes": "note",
}
"""Seed 003's learning categories and the playbook entry kinds they are (README, "Agents
over MCP"): a decision is a rule agents follow, a pattern a learning, a gotcha a warning."""
OVERVIEW = "Overview"
"""The narrative block seed 003's ``content`` is, in an entry written with narratives."""


@record
class Learned:
    """The new document data and the event appended (``append`` or ``update``)."""

    data: Any
    event: dict[str, Any]
    notes: tuple[str, ...]


def add_learning(
    data: Any, fields: dict[str, Any], stamp: Stamp, *, entropy: str, expected: int | None = None
) -> Learned:
    """A new ``targetId`` gets an ``append`` event, a known one an ``update`` chained to the
    winning head of its entry (``playbook.edit``: fresh eventId, version + 1, metrics).

    Seed 003's call works as the seed writes it: ``category`` (``patterns``) is the entry's
    kind (``learning``), ``content`` its text, and without a ``targetId`` the entry gets a
    readable one from its title (else its content). An update keeps the guidance it does
    not replace: the event's narrative is the entry's current one with the given blocks
    changed or added; ``content`` replaces an entry's ``text``, else its Overview block.
    """
    where, playbook = locate(data)
    event_log(playbook)  # (v0.3 items: validate's finding, whatever else the call says)
    check_expected(playbook, expected, "the playbook", key="version")
    view = playbook_view(playbook, path=where)
    kind = _kind(fields)
    target = fields.get("targetId")
    if target is None:
        target = _readable_target(fields, view)
    entry = view.entry(target)
    event = {name: fields[name] for name in EVENT_FIELDS if name in fields}
    if kind is not None:
        event["kind"] = kind
    if "tags" in event:
        event["tags"] = list(dict.fromkeys(event["tags"]))
    if entry is None:
        _new_entry(event, fields.get("content"), view)
    else:
        _kept_guidance(event, fields.get("content"), entry)
    edit = Edit("update" if entry is not None else "add", target, event)
    result = append_event(data, edit, now=stamp.now, entropy=entropy)
    return Learned(result.data, result.event, result.notes)


def rate(
    data: Any,
    target: str,
    counts: dict[str, int],
    stamp: Stamp,
    *,
    entropy: str,
    expected: int | None = None,
) -> Learned:
    """``playbook update --delta helpfulCount=+N``: an ``update`` event carrying the
    ``delta`` of the counts given (``helpfulCount``, ``harmfulCount``), chained to the head."""
    delta = {name: n for name, n in counts.items() if n}
    if not delta:
        raise Refused(
            "nothing-to-do", "give helpful or harmful: how many times the learning helped or hurt"
        )
    return _event_on(data, Edit("update", target, {"delta": delta}), stamp, entropy, expected)


def deprecate(
    data: Any,
    target: str,
    reason: str | None,
    stamp: Stamp,
    *,
    entropy: str,
    expected: int | None = None,
) -> Learned:
    """``playbook deprecate``: a ``deprecate`` event (status deprecated, the reason kept)."""
    fields: dict[str, Any] = {"status": "deprecated"}
    if reason:
        fields["deprecatedReason"] = reason
    edit = Edit("deprecate", target, fields, reason)
    return _event_on(data, edit, stamp, entropy, expected)


def _event_on(data: Any, edit: Edit, stamp: Stamp, entropy: str, expected: int | None) -> Learned:
    where, playbook = locate(data)
    event_log(playbook)  # before the target is looked for: a v0.3 item is no learning
    check_expected(playbook, expected, "the playbook", key="version")
    view = playbook_view(playbook, path=where)
    if view.entry(edit.target) is None:
        known = sorted(e.target_id for e in view.entries)[:10]
        hint = f" (targetIds: {', '.join(known)})" if known else ""
        raise Refused("unknown-id", f"no learning with targetId {edit.target!r}{hint}")
    result = append_event(data, edit, now=stamp.now, entropy=entropy)
    return Learned(result.data, result.event, result.notes)


def _kind(fields: dict[str, Any]) -> str | None:
    """The entry kind a call names: ``kind``, else the kind of seed 003's ``category``."""
    category = fields.get("category")
    if category is None:
        kind: str | None = fields.get("kind")
        return kind
    if category not in CATEGORIES:
        raise Refused(
            "bad-argument",
            f"no learning category {category!r}: use one of {', '.join(CATEGORIES)}",
        )
    mapped = CATEGORIES[category]
    if fields.get("kind") not in (None, mapped):
        raise Refused(
            "bad-argument",
            f"category {category!r} is kind {mapped!r}, not {fields['kind']!r}: give one of them",
        )
    return mapped


def _readable_target(fields: dict[str, Any], view: PlaybookView) -> str:
    """A new entry's targetId from its title, else its content: unique in the playbook."""
    taken = {e.target_id for e in view.entries}
    for source in (fields.get("title"), fields.get("content")):
        if isinstance(source, str) and (found := slug_id(source, taken)) is not None:
            return found
    raise Refused(
        "bad-argument",
        "a learning needs a targetId, or a title or content to name it after",
    )


def _new_entry(event: dict[str, Any], content: str | None, view: PlaybookView) -> None:
    """A new entry's guidance: ``content`` as its text when the playbook's entries are
    written as text, else as the Overview block before the narrative given."""
    if "kind" not in event:
        raise Refused(
            "bad-argument",
            f"a new learning needs a kind ({', '.join(KINDS)}) or a category "
            f"({', '.join(CATEGORIES)})",
        )
    if content is not None:
        if _text_style(view):
            event["text"] = content
        else:
            event["narrative"] = {OVERVIEW: content, **event.get("narrative", {})}
    if "narrative" not in event and "text" not in event:
        raise Refused("bad-argument", "a new learning needs a narrative or content")
    event["status"] = "active"


def _kept_guidance(event: dict[str, Any], content: str | None, entry: Entry) -> None:
    """An update's guidance: the entry's narrative blocks not given are carried over;
    ``content`` replaces the text of an entry that has one, else the Overview block."""
    own = entry.narrative if isinstance(entry.narrative, dict) else {}
    if "narrative" in event:
        event["narrative"] = {**own, **event["narrative"]}
    if content is None:
        return
    if entry.text is not None:
        event["text"] = content
    else:
        event["narrative"] = {**event.get("narrative", own), OVERVIEW: content}


def _text_style(view: PlaybookView) -> bool:
    """Whether the playbook writes its entries' guidance as ``text`` (no narratives)."""
    styled = [e for e in view.entries if e.text is not None or e.narrative]
    return bool(styled) and not any(e.narrative for e in styled)


def query(
    view: PlaybookView,
    *,
    kind: str | None = None,
    tags: list[str] | None = None,
    search: str | None = None,
    limit: int = 10,
    status: str = "active",
) -> tuple[list[Entry], int]:
    """Entries of the view that have ``kind``, every one of ``tags`` and ``search`` in their
    text, most recently updated first; and how many matched before ``limit``."""
    found = [
        e
        for e in view.entries
        if matches(e, status=status, kinds=(kind,) if kind else (), search=search)
        and _has_all(e, tags or [])
    ]
    found.sort(key=lambda e: (instant_key(e.updated_at or e.created_at), e.target_id), reverse=True)
    return found[: max(limit, 0)], len(found)


def _has_all(entry: Entry, tags: list[str]) -> bool:
    own = entry.fields.get("tags")
    have = {t for t in own if isinstance(t, str)} if isinstance(own, list) else set()
    return set(tags) <= have


def new_document(stamp: Stamp) -> dict[str, Any]:
    """An empty playbook document (``.vcontext/playbook.json`` when a repository has none)."""
    return {
        "vContextInfo": {"version": "0.4", "created": stamp.now},
        "playbook": {"version": 0, "created": stamp.now, "updated": stamp.now, "items": []},
    }
