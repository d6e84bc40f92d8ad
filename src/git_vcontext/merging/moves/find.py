"""M18 moves found before the merge: keyed elements a side put into another array, and
objects without identity a side put under a new key."""

from __future__ import annotations

from ...relocation import any_id, keyed_index, link_containers, link_pointer, link_segments, outline
from ...values import canonical, pointer
from ..result import MISSING
from .apply import Move, Moves

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ...relocation import Link, Outline


MAX_ROUNDS = 3
"""Merges run at most this often: each rerun drops the moves that did not go through."""


def moves_between(base: Any, ours: Any, theirs: Any, dropped: set[Any]) -> Moves:
    """The moves between three parsed documents (``dropped``: tokens to leave alone).

    A walk of what each side changed finds candidates first (an id taken out of one array
    and put into another, an object under a new key equal to one under a removed key);
    only then are the whole documents indexed."""
    if not (isinstance(base, dict) and isinstance(ours, dict) and isinstance(theirs, dict)):
        return Moves([], (set(), set()))
    changes = (outline(base, ours), outline(base, theirs))
    found: list[tuple[Move, Link, Link]] = []
    wanted = changes[0].candidates() | changes[1].candidates()
    if wanted:
        found = _keyed(base, ours, theirs, dropped, wanted)
    if any(c.new_members and c.gone_members for c in changes):
        keyed = {id(mv.b) for mv, _, _ in found}
        found.extend(_anonymous(base, ours, theirs, dropped, keyed, changes))
    anc_o: set[int] = set()
    anc_t: set[int] = set()
    for mv, link_o, link_t in found:
        if mv.moved_o:
            anc_o.update(link_containers(link_o, ours))
        if mv.moved_t:
            anc_t.update(link_containers(link_t, theirs))
    return Moves([mv for mv, _, _ in found], (anc_o, anc_t))


def _keyed(
    base: dict[str, Any],
    ours: dict[str, Any],
    theirs: dict[str, Any],
    dropped: set[Any],
    wanted: set[Any],
) -> list[tuple[Move, Link, Link]]:
    b_ix, o_ix, t_ix = keyed_index(base), keyed_index(ours), keyed_index(theirs)
    found: list[tuple[Move, Link, Link]] = []
    for key, b_entries in b_ix.items():
        if key[1:] not in wanted or len(b_entries) != 1 or ("keyed", *key) in dropped:
            continue
        o_entries, t_entries = o_ix.get(key, []), t_ix.get(key, [])
        if len(o_entries) > 1 or len(t_entries) > 1:
            continue
        b_el, b_anchor, b_rel, b_link = b_entries[0]
        o_e = o_entries[0] if o_entries else None
        t_e = t_entries[0] if t_entries else None
        moved_o = o_e is not None and (o_e[1], o_e[2]) != (b_anchor, b_rel)
        moved_t = t_e is not None and (t_e[1], t_e[2]) != (b_anchor, b_rel)
        if not (moved_o or moved_t):
            continue
        label = f"{key[1]} {key[2]!r}"
        mv = Move(
            ("keyed", *key),
            label,
            b_el,
            o_e[0] if o_e else MISSING,
            t_e[0] if t_e else MISSING,
        )
        mv.moved_o, mv.moved_t = moved_o, moved_t
        mv.ptr_b = link_pointer(b_link)
        mv.ptr_o = link_pointer(o_e[3]) if o_e else ""
        mv.ptr_t = link_pointer(t_e[3]) if t_e else ""
        found.append((mv, o_e[3] if o_e else None, t_e[3] if t_e else None))
    found.sort(key=lambda f: f[0].ptr_b)
    return found


def _likely(changes: Outline) -> list[tuple[dict[str, Any], Link]]:
    """Objects under new keys equal to one under a key the same side removed."""
    gone: dict[tuple[str, ...], set[str]] = {}
    for obj, _ in changes.gone_members:
        gone.setdefault(_shape(obj), set()).add(canonical(obj))
    return [
        (obj, link)
        for obj, link in changes.new_members
        if _shape(obj) in gone and canonical(obj) in gone[_shape(obj)]
    ]


def _shape(obj: dict[str, Any]) -> tuple[str, ...]:
    return tuple(sorted(obj))


def _objects_by_shape(root: Any) -> dict[tuple[str, ...], list[tuple[dict[str, Any], Link]]]:
    """Every non-empty object of the base by its sorted keys, with its link."""
    out: dict[tuple[str, ...], list[tuple[dict[str, Any], Link]]] = {}
    stack: list[tuple[Any, Link]] = [(root, None)]
    while stack:
        node, link = stack.pop()
        if isinstance(node, dict):
            if node and link is not None:
                out.setdefault(_shape(node), []).append((node, link))
            children: Any = node.items()
        elif isinstance(node, list):
            children = enumerate(node)
        else:
            continue
        for k, v in children:
            if isinstance(v, (dict, list)):
                stack.append((v, (link, k, v)))
    return out


def _follow(root: Any, base_root: Any, segments: list[Any]) -> tuple[Any, Any]:
    """In ``root``, the container that continues the base's container at ``segments[:-1]``
    (arrays by id, else by index), and the value under the last segment (or MISSING)."""
    node, b_node = root, base_root
    for seg in segments[:-1]:
        if isinstance(node, dict) and isinstance(b_node, dict) and isinstance(seg, str):
            node, b_node = node.get(seg, MISSING), b_node.get(seg, MISSING)
        elif isinstance(node, list) and isinstance(b_node, list) and isinstance(seg, int):
            b_el = b_node[seg]
            k = any_id(b_el) if isinstance(b_el, dict) else None
            if k is not None:
                hits = [e for e in node if isinstance(e, dict) and any_id(e) == k]
                node = hits[0] if len(hits) == 1 else MISSING
            else:
                node = node[seg] if seg < len(node) else MISSING
            b_node = b_el
        else:
            return MISSING, MISSING
        if node is MISSING:
            return MISSING, MISSING
    last = segments[-1]
    if not isinstance(node, dict) or not isinstance(last, str):
        return MISSING, MISSING
    return node, node.get(last, MISSING)


def _anonymous(
    base: dict[str, Any],
    ours: dict[str, Any],
    theirs: dict[str, Any],
    dropped: set[Any],
    keyed: set[int],
    changes: tuple[Outline, Outline],
) -> list[tuple[Move, Link, Link]]:
    candidates = {side: _likely(c) for side, c in zip("ot", changes, strict=True)}
    if not candidates["o"] and not candidates["t"]:
        return []
    twins = _BaseTwins(base)
    moves: dict[int, tuple[Move, Link, Link]] = {}
    for side, root in (("o", ours), ("t", theirs)):
        for obj, link in candidates[side]:
            origin = _moved_object(obj, root, base, twins, keyed, dropped)
            if origin is None:
                continue
            b_obj, segments = origin
            found = moves.get(id(b_obj))
            if found is None:
                found = _object_move(b_obj, segments, side, ours, theirs, base)
            moves[id(b_obj)] = _moved_by(found, side, obj, link)
    out = [f for f in moves.values() if not f[0].refused]
    out.sort(key=lambda f: f[0].ptr_b)
    return out


class _BaseTwins:
    """The base's objects by shape and text, indexed for a shape when first asked."""

    def __init__(self, base: dict[str, Any]) -> None:
        self.shapes = _objects_by_shape(base)
        self.by_text: dict[tuple[str, ...], dict[str, list[tuple[dict[str, Any], Link]]]] = {}

    def of(self, obj: dict[str, Any]) -> tuple[dict[str, Any], Link] | None:
        """The one base object equal to ``obj`` (None: no such object, or several)."""
        shape = _shape(obj)
        if shape not in self.shapes:
            return None
        texts = self.by_text.get(shape)
        if texts is None:
            texts = self.by_text[shape] = {}
            for b, bl in self.shapes[shape]:
                texts.setdefault(canonical(b), []).append((b, bl))
        equal = texts.get(canonical(obj), [])
        return equal[0] if len(equal) == 1 else None


def _moved_object(
    obj: dict[str, Any],
    root: dict[str, Any],
    base: dict[str, Any],
    twins: _BaseTwins,
    keyed: set[int],
    dropped: set[Any],
) -> tuple[dict[str, Any], list[Any]] | None:
    """The base object a side's new object is a move of, and the segments of its base place:
    its one equal base object, under a key (not keyed, not dropped) now gone from the side."""
    twin = twins.of(obj)
    if twin is None:
        return None
    b_obj, b_link = twin
    segments = link_segments(b_link)
    token = ("object", pointer(segments))
    if id(b_obj) in keyed or token in dropped or not isinstance(segments[-1], str):
        return None
    parent, there = _follow(root, base, segments)
    if parent is MISSING or there is not MISSING:
        return None  # a copy, or its old place is gone with its parent
    return b_obj, segments


def _object_move(
    b_obj: dict[str, Any],
    segments: list[Any],
    side: str,
    ours: dict[str, Any],
    theirs: dict[str, Any],
    base: dict[str, Any],
) -> tuple[Move, Link, Link]:
    """A new move of a base object, found on ``side``: the other side's value at its base place."""
    _, kept = _follow(theirs if side == "o" else ours, base, segments)
    ptr = pointer(segments)
    mv = Move(("object", ptr), "an object", b_obj, MISSING, MISSING)
    mv.ptr_b = ptr
    if side == "o":
        mv.t = kept
    else:
        mv.o = kept
    return (mv, None, None)


def _moved_by(
    found: tuple[Move, Link, Link], side: str, obj: dict[str, Any], link: Link
) -> tuple[Move, Link, Link]:
    """``found`` with ``side``'s move of the object to ``link``."""
    mv = found[0]
    if mv.moved_o if side == "o" else mv.moved_t:
        mv.refused = True  # moved to two new keys by one side: leave it alone
        return found
    if side == "o":
        mv.o, mv.moved_o, mv.ptr_o = obj, True, link_pointer(link)
        return (mv, link, found[2])
    mv.t, mv.moved_t, mv.ptr_t = obj, True, link_pointer(link)
    return (mv, found[1], link)
