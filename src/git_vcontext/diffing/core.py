"""The diff walker: objects key by key, scalars, sets, text, sequences; arrays in ``arrays``."""

from __future__ import annotations

from ..document import (
    CONTAINER_KEYS,
    EXTRA_CONTAINER_KEYS,
    FORK_FIELD,
    INFO_KEYS,
    is_sequence_field,
    is_set_like,
)
from ..relocation import relocated
from ..values import JsonValue, pointer, same
from .arrays import diff_array
from .here import Here
from .identity import element_label
from .labels import key_label
from .model import Change, DiffResult
from .playbook import may_hold_playbook, view_changes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..relocation import Relocation
    from .model import Op

MAX_WALK_DEPTH = 200
"""Below this depth subtrees are compared whole (keeps recursion bounded for any input)."""


class Walker:
    """Collects the changes between two values while walking them side by side."""

    def __init__(self, old: JsonValue = None, new: JsonValue = None) -> None:
        self.changes: list[Change] = []
        self.moved_from: dict[int, Relocation] = {}  # id(old element) -> its move (M18)
        self.moved_to: dict[int, Relocation] = {}  # id(new element) -> its move
        self.holders_old: set[int] = set()  # containers on the way to a moved element
        self.holders_new: set[int] = set()
        if isinstance(old, dict) and isinstance(new, dict):
            for r in relocated(old, new):
                self.moved_from[id(r.old)] = self.moved_to[id(r.new)] = r
                self.holders_old |= r.old_holders
                self.holders_new |= r.new_holders

    def moved(self, here: Here, new: Any, kind: str) -> bool:
        """A keyed element that came here from another array (M18): one ``move`` change
        (``path`` its old pointer, ``to`` its new one), then its edits here."""
        r = self.moved_to.get(id(new))
        if r is None or r.new is not new:
            return False
        old_anchor = _old_anchor(r)
        self.changes.append(
            Change(
                op="move",
                path=r.old_ptr,
                anchor=old_anchor,
                id=here.ident,
                kind=kind,
                to=r.new_ptr,
                into=_container_relative(here.anchor.rsplit("[", 1)[0]),
                item=here.item,
                item_title=here.item_title,
            )
        )
        self.value(r.old, new, here)
        return True

    def left(self, old: Any) -> bool:
        """An old element that moved to another array: reported where it arrived."""
        r = self.moved_from.get(id(old))
        return r is not None and r.old is old

    def emit(self, op: Op, here: Here, **fields: Any) -> None:
        """Record one change at ``here`` (old pointer for removals, new pointer otherwise)."""
        path = here.old_pointer if op == "remove" else here.new_pointer
        self.changes.append(
            Change(
                op=op,
                path=path,
                anchor=here.name,
                id=here.ident,
                guess=here.guess,
                item=here.item,
                item_title=here.item_title,
                **fields,
            )
        )

    def value(self, old: JsonValue, new: JsonValue, here: Here) -> None:
        """Diff two values found at the same place."""
        if same(old, new):
            return
        if here.depth >= MAX_WALK_DEPTH:
            self.emit("change", here, old=old, new=new)
        elif isinstance(old, dict) and isinstance(new, dict):
            self.object(old, new, here)
        elif isinstance(old, list) and isinstance(new, list):
            diff_array(self, old, new, here)
        else:
            self.scalar(old, new, here)

    def object(self, old: dict[str, Any], new: dict[str, Any], here: Here) -> None:
        """Removed keys first, then added and changed keys in the new order."""
        renamed = _renamed_root_keys(old, new) if not here.new else {}
        for key, value in old.items():
            if key not in new and key not in renamed.values():
                self.member("remove", here.key(key), value)
        for key, value in new.items():
            if key in renamed:
                self.renamed(old[renamed[key]], value, here.key(key, renamed[key]))
            elif key not in old:
                self.member("add", here.key(key), value)
            elif not same(old[key], value):
                self.field(old[key], value, here.key(key))

    def renamed(self, old: JsonValue, new: JsonValue, here: Here) -> None:
        """A root key renamed (``vContextInfo`` -> ``vBRIEFInfo``): a move, then its changes."""
        self.emit("move", here, from_path=pointer(here.old), kind="rename")
        self.value(old, new, here)

    def member(self, op: Op, here: Here, value: JsonValue) -> None:
        """A key added or removed as a whole (one that holds a moved element: member by
        member, so the move is shown as one)."""
        holders = self.holders_new if op == "add" else self.holders_old
        if id(value) in holders and isinstance(value, (dict, list)):
            empty: Any = {} if isinstance(value, dict) else []
            self.value(empty, value, here) if op == "add" else self.value(value, empty, here)
            return
        kind = "fork" if here.field == FORK_FIELD and isinstance(value, dict) else "value"
        if op == "add":
            self.emit("add", here, new=value, kind=kind)
        else:
            self.emit("remove", here, old=value, kind=kind)

    def field(self, old: JsonValue, new: JsonValue, here: Here) -> None:
        """A key present on both sides with different values: sets get ``+x -y``."""
        if isinstance(old, list) and isinstance(new, list) and is_set_like(here.new, [old, new]):
            self.set_field(old, new, here)
        else:
            self.value(old, new, here)

    def set_field(self, old: list[Any], new: list[Any], here: Here) -> None:
        """Set-like string arrays (M5): what was added and removed; a pure reorder is no change."""
        was, now = set(old), set(new)
        added = tuple(dict.fromkeys(x for x in new if x not in was))
        removed = tuple(dict.fromkeys(x for x in old if x not in now))
        if added or removed:
            self.emit("change", here, old=old, new=new, kind="set", added=added, removed=removed)

    def scalar(self, old: JsonValue, new: JsonValue, here: Here) -> None:
        """Different scalars (or different types): one change, phrased by what the field is."""
        if isinstance(old, str) and isinstance(new, str) and ("\n" in old or "\n" in new):
            self.emit("change", here, old=old, new=new, kind="text")
        elif is_sequence_field(here.new) and _number(old) and _number(new):
            note = "sequence decreased (it must never go back)" if new < old else None
            self.emit("change", here, old=old, new=new, kind="sequence", note=note)
        else:
            self.emit("change", here, old=old, new=new)


_ROOT_FAMILIES = (INFO_KEYS, CONTAINER_KEYS + EXTRA_CONTAINER_KEYS)


def _renamed_root_keys(old: dict[str, Any], new: dict[str, Any]) -> dict[str, str]:
    """New name -> old name for an info object or container whose root key was renamed
    (exactly one of its family removed and one added, both objects)."""
    out = {}
    for family in _ROOT_FAMILIES:
        gone = [k for k in family if k in old and k not in new and isinstance(old[k], dict)]
        came = [k for k in family if k in new and k not in old and isinstance(new[k], dict)]
        if len(gone) == 1 and len(came) == 1:
            out[came[0]] = gone[0]
    return out


def _container_relative(anchor: str) -> str:
    """``todoList.items[t1].subItems`` -> ``items[t1].subItems`` (within its container)."""
    head, dot, rest = anchor.partition(".")
    return rest if dot and "[" not in head else anchor


def _old_anchor(r: Relocation) -> str:
    """The moved element's old place named by identities (``todoList.items[t3]``)."""
    parts = [
        key_label(seg) if isinstance(seg, str) else element_label(node, seg)
        for seg, node in r.old_steps
    ]
    return "".join(parts).removeprefix(".")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def diff(old: JsonValue, new: JsonValue) -> DiffResult:
    """The changes that turn ``old`` into ``new`` (parsed data, any JSON values).

    Array elements are matched by identity (``id``, ``uid``, ``eventId``, ...),
    never by position when they carry ids; moves are reported once per moved
    element. See ``git_vcontext.diffing`` for the whole contract.
    """
    walker = Walker(old, new)
    walker.value(old, new, Here())
    changes = walker.changes
    if may_hold_playbook(new):
        changes += view_changes(old, new, _changes)
    return DiffResult(tuple(changes))


def _changes(old: JsonValue, new: JsonValue, here: Here) -> list[Change]:
    """The changes between two values found at ``here`` (a playbook entry's views)."""
    walker = Walker()
    walker.value(old, new, here)
    return walker.changes
