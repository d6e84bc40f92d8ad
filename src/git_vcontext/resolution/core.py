"""A conflicted file as a merge tree: its conflicts listed, and the text that choices give."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import document as doc
from ..codecs import ReusedParses, format_from_content, format_from_name, parse
from ..errors import NotData, ParseError
from ..merging.conflict_record import attach_resolution, conflict_object
from ..merging.files import merge_files
from ..merging.render import render
from ..merging.result import (
    MISSING,
    REVERT_REASON,
    ConflictNode,
    MergeOptions,
    MergeResult,
    locate_conflicts,
)
from ..merging.sequence_number import TOOL_AGENT
from ..values import canonical
from .markers import split_markers
from .model import Choice, FileConflict, Settled, Style
from .tree import difference_tree, listed, replaced

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..codecs import Document
    from ..merging.result import Note, Reverting
    from .markers import Marked


class Resolution:
    """One conflicted file re-merged: conflicts as data; ``settle`` applies choices to them."""

    def __init__(
        self,
        tree: Any,
        ours: Document,
        notes: tuple[Note, ...] = (),
        *,
        clean_text: str | None = None,
        base_known: bool = True,
    ) -> None:
        self.tree = tree  # merged data with ConflictNode placeholders
        self.ours = ours  # the document whose style the result keeps
        self.notes = notes
        self.clean_text = clean_text  # the merge's own output when it had no conflict
        self.base_known = base_known  # False: markers without a base section (no base to take)
        self.listed: list[tuple[ConflictNode, FileConflict]] = listed(tree)

    @property
    def conflicts(self) -> list[FileConflict]:
        return [c for _, c in self.listed]

    def remaining(self, choices: dict[str, Choice]) -> list[FileConflict]:
        return [c for _, c in self.listed if c.id not in choices]

    def settle(
        self,
        choices: dict[str, Choice],
        style: Style,
        *,
        resolved_by: dict[str, Any] | None = None,
        now: str | None = None,
        text: bool = True,
    ) -> Settled:
        """The file with ``choices`` applied (by conflict id); the others left in ``style``.

        ``text=False``: only the data (ours' value where conflicts are left), not written.
        """
        values = {id(n): choices[c.id].value_for(c) for n, c in self.listed if c.id in choices}
        bound = {id(n): c.bound_for(choices[c.id]) for n, c in self.listed if c.id in choices}
        tree = replaced(self.tree, lambda n: values.get(id(n), n), lambda n: bound.get(id(n)))
        remaining = tuple(self.remaining(choices))
        if remaining:
            written = self._with_conflicts(tree, choices, style) if text else None
            return Settled(written, _ours_data(tree), remaining)
        if tree is MISSING:
            return Settled(None, MISSING)
        if not self.listed and self.clean_text is not None:
            return Settled(self.clean_text, tree)
        record = style.structured and doc.is_vcontext(tree) and bool(self.listed)
        if record:
            done = {"resolvedBy": resolved_by, "resolvedAt": now}
            tree = attach_resolution(tree, self._record(choices, done), conflict=False)
        return Settled(self.ours.render(tree) if text else None, tree)

    def _with_conflicts(self, tree: Any, choices: dict[str, Choice], style: Style) -> str | None:
        if not isinstance(tree, (dict, list)):
            return None  # the whole file is the conflict: it stays as git left it
        data, conflicts = locate_conflicts(tree)
        if style.structured and doc.is_vcontext(data):
            return self.ours.render(attach_resolution(data, self._record(choices), conflict=True))
        result = MergeResult(data, tuple(conflicts), self.notes, tree)
        return render(self.ours, result, markers=style.markers)

    def _record(self, choices: dict[str, Choice], done: dict[str, Any] | None = None) -> Any:
        """The ConflictResolution: every conflict, resolved ones with their resolution."""
        entries = []
        for _, c in self.listed:
            entry = conflict_object(c.pointer, c.base, c.ours, c.theirs)
            if c.id in choices:
                entry["status"] = "resolved"
                value = choices[c.id].value_for(c)
                if value is not MISSING:
                    entry["resolution"] = value
            entries.append(entry)
        record: dict[str, Any] = {"strategy": "threeWayMerge", "conflicts": entries}
        for key, value in (done or {}).items():
            if value is not None:
                record[key] = value
        return record


def _ours_data(tree: Any) -> Any:
    return locate_conflicts(tree)[0] if isinstance(tree, (dict, list)) else MISSING


def from_versions(
    base: bytes | None,
    ours: bytes | None,
    theirs: bytes | None,
    *,
    path: str,
    now: str | None,
    replay: bool = False,
    revert_probe: Callable[[], Reverting | None] | None = None,
) -> Resolution:
    """The file's three versions (None: the side deleted it) merged again by the engine,
    as the driver merged them (``replay``: a rebase step, cherry-pick or revert, M6, M8;
    ``revert_probe``: which commit a revert undoes, as the driver asks it)."""
    with ReusedParses():
        if ours is None or theirs is None:
            return _whole_file(base, ours, theirs, path)

        options = MergeOptions(now=now, path=path, replay=replay, revert_probe=revert_probe)
        outcome = merge_files(
            base, ours, theirs, path=path, options=options, render_conflicts=False
        )
        if outcome.status == "fallback":
            raise NotData(f"{path}: cannot be merged as data ({'; '.join(outcome.reasons)})")
        ours_doc = _parse(ours, path)
        result = outcome.result
        if outcome.clean:
            clean = outcome.output.decode("utf-8", "surrogateescape")
            data = result.data if result else _parse(outcome.output, path).data
            return Resolution(data, ours_doc, result.notes if result else (), clean_text=clean)
        assert result is not None
        return Resolution(result.tree, ours_doc, result.notes)


def from_marked(marked: Marked, path: str) -> Resolution:
    """A text with markers: its sides merged again (diff3), else every difference a conflict.

    A one-line JSON document whose blocks were laid out on lines of their own is read
    back as one line, so that resolving it gives a one-line document again.
    """
    ours, base, theirs = marked.ours, marked.base, marked.theirs
    if marked.joined is not None and _one_line_json(marked.joined, path):
        ours, base, theirs = marked.joined
    if base is not None:
        texts = (base, ours, theirs)
        b, o, t = (x.encode("utf-8", "surrogateescape") for x in texts)
        return from_versions(b, o, t, path=path, now=None)
    ours_doc = _parse(ours.encode("utf-8", "surrogateescape"), path)
    theirs_doc = _parse(theirs.encode("utf-8", "surrogateescape"), path)
    tree = difference_tree(ours_doc.data, theirs_doc.data)
    return Resolution(tree, ours_doc, base_known=False)


def _one_line_json(texts: tuple[str, str | None, str], path: str) -> bool:
    if (format_from_name(path) or format_from_content(texts[0])) != "json":
        return False
    try:
        for text in texts:
            if text is not None:
                _parse(text.encode("utf-8", "surrogateescape"), path)
    except NotData:
        return False
    return True


def _whole_file(
    base: bytes | None, ours: bytes | None, theirs: bytes | None, path: str
) -> Resolution:
    """One side deleted the file, the other changed it: one conflict at the root."""
    docs = [None if raw is None else _parse(raw, path) for raw in (base, ours, theirs)]
    values = [MISSING if d is None else d.data for d in docs]
    style_of = docs[1] or docs[2]
    assert style_of is not None
    return Resolution(ConflictNode("delete/modify", *values), style_of)


def _parse(raw: bytes, path: str) -> Document:
    fmt = format_from_name(path) or format_from_content(raw[:65536].decode("utf-8", "replace"))
    try:
        return parse(raw, format=fmt, path=path)
    except ParseError as exc:
        raise NotData(f"cannot be merged as data: {exc.one_line()}") from None


def recovered_now(text: str, ours: bytes, path: str, theirs: bytes | None = None) -> str | None:
    """The time the merge driver wrote into this file: the timestamp of the M8 ``merge``
    entry (or a revert's entry, or event) it added (in neither side: a merge entry theirs
    brought, another merge's a second earlier, is not this one's), so that merging the
    stages again gives the same entry. None when the file shows no such entry."""
    marked = split_markers(text)
    body = marked.ours if marked is not None else text
    try:
        merged = parse(body.encode("utf-8", "surrogateescape"), path=path).data
        before = parse(ours, path=path).data
        brought = None if theirs is None else parse(theirs, path=path).data
    except (ParseError, RecursionError):
        return None
    theirs_logs = [] if brought is None else _changelogs(brought)
    for n, (log, old) in enumerate(zip(_changelogs(merged), _changelogs(before), strict=False)):
        had = {canonical(e) for e in old}
        if n < len(theirs_logs):  # (the same document's logs, in the same order)
            had |= {canonical(e) for e in theirs_logs[n]}
        for entry in log:
            if _written_by_a_merge(entry) and canonical(entry) not in had:
                return str(entry["timestamp"])
    return _revert_event_time(merged, before)


def _written_by_a_merge(entry: Any) -> bool:
    """An M8 ``merge`` entry, or the entry a revert writes (merging.revert)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("timestamp"), str):
        return False
    agent = entry.get("agent")
    if isinstance(agent, dict) and agent.get("id") == TOOL_AGENT["id"]:
        return entry.get("operation") == "merge"
    return str(entry.get("reason", "")).startswith(REVERT_REASON)


def _revert_event_time(merged: Any, before: Any) -> str | None:
    """The ``createdAt`` of an event a revert wrote into the playbook (none in ours)."""
    from ..playbook.log import find_playbooks, log_of

    old = {
        canonical(e) for _, p in find_playbooks(before) for e in log_of(p)[1] if isinstance(e, dict)
    }
    for _, playbook in find_playbooks(merged):
        for event in log_of(playbook)[1]:
            if (
                isinstance(event, dict)
                and str(event.get("reason", "")).startswith(REVERT_REASON)
                and isinstance(event.get("createdAt"), str)
                and canonical(event) not in old
            ):
                return str(event["createdAt"])
    return None


def _changelogs(data: Any) -> list[list[Any]]:
    """The changeLog of each container (in container order; empty where there is none)."""
    out: list[list[Any]] = []
    for key in doc.CONTAINER_KEYS:
        container = data.get(key) if isinstance(data, dict) else None
        log = container.get(doc.CHANGELOG_FIELD) if isinstance(container, dict) else None
        out.append(log if isinstance(log, list) else [])
    return out
