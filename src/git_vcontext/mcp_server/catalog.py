"""The served documents by kind and id, the "current" one of each kind, and what changed."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from typing import Any

from ..document import describe
from ..edits.items import is_plain_id
from ..record import record, replace
from ..validation.rules import containers
from .files import (
    COLD_LOOKS,
    CONVENTIONAL,
    CONVENTIONAL_NAMES,
    Found,
    Rule,
    Stat,
    Tree,
    inside,
)
from .store import Loaded, Store, format_of

KINDS = ("todoList", "plan", "playbook")
SEGMENT = {"todoList": "todos", "plan": "plans", "playbook": "playbooks"}
"""The URI segment of each kind's documents: ``vbrief://todos/{id}``; ``vbrief://playbook``
(singular, seed 003) is the current playbook's view, ``vbrief://playbooks/{id}`` its file."""

NOUN = {"todoList": "todo list", "plan": "plan", "playbook": "playbook"}


_STEM_SUFFIXES = (
    ".vcontext.json",
    ".vcontext.tron",
    ".vbrief.json",
    ".vbrief.tron",
    ".json",
    ".tron",
)
_SNIFF = re.compile(rb'(?:^|[{,])\s*"?(todoList|plan|playbook)"?\s*:', re.MULTILINE)
"""A container key opening a line (indented JSON, TRON) or following '{'/',' (minified)."""


@record
class Entry:
    """One served document: where it is, what it holds, and how clients name it."""

    rel: str
    real: str
    kind: str
    id: str
    format: str
    title: str | None
    sequence: int
    updated: str | None
    error: str | None  # why it does not parse (it is still served: its text, and refusals)
    stat: Stat

    @property
    def uri(self) -> str:
        return f"vbrief://{SEGMENT[self.kind]}/{self.id}"

    def summary(self) -> dict[str, Any]:
        """What ``vbrief://todos`` (and friends) list about it."""
        out: dict[str, Any] = {"id": self.id, "uri": self.uri, "path": self.rel}
        out["format"] = self.format
        if self.title is not None:
            out["title"] = self.title
        out["sequence"] = self.sequence
        if self.updated is not None:
            out["updated"] = self.updated
        if self.error is not None:
            out["error"] = self.error
        return out


@record
class Changes:
    """What a refresh found: documents whose bytes changed (or that are gone), and whether
    the set changed."""

    changed: tuple[Entry, ...] = ()
    list_changed: bool = False

    def __bool__(self) -> bool:
        return bool(self.changed) or self.list_changed


class Catalog:
    """Discovers documents under ``root`` and keeps them current (see ``refresh``)."""

    def __init__(
        self,
        root: str,
        store: Store,
        *,
        ignored: Callable[[str], bool] = lambda rel: False,
        declared: Callable[[str], bool] = lambda rel: False,
        pinned: dict[str, str] | None = None,
        sniff: bool = True,
        alone: bool = False,
        moved: Callable[[], bool] = lambda: False,
        routed: Callable[[list[str]], bool] = lambda paths: False,
    ) -> None:
        self.root = os.path.realpath(root)
        self.store = store
        self.pinned = dict(pinned or {})  # kind -> rel path chosen as "current"
        self.rule = Rule(self.root, ignored, declared, sniff, alone, store.prefix)
        self._tree = Tree(self.rule)
        self._moved = moved  # git's index or HEAD changed: look at every folder
        self._routed = routed  # rule files changed (given those the walk saw): walk again
        self._lock = threading.RLock()
        self._found: list[Found] | None = None
        self._walked: list[Found] = []
        self._entries: tuple[Entry, ...] = ()
        self._made: list[Entry] = []  # the entries before ``_unique_ids``
        self._from: dict[str, tuple[Loaded, Entry | None]] = {}  # rel -> file's state, its entry
        self._kinds: dict[str, str] = {}  # rel -> kind last seen (for files that stop parsing)
        self._reported: dict[str, Entry] | None = None  # what ``changes`` last told the watcher
        self.outside: tuple[str, ...] = ()

    def folders(self) -> list[str]:
        """The folders the scan walked (scanning first if it has not yet)."""
        with self._lock:
            if self._found is None:
                self._look()
            return list(self._tree.folders)

    def refresh(self, *, rescan: bool = False) -> Changes:
        """Look at the disk again: folders that may have changed (``Tree.look``; every one
        with ``rescan`` or when git moved), files whose stat did."""
        with self._lock:
            old = {e.rel: e for e in self._entries}
            self._look(rescan=rescan)
            return _between(old, list(self._entries))

    def _look(self, *, rescan: bool = False, cold: int = COLD_LOOKS) -> None:
        """``refresh`` without telling what changed. Each call's look (``cold`` 0: PRODUCT.md,
        "MCP server": what anyone else wrote — a pull, a merge, the CLI, another agent — is
        what the next call sees, never what the watcher last took in) stats each served
        file, each folder holding documents (and the root, ``.vcontext/``) and git's index
        and HEAD (when they moved: every folder); folders without documents are the
        watcher's, ``COLD_LOOKS`` a look in turn."""
        with self._lock:
            if self._found is None:
                self._tree.scan()
                self._moved()
                self._routed(self._tree.rule_files())
                moved = True
            else:
                moved = self._tree.look(everything=rescan or self._moved(), cold=cold)
                if self._routed(self._tree.rule_files()):  # which files are served
                    self._tree.scan()  # every folder judged again (its mtime did not move)
                    moved = True
            if moved:
                self._walked = self._tree.documents()
                self.outside = tuple(self._tree.outside())
                walked = {f.rel for f in self._walked}
                self._from = {rel: e for rel, e in self._from.items() if rel in walked}
            self._found = self._with_pins(self._walked)
            made = [e for f in self._found if (e := self._entry(f)) is not None]
            same = len(made) == len(self._made)
            if not same or any(a is not b for a, b in zip(made, self._made, strict=True)):
                self._made = made  # (nothing changed, the usual case: nothing rebuilt)
                self._entries = tuple(_unique_ids(made))

    def refuses(self, rel: str) -> str | None:
        """Why a document created at ``rel`` would not be served (None: it would be): the
        one rule for reading and for creating, so no write is one the server cannot read
        back. A pinned path is served whatever its name."""
        if rel in self.pinned.values():
            why = self.rule.refuses(rel)
            return why if why is not None and "a boundary" in why else None
        return self.rule.refuses(rel)

    def _with_pins(self, found: list[Found]) -> list[Found]:
        """The pinned documents too (``--todo notes/todo.json``: served whatever its name)."""
        have = {f.rel for f in found}
        extra = []
        for rel in sorted(set(self.pinned.values()) - have):
            if self.refuses(rel) is not None:
                continue
            full = os.path.join(self.root, *rel.split("/"))
            real = inside(self.root, full)
            if real is not None and Stat.of(full) is not None:
                extra.append(Found(rel, real))
        return sorted([*found, *extra], key=lambda f: f.rel) if extra else found

    def changes(self) -> Changes:
        """What changed since the previous call (the watcher's question): a refresh, compared
        with what was last reported, not with what a tool's own refresh or write (``find``,
        ``fresh_rel``, ``vcontext_sync``) already took in, so those changes reach
        subscribers too. The first call only learns what is there."""
        with self._lock:
            self.refresh()
            before, self._reported = self._reported, {e.rel: e for e in self._entries}
            if before is None:
                return Changes()
            return _between(before, list(self._entries))

    def _entry(self, found: Found) -> Entry | None:
        loaded = self.store.load(found.rel, found.real)
        if loaded is None:
            return None
        known = self._from.get(found.rel)
        if known is not None and known[0].raw is loaded.raw and known[0].stat == loaded.stat:
            return known[1]  # the same state of the file (its bytes compared again, kept)
        entry = self._entry_of(found, loaded)
        self._from[found.rel] = (loaded, entry)
        return entry

    def _entry_of(self, found: Found, loaded: Loaded) -> Entry | None:
        if loaded.doc is None:
            kind = self._kinds.get(found.rel) or _sniffed_kind(loaded.raw)
            if kind is None:
                return None
            return _entry(loaded, kind, None)
        kind = _kind(loaded.data, by_name=found.rel in CONVENTIONAL_NAMES)
        if kind is None:
            return None  # a JSON file that is not a todo list, plan or playbook
        self._kinds[found.rel] = kind
        return _entry(loaded, kind, loaded.data[kind])

    def entries(self, kind: str | None = None) -> list[Entry]:
        """The served documents (of one kind), in path order, as they are on disk now."""
        with self._lock:
            self._look(cold=0)
            return [e for e in self._entries if kind is None or e.kind == kind]

    def current(self, kind: str) -> Entry | None:
        """The document tools write when no id is given: pinned, else the one at the
        conventional path (``.vcontext/todo.*``, ``.vcontext/playbook.*``, ``.vcontext/plan.*``),
        else the only one, else the first by path. Never "the most recently updated": that
        would move under agents' feet as soon as one writes to another document."""
        candidates = self.entries(kind)
        pinned = self.pinned.get(kind)
        if pinned is not None:
            found = next((e for e in candidates if e.rel == pinned), None)
            return found or _converted(candidates, pinned)
        conventional = CONVENTIONAL[kind]
        found = next((e for e in candidates if e.rel in conventional), None)
        if found is not None:
            return found
        return min(candidates, key=lambda e: e.rel) if candidates else None

    def find(self, kind: str, doc_id: str) -> Entry | None:
        """The document of ``kind`` whose id is ``doc_id`` (ids are never paths)."""
        return next((e for e in self.entries(kind) if e.id == doc_id), None)

    def fresh_rel(self, kind: str, rel: str) -> Entry | None:
        """The entry of a file again after a write changed it (a new or deleted file: its
        folder is listed again)."""
        with self._lock:
            index = next((i for i, e in enumerate(self._entries) if e.rel == rel), None)
            if index is None:
                if self._found is not None:
                    self._tree.relist_for(rel)
                    self._walked = self._tree.documents()
                self.refresh()
                return next((e for e in self.entries(kind) if e.rel == rel), None)
            old = self._entries[index]
            new = self._entry(Found(old.rel, old.real))
            if new is None:  # deleted (vbrief_delete_plan): its folder is listed again
                self._tree.relist_for(rel)
                self._walked = self._tree.documents()
                self.refresh()
                return None
            new = _with_id(new, old.id)  # a repeated id keeps its ~N
            self._entries = (*self._entries[:index], new, *self._entries[index + 1 :])
            return new


def _between(old: dict[str, Entry], entries: list[Entry]) -> Changes:
    """Documents new, gone or with another stat than in ``old``; whether the set (or an id)
    changed. A gone document counts as changed under its old name (its URI reads no more)."""
    now = {e.rel for e in entries}
    changed = tuple(e for e in entries if e.rel not in old or old[e.rel].stat != e.stat)
    changed += tuple(e for rel, e in old.items() if rel not in now)
    keys = {(e.rel, e.kind, e.id) for e in entries}
    return Changes(changed, keys != {(e.rel, e.kind, e.id) for e in old.values()})


def _converted(candidates: list[Entry], pinned: str) -> Entry | None:
    """The pinned document under its other format's name, once it was converted (JSON ⇄
    TRON) and the old file is gone: followed, never written again under the old name."""
    twin = _without_format(pinned)
    return next((e for e in candidates if _without_format(e.rel) == twin), None)


def _without_format(rel: str) -> str:
    for suffix in (".json", ".tron"):
        if rel.endswith(suffix):
            return rel[: -len(suffix)]
    return rel


def _kind(data: Any, *, by_name: bool = False) -> str | None:
    """The container a document holds; ``by_name``: at a conventional path, where it is
    served without an info key the family has now (as ``view`` and ``playbook`` read it).
    With several containers, the one ``validate`` keeps (its first: the others are its
    ``container`` finding), and only when that one is an object: never a later container
    ``validate`` tells the person to move away."""
    if not isinstance(data, dict) or not (describe(data).is_vcontext or by_name):
        return None
    found = containers(data)
    first = found[0] if found else None
    return first if first in KINDS and isinstance(data[first], dict) else None


def _sniffed_kind(raw: bytes) -> str | None:
    """The container of a document that does not parse (a merge left markers in it)."""
    m = _SNIFF.search(raw[:65536])
    return m.group(1).decode() if m else None


def _entry(loaded: Loaded, kind: str, container: Any) -> Entry:
    c = container if isinstance(container, dict) else {}
    own = c.get("id")
    doc_id = own if isinstance(own, str) and is_plain_id(own) else stem(loaded.rel)
    key = "version" if kind == "playbook" else "sequence"
    seq = c.get(key)
    sequence = seq if isinstance(seq, int) and not isinstance(seq, bool) else 0
    title = c.get("title") if isinstance(c.get("title"), str) else None
    updated = c.get("updated") if isinstance(c.get("updated"), str) else None
    return Entry(
        loaded.rel,
        loaded.real,
        kind,
        doc_id,
        format_of(loaded),
        title,
        sequence,
        updated,
        loaded.error,
        loaded.stat,
    )


def stem(rel: str) -> str:
    """A document's id from its file name: ``vbrief/todo-01J.json`` -> ``todo-01J``."""
    name = rel.rsplit("/", 1)[-1]
    for suffix in _STEM_SUFFIXES:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    plain = re.sub(r"[^A-Za-z0-9._:-]+", "-", name).strip("-.") or "document"
    return plain if is_plain_id(plain) else plain.replace("..", "-")


def _unique_ids(entries: list[Entry]) -> list[Entry]:
    """Ids unique per kind: a repeated one gets ``~2``, ``~3`` (path order)."""
    seen: dict[tuple[str, str], int] = {}
    out = []
    for e in entries:
        n = seen.get((e.kind, e.id), 0) + 1
        seen[(e.kind, e.id)] = n
        out.append(e if n == 1 else _with_id(e, f"{e.id}~{n}"))
    return out


def _with_id(e: Entry, doc_id: str) -> Entry:
    return replace(e, id=doc_id)
