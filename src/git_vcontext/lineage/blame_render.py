"""``blame`` output: one line per item (or field), as ``git blame`` shows lines; or JSON."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..diffing import show
from ..diffing.labels import key_label
from ..diffing.model import ABSENT
from ..diffing.render import palette
from ..values import json_report
from .blame import Unit
from .meta import CommitMeta

Meta = Callable[[str | None], CommitMeta]
Row = tuple[Unit, str | None]  # a unit and the commit blamed (None: not committed yet)


def render_text(rows: list[Row], meta: Meta, *, color: bool = False) -> str:
    """``3f2a1b2c (Ann Author  2026-01-02 10:00:00 +0100) todoList.items[t1]  "Title"``."""
    pal = palette(color)
    metas = [meta(commit) for _, commit in rows]
    width = max((len(m.author) for m in metas), default=0)
    place = max((len(_place(u)) for u, _ in rows), default=0)
    out = []
    for (unit, _), m in zip(rows, metas, strict=True):
        head = f"{pal.yellow}{m.short}{pal.reset} ({m.author:<{width}} {m.short_date})"
        what = _what(unit)
        line = f"{head} {_place(unit):<{place}}  {what}" if what else f"{head} {_place(unit)}"
        out.append(line.rstrip())
    return "".join(line + "\n" for line in out)


def _place(unit: Unit) -> str:
    if unit.field is None:
        return unit.anchor

    return unit.anchor + key_label(unit.field)


def _what(unit: Unit) -> str:
    """What the line holds: a field's value, an item's title and status, an entry's head."""
    if unit.field is not None:
        return "" if unit.value is ABSENT else show.value(unit.value, limit=60)
    parts = []
    if unit.title is not None:
        parts.append(show.quoted(unit.title, 60))
    if unit.status is not None:
        parts.append(f"[{unit.status}]")
    if unit.event is not None:
        parts.append(f"head {unit.event}")
    return " ".join(parts)


def render_json(rows: list[Row], meta: Meta) -> str:
    """``{"items": [{"id", "commit", "author", "date", "field"?}, ...]}``."""
    return json_report({"items": [_row_json(unit, meta(commit)) for unit, commit in rows]})


def _row_json(unit: Unit, m: CommitMeta) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": unit.ident,
        "commit": m.commit,
        "author": m.author,
        "email": m.email,
        "date": m.iso_date,
        "summary": m.subject,
        **({"boundary": True} if m.boundary else {}),
        "kind": unit.kind,
        "anchor": unit.anchor,
        "pointer": unit.pointer,
    }
    if unit.field is not None:
        out["field"] = unit.field
    if unit.event is not None:
        out["event"] = unit.event
    return out
