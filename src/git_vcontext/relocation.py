"""Keyed elements that moved between versions of a document (M18): where each stands, what a
side changed in outline, and the relocations the diff shows (shared by the merge's moves
and the diff, so that neither depends on the other)."""

from __future__ import annotations

from . import document as doc
from .values import pointer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    Link = Any  # (parent link, segment, node) up to the root, or None
    Entry = tuple[Any, Any, tuple[Any, ...], Any]  # element, anchor, path from it, link

MOVE_KEYS = ("id", "uid")
"""Identity keys whose elements can move (M18); log events (``eventId``) never do."""

_EVENT_KEYS = ("eventId", "event_id")
_STAR = "*"  # an element of an unkeyed array, wherever it stands
_ABSENT = object()  # no member under a key


def link_containers(link: Link, root: Any) -> Iterator[int]:
    """The ids of the containers holding an element (its link's nodes, and the root)."""
    yield id(root)
    node = link[0] if link else None
    while node is not None:
        yield id(node[2])
        node = node[0]


def link_segments(link: Link) -> list[Any]:
    parts: list[Any] = []
    node = link
    while node is not None:
        parts.append(node[1])
        node = node[0]
    parts.reverse()
    return parts


def link_steps(link: Link) -> list[tuple[Any, Any]]:
    out: list[tuple[Any, Any]] = []
    node = link
    while node is not None:
        out.append((node[1], node[2]))
        node = node[0]
    out.reverse()
    return out


def link_pointer(link: Link) -> str:
    return pointer(link_segments(link))


# -- where a side differs from the base (a walk that skips what is unchanged) ------------


class Outline:
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


def outline(base: Any, side: Any) -> Outline:
    out = Outline()
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
    out: Outline,
    stack: list[Any],
) -> None:
    """Members paired by key: pairs to compare, the rest added or removed (objects noted)."""
    for k, v in s.items():
        if not isinstance(v, (dict, list)):
            continue
        bv = b.get(k, _ABSENT)
        if bv is not _ABSENT:
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
    b: list[Any], s: list[Any], b_link: Link, s_link: Link, out: Outline, stack: list[Any]
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
        k = any_id(e) if isinstance(e, dict) else None
        if k is not None:
            b_ids[k] = i if k not in b_ids else -1
    s_ids = set()
    for j in s_rest:
        e = s[j]
        k = any_id(e) if isinstance(e, dict) else None
        if k is not None:
            s_ids.add(k)
            i = b_ids.get(k, -1)
        else:
            i = j if j < len(b) and (not isinstance(b[j], dict) or any_id(b[j]) is None) else -1
        if i >= 0:
            stack.append((b[i], e, (b_link, i, b[i]), (s_link, j, e)))
        elif isinstance(e, (dict, list)):
            _whole(e, (s_link, j, e), out, added=True)
    for i in b_rest:
        e = b[i]
        if not isinstance(e, (dict, list)):
            continue
        k = any_id(e) if isinstance(e, dict) else None
        if (k is not None and k not in s_ids) or (k is None and i >= len(s)):
            _whole(e, (b_link, i, e), out, added=False)


def _whole(tree: Any, link: Link, out: Outline, *, added: bool) -> None:
    """A subtree one side added (or removed) whole: its keyed elements, its objects."""
    ids = out.added if added else out.removed
    if isinstance(tree, dict) and link is not None and isinstance(link[1], int):
        key = move_key(tree)  # the subtree is an array element itself
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
    node: dict[str, Any], here: Link, out: Outline, stack: list[Any], *, added: bool
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
            key = move_key(e)
            if key is not None:
                ids.add(key)
        if isinstance(e, (dict, list)):
            stack.append((e, (here, i, e)))


# -- keyed elements (id, uid) --------------------------------------------------------------


def move_key(element: dict[str, Any]) -> tuple[str, Any] | None:
    if any(k in element for k in _EVENT_KEYS):
        return None
    for key in MOVE_KEYS:
        ident = doc.element_id(element, key)
        if ident is not None:
            return (key, ident)
        if key in element:
            return None
    return None


def keyed_index(root: dict[str, Any]) -> dict[Any, list[Entry]]:
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
    """``index`` of the value under one top-level key (a scope of its own)."""
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
                key = move_key(e)
                here = (link, i, e)
                if key is None:
                    stack.append((e, anchor, (*rel, _STAR), here))
                    continue
                out.setdefault((scope, *key), []).append((e, anchor, rel, here))
                stack.append((e, (scope, *key), (), here))


class Relocation:
    """A keyed element in another array of the new version than of the old one."""

    __slots__ = ("new", "new_holders", "new_ptr", "old", "old_holders", "old_ptr", "old_steps")

    def __init__(self, old: Any, new: Any, old_link: Link, new_link: Link, roots: Any) -> None:
        self.old, self.new = old, new
        self.old_ptr, self.new_ptr = link_pointer(old_link), link_pointer(new_link)
        self.old_steps = link_steps(old_link)  # (key or index, value there) from the root
        # the containers on the way to each (ids), the element itself excluded
        self.old_holders = set(link_containers(old_link, roots[0]))
        self.new_holders = set(link_containers(new_link, roots[1]))


def relocated(old: Any, new: Any) -> list[Relocation]:
    """Keyed elements that moved between two versions of a document (the diff's view of
    M18), by old pointer."""
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return []
    wanted = outline(old, new).candidates()
    if not wanted:
        return []
    o_ix, n_ix = keyed_index(old), keyed_index(new)
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


def any_id(e: dict[str, Any]) -> Any:
    ident = e.get("id")
    if type(ident) is str or type(ident) is int:
        return ("id", ident)
    for key in doc.IDENTITY_KEYS:
        ident = doc.element_id(e, key)
        if ident is not None:
            return (key, ident)
    return None
