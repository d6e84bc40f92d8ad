"""The recursive three-way merge: dispatch by rule, objects key by key (M2), the result."""

from __future__ import annotations

from .. import document as doc
from ..values import same
from . import arrays, coherence, logs, rules, sequence_number, vcontext
from .moves.apply import Moves
from .moves.find import MAX_ROUNDS, moves_between
from .result import (
    MISSING,
    NOT_HANDLED,
    ConflictNode,
    MergeOptions,
    MergeResult,
    Note,
    locate_conflicts,
    pointer_of,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Path = tuple[Any, ...]


def _equal(a: Any, b: Any) -> bool:
    """``a == b`` (a function of ours: importing ``_operator`` for its ``eq`` costs a
    process more than the calls save)."""
    return a == b  # type: ignore[no-any-return]


class Merger:
    """One merge: walks the three trees, collects notes; conflicts become ConflictNodes."""

    def __init__(self, options: MergeOptions) -> None:
        self.options = options
        # the strict equality of the sides' values (M2: ``true`` is not ``1``): ``==`` where
        # they hold no boolean (MergeOptions.booleans), the same answer without a walk
        self.same: Callable[[Any, Any], bool] = same if options.booleans else _equal
        self.notes: list[tuple[str, Path, str, tuple[tuple[str, Any], ...]]] = []
        self.conflicts = 0
        # container -> (ours, theirs, base sequence, its field, the index of its note)
        self.sequence_conflicts: dict[Path, tuple[Any, Any, Any, str, int]] = {}
        self.moves = Moves([], (set(), set()))
        # ids one side deleted and the other side named in a new reference (M19)
        self.protected: frozenset[Any] = frozenset()
        # where a rule chose one side's status (ACE, M13): its status fields follow it
        self.status_winners: dict[Path, str] = {}
        self._replay: bool | None = options.replay
        # in a replay (M8): object -> (ours, theirs, base, field) of a sequence theirs changed
        self.replayed: dict[Path, tuple[Any, Any, Any, str]] = {}
        # paths of values both sides changed differently (what a replay's merge entry needs)
        self.concurrent: list[Path] = []
        self.dropped_moves: set[Any] = set()  # moves a previous run could not follow (M18)
        self.finding_moves = True

    # -- entry points ---------------------------------------------------------
    def run(self, base: Any, ours: Any, theirs: Any) -> MergeResult:
        """Merge; a move (M18) the merge could not follow through is dropped and the
        merge run again without it (at most ``MAX_ROUNDS`` runs, the last without moves)."""
        for round_ in range(MAX_ROUNDS):
            if round_:
                self.notes, self.conflicts, self.sequence_conflicts = [], 0, {}
                self.status_winners, self.replayed, self.concurrent = {}, {}, []
            self.finding_moves = round_ < MAX_ROUNDS - 1
            self.moves = Moves([], (set(), set()))
            tree = vcontext.merge_document(self, base, ours, theirs)
            broken = self.moves.broken()
            if not broken:
                break
            self.dropped_moves.update(broken)
        tree = coherence.settle(self, base, ours, theirs, tree)  # M19
        tree = self._as_revert(base, ours, theirs, tree)
        return self.finish(tree)

    def _as_revert(self, base: Any, ours: Any, theirs: Any, tree: Any) -> Any:
        """A revert's own changes written as new ones (merging.revert): asked only of a
        replay whose sides look like a revert, unless the caller said it is one."""
        opts = self.options
        if opts.revert is None and opts.revert_probe is None:
            return tree
        reverting = opts.revert
        if reverting is None:
            if not logs.looks_reverted(base, theirs) or not self.replay:
                return tree
            assert opts.revert_probe is not None  # (checked above)
            reverting = opts.revert_probe()
            if reverting is None:
                return tree
        # lazy: only a revert writes anything here
        from . import revert

        tree, said = revert.written_as_new_changes(base, ours, theirs, tree, reverting)
        # what the revert took out of the logs is kept by design: no violation to note
        self.notes = [n for n in self.notes if not _revert_kept(n)]
        for line in said:
            self.note("revert", (), f"{reverting.reason}: {line}")
        return tree

    @property
    def replay(self) -> bool:
        """Whether this merge replays theirs' commit on ours (M6, M8), asked when it matters."""
        if self._replay is None:
            probe = self.options.replay_probe
            self._replay = bool(probe()) if probe is not None else False
        return self._replay

    @property
    def maybe_replay(self) -> bool:
        """False when this merge is known to be no replay (nothing to ask)."""
        return self._replay is not False

    def find_moves(self, base: Any, ours: Any, theirs: Any) -> None:
        """M18: the moves between the three documents (after M11 made them comparable)."""
        if self.finding_moves:
            self.moves = moves_between(base, ours, theirs, self.dropped_moves)
        else:
            self.moves = Moves([], (set(), set()))

    def finish(self, tree: Any) -> MergeResult:
        notes = tuple(
            Note(kind, pointer_of(tree, path), msg, details)
            for kind, path, msg, details in self.notes
        )
        if not self.conflicts:
            return MergeResult(tree, (), notes, tree)
        data, conflicts = locate_conflicts(tree)
        return MergeResult(data, tuple(conflicts), notes, tree)

    def note(self, kind: str, path: Path, message: str, **details: Any) -> None:
        self.notes.append((kind, path, message, tuple(details.items())))

    def conflict(self, kind: str, base: Any, ours: Any, theirs: Any) -> ConflictNode:
        self.conflicts += 1
        return ConflictNode(kind, base, ours, theirs)

    # -- the dispatcher -----------------------------------------------------
    def value(self, path: Path, base: Any, ours: Any, theirs: Any) -> Any:
        """Merge one value; MISSING means "absent in the result"."""
        if ours is MISSING and theirs is MISSING:
            return MISSING
        if doc.is_sequence_field(path):  # M8 applies even when both reached the same number
            return sequence_number.merge_sequence(self, path, base, ours, theirs)
        if self.same(ours, theirs):
            if _may_advance(base, ours) and sequence_number.advanced_within(base, ours):
                return self._both_alike(path, base, ours, theirs)
            return ours
        result = self._always_rules(path, base, ours, theirs)
        if result is not NOT_HANDLED:
            return result
        if self.same(base, ours):
            return self._theirs_change(path, base, ours, theirs)
        if self.same(base, theirs):
            if self.moves and self.moves.must_descend(ours, "o"):
                return self._descend(path, ours, base, ours, theirs)
            return ours
        return self.both_changed(path, base, ours, theirs)

    def _theirs_change(self, path: Path, base: Any, ours: Any, theirs: Any) -> Any:
        """Only theirs changed the value: theirs, unless an element moved in (M18) or a
        replayed revert lowers a sequence in it (M8) needs it merged structurally."""
        if self.moves and self.moves.must_descend(theirs, "t"):
            return self._descend(path, theirs, base, ours, theirs)
        if isinstance(theirs, (dict, list)) and self._reverted(path, base, theirs):
            return self._both_alike(path, base, ours, theirs)
        return theirs

    def _reverted(self, path: Path, base: Any, theirs: Any) -> bool:
        """A replay whose commit lowers a sequence where ours left it (a revert): merged
        structurally so that the sequence advances instead (M8). (``path``'s last key says
        whether ``version`` is a playbook's.)"""
        key = path[-1] if path else None
        if not sequence_number.decreased_within(base, theirs, key):
            return False
        return self.replay

    def _both_alike(self, path: Path, base: Any, ours: Any, theirs: Any) -> Any:
        """Both sides made the same change to an object holding a ``sequence`` they both
        advanced: merged structurally so that M8 sees that sequence (max + 1, noted)."""
        if isinstance(ours, dict) and isinstance(base, dict):
            return self.object(path, base, ours, theirs)
        if isinstance(ours, list) and isinstance(base, list):
            return arrays.merge_array(self, path, base, ours, theirs)
        return ours

    def _descend(self, path: Path, changed: Any, *sides: Any) -> Any:
        """One side changed a value that holds an element moved in (M18): merge it
        structurally anyway, so the element meets the other side's edits."""
        if isinstance(changed, dict):
            b, o, t = (x if isinstance(x, dict) else {} for x in sides)
            out: Any = self.object(path, b, o, t)
        elif isinstance(changed, list):
            bl, ol, tl = (x if isinstance(x, list) else [] for x in sides)
            out = arrays.merge_array(self, path, bl, ol, tl)
        else:
            return changed
        if not out and changed and sides[0] is MISSING:
            return MISSING  # added by one side for elements that are no longer there
        return out

    def _always_rules(self, path: Path, base: Any, ours: Any, theirs: Any) -> Any:
        """Rules that apply even when only one side changed: logs (M6) and sets (M5)."""
        if isinstance(ours, list) or isinstance(theirs, list):
            log = logs.merge_log(self, path, base, ours, theirs)
            if log is not NOT_HANDLED:
                return log
            if doc.is_set_like(path, [_list_or_none(v) for v in (base, ours, theirs)]):
                return arrays.merge_set(base, ours, theirs)
        return NOT_HANDLED

    def both_changed(self, path: Path, base: Any, ours: Any, theirs: Any) -> Any:
        """Both sides changed the value, differently (M2, M7, M9, M10, M12, M13)."""
        one_value = not (isinstance(ours, (dict, list)) and type(ours) is type(theirs))
        if one_value and not doc.is_bookkeeping(path):
            self.concurrent.append(path)  # one value both changed (a replay logs it, M8)
        if doc.is_metrics(path) and ours is not MISSING:
            return ours  # derived data: recomputed from the merged log once it is known (M10)
        if base is MISSING and ours is not MISSING and theirs is not MISSING:
            return self._added_on_both(path, ours, theirs)
        if ours is MISSING or theirs is MISSING:
            return rules.delete_vs_modify(self, path, base, ours, theirs)
        special = rules.field_rule(self, path, base, ours, theirs)
        if special is not NOT_HANDLED:
            return special
        if isinstance(ours, dict) and isinstance(theirs, dict):
            return self.object(path, base if isinstance(base, dict) else {}, ours, theirs)
        if isinstance(ours, list) and isinstance(theirs, list):
            return arrays.merge_array(
                self, path, base if isinstance(base, list) else [], ours, theirs
            )
        if isinstance(ours, str) and isinstance(theirs, str) and "\n" in ours and "\n" in theirs:
            return rules.merge_text(self, path, base, ours, theirs)
        kind = "status" if path and path[-1] == doc.STATUS_FIELD else "modify/modify"
        return self.conflict(kind, base, ours, theirs)

    def _added_on_both(self, path: Path, ours: Any, theirs: Any) -> Any:
        special = rules.field_rule(self, path, MISSING, ours, theirs)
        if special is not NOT_HANDLED:
            return special
        if isinstance(ours, dict) and isinstance(theirs, dict):
            return self.object(path, {}, ours, theirs)
        if isinstance(ours, list) and isinstance(theirs, list):
            return arrays.merge_array(self, path, [], ours, theirs)
        return self.conflict("add/add", MISSING, ours, theirs)

    # -- objects (M2) ---------------------------------------------------------
    def object(
        self, path: Path, base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any]
    ) -> dict[str, Any]:
        """Key by key; key order: ours', theirs' new keys after their predecessor in theirs."""
        out: dict[str, Any] = {}
        for key in merged_key_order(base, ours, theirs):
            child = (*path, key)
            b, o, t = base.get(key, MISSING), ours.get(key, MISSING), theirs.get(key, MISSING)
            if self.moves:
                v = self._moved(child, b, o, t)
                if v is not NOT_HANDLED:
                    if v is not MISSING:
                        out[key] = v
                    continue
            if key == "lastModifiedBy" and not same(o, t):
                v = rules.last_modified_by(self, child, base, ours, theirs)
            elif key == doc.STATUS_FIELD and _ace_both_changed(child, b, o, t):
                v = rules.ace_status(self, child, (b, o, t), ours, theirs)
            else:
                v = self.value(child, b, o, t)
            if v is not MISSING:
                out[key] = v
        rules.after_object(self, path, base, ours, theirs, out)
        return out

    def _moved(self, path: Path, b: Any, o: Any, t: Any) -> Any:
        """A member an object lost or gained by a move (M18), else NOT_HANDLED."""
        if b is not MISSING and self.moves.left(b, o, t):
            return MISSING
        return self.moves.arrive(self, path, b, o, t)


def merged_key_order(
    base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any]
) -> list[str]:
    """Ours' keys, then each key new in theirs right after its predecessor in theirs.

    Keys ours added right after that predecessor stay first (ours' insertions first).
    """
    order = list(ours)
    if all(k in ours for k in theirs):
        return order
    position = {k: i for i, k in enumerate(order)}
    prev: str | None = None
    for key in theirs:
        if key not in position:
            at = 0 if prev is None else order.index(prev) + 1
            while at < len(order) and order[at] not in base and order[at] not in theirs:
                at += 1  # keys only ours added here come first
            order.insert(at, key)
            position = {k: i for i, k in enumerate(order)}
        prev = key
    return order


def _ace_both_changed(path: Path, b: Any, o: Any, t: Any) -> bool:
    """An ACE entry's status that both sides changed, differently (M13)."""
    if o is MISSING or t is MISSING or same(o, t) or same(b, o) or same(b, t):
        return False
    return rules.is_ace_entry(path)


def _may_advance(base: Any, value: Any) -> bool:
    """False where ``advanced_within(base, value)`` is sure to be: no base, a value that
    holds nothing (no object, no array), or an object equal to the base's (told in C, without
    the calls: most values of a merge are unchanged objects or plain values, issue 32)."""
    if base is MISSING or not isinstance(value, (dict, list)):
        return False
    return type(value) is not dict or base != value


def _list_or_none(value: Any) -> Any:
    return value if isinstance(value, list) else None


def merge_values(base: Any, ours: Any, theirs: Any, options: MergeOptions) -> MergeResult:
    """Merge three parsed values (``base`` may be MISSING when both sides added the file)."""
    return Merger(options).run(base, ours, theirs)


def _revert_kept(note: tuple[str, Any, str, Any]) -> bool:
    return note[0] == "append-only-violation" and note[2].startswith("theirs removed")
