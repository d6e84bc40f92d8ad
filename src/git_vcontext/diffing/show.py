"""Phrasing shared by the renderers: values, summaries of items/events/forks, text diffs."""

from __future__ import annotations

from ..jsoncodec import string
from ..patterns import lazy
from ..spelling import dumps as json_dumps
from .model import ABSENT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .model import Change

MAX_INLINE = 120
"""Longest value shown inline; longer ones are cut with an ellipsis."""

WORD_DIFF_FROM = 60
"""Single-line strings at least this long are shown as a word diff when they change."""

_LITERALS = ("true", "false", "null")


def _literal(s: str) -> bool:
    """What would read as a number or a literal: ``-?\\d|true\\Z|false\\Z|null\\Z``, matched at
    the start (no regular expression: the external diff runs once per file, issue 35)."""
    digit = s[1:2] if s[:1] == "-" else s[:1]
    return digit.isdecimal() or s in _LITERALS


def value(v: Any, limit: int = MAX_INLINE) -> str:
    """A value for one line: plain strings unquoted (``completed``), everything else as JSON."""
    if isinstance(v, str) and _plain(v):
        text = v
    else:
        text = json_dumps(v, ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plain(s: str) -> bool:
    return (
        bool(s)
        and s == s.strip()
        and "\n" not in s
        and "→" not in s
        and not _literal(s)
        and not s.startswith(('"', "[", "{", "+", "−"))
    )


def quoted(s: str, limit: int = 80) -> str:
    """A title in quotes, cut to ``limit``."""
    return string(s if len(s) <= limit else s[: limit - 1] + "…", ensure_ascii=False)


def summary(change: Change) -> str:
    """What an added or removed value is, in a few words."""
    v = change.new if change.op == "add" else change.old
    if change.kind == "event":
        return event_summary(v)
    if change.kind == "changeLog":
        return changelog_summary(v)
    if change.kind == "fork":
        return fork_summary(v)
    if change.kind == "item" and isinstance(v, dict):
        return item_summary(v)
    if change.kind == "entry" and isinstance(v, dict):
        return entry_summary(v)
    if change.kind == "anomaly" and isinstance(v, dict):
        return f"{v.get('kind')}: {v.get('message')}"
    return value(v)


def entry_summary(entry: dict[str, Any]) -> str:
    """``new rule "Keep pull requests small." [active]`` for a playbook entry's view."""
    words = ["new", str(entry.get("kind") or "entry")]
    content = entry.get("title") or entry.get("text")
    if isinstance(content, str):
        words.append(quoted(content.split("\n")[0], 60))
    words.append(f"[{entry.get('status', 'active')}]")
    counts = [f"{k} {entry[k]}" for k in ("helpfulCount", "harmfulCount") if entry.get(k)]
    return " ".join(words) + (f" ({', '.join(counts)})" if counts else "")


def item_summary(item: dict[str, Any]) -> str:
    """``"Write docs" [pending]``, or the item as JSON when it has neither title nor status."""
    parts = []
    if isinstance(item.get("title"), str):
        parts.append(quoted(item["title"]))
    if isinstance(item.get("status"), str):
        parts.append(f"[{item['status']}]")
    return " ".join(parts) if parts else value(item)


def event_summary(event: Any) -> str:
    """``update entry-x: "new text" (helpfulCount +1)`` for a playbook event."""
    if not isinstance(event, dict):
        return value(event)
    if isinstance(event.get("event_type"), str):
        return vermas_event_summary(event)
    head = " ".join(str(event[k]) for k in ("operation", "targetId", "type") if k in event)
    if isinstance(event.get("timestamp"), str):
        head += f" at {event['timestamp']}"
    text = next(
        (
            event[k]
            for k in ("title", "text", "reason", "deprecatedReason")
            if isinstance(event.get(k), str)
        ),
        None,
    )
    out = head or value(event)
    if isinstance(text, str):
        out += ": " + quoted(text.split("\n")[0], 60)
    delta = event.get("delta")
    if isinstance(delta, dict) and delta:
        out += " (" + ", ".join(f"{k} {_signed(v)}" for k, v in delta.items()) + ")"
    return out


_SUBJECTS = ("work_order_id", "message_id", "process_id", "session_name")


def vermas_event_summary(event: dict[str, Any]) -> str:
    """``work_order.status_changed by slot0 (wo-1: open → in_progress) at 2026-…`` for a
    VerMAS event: its type, actor, and the work order / message / process it concerns."""
    out = str(event["event_type"])
    if isinstance(event.get("actor"), str):
        out += f" by {event['actor']}"
    data: dict[str, Any] = event["data"] if isinstance(event.get("data"), dict) else {}
    subject = next((data[k] for k in _SUBJECTS if isinstance(data.get(k), str)), None)
    detail = _event_detail(data)
    if subject is not None or detail:
        inner = ": ".join(x for x in (subject, detail) if x)
        out += f" ({inner})"
    if isinstance(event.get("timestamp"), str):
        out += f" at {event['timestamp']}"
    return out


def _event_detail(data: dict[str, Any]) -> str:
    """The one thing that says what an event did (a title, a status move, an assignee, …)."""
    if "to_status" in data:
        return f"{value(data.get('from_status', '?'))} → {value(data['to_status'])}"
    if isinstance(data.get("title"), str):
        return quoted(data["title"], 60)
    if "agent" in data and "work_order_id" in data:
        return f"→ {value(data['agent'])}"
    if isinstance(data.get("changes"), dict):
        return "changed " + ", ".join(str(k) for k in data["changes"])
    if isinstance(data.get("subject"), str):
        route = f"{value(data.get('from', '?'))} → {value(data.get('to', '?'))}"
        return f"{route}: {quoted(data['subject'], 60)}"
    if "step_id" in data:
        return f"step {value(data['step_id'])}" + (
            f" {value(data['status'])}" if "status" in data else ""
        )
    for key in ("verdict", "reader", "recipient", "reason", "summary"):
        if key in data:
            return f"{key} {value(data[key])}"
    return ""


def _signed(v: Any) -> str:
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0:
        return f"+{v}"
    return str(v)


def changelog_summary(entry: Any) -> str:
    """``#5 update by agent-a at 2025-01-02T03:04:05Z: reason``."""
    if not isinstance(entry, dict):
        return value(entry)
    out = f"#{entry['sequence']}" if "sequence" in entry else "entry"
    if isinstance(entry.get("operation"), str):
        out += " " + entry["operation"]
    agent = entry.get("agent")
    if isinstance(agent, dict) and (agent.get("name") or agent.get("id")):
        out += f" by {agent.get('name') or agent.get('id')}"
    if isinstance(entry.get("timestamp"), str):
        out += f" at {entry['timestamp']}"
    why = entry.get("reason") or entry.get("description")
    if isinstance(why, str):
        out += ": " + quoted(why, 60)
    return out


def fork_summary(fork: Any) -> str:
    """``forked from list-1 at sequence 3 (2025-...): reason [unmerged]``."""
    if not isinstance(fork, dict):
        return value(fork)
    out = f"forked from {fork.get('parentUid', '?')}"
    if "parentSequence" in fork:
        out += f" at sequence {fork['parentSequence']}"
    if isinstance(fork.get("forkedAt"), str):
        out += f" ({fork['forkedAt']})"
    if isinstance(fork.get("forkReason"), str):
        out += ": " + quoted(fork["forkReason"], 60)
    if isinstance(fork.get("mergeStatus"), str):
        out += f" [{fork['mergeStatus']}]"
    return out


def moved(change: Change) -> str:
    """``moved after t3`` / ``moved to the start`` / ``renamed from vContextInfo``."""
    if change.to is not None:
        return f"moved into {change.into or change.to}"
    if change.kind == "rename":
        return f"renamed from {change.from_path.lstrip('/') if change.from_path else '?'}"
    if change.after is None or change.after is ABSENT:
        return "moved to the start"
    return f"moved after {change.after}"


def set_members(change: Change) -> list[tuple[str, str]]:
    """``[("+", "x"), ("−", "y")]`` for a set change."""
    return [("+", value(x)) for x in change.added] + [("−", value(x)) for x in change.removed]


def line_diff(old: str, new: str, context: int = 1) -> list[tuple[str, str]]:
    """Changed lines with a little context: ``(" "|"-"|"+"|"…", line)`` pairs."""
    import difflib  # loaded only when some text changed

    out: list[tuple[str, str]] = []
    lines = difflib.unified_diff(old.split("\n"), new.split("\n"), n=context, lineterm="")
    for line in list(lines)[2:]:
        if line.startswith("@@"):
            if out:
                out.append(("…", ""))
        else:
            out.append((line[:1], line[1:]))
    return out


def line_counts(old: str, new: str) -> tuple[int, int]:
    """Lines added and removed between two texts."""
    pairs = line_diff(old, new, 0)
    return sum(t == "+" for t, _ in pairs), sum(t == "-" for t, _ in pairs)


_WORD = lazy(r"\s+|\w+|[^\w\s]")  # compiled for the first long string only


def long_text(old: Any, new: Any) -> bool:
    """Two strings too long to show as ``old → new`` on one line."""
    return (
        isinstance(old, str) and isinstance(new, str) and max(len(old), len(new)) >= WORD_DIFF_FROM
    )


def word_diff(old: str, new: str) -> list[tuple[str, str]] | None:
    """Word-level diff of two long single-line strings (None when they are mostly different)."""
    if "\n" in old or "\n" in new or not long_text(old, new):
        return None
    # lazy: difflib only for long strings
    import difflib

    a, b = _WORD().findall(old), _WORD().findall(new)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.ratio() < 0.5:  # mostly rewritten: old and new whole read better
        return None
    out: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.append((" ", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(("-", "".join(a[i1:i2])))
        if j2 > j1:
            out.append(("+", "".join(b[j1:j2])))
    return out
