"""What a merge produces: merged data, conflicts as data, notes on automatic resolutions;
and the JSON Pointers of notes and conflicts in the merged tree."""

from __future__ import annotations

from .. import document as doc
from ..record import Sentinel, record
from ..values import pointer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal

    from ..codecs import Format

    Side = Literal["ours", "theirs"]  # a side of a merge (favor, a rename's side)


class _Missing(Sentinel):
    """Marker for "no value here" (absent key, absent base)."""

    NAME = "MISSING"


MISSING: Any = _Missing()

NOT_HANDLED: Any = object()
"""Returned by a rule that does not apply, so the next rule is tried."""


class ConflictNode:
    """Stands in the merged tree where a conflict is, until rendering decides what to write."""

    __slots__ = ("base", "bound", "kind", "ours", "theirs")

    def __init__(self, kind: str, base: Any, ours: Any, theirs: Any) -> None:
        self.kind = kind
        self.base = base
        self.ours = ours
        self.theirs = theirs
        # a status conflict's status fields (M13): name -> (base, ours, theirs); the
        # object holding the status holds ours' value of each (MISSING: absent in ours),
        # and choosing a side for the status takes that side's values of them all
        self.bound: dict[str, tuple[Any, Any, Any]] = {}

    def bound_side(self, side: str) -> dict[str, Any]:
        """The status fields' values on one side ("ours", "theirs", "base"; MISSING: absent)."""
        at = {"base": 0, "ours": 1, "theirs": 2}.get(side, 1)
        return {name: values[at] for name, values in self.bound.items()}

    def __repr__(self) -> str:
        sides = f"base={self.base!r}, ours={self.ours!r}, theirs={self.theirs!r}"
        return f"ConflictNode({self.kind!r}, {sides})"


@record
class Conflict:
    """A place where both sides changed the same thing differently (values may be MISSING)."""

    path: str  # RFC 6901 JSON Pointer into the merged document
    kind: str  # e.g. "modify/modify", "delete/modify", "add/add", "status", "lock"
    base: Any
    ours: Any
    theirs: Any
    # a status conflict's status fields (M13): (name, base, ours, theirs), chosen with it
    bound: tuple[tuple[str, Any, Any, Any], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The report form: ``base``, ``ours`` and ``theirs`` always there; a side that has
        no value at the path (deleted it, or did not exist) is null and named in ``absent``,
        so it is not mistaken for a JSON null. A status conflict lists the status fields
        that go with it (``statusFields``: each side's value, absent sides left out)."""
        out: dict[str, Any] = {"path": self.path, "kind": self.kind}
        absent = []
        for name in ("base", "ours", "theirs"):
            value = getattr(self, name)
            if value is MISSING:
                absent.append(name)
                value = None
            out[name] = value
        if absent:
            out["absent"] = absent
        if self.bound:
            out["statusFields"] = status_fields_json(self.bound)
        return out


def status_fields_json(bound: tuple[tuple[str, Any, Any, Any], ...]) -> dict[str, Any]:
    """``{name: {"base"?, "ours"?, "theirs"?}}``: each side's value where it has one."""
    return {
        name: {
            side: value
            for side, value in zip(("base", "ours", "theirs"), values, strict=True)
            if value is not MISSING
        }
        for name, *values in bound
    }


@record
class Note:
    """Something resolved automatically that a person may want to know about."""

    kind: str  # e.g. "sequence-conflict", "append-only-violation", "parallel-edits", "lock"
    path: str
    message: str
    details: tuple[tuple[str, Any], ...] = ()  # more report fields, e.g. multi-head's target

    def to_json(self) -> dict[str, Any]:
        out = {"kind": self.kind, "path": self.path, "message": self.message}
        out.update(self.details)
        return out


@record
class MergeOptions:
    """Knobs of a merge; defaults are what git's driver uses."""

    now: str | None = None  # RFC 3339 timestamp for entries the tool writes (SOURCE_DATE_EPOCH)
    path: str | None = None  # file name, for messages
    format: Format | None = None  # JSONL roots are record lists
    # ours is an integration under way (sync merging several agents' work into one
    # commit): the M8 ``merge`` Changes its earlier merges logged (values.canonical of
    # each, from their notes' "logged" detail); a further sequence conflict folds into
    # the one in its changeLog, so one integration adds one entry
    integration: frozenset[str] = frozenset()
    # a replay (M6, M8): a rebase step, a cherry-pick or a revert applies theirs' own change
    # on top of ours. True/False when known; None: ``replay_probe()`` tells, asked at most
    # once and only when the answer matters (the merge driver reads git's state and ours'
    # history); a library merge, and sync's merges, are merges
    replay: bool | None = False
    replay_probe: Callable[[], bool] | None = None
    # a revert (issue 36): which commit, written as new changes (merging.revert). Given,
    # or asked of ``revert_probe()`` only when a replay's sides look like a revert
    revert: Reverting | None = None
    revert_probe: Callable[[], Reverting | None] | None = None
    # False: no side holds a boolean (none of their texts spells ``true`` or ``false``),
    # so Python's ``==`` is the strict equality of JSON data (``values.same``, which walks
    # equal values for a boolean where a number stands: issue 32)
    booleans: bool = True


REVERT_REASON = "revert of commit"
"""How the entries and events a revert writes begin their ``reason`` (merging.revert)."""


@record
class Reverting:
    """The commit a revert undoes, who reverts it and when (what its new entries say)."""

    commit: str  # full id
    subject: str
    agent: tuple[tuple[str, str], ...]  # Extension 10 Agent, as pairs (a record is hashable)
    now: str  # RFC 3339

    @property
    def by(self) -> dict[str, str]:
        return dict(self.agent)

    @property
    def reason(self) -> str:
        subject = f" ({self.subject})" if self.subject else ""
        return f"{REVERT_REASON} {self.commit[:7]}{subject}"


@record
class MergeResult:
    """Merged data plus what happened; ``data`` holds ours' value where a conflict is."""

    data: Any
    conflicts: tuple[Conflict, ...] = ()
    notes: tuple[Note, ...] = ()
    tree: Any = None  # ``data`` with ConflictNode placeholders, for renderers

    @property
    def clean(self) -> bool:
        """No conflicts left."""
        return not self.conflicts


# -- where things are in the merged tree ------------------------------------------------


def pointer_of(tree: Any, path: tuple[Any, ...]) -> str:
    """The pointer of a rule path (keys, ``("#", id)`` elements, base indexes) in the tree."""
    parts: list[str | int] = []
    node = tree
    for part in path:
        if isinstance(part, tuple):
            index = _index_of(node, part[1])
            parts.append(index if index is not None else str(part[1]))
            node = node[index] if index is not None else None
        elif isinstance(node, list) and isinstance(part, int):
            parts.append(part)
            node = node[part] if 0 <= part < len(node) else None
        else:
            parts.append(part)
            node = node.get(part) if isinstance(node, dict) else None
    return pointer(parts)


def _index_of(node: Any, ident: Any) -> int | None:
    if not isinstance(node, list):
        return None
    for i, element in enumerate(node):
        value = element.ours if isinstance(element, ConflictNode) else element
        if isinstance(value, dict) and any(value.get(k) == ident for k in doc.IDENTITY_KEYS):
            return i
    return None


def locate_conflicts(tree: Any) -> tuple[Any, list[Conflict]]:
    """Ours' data (conflicts replaced by ours' value) and the conflicts with their pointers."""
    found: list[Conflict] = []
    data = _strip(tree, [], found)
    return (None if data is MISSING else data), found


def _strip(node: Any, parts: list[str | int], found: list[Conflict]) -> Any:
    if isinstance(node, ConflictNode):
        bound = tuple((name, *values) for name, values in node.bound.items())
        found.append(Conflict(pointer(parts), node.kind, node.base, node.ours, node.theirs, bound))
        return node.ours
    if isinstance(node, dict):
        members: dict[str, Any] = {}
        for key, value in node.items():
            v = _strip(value, [*parts, key], found)
            if v is not MISSING:
                members[key] = v
        return members
    if isinstance(node, list):
        out: list[Any] = []
        for v in node:  # an element absent on ours (a conflict) takes no index in ours' data
            kept = _strip(v, [*parts, len(out)], found)
            if kept is not MISSING:
                out.append(kept)
        return out
    return node
