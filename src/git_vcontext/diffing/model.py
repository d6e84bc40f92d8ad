"""What a structural diff produces: a list of changes, each anchored by identity."""

from __future__ import annotations

from ..record import Sentinel, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    Op = Literal["add", "remove", "change", "move"]

FORMAT_VERSION = 1
"""Version of the diff JSON format (see ``git_vcontext.diffing``); bumped when incompatible."""


class _Absent(Sentinel):
    """Marker for "no value" (an added key has no old value); distinct from JSON ``null``."""

    NAME = "ABSENT"


ABSENT: Any = _Absent()


@record
class Change:
    """One difference.

    ``path`` is an RFC 6901 JSON Pointer into the new document (add, change,
    move) or the old one (remove); ``anchor`` is the same place named by
    identities (``todoList.items[t2].status``). ``kind`` says what the value is
    (``value``, ``item``, ``set``, ``text``, ``sequence``, ``fork``,
    ``changeLog``, ``event``, ``entry``) so renderers can phrase it.
    """

    op: Op
    path: str
    anchor: str
    id: Any = ABSENT  # identity of the innermost identified element around the change
    old: Any = ABSENT
    new: Any = ABSENT
    kind: str = "value"
    from_path: str | None = None  # moves: the element's pointer in the old document
    after: Any = ABSENT  # moves: id of the element now before it (None: first)
    to: str | None = None  # moves to another array (M18): the new pointer (``path``: old)
    into: str | None = None  # ... and the new array named by identities, in its container
    added: tuple[Any, ...] = ()  # set changes
    removed: tuple[Any, ...] = ()
    guess: bool = False  # elements matched by title because they carry no ids
    note: str | None = None  # something a reviewer should know (append-only violation, ...)
    item: str = ""  # anchor of the innermost array element around the change ("" at the top)
    item_title: str | None = None  # that element's title, for readable output
    view: bool = False  # a change of a playbook entry's view (derived from new events)

    def replaced(self, **changes: Any) -> Change:
        """The same change with some fields replaced."""
        fields = {name: getattr(self, name) for name in self._fields}  # type: ignore[attr-defined]
        return Change(**{**fields, **changes})

    def noted(self, note: str) -> Change:
        """The same change with a note for reviewers."""
        return self.replaced(note=note)

    def to_json(self) -> dict[str, Any]:
        """The JSON form (see ``git_vcontext.diffing``); absent values are left out."""
        out: dict[str, Any] = {"op": self.op, "path": self.path, "anchor": self.anchor}
        for name in ("id", "old", "new"):
            value = getattr(self, name)
            if value is not ABSENT:
                out[name] = value
        out["kind"] = self.kind
        optional: tuple[tuple[str, Any, bool], ...] = (
            ("from", self.from_path, self.from_path is not None),
            ("after", self.after, self.after is not ABSENT),
            ("to", self.to, self.to is not None),
            ("added", list(self.added), self.kind == "set"),
            ("removed", list(self.removed), self.kind == "set"),
            ("guess", True, self.guess),
            ("note", self.note, bool(self.note)),
            ("itemTitle", self.item_title, self.item_title is not None),
            ("view", True, self.view),
        )
        out.update((key, value) for key, value, present in optional if present)
        return out


@record
class DiffResult:
    """All changes from ``old`` to ``new``, in new-document order (removals first per place)."""

    changes: tuple[Change, ...]

    def __bool__(self) -> bool:
        return bool(self.changes)

    def __len__(self) -> int:
        return len(self.changes)

    def to_json(self) -> dict[str, Any]:
        """``{"version": 1, "changes": [...]}``."""
        return {"version": FORMAT_VERSION, "changes": [c.to_json() for c in self.changes]}
