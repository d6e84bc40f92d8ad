"""``vbrief_add_learning``, ``vbrief_query_playbook`` and ``vcontext_view``."""

from __future__ import annotations

from typing import Any

from ...branches.commits import listed_name
from ...edits import learnings
from ...errors import Refused
from ...playbook.model import Entry as ViewEntry
from ...playbook.model import PlaybookView
from ...playbook.render import concurrent_heads, matches, render_text
from ...playbook.view import playbook_view
from ..service import Answer, Service, committed_text, subject

KIND = "playbook"
EVENT_ARGS = (
    "targetId",
    "kind",
    "category",
    "title",
    "content",
    "narrative",
    "tags",
    "evidence",
    "confidence",
)


def add_learning(svc: Service, args: dict[str, Any]) -> Answer:
    svc.may_write(KIND)
    stamp, entropy = svc.stamp(), svc.entropy()
    target = svc.target_of(KIND, args.get("playbookId"), lambda: learnings.new_document(stamp))
    fields = {k: args[k] for k in EVENT_ARGS if k in args}
    agent = svc.agent()

    def message(done: learnings.Learned) -> str:
        e = done.event
        return (
            f"vcontext mcp: {subject(_what(e))}\n\n"
            f"Tool: vbrief_add_learning\nAgent: {agent}\nDocument: {listed_name(target.rel)}\n"
        )

    learned, written = svc.writer.write(
        target,
        lambda data, strict: learnings.add_learning(
            data,
            fields,
            stamp,
            entropy=entropy,
            expected=args.get("expectedSequence") if strict else None,
        ),
        message,
    )
    event = learned.event
    out = _event_answer(svc, target.rel, learned, written)
    chained = f", chained to {event['prevEventId']}" if "prevEventId" in event else ""
    return Answer(
        f"Added learning {event['targetId']}: {event['operation']} event {event['eventId']}"
        f"{chained} in {target.rel}{committed_text(out)}",
        out,
    )


def rate_learning(svc: Service, args: dict[str, Any]) -> Answer:
    """``vbrief_rate_learning``: as ``playbook update --delta helpfulCount=+N``."""
    counts = {"helpfulCount": args.get("helpful", 0), "harmfulCount": args.get("harmful", 0)}
    return _event_write(
        svc,
        args,
        "vbrief_rate_learning",
        lambda data, stamp, entropy, expected: learnings.rate(
            data, args["targetId"], counts, stamp, entropy=entropy, expected=expected
        ),
    )


def deprecate_learning(svc: Service, args: dict[str, Any]) -> Answer:
    """``vbrief_deprecate_learning``: as ``playbook deprecate``."""
    return _event_write(
        svc,
        args,
        "vbrief_deprecate_learning",
        lambda data, stamp, entropy, expected: learnings.deprecate(
            data, args["targetId"], args.get("reason"), stamp, entropy=entropy, expected=expected
        ),
    )


def _event_write(svc: Service, args: dict[str, Any], tool: str, edit: Any) -> Answer:
    """One event on an existing entry of the playbook (named or current), written and,
    on an agent branch, committed."""
    svc.may_write(KIND)
    stamp, entropy = svc.stamp(), svc.entropy()
    entry = svc.document(KIND, args.get("playbookId"))
    target = svc.target(entry)
    agent = svc.agent()

    def message(done: learnings.Learned) -> str:
        e = done.event
        return (
            f"vcontext mcp: {subject(_what(e))}\n\n"
            f"Tool: {tool}\nAgent: {agent}\nDocument: {listed_name(target.rel)}\n"
        )

    learned, written = svc.writer.write(
        target,
        lambda data, strict: edit(
            data, stamp, entropy, args.get("expectedSequence") if strict else None
        ),
        message,
    )
    event = learned.event
    out = _event_answer(svc, target.rel, learned, written)
    return Answer(
        f"{event['operation'].capitalize()} of learning {event['targetId']}: event "
        f"{event['eventId']} in {target.rel}{committed_text(out)}",
        out,
    )


def _view(svc: Service, playbook_id: str | None) -> tuple[PlaybookView | None, dict[str, Any]]:
    """The view of the playbook named (or the current one); None when there is none yet."""
    if playbook_id is None and svc.catalog.current(KIND) is None:
        return None, {}
    entry = svc.document(KIND, playbook_id)
    loaded = svc.catalog.store.load(entry.rel, entry.real)
    if loaded is None or loaded.doc is None:
        why = loaded.error if loaded is not None else f"{entry.rel}: gone"
        raise Refused("unparsable", f"{why}; the playbook does not parse")
    return playbook_view(loaded.data), entry.summary()


def query_playbook(svc: Service, args: dict[str, Any]) -> Answer:
    view, where = _view(svc, args.get("playbookId"))
    if view is None:
        return Answer("There is no playbook here yet.", {"entries": [], "matched": 0})
    found, matched = learnings.query(
        view,
        kind=args.get("kind"),
        tags=args.get("tags"),
        search=args.get("searchText"),
        limit=int(args.get("limit", 10)),
    )
    entries = [
        {**e.to_json(), **({"openHeads": heads} if (heads := e.head_values()) else {})}
        for e in found
    ]
    data = {"playbook": where, "entries": entries, "matched": matched}
    head = f"{matched} matching entr{'y' if matched == 1 else 'ies'}"
    shown = f", {len(found)} shown" if len(found) < matched else ""
    lines = [f"{head} in {where['path']}{shown}"] + [_line(e) for e in found]
    return Answer("\n".join(lines), data)


def _line(e: ViewEntry) -> str:
    text = e.title or e.text or next(iter((e.narrative or {}).values()), "")
    first = str(text).strip().splitlines()[0] if str(text).strip() else ""
    counts = (
        f" (+{e.helpful_count}/-{e.harmful_count})" if e.helpful_count or e.harmful_count else ""
    )
    return f"- [{e.kind or 'no kind'}] {e.target_id}: {first}{counts}" + concurrent_heads(e)


def view(svc: Service, args: dict[str, Any]) -> Answer:
    found, where = _view(svc, args.get("playbookId"))
    if found is None:
        return Answer("There is no playbook here yet.", {"entries": [], "anomalies": []})
    shown = [
        e
        for e in found.entries
        if matches(
            e,
            status=args.get("status", "active"),
            kinds=[args["kind"]] if args.get("kind") else (),
            tags=args.get("tags") or (),
            search=args.get("search"),
        )
    ]
    data = {"playbook": where, **found.to_json(entries=shown), "entryCount": len(found.entries)}
    return Answer(render_text(found, shown), data)


def _event_answer(svc: Service, rel: str, learned: Any, written: Any) -> dict[str, Any]:
    """The structured answer of a write that appended one playbook event: the event, the
    document as written, its version and the edit's notes."""
    event = learned.event
    out: dict[str, Any] = {"eventId": event["eventId"], "targetId": event["targetId"]}
    out["operation"] = event["operation"]
    if "prevEventId" in event:
        out["prevEventId"] = event["prevEventId"]
    out["event"] = event
    out.update(svc.written(rel, KIND, written))
    out["version"] = out["document"].get("sequence")
    if learned.notes:
        out["notes"] = [*out.get("notes", []), *learned.notes]
    return out


def _what(event: dict[str, Any]) -> str:
    """What an event's commit says: its operation, target and id."""
    return f"{event['operation']} of {event['targetId']} ({event['eventId']})"
