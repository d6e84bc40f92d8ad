"""The values of conflict resolution: a conflict as listed, a choice, a style, a settled file."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from ..merging.result import MISSING, status_fields_json
from ..merging.textmerge import Markers
from ..record import record
from ..values import same

if TYPE_CHECKING:
    from typing import Any

SIDES = ("ours", "theirs", "base")


@record
class FileConflict:
    """One conflict of one file, as ``conflicts`` lists it (values may be MISSING)."""

    id: str  # stable: the same inputs give the same id
    pointer: str  # RFC 6901, into the merged document (ours' value where conflicts are)
    where: str  # id-anchored: todoList.items[t1].status
    kind: str
    base: Any
    ours: Any
    theirs: Any
    # a status conflict's status fields (M13): (name, base, ours, theirs), chosen with it
    bound: tuple[tuple[str, Any, Any, Any], ...] = ()

    def side(self, name: str) -> Any:
        """The value of one side (``ours``, ``theirs`` or ``base``); MISSING when absent."""
        value: Any = getattr(self, name)
        return value

    def to_json(self) -> dict[str, Any]:
        """PRODUCT.md's shape: a side without a value is null and named in ``absent``."""
        out: dict[str, Any] = {
            "id": self.id,
            "pointer": self.pointer,
            "where": self.where,
            "kind": self.kind,
        }
        for name in ("base", "ours", "theirs"):
            value = self.side(name)
            out[name] = None if value is MISSING else value
        out["absent"] = [n for n in ("base", "ours", "theirs") if self.side(n) is MISSING]
        if self.bound:
            out["statusFields"] = status_fields_json(self.bound)
        return out

    def bound_for(self, choice: Choice) -> dict[str, Any] | None:
        """The status fields' values ``choice`` gives (M13): the side taken, or the side
        whose status the value given is; None: they stay as they are (ours')."""
        if not self.bound:
            return None
        side = choice.take
        if side is None:
            side = next((s for s in ("theirs", "base") if _same(choice.value, self.side(s))), None)
        if side is None:
            return None
        index = {"base": 0, "ours": 1, "theirs": 2}[side]
        return {name: values[index] for name, *values in self.bound}


def _same(a: Any, b: Any) -> bool:
    return a is not MISSING and b is not MISSING and same(a, b)


def conflict_id(where: str, kind: str, base: Any, ours: Any, theirs: Any) -> str:
    """Eight hex digits from what the conflict is: stable for the same inputs."""
    values = ["\0absent" if v is MISSING else v for v in (base, ours, theirs)]
    text = json.dumps([where, kind, *values], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]


@record
class Choice:
    """How one conflict is settled: a side's value (``take``) or a value given (``value``)."""

    take: str | None = None  # "ours" | "theirs" | "base"
    value: Any = MISSING  # when ``take`` is None; MISSING = delete the value

    def value_for(self, conflict: FileConflict) -> Any:
        """The value the conflict's place gets (MISSING: the place is removed)."""
        return conflict.side(self.take) if self.take else self.value

    def describe(self) -> str:
        return self.take if self.take else "a value given"

    def to_json(self) -> dict[str, Any]:
        if self.take:
            return {"take": self.take}
        return {"value": self.value} if self.value is not MISSING else {"delete": True}

    @staticmethod
    def from_json(raw: dict[str, Any]) -> Choice:
        if raw.get("take") in SIDES:
            return Choice(raw["take"])
        return Choice(None, MISSING if raw.get("delete") else raw.get("value"))


@record
class Style:
    """How a file with conflicts left is written: markers (labels, size, diff3) or structured."""

    structured: bool = False
    markers: Markers = Markers()


@record
class Settled:
    """A file with some choices applied: its new text (None: delete the file) and what is left."""

    text: str | None
    data: Any  # what the text holds, with ours' value at each conflict left (MISSING: no file)
    remaining: tuple[FileConflict, ...] = ()

    @property
    def done(self) -> bool:
        return not self.remaining
