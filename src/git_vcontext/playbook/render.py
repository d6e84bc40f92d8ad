"""Text a person reads at a glance: entries grouped by kind, counters, heads, anomalies."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..spelling import dumps
from ..values import pointer
from .model import Entry, PlaybookView

KIND_ORDER = ("rule", "strategy", "warning", "learning", "note")
NO_KIND = "(no kind)"
INDENT = "      "


def matches(
    entry: Entry,
    *,
    status: str = "all",
    kinds: Sequence[str] = (),
    tags: Sequence[str] = (),
    search: str | None = None,
) -> bool:
    """Whether an entry passes the filters of ``view`` (all given filters must hold)."""
    if status != "all" and entry.status != status:
        return False
    if kinds and entry.kind not in kinds:
        return False
    if tags:
        own = entry.fields.get("tags")
        if not isinstance(own, list) or not set(tags) & {t for t in own if isinstance(t, str)}:
            return False
    return not search or search.casefold() in _searchable(entry).casefold()


def _searchable(entry: Entry) -> str:
    parts = [entry.target_id, entry.title or "", entry.text or ""]
    if entry.narrative:
        parts += [f"{k} {v}" for k, v in entry.narrative.items()]
    content = entry.fields.get("content")
    if isinstance(content, str):
        parts.append(content)
    for conflict in entry.conflicts:  # concurrent heads: what the losing ones say counts too
        parts += [plain_text(v) for v in conflict.values]
    return "\n".join(parts)


def concurrent_heads(entry: Entry, width: int = 200) -> str:
    """`` (concurrent heads: e3 "…"; e2 "…", winning)`` for an entry whose heads no update
    settled, each head's words for the fields they disagree on; "" otherwise."""
    heads = entry.head_values()
    if not heads:
        return ""
    said = []
    for head in heads:
        words = " ".join(
            " ".join(plain_text(v).split()) for k, v in head.items() if k not in HEAD_KEYS
        )
        mark = ", winning" if head["winner"] else ""
        said.append(f'{head["eventId"]} "{words[:width]}"{mark}')
    return f" (concurrent heads: {'; '.join(said)})"


HEAD_KEYS = ("eventId", "winner")
"""The keys of ``Entry.head_values`` that are not field values."""


def plain_text(value: Any) -> str:
    """A field's value as words: strings as they are, a narrative's blocks by title."""
    if isinstance(value, dict):
        return "\n".join(f"{k} {plain_text(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "\n".join(plain_text(v) for v in value)
    return value if isinstance(value, str) else dumps(value)


def render_text(
    view: PlaybookView,
    shown: Sequence[Entry],
    metric_diffs: Sequence[tuple[str, Any, Any]] = (),
) -> str:
    """The whole text report: header, entries by kind, anomalies, metric disagreements."""
    lines = [_header(view, shown)]
    for kind, entries in _by_kind(shown):
        lines += ["", f"{kind} ({len(entries)})"]
        for entry in entries:
            lines += entry_lines(entry)
    if view.anomalies:
        lines += ["", f"anomalies ({len(view.anomalies)})"]
        lines += [f"  {a.kind}: {a.message}" for a in view.anomalies]
    if view.notes:
        lines += ["", f"notes ({len(view.notes)})"]
        lines += [f"  {a.target_id}: {a.message}" for a in view.notes]
    if metric_diffs:
        lines += ["", "stored metrics disagree with the log (stored -> recomputed)"]
        lines += [f"  {k}: {_scalar(old)} -> {_scalar(new)}" for k, old, new in metric_diffs]
    return "\n".join(lines) + "\n"


LOG_FORMS = {
    "events": "events",
    "ace": "ACE entries (seed 002)",
    "items": "items in the pre-0.4 form, no event log",
}
"""How the header names the elements of each form of playbook log (``log_kind``)."""


def _header(view: PlaybookView, shown: Sequence[Entry]) -> str:
    counts: dict[str, int] = {}
    for e in view.entries:
        counts[e.status] = counts.get(e.status, 0) + 1
    by_status = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    where = pointer(view.path) or "/"
    what = LOG_FORMS.get(view.kind, "elements")
    head = f"playbook {where} ({view.log_key}, {view.event_count} {what}): "
    head += f"{len(view.entries)} entries" + (f" ({by_status})" if by_status else "")
    if len(shown) != len(view.entries):
        head += f", {len(shown)} shown"
    return head


def _by_kind(entries: Iterable[Entry]) -> list[tuple[str, list[Entry]]]:
    groups: dict[str, list[Entry]] = {}
    for e in entries:
        groups.setdefault(e.kind or NO_KIND, []).append(e)
    rank = {k: i for i, k in enumerate(KIND_ORDER)}
    order = sorted(groups, key=lambda k: (k == NO_KIND, rank.get(k, len(rank)), k))
    return [(k, groups[k]) for k in order]


def entry_lines(entry: Entry) -> list[str]:
    """One entry: a marked first line when it has several heads or conflicts, then content."""
    flag = "!" if entry.multi_head or entry.conflicts else " "
    facts = [entry.status, f"helpful {entry.helpful_count}", f"harmful {entry.harmful_count}"]
    confidence = entry.fields.get("confidence")
    if isinstance(confidence, (int, float)) and not isinstance(confidence, bool):
        facts.append(f"confidence {confidence}")
    tags = entry.fields.get("tags")
    if isinstance(tags, list) and tags:
        facts.append("tags " + ", ".join(str(t) for t in tags))
    lines = [f"{flag} {entry.target_id}  " + "  ".join(facts)]
    if entry.title:
        lines.append(INDENT + _one_line(entry.title))
    lines += _content(entry)
    lines += _links(entry)
    lines += _concurrency(entry)
    return lines


def _content(entry: Entry) -> list[str]:
    out: list[str] = []
    if entry.text is not None:
        out += _block(entry.text)
    if entry.narrative:
        for key, value in entry.narrative.items():
            out += _block(f"{key}: {value if isinstance(value, str) else _scalar(value)}")
    content = entry.fields.get("content")
    if entry.text is None and not entry.narrative and isinstance(content, str):
        out += _block(content)
    return out


def _links(entry: Entry) -> list[str]:
    out = []
    if entry.supersedes:
        out.append(f"{INDENT}supersedes {', '.join(entry.supersedes)}")
    if entry.superseded_by:
        out.append(f"{INDENT}superseded by {entry.superseded_by}")
    if entry.duplicate_of:
        out.append(f"{INDENT}duplicate of {entry.duplicate_of}")
    if entry.duplicates:
        out.append(f"{INDENT}duplicated by {', '.join(entry.duplicates)}")
    reason = entry.fields.get("deprecatedReason")
    if entry.status != "active" and isinstance(reason, str):
        out.append(f"{INDENT}{entry.status}: {_one_line(reason)}")
    return out


def _concurrency(entry: Entry) -> list[str]:
    out = []
    if entry.multi_head:
        heads = ", ".join(entry.open_heads)
        out.append(f"{INDENT}! {len(entry.open_heads)} heads: {heads} (winner {entry.winner})")
    if entry.settled:
        out.append(f"{INDENT}settled: {', '.join(entry.settled)} (chain of {entry.winner})")
    for c in entry.conflicts:
        out.append(f"{INDENT}! concurrent edits of {c.field}: {', '.join(c.event_ids)}")
    return out


def _block(text: str) -> list[str]:
    return [INDENT + line if line else "" for line in text.splitlines() or [""]]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _scalar(value: Any) -> str:
    return dumps(value, ensure_ascii=False)
