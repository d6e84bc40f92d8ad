"""History rules: what one commit may not do to a document its parent had (PRODUCT.md).

Pure functions over one (old bytes, new bytes, path) pair, the same file before and
after a commit (``None`` where it is absent). A merge commit is checked once per
parent: it must not drop what any parent had.

Rules (stable ids):

- ``history-event-removed``: a playbook event (by ``eventId``) or a JSONL event
  record (by ``event_id``) the parent had is gone;
- ``history-event-modified``: such an event has different content;
- ``history-target-changed``: an existing ``eventId`` points at another ``targetId``;
- ``history-changelog-removed`` / ``history-changelog-modified``: a ``changeLog``
  entry the parent had is gone or was edited (the log is append-only); a deleted file
  (or one moved out of the routed set) takes its entries with it, unless every entry
  reappears in a file the same commit adds (a move, a conversion), as for events;
- ``history-sequence-decreased``: a ``sequence`` went down at any level: the info object,
  a container, an item (by its id, nested ``subItems`` too), ``playbook.version``;
- ``history-duplicate-creation``: a commit that is not a merge adds a creation event
  (``append``/``initial``) for a target its parent already had (the agent should have
  written an update); concurrent creations that a merge brings together are no finding;
- ``history-unmerged-fork`` (``check_merge_arrival``, judged per merge commit on a branch
  outside the agent prefix): a merge commit brings in a ``fork`` block with
  ``mergeStatus: "unmerged"`` from a parent that had it while its first parent (the
  branch's own) did not — a plain ``git merge`` of an agent branch copies a document
  the base did not touch verbatim; ``sync`` is the way to bring agent work back. A
  forked document committed directly (imported, as the spec's A2 example) is accepted.

A side that does not parse is left to the per-file check (rule ``parse``): the
history rules compare only what both sides say.
"""

from __future__ import annotations

from .. import document as doc
from ..errors import ParseError
from ..values import canonical, pointer, same, strict_key
from .model import Finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, TypeGuard

    from ..values import JsonValue

    Arrays = list[tuple["Path", list[Any]]]
    Walked = tuple[Arrays, Arrays]  # the arrays of the old and the new document

RULES_VERSION = "10"  # 10: a rename git finds is two documents when their containers differ
"""Bumped whenever a history rule changes what it reports (part of the verdict cache key)."""

EVENT_REMOVED = "history-event-removed"
EVENT_MODIFIED = "history-event-modified"
TARGET_CHANGED = "history-target-changed"
CHANGELOG_REMOVED = "history-changelog-removed"
CHANGELOG_MODIFIED = "history-changelog-modified"
SEQUENCE_DECREASED = "history-sequence-decreased"
UNMERGED_FORK = "history-unmerged-fork"
DUPLICATE_CREATION = "history-duplicate-creation"
RULES = (
    EVENT_REMOVED,
    EVENT_MODIFIED,
    TARGET_CHANGED,
    CHANGELOG_REMOVED,
    CHANGELOG_MODIFIED,
    SEQUENCE_DECREASED,
    UNMERGED_FORK,
    DUPLICATE_CREATION,
)
DELETED = ""
"""The pointer of a whole-file deletion's finding (``_deleted``)."""
DROP_SAID = "Vcontext-Drop:"
"""``branches.commits.SAID`` (read by ``branches.commits.says_drop``, the one reading): a
commit saying it removes records on purpose may delete a whole document that holds only
``changeLog`` entries (a deleted plan); events never. Spelled here, not imported: the merge
driver loads this module."""
TARGET_ID = "targetId"
UNMERGED = "unmerged"
_UNMERGED_BYTES = UNMERGED.encode()

Path = tuple[str | int, ...]


def check_change(
    old: bytes | None,
    new: bytes | None,
    path: str,
    *,
    old_path: str | None = None,
    merge: bool = False,
) -> list[Finding]:
    """Findings for one file changed by one commit (against one parent).

    ``old_path``: the old name of a renamed file (its format may differ); ``merge``: the
    commit is a merge (concurrent creations it brings together are no finding).
    """
    if old is None:
        return []  # a new file has no past to break
    pair = _parse_pair(old, new, path, old_path)
    if pair is None:
        return []
    return check_data(*pair, merge=merge)


def check_merge_arrival(
    first: bytes | None,
    merged: bytes | None,
    others: Sequence[bytes | None],
    path: str,
    *,
    old_path: str | None = None,
) -> list[Finding]:
    """``history-unmerged-fork`` for one document of a merge commit: the unmerged fork
    blocks ``merged`` holds that ``first`` (the first parent's version: the branch's own)
    lacks and one of ``others`` (the other parents' versions, at ``path``) has — what the
    merge brought in from an agent branch. ``old_path``: the first parent's name of it."""
    if merged is None or not _may_say_unmerged(merged):
        return []
    pair = _parse_pair(first, merged, path, old_path)
    if pair is None:
        return []
    if not _unmerged_forks(*pair):
        return []  # no unmerged fork block that ``first`` lacks: none arrived, from anywhere
    had: set[str] = set()
    for raw in others:
        data, _ = _parse(raw, path)
        if data is not _UNREADABLE:
            had.update(key for key, _ in _forks(data))
    return _unmerged_forks(*pair, brought=had) if had else []


def may_hold_unmerged_fork(raw: bytes) -> bool:
    """Whether a document may hold an unmerged fork block (both words, or an escape)."""
    return doc.may_hold_fork(raw) and _may_say_unmerged(raw)


def _may_say_unmerged(raw: bytes) -> bool:
    """Whether a string of the document may read ``unmerged`` (a fork block's
    ``mergeStatus``: ``document.may_spell``)."""
    return doc.may_spell(raw, _UNMERGED_BYTES)


def _parse_pair(
    old: bytes | None, new: bytes | None, path: str, old_path: str | None
) -> tuple[Any, Any, Source] | None:
    """Both sides parsed and the new source; None when a present side does not parse."""
    old_data, _ = _parse(old, old_path or path)
    new_data, source = _parse(new, path)
    if old_data is _UNREADABLE or new_data is _UNREADABLE:
        return None
    return old_data, new_data, source


class Source:
    """The new side's text and format, to give findings a line and column."""

    def __init__(self, text: str = "", format: str = "json", raw: bytes | None = None) -> None:
        self._text = text
        self._raw = raw  # the text's bytes, decoded when first needed (findings, JSONL)
        self.format = format
        self.keys: dict[int, str | None] = {}  # identity keys of arrays, for anchored paths
        self._found: dict[tuple[str | int, ...], tuple[int | None, int | None]] = {}
        self._locate: Callable[[Sequence[str | int]], tuple[int | None, int | None]] | None = None

    @property
    def text(self) -> str:
        if self._raw is not None:
            # lazy: only a side that parsed, so its bytes decode (no ParseError)
            from ..codecs.text import decode

            self._text, _ = decode(self._raw)
            self._raw = None
        return self._text

    def at(self, data: JsonValue, path: Path) -> tuple[int | None, int | None]:
        """Where ``path`` is in the text of ``data`` (the new side), or the nearest enclosing
        value that is still there (the log a removed entry was in). Best effort: (None,
        None) when unsure."""
        if not self.text or self.format not in ("json", "tron"):
            return None, None
        # lazy: positions only for findings (a clean push has none)
        from ..codecs.tron.header import HeaderError
        from . import positions

        parts = tuple(positions.existing_prefix(data, path))
        if parts in self._found:  # many removed entries share their log's position
            return self._found[parts]
        try:
            if self._locate is None:
                self._locate = positions.locator(self.text, self.format)
            found: tuple[int | None, int | None] = (
                self._locate(parts) if self._locate else (None, None)
            )
        except (ValueError, IndexError, TypeError, HeaderError):
            found = None, None
        self._found[parts] = found
        return found


def check_data(
    old: JsonValue, new: JsonValue, source: Source | None = None, *, merge: bool = False
) -> list[Finding]:
    """The per-commit history rules over parsed values (``None`` = the file is absent).

    ``source`` (the new text) is only used to give findings a line and column; ``merge``:
    the commit is a merge commit.
    """
    src = source or Source()
    if new is None:
        return _deleted(old)
    if isinstance(old, list) or isinstance(new, list):  # JSONL records
        return _jsonl_events(old, new, src.text)
    walked = _walk_arrays(old), _walk_arrays(new)  # once each, for both rules
    found = _events(old, new, src, walked) + _changelogs(old, new, src, walked)
    if not merge:
        found += _second_creations(old, new, src, walked)
    return found + _sequences(old, new, src, walked)


def logged_entries(raw: bytes | None, path: str) -> int:
    """How many append-only entries a file holds (playbook events, JSONL events, changeLog
    entries): what deleting the file would delete. 0 when it does not parse."""
    data, _ = _parse(raw, path)
    if data is None or data is _UNREADABLE:
        return 0
    if isinstance(data, list):
        return len(_records(data))
    logs = sum(len(a) for p, a in _walk_arrays(data) if doc.is_changelog(p))
    return len(_playbook_events(data)) + logs


def _deleted(old: JsonValue) -> list[Finding]:
    """A deleted file takes its events and its changeLog entries with it: one finding per
    kind of log, not one per entry."""
    if isinstance(old, list):
        events, entries = len(_records(old)), 0
    else:
        events, entries = len(_playbook_events(old)), len(_container_entries(old))
    out = []
    if events:
        out.append(
            Finding(
                EVENT_REMOVED,
                "",
                f"the file was deleted with its {events} event(s); event logs are append-only: "
                "restore it, or move every event into the file that replaces it in this commit",
            )
        )
    if entries:
        out.append(
            Finding(
                CHANGELOG_REMOVED,
                DELETED,
                f"the file was deleted with its {entries} changeLog entr"
                f"{'y' if entries == 1 else 'ies'}; the change log is append-only: restore it, "
                "or move every entry into the file that replaces it in this commit; if the "
                f"document is meant to go, say so with a '{DROP_SAID} <why>' line in the "
                "commit message (as the MCP server's deletions do)",
            )
        )
    return out


def drop_allows(finding: Finding) -> bool:
    """A whole document's ``changeLog`` deleted with it: what a commit saying
    ``Vcontext-Drop:`` may do (a deleted plan); events never (``prepush.verdicts``)."""
    return finding.rule == CHANGELOG_REMOVED and finding.pointer == DELETED


def undroppable(old: JsonValue) -> list[Finding]:
    """What deleting a document holding ``old`` breaks even in a commit that says
    ``Vcontext-Drop:`` (its events): a writer asks it before deleting a whole document."""
    return [f for f in _deleted(old) if not drop_allows(f)]


def event_ids(raw: bytes, path: str) -> frozenset[Any]:
    """The identities of the append-only records a file holds (playbook ``eventId``s, JSONL
    ``event_id``s, its containers' ``changeLog`` entries, by content); empty when it holds
    none or does not parse. A removed file whose records all reappear in a file the same
    commit adds was moved (or converted), not deleted."""
    data, _ = _parse(raw, path)
    if data is _UNREADABLE:
        return frozenset()
    if isinstance(data, list):
        return frozenset(_records(data))
    found: set[Any] = set(_playbook_events(data))
    found.update(("changeLog", key) for key in _container_entries(data))
    return frozenset(found)


def by_content(record: Any) -> bool:
    """An identity from ``event_ids`` that is a ``changeLog`` entry matched by content (two
    documents may hold an identical one by chance), not an event id (playbook, JSONL)."""
    return isinstance(record, tuple) and len(record) == 2 and record[0] == "changeLog"


def _container_entries(data: JsonValue) -> set[str]:
    """The ``changeLog`` entries of a document's containers (reached through objects only,
    as ``_changelogs`` compares them), by content."""
    return {
        canonical(entry)
        for path, entries in _walk_arrays(data)
        if doc.is_changelog(path) and _outside_arrays(path)
        for entry in entries
    }


# -- playbook events ----------------------------------------------------------------


def _events(old: JsonValue, new: JsonValue, src: Source, walked: Walked) -> list[Finding]:
    before = _playbook_events(old, walked[0])
    if not before:
        return []
    after = _playbook_events(new, walked[1])
    out = []
    for event_id, (where, event) in before.items():
        found = after.get(event_id)
        if found is None:
            line, column = src.at(new, where[:-1])  # the log it was in
            out.append(
                _finding(
                    EVENT_REMOVED,
                    where,
                    f"playbook event {event_id!r} was removed; events are append-only: "
                    "restore it (supersede or deprecate it with a new event instead)",
                    old,
                    line,
                    column,
                    src,
                )
            )
            continue
        new_where, new_event = found
        if same(event, new_event):
            continue
        line, column = src.at(new, (*new_where, doc.EVENT_ID))
        if isinstance(event, dict) and isinstance(new_event, dict):
            old_target, new_target = event.get(TARGET_ID), new_event.get(TARGET_ID)
            if not same(old_target, new_target):
                out.append(
                    _finding(
                        TARGET_CHANGED,
                        new_where,
                        f"event {event_id!r} now targets {new_target!r} instead of "
                        f"{old_target!r}; an event's target never changes: restore it "
                        "and append a new event",
                        new,
                        line,
                        column,
                        src,
                    )
                )
                continue
        changed = _changed_keys(event, new_event)
        out.append(
            _finding(
                EVENT_MODIFIED,
                new_where,
                f"playbook event {event_id!r} was modified ({changed}); events are "
                "immutable: restore it and append a new event instead",
                new,
                line,
                column,
                src,
            )
        )
    return out


def _second_creations(old: JsonValue, new: JsonValue, src: Source, walked: Walked) -> list[Finding]:
    """Creation events this commit adds for targets its parent already had: one agent's
    second creation (two agents' creations meet only in a merge, which is concurrency)."""
    before = _playbook_events(old, walked[0])
    targets = {e.get(TARGET_ID) for _, e in before.values() if isinstance(e, dict)}
    if not targets:
        return []
    out = []
    for event_id, (where, event) in _playbook_events(new, walked[1]).items():
        if event_id in before or not isinstance(event, dict):
            continue
        target = event.get(TARGET_ID)
        if event.get("operation") not in _CREATIONS or target not in targets:
            continue
        if event.get("prevEventId") is not None:
            continue  # chained to the entry: no second root (an anomaly validate reports)
        line, column = src.at(new, (*where, doc.EVENT_ID))
        out.append(
            _finding(
                DUPLICATE_CREATION,
                where,
                f"event {event_id!r} creates target {target!r} again, which the parent "
                "already has; write an update chained to its current head instead "
                f"(git vcontext playbook update FILE --target {target})",
                new,
                line,
                column,
                src,
            )
        )
    return out


_CREATIONS = ("append", "initial")


def _playbook_events(
    data: JsonValue, arrays: list[tuple[Path, list[Any]]] | None = None
) -> dict[Any, tuple[Path, Any]]:
    """Every playbook event by ``eventId``, with its path (root or embedded playbooks);
    ``arrays``: the document's arrays when walked already."""
    walked = _walks(data)
    if walked is not None:
        if walked[2] is None:
            walked[2] = _events_of(walked[1])
        events: dict[Any, tuple[Path, Any]] = walked[2]
        return events
    return _events_of(_walk_arrays(data) if arrays is None else arrays)


def _events_of(arrays: Arrays) -> dict[Any, tuple[Path, Any]]:
    found: dict[Any, tuple[Path, Any]] = {}
    for path, array in arrays:
        if not doc.is_playbook_log(path):
            continue
        for index, element in enumerate(array):
            ident = doc.element_id(element, doc.EVENT_ID)
            if ident is not None and ident not in found:
                found[ident] = ((*path, index), element)
    return found


def _walk_arrays(data: JsonValue) -> Arrays:
    """Arrays reachable through objects (and through array elements), with their paths."""
    walked = _walks(data)
    return _arrays_of(data) if walked is None else walked[1]


_WALKS_LIMIT = 64
"""Inside ``ReusedParses`` (a document parsed once is one shared, read-only object: a
blob of a push is compared with each parent, a parent with each child) the walks are
remembered in the block's own cache (``codecs.block_cache``): by the id of each
document's data, ``[data, its arrays, its playbook events or None, its sequence fields
or None]``, the data held so
its id stays its own; emptied when full, released when the block ends."""


def _walks(data: JsonValue) -> list[Any] | None:
    """The remembered walk of ``data`` (None: outside ``ReusedParses``, or a scalar)."""
    if not isinstance(data, (dict, list)):
        return None
    # lazy: codecs is loaded by whatever parsed the data
    from ..codecs import block_cache

    walks = block_cache(__name__)
    if walks is None:
        return None
    found = walks.get(id(data))
    if found is None or found[0] is not data:
        if len(walks) >= _WALKS_LIMIT:
            walks.clear()
        found = walks[id(data)] = [data, _arrays_of(data), None, None]
    return found


def _arrays_of(data: JsonValue, path: Path = ()) -> Arrays:
    out: Arrays = []
    stack: list[tuple[Path, Any]] = [(path, data)]
    while stack:
        here, node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, (dict, list)):
                    stack.append(((*here, key), value))
        elif isinstance(node, list):
            out.append((here, node))
            for index, value in enumerate(node):
                if isinstance(value, (dict, list)):
                    stack.append(((*here, index), value))
    return out


# -- JSONL event logs ----------------------------------------------------------------


def _jsonl_events(old: JsonValue, new: JsonValue, text: str) -> list[Finding]:
    before = _records(old)
    if not before:
        return []
    after = _records(new)
    lines = _record_lines(text)
    out = []
    for event_id, (index, record) in before.items():
        found = after.get(event_id)
        if found is None:
            out.append(
                Finding(
                    EVENT_REMOVED,
                    f"/{index}",
                    f"event {event_id!r} was removed from the log; event logs are "
                    "append-only: restore the line",
                    where=f"[{event_id}]",
                )
            )
        elif not same(record, found[1]):
            new_index = found[0]
            line = lines[new_index] if new_index < len(lines) else None
            out.append(
                Finding(
                    EVENT_MODIFIED,
                    f"/{new_index}",
                    f"event {event_id!r} was modified ({_changed_keys(record, found[1])}); "
                    "logged events are immutable: restore the line and append a new event",
                    line,
                    1 if line else None,
                    f"[{event_id}]",
                )
            )
    return out


def _records(data: JsonValue) -> dict[Any, tuple[int, Any]]:
    found: dict[Any, tuple[int, Any]] = {}
    if isinstance(data, list):
        for index, record in enumerate(data):
            ident = doc.element_id(record, doc.JSONL_EVENT_ID)
            if ident is not None and ident not in found:
                found[ident] = (index, record)
    return found


def _record_lines(text: str) -> list[int]:
    """1-based line number of each record (blank lines hold none, as in the codec)."""
    return [n for n, line in enumerate(text.split("\n"), 1) if line.strip()]


# -- changeLog -----------------------------------------------------------------------


def _changelogs(old: JsonValue, new: JsonValue, src: Source, walked: Walked) -> list[Finding]:
    out = []
    new_logs = {p: a for p, a in walked[1] if doc.is_changelog(p)}
    for path, entries in walked[0]:
        if not doc.is_changelog(path) or not _outside_arrays(path):
            continue
        after = new_logs.get(path, [])
        start = _same_start(entries, after)
        remaining: dict[str, int] = {}
        for entry in after[start:]:
            key = canonical(entry)
            remaining[key] = remaining.get(key, 0) + 1
        twins: dict[Any, int] | None = None
        for index, entry in enumerate(entries[start:], start):
            key = canonical(entry)
            if remaining.get(key, 0) > 0:
                remaining[key] -= 1
                continue
            twins = _by_sequence(after) if twins is None else twins
            twin = _same_sequence(entry, twins)
            out.append(_changelog_finding(path, index, entry, after, twin, old, new, src))
    return out


def _same_start(entries: list[Any], after: list[Any]) -> int:
    """How many entries the old log and the new one start with alike (their canonical
    texts equal, one by one): each matches its counterpart, as the multiset of the new
    log's texts would match it (it holds them), leaving the rest of the new log's to the
    rest of the old one's (an append, or a merge's entries placed by sequence, without a
    text per entry of the history)."""
    start = 0
    for before, now in zip(entries, after, strict=False):
        if before != now:  # Python's equality, in C: looser than canonical texts
            break
        start += 1
    if start and not _same_texts(entries[:start], after[:start]):
        return 0  # (``true`` where ``1`` stood, a number spelled otherwise): one by one
    return start


def _same_texts(a: list[Any], b: list[Any]) -> bool:
    """``canonical(a) == canonical(b)``, answered first by ``values.strict_key`` (C, ~10x
    quicker than the canonical texts of a guard's change logs: issue 28): equal keys say the
    canonical texts are equal; two texts (neither marshalled) are those texts; other keys
    (a key order, a boolean for a number) say nothing: the texts answer."""
    key_a, key_b = strict_key(a), strict_key(b)
    if key_a == key_b:
        return True
    if isinstance(key_a, str) and isinstance(key_b, str):
        return False  # (both the canonical texts already)
    return canonical(a) == canonical(b)


def _changelog_finding(
    path: Path,
    index: int,
    entry: Any,
    after: list[Any],
    twin: int | None,
    old: JsonValue,
    new: JsonValue,
    src: Source,
) -> Finding:
    label = _entry_label(entry, index)
    if twin is None:
        line, column = src.at(new, path)  # the log it was in
        return _finding(
            CHANGELOG_REMOVED,
            (*path, index),
            f"changeLog entry {label} was removed; the change log is append-only: restore it",
            old,
            line,
            column,
            src,
        )
    line, column = src.at(new, (*path, twin))
    return _finding(
        CHANGELOG_MODIFIED,
        (*path, twin),
        f"changeLog entry {label} was modified ({_changed_keys(entry, after[twin])}); "
        "the change log is append-only: restore it and add a new entry",
        new,
        line,
        column,
        src,
    )


def _entry_label(entry: Any, index: int) -> str:
    if isinstance(entry, dict) and doc.SEQUENCE_FIELD in entry:
        return f"with sequence {entry[doc.SEQUENCE_FIELD]!r}"
    return f"#{index}"


def _same_sequence(entry: Any, twins: dict[Any, int]) -> int | None:
    """Where the new log holds an entry with this entry's sequence (an edit, not a removal)."""
    if not isinstance(entry, dict) or doc.SEQUENCE_FIELD not in entry:
        return None
    return twins.get(_sequence_key(entry[doc.SEQUENCE_FIELD]))


def _by_sequence(after: list[Any]) -> dict[Any, int]:
    """The first index of each sequence in the new log (one pass, not one per finding)."""
    index: dict[Any, int] = {}
    for i, other in enumerate(after):
        if isinstance(other, dict) and doc.SEQUENCE_FIELD in other:
            index.setdefault(_sequence_key(other[doc.SEQUENCE_FIELD]), i)
    return index


def _sequence_key(value: Any) -> Any:
    """Equal keys for values ``same`` calls equal (1 and 1.0 alike, true apart from 1)."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("number", value)
    return ("json", canonical(value))


def _outside_arrays(path: Path) -> bool:
    """A changeLog reached through objects only: one per container (not per item)."""
    return all(isinstance(part, str) for part in path)


# -- sequences -----------------------------------------------------------------------


def _sequences(old: JsonValue, new: JsonValue, src: Source, walked: Walked) -> list[Finding]:
    before = _remembered_sequences(old, walked[0])
    if not before:
        return []
    out = []
    for address, (path, value) in _remembered_sequences(new, walked[1]).items():
        was = before.get(address)
        if was is None or not value < was[1]:
            continue
        line, column = src.at(new, path)
        out.append(
            _finding(
                SEQUENCE_DECREASED,
                path,
                f"sequence went down from {was[1]} to {value}; a sequence never decreases: "
                f"set it back to {was[1]} or more",
                new,
                line,
                column,
                src,
            )
        )
    return out


Address = tuple[object, ...]
"""Where a sequence lives, independent of array positions: object keys from the root, an
item by its identity within its container (so a reordered or re-parented item, M18, is
still the same item)."""

_ITEM_KEYS = ("id", "uid")
"""What identifies an item in its container for the sequence rule (ids are unique per
container; playbook events and changeLog entries are immutable and judged elsewhere)."""


def _remembered_sequences(
    data: JsonValue, arrays: Arrays
) -> dict[Address, tuple[Path, int | float]]:
    """``_sequence_fields``, remembered with the document's walk (``_walks``: a blob of a
    push is compared with each parent, a parent with each child; issue 28)."""
    walked = _walks(data)
    if walked is None or walked[1] is not arrays:
        return _sequence_fields(data, arrays)
    if walked[3] is None:
        walked[3] = _sequence_fields(data, arrays)
    fields: dict[Address, tuple[Path, int | float]] = walked[3]
    return fields


def _sequence_fields(data: JsonValue, arrays: Arrays) -> dict[Address, tuple[Path, int | float]]:
    """Every numeric ``sequence`` (and ``playbook.version``) by address: those reached
    through objects (the info object's, each container's), and each item's by its id in
    its container — nested ``subItems`` and a plan item's own todo list included (from
    ``arrays``, the document's arrays, walked once for every rule). An address found twice
    (an id repeated in its container) is left out: which twin is which cannot be told."""
    out: dict[Address, tuple[Path, int | float]] = {}
    repeated: set[Address] = set()
    found: list[tuple[Address, Path, int | float]] = [
        (path, path, value) for path, value in _object_sequences(data)
    ]
    for here, array in arrays:
        if here and here[-1] in doc.ITEM_ARRAY_KEYS and not doc.is_playbook_log(here):
            found += _item_sequences(here, array)
    for address, path, value in found:
        if address in out:
            repeated.add(address)
        out[address] = (path, value)
    for address in repeated:
        del out[address]
    return out


def _object_sequences(data: JsonValue) -> list[tuple[Path, int | float]]:
    """Numeric sequence fields reached through objects only (document, containers, info)."""
    out: list[tuple[Path, int | float]] = []
    stack: list[tuple[Path, Any]] = [((), data)]
    while stack:
        here, node = stack.pop()
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            path = (*here, key)
            if isinstance(value, dict):
                stack.append((path, value))
            elif _number(value) and doc.is_sequence_field(path):
                out.append((path, value))
    return out


def _item_sequences(here: Path, array: list[Any]) -> list[tuple[Address, Path, int | float]]:
    """The ``sequence`` of each item of an array of items that carries an id, addressed by
    that id in the container the array belongs to."""
    scope = _container_of(here)
    found: list[tuple[Address, Path, int | float]] = []
    for index, element in enumerate(array):
        if not isinstance(element, dict):
            continue
        value = element.get(doc.SEQUENCE_FIELD)
        if not _number(value):
            continue  # (most items have none: no identity to look up)
        ident = _item_identity(element)
        if ident is not None:
            found.append(
                ((*scope, ident, doc.SEQUENCE_FIELD), (*here, index, doc.SEQUENCE_FIELD), value)
            )
    return found


def _container_of(path: Path) -> Path:
    """The path of the container an array of items belongs to (its last container key)."""
    for i in range(len(path) - 1, -1, -1):
        if path[i] in doc.CONTAINER_KEYS:
            return path[: i + 1]
    return ()


def _item_identity(element: Any) -> tuple[str, Any] | None:
    for key in _ITEM_KEYS:
        ident = doc.element_id(element, key)
        if ident is not None:
            return (key, ident)
    return None


def _number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# -- forks ---------------------------------------------------------------------------


def _unmerged_forks(
    old: JsonValue, new: JsonValue, src: Source, *, brought: set[str] | None = None
) -> list[Finding]:
    """Unmerged fork blocks in ``new`` that ``old`` lacks (``brought``: only in these
    containers, those another parent of a merge had)."""
    had = {key for key, _ in _forks(old) if key}
    out = []
    for key, fork in _forks(new):
        if fork.get("mergeStatus") != UNMERGED or key in had:
            continue
        if brought is not None and key not in brought:
            continue
        line, column = src.at(new, (key, doc.FORK_FIELD, "mergeStatus"))
        out.append(
            _finding(
                UNMERGED_FORK,
                (key, doc.FORK_FIELD),
                "an unmerged fork block arrived on a branch outside the agent prefix "
                "(a plain 'git merge' of an agent branch copies it): bring agent work "
                "back with 'git vcontext sync' instead",
                new,
                line,
                column,
                src,
            )
        )
    return out


def unmerged_fork_marks(raw: bytes | None, path: str) -> set[tuple[str, str, str]]:
    """(container, ``parentUid``, ``forkedAt``) of each unmerged fork block of a document
    (empty when it does not parse): what names one fork, whatever its ``mergeStatus`` later."""
    data, _ = _parse(raw, path)
    if data is _UNREADABLE:
        return set()
    return {(key, str(f.get("parentUid")), str(f.get("forkedAt"))) for key, f in _forks(data)}


def fork_marks(raw: bytes | None, path: str) -> set[tuple[str, str, str]]:
    """The same marks for every fork block of a document, whatever its ``mergeStatus``."""
    data, _ = _parse(raw, path)
    out: set[tuple[str, str, str]] = set()
    if isinstance(data, dict):
        for key in doc.CONTAINER_KEYS:
            container = data.get(key)
            fork = container.get(doc.FORK_FIELD) if isinstance(container, dict) else None
            if isinstance(fork, dict):
                out.add((key, str(fork.get("parentUid")), str(fork.get("forkedAt"))))
    return out


def _forks(data: JsonValue) -> list[tuple[str, dict[str, Any]]]:
    """Containers' unmerged fork blocks (what is already there is not 'arriving')."""
    out = []
    if isinstance(data, dict):
        for key in doc.CONTAINER_KEYS:
            container = data.get(key)
            if isinstance(container, dict):
                fork = container.get(doc.FORK_FIELD)
                if isinstance(fork, dict) and fork.get("mergeStatus") == UNMERGED:
                    out.append((key, fork))
    return out


# -- helpers -------------------------------------------------------------------------

_UNREADABLE: Any = object()


def _parse(raw: bytes | None, path: str) -> tuple[Any, Source]:
    """The data and source of one side (``_UNREADABLE`` when it does not parse).

    JSON goes straight to the strict value parser: the rules need the data, not the
    writing style the full codec also works out.
    """
    if raw is None:
        return None, Source()
    # lazy: a cached pre-push never parses
    from ..codecs import format_from_name, parse, reusing_parses
    from ..codecs.text import decode

    try:
        if reusing_parses():  # the document parsed before, maybe: its text when needed
            document = parse(raw, path=path)
            return document.data, Source(format=document.format, raw=raw)
        text, _ = decode(raw)
        if format_from_name(path) == "json" and text.strip():
            # lazy: a cached pre-push never parses
            from ..codecs.json_text import parse_value

            return parse_value(text), Source(text, "json")
        document = parse(raw, path=path)
        return document.data, Source(text, document.format)
    except ParseError:
        return _UNREADABLE, Source()


def _finding(
    rule: str,
    path: Path,
    message: str,
    data: JsonValue,
    line: int | None = None,
    column: int | None = None,
    src: Source | None = None,
) -> Finding:
    where = doc.anchored_path(data, path, src.keys if src else None)
    return Finding(rule, pointer(path), message, line, column, where)


def _changed_keys(old: Any, new: Any) -> str:
    if not isinstance(old, dict) or not isinstance(new, dict):
        return "its value changed"
    keys = sorted(
        k
        for k in old.keys() | new.keys()
        if k not in old or k not in new or not same(old[k], new[k])
    )
    shown = ", ".join(keys[:4]) + (" …" if len(keys) > 4 else "")
    return f"changed: {shown}"
