"""Which class writes which object: descriptive classes, A/B/C classes, or a document's own."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ...values import JsonValue
from .names import MAP_KEYS, element_name, is_property_name, letter_name, member_name, object_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from . import TronDocument

TOP, FIELD, ELEMENT = 0, 1, 2  # where an object sits: a top-level pair, a field, an array element
Pattern = tuple[str, ...]  # keys from the root, "[]" for array elements
_LETTERS = re.compile(r"[A-Z][0-9]*")


class TronClass:
    """A class of the header being written, and how the objects assigned to it use it."""

    __slots__ = ("element", "index", "name", "props", "top", "users")

    def __init__(self, name: str, props: list[str]) -> None:
        self.name = name
        self.props = list(props)
        self.index = {p: i for i, p in enumerate(self.props)}
        self.users = 0
        self.top = self.element = False

    def note(self, role: int) -> None:
        self.users += 1
        self.top = self.top or role == TOP
        self.element = self.element or role == ELEMENT

    def holds(self, keys: tuple[str, ...]) -> bool:
        """Whether ``keys`` are properties of this class, in the class's order."""
        last = -1
        for k in keys:
            i = self.index.get(k, -1)
            if i <= last:
                return False
            last = i
        return True

    def absorb(self, keys: tuple[str, ...]) -> bool:
        """Add the keys this class lacks (each before its successor, else at the end).

        False, and no change, when the known keys come in another order than the class's.
        """
        known = [self.index.get(k) for k in keys]
        positions = [i for i in known if i is not None]
        if positions != sorted(positions):
            return False
        if len(positions) == len(keys):
            return True
        inserts: dict[int, list[str]] = {}
        successor = len(self.props)
        for key, i in zip(reversed(keys), reversed(known), strict=True):
            if i is None:
                inserts.setdefault(successor, []).insert(0, key)
            else:
                successor = i
        merged: list[str] = []
        for i, prop in enumerate([*self.props, None]):
            merged.extend(inserts.get(i, ()))
            if prop is not None:
                merged.append(prop)
        self.props = merged
        self.index = {p: i for i, p in enumerate(merged)}
        return True


class Plan:
    """The class (or None: ``{}`` syntax) for each object, and the classes to add to a header."""

    def __init__(self) -> None:
        self.use: dict[int, TronClass] = {}
        self.new: list[TronClass] = []

    def class_of(self, obj: dict[str, JsonValue]) -> TronClass | None:
        return self.use.get(id(obj))

    def keep(self, rule: Callable[[TronClass], bool]) -> None:
        """Drop the new classes that ``rule`` rejects; their objects fall back to ``{}``."""
        dropped = {id(c) for c in self.new if not rule(c)}
        self.new = [c for c in self.new if id(c) not in dropped]
        self.use = {k: c for k, c in self.use.items() if id(c) not in dropped}


Place = tuple[str, "str | None", int, Pattern]  # (key, descriptive name, role, pattern)
PAIRS: Place = ("", None, TOP, ())  # the vContext dialect's top-level pairs
ROOT: Place = ("", "Root", FIELD, ())  # a standard TRON root value


def member_place(parent: Place, key: str, value: JsonValue) -> Place:
    """Where the member ``key`` of an object at ``parent`` sits, and its descriptive name
    ("" for free-form maps such as narratives and metadata, which take no class)."""
    parent_key, desc, _, pattern = parent
    if desc == "":  # members of a free-form map are named after the map
        name = member_name(parent_key)
    elif isinstance(value, list):
        name = element_name(key, desc)
    else:
        name = "" if key in MAP_KEYS else object_name(key, desc)
    return (key, name, TOP if desc is None else FIELD, (*pattern, key))


def element_place(parent: Place) -> Place:
    """Where the elements of the array at ``parent`` sit."""
    key, desc, _, pattern = parent
    return (key, desc, ELEMENT, (*pattern, "[]"))


def walk(value: JsonValue, *, pairs: bool) -> Iterator[tuple[dict[str, Any], str, int, Pattern]]:
    """Objects in document order, parents first: (object, descriptive name, role, pattern).

    With ``pairs`` the root is the vContext dialect's top-level pairs, not an object.
    """
    if pairs and isinstance(value, dict):
        return walk_from([(v, member_place(PAIRS, k, v)) for k, v in value.items()])
    return walk_from([(value, ROOT)])


def walk_from(
    roots: list[tuple[JsonValue, Place]],
) -> Iterator[tuple[dict[str, Any], str, int, Pattern]]:
    """The objects in each of ``roots`` (a value and its place), in order, without recursion."""
    stack = list(reversed(roots))
    while stack:
        node, place = stack.pop()
        if isinstance(node, dict):
            yield node, place[1] or "", place[2], place[3]
            stack.extend(
                (v, member_place(place, k, v))
                for k, v in reversed(node.items())
                if isinstance(v, (dict, list))
            )
        elif isinstance(node, list):
            inner = element_place(place)
            stack.extend((el, inner) for el in reversed(node))


def plan_vcontext(root: dict[str, JsonValue]) -> Plan:
    """Descriptive classes holding the union of their objects' keys (absent -> null)."""
    plan, groups = Plan(), _Groups(set())
    for obj, desc, role, _ in walk(root, pairs=True):
        if desc and dialect_eligible(obj):
            cls = groups.assign(desc, tuple(obj), plan)
            cls.note(role)
            plan.use[id(obj)] = cls
    plan.keep(_spec_advice)
    return plan


def _spec_advice(c: TronClass) -> bool:
    """Top-level values always; else 3+ properties, or 2 that recur or sit in an array."""
    n = len(c.props)
    return c.top or n >= 3 or (n == 2 and (c.users >= 2 or c.element))


def plan_standard(value: JsonValue) -> Plan:
    """One class per exact key sequence, named A..Z, A1.. (positional null is null)."""
    plan, shapes = Plan(), _Shapes(set())
    for obj, desc, role, _ in walk(value, pairs=False):
        shapes.assign(obj, desc, role, plan)
    plan.keep(lambda c: len(c.props) >= 3 or c.users >= 2)
    shapes.name_letters(plan)
    return plan


def dialect_eligible(obj: dict[str, JsonValue]) -> bool:
    """An object the dialect can instantiate: keys unquoted, no real null (null = absent)."""
    if not obj or any(v is None for v in obj.values()):
        return False
    return all(map(is_property_name, obj))


class _Groups:
    """Descriptive names -> their classes (Name, Name2, ...) in the vContext dialect."""

    def __init__(self, taken: set[str]) -> None:
        self.taken = taken
        self.by_name: dict[str, list[TronClass]] = {}

    def assign(self, desc: str, keys: tuple[str, ...], plan: Plan) -> TronClass:
        group = self.by_name.setdefault(desc, [])
        for cls in group:
            if cls.absorb(keys):
                return cls
        cls = TronClass(unique_name(desc, self.taken), list(keys))
        self.taken.add(cls.name)
        group.append(cls)
        plan.new.append(cls)
        return cls


class _Shapes:
    """Exact key sequences -> classes (standard TRON); named once the kept ones are known."""

    def __init__(self, taken: set[str], *, letters: bool = True) -> None:
        self.taken = taken
        self.letters = letters
        self.by_keys: dict[tuple[str, ...], TronClass] = {}

    def assign(self, obj: dict[str, JsonValue], desc: str, role: int, plan: Plan) -> None:
        keys = tuple(obj)
        if len(keys) < 2:
            return
        cls = self.by_keys.get(keys)
        if cls is None:
            cls = self.by_keys[keys] = TronClass(desc or "Object", list(keys))
            plan.new.append(cls)
        cls.note(role)
        plan.use[id(obj)] = cls

    def name_letters(self, plan: Plan) -> None:
        index = 0
        for cls in plan.new:
            if self.letters:
                while letter_name(index) in self.taken:
                    index += 1
                cls.name = letter_name(index)
            else:
                cls.name = unique_name(cls.name, self.taken)
            self.taken.add(cls.name)


def unique_name(desc: str, taken: set[str]) -> str:
    if desc not in taken:
        return desc
    n = 2
    while f"{desc}{n}" in taken:
        n += 1
    return f"{desc}{n}"


# -- rendering with a document's own classes ----------------------------------------


def plan_render(doc: TronDocument, new: JsonValue, *, vcontext: bool) -> Plan:
    """Ours' classes where objects fit them (ours' choice at each place first), new ones else."""
    if vcontext and isinstance(new, dict):
        return plan_places(doc, [(v, member_place(PAIRS, k, v)) for k, v in new.items()])
    return plan_places(doc, [(new, ROOT)], vcontext=False)


def plan_places(
    doc: TronDocument,
    roots: list[tuple[JsonValue, Place]],
    *,
    vcontext: bool = True,
    extended: dict[str, list[str]] | None = None,
    keyed: set[int] | None = None,
    classed: set[int] | None = None,
    rows: bool = False,
) -> Plan:
    """plan_render for the values ``roots`` only (each at its place in the document): the
    parts of a minimal edit that are written afresh. ``extended``: ours' classes with the
    properties the edit adds at their end; ``keyed``: objects to write with ``{}``;
    ``classed``: new elements among ours' class instances, and with ``rows`` (ours writes
    records one a line) any new record: each gets a class even when it is the only one of
    its shape (the header gains one)."""
    chooser = _Chooser(doc, vcontext=vcontext, extended=extended)
    keyed = keyed or set()
    classed = classed or set()
    forced: set[int] = set()  # the new classes such elements need
    plan, taken = Plan(), set(doc.classes)
    groups = _Groups(taken)
    letters = all(_LETTERS.fullmatch(n) for n in doc.classes)
    shapes = _Shapes(taken, letters=letters)
    for obj, desc, role, pattern in walk_from(roots):
        preferred = chooser.preferred.get(pattern)
        if preferred == "" or id(obj) in keyed:  # ours wrote {} here, or must now
            continue
        cls = chooser.choose(obj, (preferred, desc))
        if cls is not None:
            plan.use[id(obj)] = cls
        elif vcontext and desc and dialect_eligible(obj):
            cls = groups.assign(desc, tuple(obj), plan)
            cls.note(role)
            plan.use[id(obj)] = cls
            if id(obj) in classed or (rows and role == ELEMENT):
                forced.add(id(cls))
        elif not vcontext:
            shapes.assign(obj, desc, role, plan)
    # PRODUCT: {} for a shape seen once, except a record among class instances or rows
    plan.keep(lambda c: len(c.props) >= 2 and (c.users >= 2 or id(c) in forced))
    if not vcontext:
        shapes.name_letters(plan)
    return plan


class _Chooser:
    """Picks one of a document's classes for an object (preferred name, else best fit)."""

    def __init__(
        self, doc: TronDocument, *, vcontext: bool, extended: dict[str, list[str]] | None = None
    ) -> None:
        more = extended or {}
        self.classes = {n: TronClass(n, [*p, *more.get(n, ())]) for n, p in doc.classes.items()}
        self.vcontext = vcontext
        self.best: dict[tuple[str, ...], TronClass | None] = {}
        preferred = doc.memo.get("preferences")
        if preferred is None:
            preferred = doc.memo["preferences"] = _Preferences(doc)
        self.preferred: _Preferences = preferred

    def fits(self, cls: TronClass, keys: tuple[str, ...]) -> bool:
        """Dialect: keys in the class's order, the rest absent; standard: exactly its keys."""
        if self.vcontext:
            return cls.holds(keys)
        return len(keys) == len(cls.props) and list(keys) == cls.props

    def choose(self, obj: dict[str, JsonValue], names: tuple[str | None, ...]) -> TronClass | None:
        if not obj or (self.vcontext and any(v is None for v in obj.values())):
            return None
        keys = tuple(obj)
        for name in names:
            cls = self.classes.get(name or "")
            if cls is not None and self.fits(cls, keys):
                return cls
        if keys not in self.best:
            fitting = [c for c in self.classes.values() if self.fits(c, keys)]
            self.best[keys] = min(fitting, key=lambda c: len(c.props), default=None)
        return self.best[keys]


class _Preferences:
    """For a place in ours, the class that wrote the first object there ("" for {}, None
    when ours has no object there), looked up when asked: a minimal edit asks for a few."""

    def __init__(self, doc: TronDocument) -> None:
        self.doc = doc
        self.found: dict[Pattern, str | None] = {}

    def get(self, pattern: Pattern) -> str | None:
        if pattern not in self.found:
            self.found[pattern] = self._first(pattern)
        return self.found[pattern]

    def _first(self, pattern: Pattern) -> str | None:
        """Depth first, in document order, without recursion."""
        made_by = self.doc.made_by
        stack: list[tuple[JsonValue, int]] = [(self.doc.data, 0)]
        while stack:
            node, depth = stack.pop()
            if depth == len(pattern):
                name = made_by.get(id(node)) if isinstance(node, dict) else None
                if name is not None:
                    return name
                continue
            part = pattern[depth]
            if part == "[]":
                if isinstance(node, list):
                    stack.extend((el, depth + 1) for el in reversed(node))
            elif isinstance(node, dict) and part in node:
                stack.append((node[part], depth + 1))
        return None


def preferences(doc: TronDocument) -> Any:
    """The document's ``_Preferences`` (kept in its memo; a stub of a longer document is
    given the whole document's, ``grown``)."""
    found = doc.memo.get("preferences")
    if found is None:
        found = doc.memo["preferences"] = _Preferences(doc)
    return found
