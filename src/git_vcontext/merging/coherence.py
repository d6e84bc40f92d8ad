"""M19: a clean merge never leaves a document worse than its inputs.

Each side alone is coherent; their union may not be: an element one side deleted that
the other side's new reference names, a dependency cycle closed by one edge from each
side, one id added by both sides in two places (or moved by both to places the move
rule could not follow). What cannot be merged validly is a
conflict, so each of these becomes one:

- ``delete/reference`` (found before the merge, ``protected_ids``): the deleted element
  stays a conflict (ours' and theirs' versions of it), resolved like delete/modify;
- ``dependency-cycle`` (after it, ``settle``): the ``dependencies`` of each item of the
  new cycle that a side changed, each side's value;
- ``add/add`` (after it): each place of an id both sides added, the side's element there;
  ``move/move`` the same for an id of the base that the merge left in two places.

Taking one side for all of them gives that side's coherent values back.
"""

from __future__ import annotations

from .. import document as doc
from ..values import same
from .result import MISSING

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from .core import Merger

    Parts = tuple[Any, ...]

REFERENCE_FIELDS = frozenset(
    {"dependencies", "needs", "supersedes", "supersededBy", "duplicateOf", "prevEventId"}
)
"""Fields whose strings name other elements by id (items, steps, ACE entries, events)."""

EDGE_ENDS = ("from", "to")
"""The ends of a vBRIEF ``edges`` element: ids of items."""


# -- delete/reference ----------------------------------------------------------------


def protected_ids(base: Any, ours: Any, theirs: Any) -> frozenset[Any]:
    """Ids of elements one side deleted while the other side added a reference to them."""
    if not isinstance(base, dict):
        return frozenset()
    gone_in_ours, gone_in_theirs = _gone(base, ours), _gone(base, theirs)
    if not gone_in_ours and not gone_in_theirs:
        return frozenset()  # the common case: nobody deleted an element with an id
    refs = [_references(x) for x in (base, ours, theirs)]
    found = {target for _, _, target in refs[2] - refs[0] if target in gone_in_ours}
    found |= {target for _, _, target in refs[1] - refs[0] if target in gone_in_theirs}
    return frozenset(found)


def _gone(base: Any, side: Any) -> set[Any]:
    """``_ids(base) - _ids(side)``, without walking what the side left as the base has it:
    the ids the base holds where the two differ (``_suspects``) are the only ones that may
    be gone, and the side's own are collected only when there is one (a deletion)."""
    suspects: set[Any] = set()
    _suspects(base, side, suspects)
    return suspects - _ids(side) if suspects else suspects


def _suspects(base: Any, side: Any, out: set[Any]) -> None:
    """Add to ``out`` the ids of ``_ids(base)`` that ``side`` may lack: ``base`` and
    ``side`` stand at the same place; a value equal to the base's (``==``, in C) holds the
    same ids (an id is a string, equal only to the same string), an element with an id
    is paired with the side's element of that id in the same array, and anything else
    counts all its ids: a superset of what is gone, within ``_ids(base)`` (the same walk:
    no log, no ``changeLog``), which ``_gone`` checks against the side. Recursive: one
    frame a level of the data, as the merge's own walk."""
    if base == side:
        return
    if type(base) is dict:
        if type(side) is dict:
            _object_suspects(base, side, out)
        else:
            out.update(_ids(base))
    elif type(base) is list and not _event_log(base):  # (a log has no ids in _ids)
        if type(side) is list and not _event_log(side):
            _array_suspects(base, side, out)
        else:
            out.update(_ids(base))


def _object_suspects(base: dict[str, Any], side: dict[str, Any], out: set[Any]) -> None:
    skipped = doc.CHANGELOG_FIELD
    for k, v in base.items():
        kind = type(v)
        if (kind is dict or kind is list) and k != skipped:
            _suspects(v, side.get(k), out)


def _array_suspects(base: list[Any], side: list[Any], out: set[Any]) -> None:
    partners: dict[str, Any] = {}
    for w in side:
        if type(w) is dict:
            ident = w.get("id")
            if type(ident) is str:
                partners.setdefault(ident, w)
    for v in base:
        kind = type(v)
        if kind is dict:
            ident = v.get("id")
            w = partners.get(ident) if type(ident) is str else None
            if w is not None:
                if v != w:  # (equal: no id gone, told in C without the call, issue 32)
                    _suspects(v, w, out)
                continue
            if type(ident) is str:
                out.add(ident)
            out.update(_ids(v))
        elif kind is list:
            out.update(_ids(v))


def _ids(data: Any) -> set[Any]:
    """Every ``id`` of an object that is an element of an array, anywhere (the objects
    ``_objects`` walks, in a loop of its own: it runs on every merge's three documents).
    Parsed data holds plain dicts, lists and strings: ``type() is`` tells them apart at
    half the cost of ``isinstance`` with a tuple."""
    out: set[Any] = set()
    add = out.add
    stack: list[Any] = [data] if type(data) is dict or type(data) is list else []
    pop, push = stack.pop, stack.append
    skipped = doc.CHANGELOG_FIELD
    while stack:
        node = pop()
        if type(node) is dict:
            for k, v in node.items():
                kind = type(v)
                if (kind is dict or kind is list) and k != skipped:
                    push(v)
        elif not _event_log(node):
            for v in node:
                kind = type(v)
                if kind is dict:
                    ident = v.get("id")
                    if type(ident) is str:
                        add(ident)
                    push(v)
                elif kind is list:
                    push(v)
    return out


def _references(data: Any) -> set[tuple[Any, str, str]]:
    """(the referring object's id, field, the id named) for every reference, anywhere."""
    out: set[tuple[Any, str, str]] = set()
    for node, _ in _objects(data):
        owner = node.get("id", node.get("eventId"))
        owner = owner if isinstance(owner, str) else None
        for field in REFERENCE_FIELDS.intersection(node):
            value = node[field]
            for target in value if isinstance(value, list) else [value]:
                if isinstance(target, str):
                    out.add((owner, field, target))
        edges = node.get("edges")
        if isinstance(edges, list):
            for edge in edges:
                if isinstance(edge, dict):
                    for end in EDGE_ENDS:
                        if isinstance(edge.get(end), str):
                            out.add((None, "edges", edge[end]))
    return out


def _objects(data: Any) -> Iterator[tuple[dict[str, Any], bool]]:
    """Every object (with whether it is an element of an array), iteratively; append-only
    logs are not entered (nothing in them is ever deleted, and they are the big part)."""
    stack: list[tuple[Any, bool]] = [(data, False)]
    while stack:
        node, in_array = stack.pop()
        if isinstance(node, dict):
            yield node, in_array
            stack.extend(
                (v, False)
                for k, v in node.items()
                if isinstance(v, (dict, list)) and k != doc.CHANGELOG_FIELD
            )
        elif isinstance(node, list) and not _event_log(node):
            stack.extend((v, True) for v in node if isinstance(v, (dict, list)))


def _event_log(array: list[Any]) -> bool:
    """An array of events (playbook events, JSONL records): its first element says so."""
    first = array[0] if array else None
    return (
        isinstance(first, dict)
        and "id" not in first
        and (doc.EVENT_ID in first or doc.JSONL_EVENT_ID in first)
    )


# -- after the merge: cycles and ids added twice --------------------------------------


def settle(m: Merger, base: Any, ours: Any, theirs: Any, tree: Any) -> Any:
    """The merged tree with each incoherence both sides made together turned into
    conflicts (a new dependency cycle, an id both added in two places)."""
    if not all(isinstance(x, dict) for x in (base, ours, theirs, tree)):
        return tree
    for where in _containers(tree):
        b, o, t = (_at(x, where) for x in (base, ours, theirs))
        if not all(isinstance(x, dict) for x in (o, t)):
            continue
        b = b if isinstance(b, dict) else {}
        tree = _twice_added(m, tree, where, b, o, t)
        tree = _cycles(m, tree, where, b, o, t)
    return tree


def _containers(tree: dict[str, Any]) -> list[Parts]:
    """Containers of the document (a plan item's own todo list included)."""
    out: list[Parts] = []
    for key in doc.CONTAINER_KEYS:
        container = tree.get(key)
        if isinstance(container, dict):
            out.append((key,))
            if not any(isinstance(i.get("todoList"), dict) for i in _item_nodes(container)):
                continue  # (the paths only for a plan item's own todo list)
            for parts, item in _items(container, (key,)):
                if isinstance(item.get("todoList"), dict):
                    out.append((*parts, "todoList"))
    return out


def _items(container: Any, where: Parts) -> Iterator[tuple[Parts, dict[str, Any]]]:
    """Every item of a container with its path (as validation walks them), conflicts
    skipped."""
    stack: list[tuple[Any, Parts]] = [(container, where)]
    while stack:
        node, parts = stack.pop()
        for key in doc.ITEM_ARRAY_KEYS:
            items = node.get(key)
            if not isinstance(items, list) or _event_log(items):
                continue
            for i in range(len(items) - 1, -1, -1):
                if isinstance(items[i], dict):
                    stack.append((items[i], (*parts, key, i)))
        if node is not container:
            yield parts, node


def _item_nodes(container: dict[str, Any]) -> list[dict[str, Any]]:
    """The items ``_items`` yields, in its order, without their paths (which only a
    conflict to place needs)."""
    out: list[dict[str, Any]] = []
    stack: list[Any] = [container]
    keys = doc.ITEM_ARRAY_KEYS
    leaf = _ITEM_ARRAYS.isdisjoint  # an item holding no array of items (one test in C)
    while stack:
        node = stack.pop()
        if type(node) is tuple:  # a run of items without items of their own: in order
            out += node
            continue
        if node is not container:
            out.append(node)
        if leaf(node):
            continue
        for key in keys:
            items = node.get(key)
            if type(items) is list and not _event_log(items):  # (plain data: as _ids)
                found = [i for i in items if type(i) is dict]
                if all(map(leaf, found)):
                    stack.append(tuple(found))  # (popped where its first item would be)
                else:
                    stack.extend(reversed(found))
    return out


_ITEM_ARRAYS = frozenset(doc.ITEM_ARRAY_KEYS)


def _at(data: Any, parts: Parts) -> Any:
    node = data
    for part in parts:
        if isinstance(node, dict) and isinstance(part, str):
            node = node.get(part, MISSING)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return MISSING
    return node


def _by_id(container: Any) -> dict[str, list[tuple[Parts, dict[str, Any]]]]:
    """Items by id, each with its path and its parent item's id (None at the top)."""
    out: dict[str, list[tuple[Parts, dict[str, Any]]]] = {}
    for parts, item in _items(container, ()):
        ident = item.get("id")
        if isinstance(ident, str):
            out.setdefault(ident, []).append((parts, item))
    return out


def _parent_of(container: Any, parts: Parts) -> Any:
    """The id of the item holding the array at ``parts`` (None: the container's own)."""
    if len(parts) < 4:
        return None
    parent = _at(container, parts[:-2])
    return parent.get("id") if isinstance(parent, dict) else None


def _twice_added(m: Merger, tree: Any, where: Parts, base: Any, ours: Any, theirs: Any) -> Any:
    """An id the merge left in two places though no input holds it twice: both sides added
    it in two places (``add/add``), or both moved it to different places in a way the move
    rule (M18) could not follow, e.g. each side nesting the other's moved item (``move/move``).
    A conflict at each place (the side that put it there keeps it, the other has nothing
    there), the outermost first: a place inside another's conflict is that conflict's."""
    container = _at(tree, where)
    if isinstance(container, dict):
        ids = [i for i in (item.get("id") for item in _item_nodes(container)) if isinstance(i, str)]
        if len(set(ids)) == len(ids):
            return tree  # the common case: no id in two places
    b, o, t = (_by_id(x) for x in (base, ours, theirs))
    suspects = {i for i in set(o) & set(t) if len(o[i]) == 1 and len(t[i]) == 1}
    if not suspects:
        return tree
    merged = _by_id(_at(tree, where))
    places = [
        (parts, ident)
        for ident in sorted(suspects)
        if len(b.get(ident, ())) <= 1 and len(merged.get(ident, ())) > 1
        for parts, _ in merged[ident]
    ]
    places.sort(key=lambda place: len(place[0]))  # stable: by id, then by place
    for parts, ident in places:
        item = _at(tree, (*where, *parts))
        if not isinstance(item, dict) or item.get("id") != ident:
            continue  # inside a conflict made for an outer place
        b_item = b[ident][0][1] if ident in b else MISSING
        parent = _parent_of(_at(tree, where), parts)
        mine = o[ident][0][1] if parent == _parent_of(ours, o[ident][0][0]) else MISSING
        yours = t[ident][0][1] if parent == _parent_of(theirs, t[ident][0][0]) else MISSING
        if mine is MISSING and yours is MISSING:
            mine = item
        kind = "add/add" if b_item is MISSING else "move/move"
        tree = _set_at(tree, (*where, *parts), m.conflict(kind, b_item, mine, yours))
    return tree


def _cycles(m: Merger, tree: Any, where: Parts, base: Any, ours: Any, theirs: Any) -> Any:
    """A dependency cycle neither side has: each of its items' ``dependencies`` that a side
    changed becomes a conflict (each side's value), and so do the container's ``edges``
    when a side changed them, so either side's choice has no cycle."""
    graphs = [_dependencies(base), _dependencies(ours)]
    if same(graphs[1], graphs[0]):
        return tree  # one side's edges only: no cycle it did not have
    graphs.append(_dependencies(theirs))
    if same(graphs[2], graphs[0]):
        return tree
    container = _at(tree, where)
    merged = _dependencies(container)
    paths = {ident: parts for parts, item in _items(container, ()) for ident in [item.get("id")]}
    edges_done = False
    for cycle in _strong_components(merged):
        if any(_has_cycle(g, cycle) for g in graphs[1:]):
            continue  # ours or theirs had it already: not made by this merge
        for ident in sorted(cycle):
            b, o, t = (_deps_field(x, ident) for x in (base, ours, theirs))
            parts = paths.get(ident)
            if parts is None or (same(b, o) and same(b, t)):
                continue
            node = m.conflict("dependency-cycle", b, o, t)
            tree = _set_at(tree, (*where, *parts, "dependencies"), node)
        b, o, t = (x.get("edges", MISSING) for x in (base, ours, theirs))
        if not edges_done and not (same(b, o) and same(b, t)):
            edges_done = True
            node = m.conflict("dependency-cycle", b, o, t)
            tree = _set_at(tree, (*where, "edges"), node)
    return tree


def _dependencies(container: Any) -> dict[str, list[str]]:
    """What each item waits for: its ``dependencies``, and blocking ``edges`` (vBRIEF), as
    validation reads them."""
    out: dict[str, list[str]] = {}
    for item in _item_nodes(container):
        ident, deps = item.get("id"), item.get("dependencies")
        if isinstance(ident, str) and isinstance(deps, list):
            out[ident] = [d for d in deps if isinstance(d, str)]
    edges = container.get("edges") if isinstance(container, dict) else None
    for edge in edges if isinstance(edges, list) else ():
        if isinstance(edge, dict) and edge.get("type") in BLOCKING_EDGES:
            src, dst = edge.get("from"), edge.get("to")
            if isinstance(src, str) and isinstance(dst, str):
                out.setdefault(dst, []).append(src)
    return out


BLOCKING_EDGES = (None, "blocks")
"""Edge types that order work (as validation's ``container_rules``)."""


def _deps_field(container: Any, ident: str) -> Any:
    for item in _item_nodes(container):
        if item.get("id") == ident:
            return item.get("dependencies", MISSING)
    return MISSING


def _has_cycle(graph: dict[str, list[str]], nodes: set[str]) -> bool:
    """Whether ``graph`` restricted to ``nodes`` has a cycle."""
    sub = {n: [d for d in graph.get(n, ()) if d in nodes] for n in nodes}
    return any(len(c) > 1 for c in _strong_components(sub))


def _strong_components(graph: dict[str, list[str]]) -> list[set[str]]:
    """The strongly connected components of more than one node (the cycles)."""
    tarjan = _Tarjan(graph)
    for root in sorted(graph):
        if root not in tarjan.index:
            tarjan.visit(root)
    return tarjan.found


class _Tarjan:
    """Tarjan's algorithm, iteratively (no recursion limit)."""

    def __init__(self, graph: dict[str, list[str]]) -> None:
        self.graph = graph
        self.index: dict[str, int] = {}
        self.low: dict[str, int] = {}
        self.on_stack: set[str] = set()
        self.stack: list[str] = []
        self.found: list[set[str]] = []

    def visit(self, root: str) -> None:
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                self.index[node] = self.low[node] = len(self.index)
                self.stack.append(node)
                self.on_stack.add(node)
            nexts = [d for d in self.graph.get(node, ()) if d in self.graph]
            if i < len(nexts):
                work.append((node, i + 1))
                nxt = nexts[i]
                if nxt not in self.index:
                    work.append((nxt, 0))
                elif nxt in self.on_stack:
                    self.low[node] = min(self.low[node], self.index[nxt])
                continue
            if work:
                parent = work[-1][0]
                self.low[parent] = min(self.low[parent], self.low[node])
            if self.low[node] == self.index[node]:
                self._pop(node)

    def _pop(self, node: str) -> None:
        component: set[str] = set()
        while True:
            top = self.stack.pop()
            self.on_stack.discard(top)
            component.add(top)
            if top == node:
                break
        if len(component) > 1:
            self.found.append(component)


def _set_at(tree: Any, parts: Parts, value: Any) -> Any:
    """``tree`` with ``value`` at ``parts``: copies along the path (the merged tree shares
    objects with the sides), the rest shared."""
    if not parts:
        return value
    head, rest = parts[0], parts[1:]
    if isinstance(tree, dict):
        out = dict(tree)
        out[head] = _set_at(tree.get(head), rest, value)
        return out
    if isinstance(tree, list):
        items = list(tree)
        items[head] = _set_at(tree[head], rest, value)
        return items
    return tree
