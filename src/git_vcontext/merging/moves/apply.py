"""M18 moves applied while the merge walks the trees: the old place skipped, the three
versions merged at the mover's new place, each move noted."""

from __future__ import annotations

from ...values import same
from ..result import MISSING, NOT_HANDLED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    MoveSide = Literal["o", "t"]  # ours, theirs

    from ..core import Merger, Path


class Move:
    """One element a side moved: its three versions and where each side put it."""

    __slots__ = (
        "arrived",
        "b",
        "label",
        "moved_o",
        "moved_t",
        "o",
        "ptr_b",
        "ptr_o",
        "ptr_t",
        "refused",
        "t",
        "token",
    )

    def __init__(self, token: Any, label: str, b: Any, o: Any, t: Any) -> None:
        self.token = token  # what names the move when it is dropped
        self.label = label  # e.g. "id 't3'" or "an object"
        self.b, self.o, self.t = b, o, t
        self.moved_o = self.moved_t = False
        self.ptr_b = self.ptr_o = self.ptr_t = ""
        self.arrived: set[MoveSide] = set()  # that side's new place was merged
        self.refused = False  # the old place did not hold what the scan found there

    @property
    def complete(self) -> bool:
        wanted = {side for side, moved in (("o", self.moved_o), ("t", self.moved_t)) if moved}
        return not self.refused and wanted <= self.arrived


class Moves:
    """The moves of one merge, by the identity of the objects involved."""

    def __init__(self, moves: list[Move], ancestors: tuple[set[int], set[int]]) -> None:
        self.moves = moves
        self.by_obj: dict[int, Move] = {}
        for mv in moves:
            for value in (mv.b, mv.o, mv.t):
                if value is not MISSING:
                    self.by_obj[id(value)] = mv
        self.ancestors_o, self.ancestors_t = ancestors

    def __bool__(self) -> bool:
        return bool(self.moves)

    def broken(self) -> list[Any]:
        """Tokens of the moves this merge could not follow through."""
        return [mv.token for mv in self.moves if not mv.complete]

    # -- during the merge ---------------------------------------------------------
    def must_descend(self, value: Any, side: str) -> bool:
        """``value`` (taken whole from ``side``) holds a moved element to merge in."""
        return id(value) in (self.ancestors_o if side == "o" else self.ancestors_t)

    def left(self, b: Any, o: Any, t: Any) -> bool:
        """The base element ``b`` left this place on a side that moved it: skip it here.

        ``o``/``t`` are what the sides hold here (MISSING: nothing)."""
        mv = self.by_obj.get(id(b))
        if mv is None or mv.b is not b:
            return False
        gone = (mv.moved_o and o is MISSING) or (mv.moved_t and t is MISSING)
        if not gone:
            return False
        if (o is not MISSING and o is not mv.o) or (t is not MISSING and t is not mv.t):
            mv.refused = True  # not the elements the scan saw here
            return False
        return True

    def drop_left(
        self, base: list[Any], ours: list[Any], theirs: list[Any]
    ) -> tuple[list[Any], list[Any], list[Any]]:
        """An array without the elements that left it: the base's and the staying side's."""
        gone: list[Any] = []
        o_ids, t_ids = {id(x) for x in ours}, {id(x) for x in theirs}
        for e in base:
            mv = self.by_obj.get(id(e))
            if mv is None or mv.b is not e:
                continue
            o = mv.o if id(mv.o) in o_ids else MISSING
            t = mv.t if id(mv.t) in t_ids else MISSING
            if self.left(e, o, t):
                gone.extend(x for x in (e, o, t) if x is not MISSING)
        if not gone:
            return base, ours, theirs
        skip = {id(x) for x in gone}
        return tuple([x for x in side if id(x) not in skip] for side in (base, ours, theirs))  # type: ignore[return-value]

    def arrive(self, m: Merger, path: Path, b: Any, o: Any, t: Any) -> Any:
        """The merged element at a place a side moved it to (NOT_HANDLED: no move here)."""
        if b is not MISSING:
            return NOT_HANDLED
        mv = self.by_obj.get(id(o)) if o is not MISSING else None
        o_here = mv is not None and mv.o is o and mv.moved_o
        if not o_here:
            mv = self.by_obj.get(id(t)) if t is not MISSING else None
        t_here = mv is not None and mv.t is t and mv.moved_t
        if mv is None or not (o_here or t_here):
            return NOT_HANDLED
        if o_here and t_here:
            mv.arrived.update(("o", "t"))
            _note(m, path, mv, "ours and theirs", "")
            return m.value(path, mv.b, o, t)
        if o_here:
            if t is not MISSING:
                return NOT_HANDLED  # theirs put something else here
            mv.arrived.add("o")
            if mv.moved_t:
                _note_both(m, path, mv)
                return m.conflict("move/move", mv.b, o, mv.t)
            v = m.value(path, mv.b, o, mv.t)
            _note(
                m, path if v is not MISSING else path[:-1], mv, "ours", _edits("theirs", mv.b, mv.t)
            )
            return v
        if o is not MISSING:
            return NOT_HANDLED
        mv.arrived.add("t")
        if mv.moved_o:
            return MISSING  # moved elsewhere by ours too: the conflict is at ours' new place
        v = m.value(path, mv.b, mv.o, t)
        _note(m, path if v is not MISSING else path[:-1], mv, "theirs", _edits("ours", mv.b, mv.o))
        return v


def _edits(side: str, b: Any, v: Any) -> str:
    if v is MISSING:
        return f"; {side} deleted it"  # and the merge deletes it, or keeps a conflict
    return "" if same(b, v) else f"; {side}' edits follow it"


def _note(m: Merger, path: Path, mv: Move, by: str, tail: str) -> None:
    to = mv.ptr_o if "ours" in by else mv.ptr_t
    m.note(
        "move",
        path,
        f"{mv.label} moved by {by} from {mv.ptr_b or '/'} to {to or '/'}{tail}",
        **{"from": mv.ptr_b, "to": to, "by": by.replace(" and ", "+")},
        **_id_detail(mv),
    )


def _note_both(m: Merger, path: Path, mv: Move) -> None:
    m.note(
        "move",
        path,
        f"{mv.label} moved by ours to {mv.ptr_o} and by theirs to {mv.ptr_t}: "
        "conflict at ours' new place",
        **{"from": mv.ptr_b, "to": mv.ptr_o, "theirsTo": mv.ptr_t, "by": "ours+theirs"},
        **_id_detail(mv),
    )


def _id_detail(mv: Move) -> dict[str, Any]:
    token = mv.token
    return {"id": token[3]} if token[0] == "keyed" else {}
