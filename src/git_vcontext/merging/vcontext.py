"""Document-level rules: the empty base of add/add (M1), fork metadata (M11), whole-file kinds."""

from __future__ import annotations

from .. import document as doc
from . import coherence
from .result import MISSING

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .core import Merger


def merge_document(m: Merger, base: Any, ours: Any, theirs: Any) -> Any:
    """Merge whole documents: M11 adjustments first, then the generic rules."""
    if base is MISSING:
        base = _empty_like(ours, theirs)
        if _different_containers(ours, theirs):
            return m.conflict("add/add", MISSING, ours, theirs)
    if isinstance(base, dict) and isinstance(ours, dict) and isinstance(theirs, dict):
        base, ours, theirs = apply_fork_rules(m, base, ours, theirs)
        m.protected = coherence.protected_ids(base, ours, theirs)  # M19: delete/reference
    m.find_moves(base, ours, theirs)
    return m.value((), base, ours, theirs)


def _empty_like(ours: Any, theirs: Any) -> Any:
    """The empty document of the kind both sides added (M1), else nothing."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        return {}
    if isinstance(ours, list) and isinstance(theirs, list):
        return []
    return MISSING


def _different_containers(ours: Any, theirs: Any) -> bool:
    """Two different containers added with no base conflict as a whole."""
    o, t = doc.describe(ours), doc.describe(theirs)
    return (
        o.is_vcontext
        and t.is_vcontext
        and bool(o.containers)
        and bool(t.containers)
        and (set(o.containers) != set(t.containers))
    )


def apply_fork_rules(
    m: Merger, base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """M11: ours' ``fork`` is kept, never theirs'; a fork learns its parent's sequence.

    Returns shallow copies in which every side carries ours' (adjusted) fork
    block, so the generic merge neither conflicts on it nor takes theirs'.
    """
    base, ours, theirs = dict(base), dict(ours), dict(theirs)
    for key in doc.CONTAINER_KEYS:
        o, t = ours.get(key), theirs.get(key)
        if not isinstance(o, dict) or not isinstance(t, dict):
            continue
        if doc.FORK_FIELD not in o and doc.FORK_FIELD not in t and not _has_fork(base.get(key)):
            continue
        o, t = dict(o), dict(t)
        fork = _adjusted_fork(m, (key,), o, t)
        if _forks_from(t, o) and not same_family(o, t):
            _note_parallel_edits(m, (key,), o, t)
            if "uid" in o:
                t["uid"] = o["uid"]  # the result keeps ours' uid
        for side in (o, t):
            _set_fork(side, fork)
        ours[key], theirs[key] = o, t
        if isinstance(base.get(key), dict):
            b = dict(base[key])
            _set_fork(b, fork)
            base[key] = b
    return base, ours, theirs


def _has_fork(container: Any) -> bool:
    return isinstance(container, dict) and doc.FORK_FIELD in container


def _forks_from(child: dict[str, Any], parent: dict[str, Any]) -> bool:
    fork = child.get(doc.FORK_FIELD)
    uid = parent.get("uid")
    return isinstance(fork, dict) and uid is not None and fork.get("parentUid") == uid


def same_family(o: dict[str, Any], t: dict[str, Any]) -> bool:
    """Both sides carry a fork of one parent: two edits of one fork (same ``forkedAt``),
    or sibling forks that merged each other. Neither is the other's parent (M11)."""
    of, tf = o.get(doc.FORK_FIELD), t.get(doc.FORK_FIELD)
    return (
        isinstance(of, dict)
        and isinstance(tf, dict)
        and "parentUid" in of
        and of.get("parentUid") == tf.get("parentUid")
    )


def _adjusted_fork(m: Merger, path: tuple[Any, ...], o: dict[str, Any], t: dict[str, Any]) -> Any:
    """Ours' fork; when ours is a fork of theirs, with ``parentSequence`` = theirs' sequence.

    Theirs is no parent when it carries a fork of the same parent itself: the same
    fork edited twice, or a sibling (ours' fork is then kept as it is, no note).
    """
    fork = o.get(doc.FORK_FIELD, MISSING)
    if not _forks_from(o, t) or doc.SEQUENCE_FIELD not in t or same_family(o, t):
        return fork
    parent_seq = t[doc.SEQUENCE_FIELD]
    if fork.get("parentSequence") != parent_seq:
        fork = {**fork, "parentSequence": parent_seq}
        m.note(
            "fork-parent-sequence",
            (*path, doc.FORK_FIELD, "parentSequence"),
            f"fork.parentSequence set to the parent's sequence {parent_seq}",
        )
    return fork


def _note_parallel_edits(
    m: Merger, path: tuple[Any, ...], o: dict[str, Any], t: dict[str, Any]
) -> None:
    seq = o.get(doc.SEQUENCE_FIELD)
    parent_seq = t[doc.FORK_FIELD].get("parentSequence")
    if isinstance(seq, (int, float)) and isinstance(parent_seq, (int, float)) and seq > parent_seq:
        m.note(
            "parallel-edits",
            path,
            f"the parent moved from sequence {parent_seq} to {seq} while the fork was away",
        )


def _set_fork(container: dict[str, Any], fork: Any) -> None:
    if fork is MISSING:
        container.pop(doc.FORK_FIELD, None)
    else:
        container[doc.FORK_FIELD] = fork
