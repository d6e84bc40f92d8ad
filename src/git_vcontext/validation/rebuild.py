"""Planning a rebuild of a ``.work/`` directory's projections, the fix for the drift
``projections`` finds: new texts, what changed, and the drift findings that say why."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..codecs import jsonl, parse
from ..record import record
from ..vermas.project import PROJECTIONS, derive, rebuild
from .files import check_bytes

if TYPE_CHECKING:
    from typing import Any


@record
class Planned:
    """One projection file after a rebuild (``output``), and what the rebuild changed."""

    path: str
    output: bytes
    existed: bool
    changed: bool
    updated: tuple[str, ...] = ()
    added: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    drift: tuple[str, ...] = ()  # validate's projection-drift lines for the current file

    def summary(self, *, check: bool) -> str:
        """One line: up to date, or what was (``check``: would be) changed."""
        if not self.changed:
            return f"{self.path}: up to date"
        parts = [
            f"{len(ids)} {word} ({_ids(ids)})"
            for ids, word in ((self.updated, "updated"), (self.added, "added"))
            if ids
        ]
        if self.dropped:
            parts.append(
                f"{len(self.dropped)} dropped, no event created them ({_ids(self.dropped)})"
            )
        what = ", ".join(parts) or "rewritten"
        verb = (
            ("would create" if check else "created")
            if not self.existed
            else ("out of date" if check else "rebuilt")
        )
        return f"{self.path}: {verb}: {what}"

    def drift_lines(self) -> list[str]:
        """The findings a ``validate`` of the current file reports (for ``--check``)."""
        return list(self.drift)


def _ids(ids: tuple[str, ...]) -> str:
    shown = ", ".join(ids[:5])
    return shown + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")


def plan_rebuild(
    events_path: str, events_raw: bytes, projections: dict[str, bytes | None]
) -> list[Planned]:
    """Every projection file rebuilt from the events (a ParseError, and nothing planned, when
    the events or a projection file do not read). ``projections``: path -> bytes or None."""
    events = parse(events_raw, path=events_path, format="jsonl").data
    docs = {
        p: None if raw is None else parse(raw, path=p, format="jsonl")
        for p, raw in projections.items()
    }
    out = []
    for path, document in docs.items():
        planned = _plan(path, document, events, projections[path], events_raw)
        if planned is not None:
            out.append(planned)
    return out


def _plan(
    path: str, document: Any, events: list[Any], raw: bytes | None, events_raw: bytes
) -> Planned | None:
    kind = PROJECTIONS[path.replace("\\", "/").rsplit("/", 1)[-1]]
    derived = derive(events, kind)
    if document is None and not derived:
        return None
    records = document.data if document is not None else []
    new, dropped = rebuild(records, derived, kind)
    text = document.render(new) if document is not None else jsonl.dumps(new)
    output = text.encode("utf-8")
    changed = document is None or output != raw
    before = {r["id"]: r for r in records if isinstance(r, dict) and isinstance(r.get("id"), str)}
    after = [r for r in new if isinstance(r, dict) and isinstance(r.get("id"), str)]
    added = tuple(r["id"] for r in after if r["id"] not in before)
    updated = tuple(r["id"] for r in after if r["id"] in before and r != before[r["id"]])
    drift = _drift(path, raw, events_raw) if changed and raw is not None else ()
    return Planned(
        path, output, document is not None, changed, updated, added, tuple(dropped), drift
    )


def _drift(path: str, raw: bytes, events_raw: bytes) -> tuple[str, ...]:
    report = check_bytes(raw, path, sibling=lambda name: events_raw)
    kept = tuple(f for f in report.findings if f.rule == "projection-drift")
    return tuple(type(report)(path, kept).lines())
