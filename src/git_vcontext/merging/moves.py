"""M18 moves: an element one side moved elsewhere carries the other side's edits along.

Found before the merge, applied while it walks the trees:

- a keyed element (``id``, else ``uid``; not a log event) whose id occurs once in its
  container on every side and which a side holds in another array than the base
  (another parent element, or another field) was *moved* by that side;
- an object without identity that a side put under a new key while its only equal
  in the base (a non-empty object, exactly one) is gone from its key in that side
  was moved too.

The merge then skips the element at its old place (``source``) and merges base,
ours and theirs of it at the mover's new place (``arrive``). A move whose new place
the merge never reached as such (an unkeyed array, a conflict around it) is dropped
and the merge run again without it (``Merger.run``), so a move never loses an edit.
"""

from __future__ import annotations

from .. import document as doc
from ..values import canonical, pointer, same
from .result import MISSING, NOT_HANDLED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from .core import Merger, Path

    Link = Any  # (parent link, segment, node) up to the root, or None
    Entry = tuple[Any, Any, tuple[Any, ...], Any]  # element, anchor, path from it, link

MOVE_KEYS = ("id", "uid")
"""Identity keys whose elements can move (M18); log events (``eventId``) never do."""

_EVENT_KEYS = ("eventId", "event_id")
_STAR = "*"  # an element of an unkeyed array, wherever it stands


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
        self.arrived: set[str] = set()  # "o"/"t": that side's new place was merged
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
            mv.arrived.update("ot")
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


# -- finding moves -----------------------------------------------------------------------

MAX_ROUNDS = 3
"""Merges run at most this often: each rerun drops the moves that did not go through."""


def find(base: Any, ours: Any, theirs: Any, dropped: set[Any]) -> Moves:
    """The moves between three parsed documents (``dropped``: tokens to leave alone).

    A walk of what each side changed finds candidates first (an id taken out of one array
    and put into another, an object under a new key equal to one under a removed key);
    only then are the whole documents indexed."""
    if not (isinstance(base, dict) and isinstance(ours, dict) and isinstance(theirs, dict)):
        return Moves([], (set(), set()))
    changes = (_changes(base, ours), _changes(base, theirs))
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
            anc_o.update(_containers(link_o, ours))
        if mv.moved_t:
            anc_t.update(_containers(link_t, theirs))
    return Moves([mv for mv, _, _ in found], (anc_o, anc_t))


def _containers(link: Link, root: Any) -> Iterator[int]:
    """The ids of the containers holding an element (its link's nodes, and the root)."""
    yield id(root)
    node = link[0] if link else None
    while node is not None:
        yield id(node[2])
        node = node[0]


def _segments(link: Link) -> list[Any]:
    parts: list[Any] = []
    node = link
    while node is not None:
        parts.append(node[1])
        node = node[0]
    parts.reverse()
    return parts


def _steps(link: Link) -> list[tuple[Any, Any]]:
    out: list[tuple[Any, Any]] = []
    node = link
    while node is not None:
        out.append((node[1], node[2]))
        node = node[0]
    out.reverse()
    return out


def _ptr(link: Link) -> str:
    return pointer(_segments(link))


# -- where a side differs from the base (a walk that skips what is unchanged) ------------


class _Changes:
    """What a side did, in outline: keyed elements it took out of an array and put into one
    (by move key), objects under keys it added (with their link) and objects under keys it
    removed (base objects, with their base link)."""

    def __init__(self) -> None:
        self.added: set[Any] = set()
        self.removed: set[Any] = set()
        self.new_members: list[tuple[dict[str, Any], Link]] = []
        self.gone_members: list[tuple[dict[str, Any], Link]] = []

    def candidates(self) -> set[Any]:
        return self.added & self.removed


def _changes(base: Any, side: Any) -> _Changes:
    out = _Changes()
    stack: list[tuple[Any, Any, Link, Link]] = [(base, side, None, None)]
    while stack:
        b, s, b_link, s_link = stack.pop()
        if b is s or b == s:  # Python's equality (in C): values equal but for a boolean
            continue  # where a number stood add and remove no container, so hold no move
        if isinstance(b, dict) and isinstance(s, dict):
            _changed_members(b, s, b_link, s_link, out, stack)
        elif isinstance(b, list) and isinstance(s, list):
            _changed_elements(b, s, b_link, s_link, out, stack)
        else:
            if isinstance(b, (dict, list)):
                _whole(b, b_link, out, added=False)
            if isinstance(s, (dict, list)):
                _whole(s, s_link, out, added=True)
    return out


def _changed_members(
    b: dict[str, Any],
    s: dict[str, Any],
    b_link: Link,
    s_link: Link,
    out: _Changes,
    stack: list[Any],
) -> None:
    """Members paired by key: pairs to compare, the rest added or removed (objects noted)."""
    for k, v in s.items():
        if not isinstance(v, (dict, list)):
            continue
        bv = b.get(k, MISSING)
        if bv is not MISSING:
            stack.append((bv, v, (b_link, k, bv), (s_link, k, v)))
            continue
        if isinstance(v, dict) and v:
            out.new_members.append((v, (s_link, k, v)))
        _whole(v, (s_link, k, v), out, added=True)
    for k, bv in b.items():
        if k in s or not isinstance(bv, (dict, list)):
            continue
        if isinstance(bv, dict) and bv:
            out.gone_members.append((bv, (b_link, k, bv)))
        _whole(bv, (b_link, k, bv), out, added=False)


def _changed_elements(
    b: list[Any], s: list[Any], b_link: Link, s_link: Link, out: _Changes, stack: list[Any]
) -> None:
    """Elements paired by id (else by index): pairs to compare, the rest added or removed.
    Elements equal at the same index are left out first (most of a long list, usually)."""
    n = min(len(b), len(s))
    b_rest = [i for i in range(n) if b[i] is not s[i] and b[i] != s[i]]
    b_rest.extend(range(n, len(b)))
    s_rest = [j for j in b_rest if j < len(s)]
    s_rest.extend(range(max(n, len(b)), len(s)))
    b_ids: dict[Any, int] = {}
    for i in b_rest:
        e = b[i]
        k = _any_id(e) if isinstance(e, dict) else None
        if k is not None:
            b_ids[k] = i if k not in b_ids else -1
    s_ids = set()
    for j in s_rest:
        e = s[j]
        k = _any_id(e) if isinstance(e, dict) else None
        if k is not None:
            s_ids.add(k)
            i = b_ids.get(k, -1)
        else:
            i = j if j < len(b) and (not isinstance(b[j], dict) or _any_id(b[j]) is None) else -1
        if i >= 0:
            stack.append((b[i], e, (b_link, i, b[i]), (s_link, j, e)))
        elif isinstance(e, (dict, list)):
            _whole(e, (s_link, j, e), out, added=True)
    for i in b_rest:
        e = b[i]
        if not isinstance(e, (dict, list)):
            continue
        k = _any_id(e) if isinstance(e, dict) else None
        if (k is not None and k not in s_ids) or (k is None and i >= len(s)):
            _whole(e, (b_link, i, e), out, added=False)


def _whole(tree: Any, link: Link, out: _Changes, *, added: bool) -> None:
    """A subtree one side added (or removed) whole: its keyed elements, its objects."""
    ids = out.added if added else out.removed
    if isinstance(tree, dict) and link is not None and isinstance(link[1], int):
        key = _move_key(tree)  # the subtree is an array element itself
        if key is not None:
            ids.add(key)
    stack: list[tuple[Any, Link]] = [(tree, link)]
    while stack:
        node, here = stack.pop()
        if isinstance(node, dict):
            _whole_members(node, here, out, stack, added=added)
        elif isinstance(node, list):
            _whole_elements(node, here, ids, stack)


def _whole_members(
    node: dict[str, Any], here: Link, out: _Changes, stack: list[Any], *, added: bool
) -> None:
    """An object's containers, to walk next; an added one's objects are new members."""
    for k, v in node.items():
        if isinstance(v, (dict, list)):
            child = (here, k, v)
            if added and isinstance(v, dict) and v:
                out.new_members.append((v, child))
            stack.append((v, child))


def _whole_elements(node: list[Any], here: Link, ids: set[Any], stack: list[Any]) -> None:
    """An array's containers, to walk next; the move keys of its keyed elements into ``ids``."""
    for i, e in enumerate(node):
        if isinstance(e, dict):
            key = _move_key(e)
            if key is not None:
                ids.add(key)
        if isinstance(e, (dict, list)):
            stack.append((e, (here, i, e)))


# -- keyed elements (id, uid) --------------------------------------------------------------


def _move_key(element: dict[str, Any]) -> tuple[str, Any] | None:
    if any(k in element for k in _EVENT_KEYS):
        return None
    for key in MOVE_KEYS:
        ident = doc.element_id(element, key)
        if ident is not None:
            return (key, ident)
        if key in element:
            return None
    return None


def _index(root: dict[str, Any]) -> dict[Any, list[Entry]]:
    """Every keyed array element by (container, key, id), with where it stands.

    Where = the nearest keyed element around it (its anchor) and the keys from there,
    so an element inside a moved parent has not moved itself.
    """
    out: dict[Any, list[Entry]] = {}
    for scope, top in root.items():
        if isinstance(top, (dict, list)):
            _index_scope(scope, top, out)
    return out


def _index_scope(scope: str, top: Any, out: dict[Any, list[Entry]]) -> None:
    """``_index`` of the value under one top-level key (a scope of its own)."""
    stack: list[tuple[Any, Any, tuple[Any, ...], Any]] = [(top, None, (scope,), (None, scope, top))]
    while stack:
        node, anchor, rel, link = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(v, (dict, list)):
                    stack.append((v, anchor, (*rel, k), (link, k, v)))
            continue
        for i, e in enumerate(node):
            if isinstance(e, list):
                stack.append((e, anchor, (*rel, _STAR), (link, i, e)))
            elif isinstance(e, dict):
                key = _move_key(e)
                here = (link, i, e)
                if key is None:
                    stack.append((e, anchor, (*rel, _STAR), here))
                    continue
                out.setdefault((scope, *key), []).append((e, anchor, rel, here))
                stack.append((e, (scope, *key), (), here))


def _keyed(
    base: dict[str, Any],
    ours: dict[str, Any],
    theirs: dict[str, Any],
    dropped: set[Any],
    wanted: set[Any],
) -> list[tuple[Move, Link, Link]]:
    b_ix, o_ix, t_ix = _index(base), _index(ours), _index(theirs)
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
        mv.ptr_b = _ptr(b_link)
        mv.ptr_o = _ptr(o_e[3]) if o_e else ""
        mv.ptr_t = _ptr(t_e[3]) if t_e else ""
        found.append((mv, o_e[3] if o_e else None, t_e[3] if t_e else None))
    found.sort(key=lambda f: f[0].ptr_b)
    return found


class Relocation:
    """A keyed element in another array of the new version than of the old one."""

    __slots__ = ("new", "new_holders", "new_ptr", "old", "old_holders", "old_ptr", "old_steps")

    def __init__(self, old: Any, new: Any, old_link: Link, new_link: Link, roots: Any) -> None:
        self.old, self.new = old, new
        self.old_ptr, self.new_ptr = _ptr(old_link), _ptr(new_link)
        self.old_steps = _steps(old_link)  # (key or index, value there) from the root
        # the containers on the way to each (ids), the element itself excluded
        self.old_holders = set(_containers(old_link, roots[0]))
        self.new_holders = set(_containers(new_link, roots[1]))


def relocated(old: Any, new: Any) -> list[Relocation]:
    """Keyed elements that moved between two versions of a document (the diff's view of
    M18), by old pointer."""
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return []
    wanted = _changes(old, new).candidates()
    if not wanted:
        return []
    o_ix, n_ix = _index(old), _index(new)
    out: list[Relocation] = []
    for key, entries in o_ix.items():
        found = n_ix.get(key)
        if key[1:] not in wanted or len(entries) != 1 or not found or len(found) != 1:
            continue
        (o_el, o_anchor, o_rel, o_link), (n_el, n_anchor, n_rel, n_link) = entries[0], found[0]
        if (o_anchor, o_rel) != (n_anchor, n_rel):
            out.append(Relocation(o_el, n_el, o_link, n_link, (old, new)))
    out.sort(key=lambda x: x.old_ptr)
    return out


# -- objects without identity, found by content ------------------------------------------


def _any_id(e: dict[str, Any]) -> Any:
    ident = e.get("id")
    if type(ident) is str or type(ident) is int:
        return ("id", ident)
    for key in doc.IDENTITY_KEYS:
        ident = doc.element_id(e, key)
        if ident is not None:
            return (key, ident)
    return None


def _likely(changes: _Changes) -> list[tuple[dict[str, Any], Link]]:
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
            k = _any_id(b_el) if isinstance(b_el, dict) else None
            if k is not None:
                hits = [e for e in node if isinstance(e, dict) and _any_id(e) == k]
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
    changes: tuple[_Changes, _Changes],
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
    segments = _segments(b_link)
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
        mv.o, mv.moved_o, mv.ptr_o = obj, True, _ptr(link)
        return (mv, link, found[2])
    mv.t, mv.moved_t, mv.ptr_t = obj, True, _ptr(link)
    return (mv, found[1], link)
