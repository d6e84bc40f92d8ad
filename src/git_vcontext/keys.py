"""Which field identifies the objects of an array (M3): the keys, the choice, repeats, ids."""

from __future__ import annotations

from .record import record
from .spelling import canonical
from .values import JsonValue

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

IDENTITY_KEYS = ("id", "uid", "eventId", "event_id", "depends_on_id")
"""Keys that identify elements of keyed arrays, in order of preference (M3)."""

JSONL_KEYS = ("event_id", "id", "prefix")
"""Record keys of JSONL files: event logs, projections, VerMAS routes (M6, M3)."""


def _hashable_id(value: JsonValue) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


@record
class Repeat:
    """Why an array is not keyed: a key value that repeats (M3)."""

    field: str  # the key field whose value repeats ("uid" when a uid equals an id)
    value: Any
    side: int  # index of the array (in the order given) where it repeats
    across: str | None = None  # the other key field that shares the value, if any

    def describe(self, sides: Sequence[str] = ("base", "ours", "theirs")) -> str:
        """E.g. ``id 't1' repeats in ours``; ``uid 'x' is also an id in theirs``."""
        where = sides[self.side] if 0 <= self.side < len(sides) else f"array {self.side}"
        if self.across is not None:
            return f"{self.field} {self.value!r} is also an {self.across} in {where}"
        return f"{self.field} {self.value!r} repeats in {where}"


@record
class KeyChoice:
    """The key that identifies an array's objects (M3), or why there is none."""

    key: str | None
    repeat: Repeat | None = None  # set when a repeated key value made the arrays unkeyed


NOT_KEYED = KeyChoice(None)


def key_choice(
    arrays: Iterable[Sequence[Any] | None], candidates: Sequence[str] = IDENTITY_KEYS
) -> KeyChoice:
    """The key field that identifies the objects of these arrays (M3), or why none does.

    The first candidate that some element carries with usable (string or integer)
    values decides: when one of its values repeats in any array, or an element
    without it carries another identity key with a value that this key uses, the
    arrays are not keyed at all (merged by M4), so no element meets the wrong twin.
    Elements without the key are allowed (merged among themselves by M4).
    """
    lists = [(i, a) for i, a in enumerate(arrays) if a is not None]
    if not lists or not all(isinstance(a, list) for _, a in lists):
        return NOT_KEYED
    if not all(_dicts(a) or all(isinstance(e, dict) for e in a) for _, a in lists):
        return NOT_KEYED
    for key in candidates:
        found = _values_of(lists, key)
        if found is None:
            continue  # no element carries it, or some value cannot be an id
        repeat = _repeat(lists, key, found)
        return KeyChoice(None, repeat) if repeat is not None else KeyChoice(key)
    return NOT_KEYED


def _values_of(lists: list[tuple[int, Sequence[Any]]], key: str) -> list[set[Any]] | None:
    """Per array, the typed values of ``key``; None if no element has one or one is unusable."""
    out: list[set[Any]] = []
    carried = False
    for _, elements in lists:
        if _dicts(elements):  # the values looked up in C, their kinds told at once
            n = len(elements)
            ids = list(map(dict.get, elements, [key] * n, [_ABSENT] * n))
            kinds = set(map(type, ids))
            if object in kinds:  # elements without the key
                ids = [i for i in ids if i is not _ABSENT]
                kinds = set(map(type, ids))
            if kinds <= _STRING:
                carried = carried or bool(ids)
                out.append(set(zip([str] * len(ids), ids, strict=True)))
                continue
        values = set()
        for e in elements:
            if key in e:
                ident = e[key]
                if type(ident) is not str and not _hashable_id(ident):  # (most are strings)
                    return None
                values.add((type(ident), ident))
                carried = True
        out.append(values)
    return out if carried else None


def _repeat(
    lists: list[tuple[int, Sequence[Any]]], key: str, found: list[set[Any]]
) -> Repeat | None:
    """The first repeated value of ``key``, or a value another key field shares with it
    (on any side: an element renamed from ``id`` to ``uid`` is not a twin either)."""
    others = [k for k in IDENTITY_KEYS if k != key]
    every = set().union(*found)
    for (side, elements), values in zip(lists, found, strict=True):
        carrying = _carrying(elements, key)
        if carrying != len(values):
            seen: set[Any] = set()
            for e in elements:
                if key in e:
                    typed = (type(e[key]), e[key])
                    if typed in seen:
                        return Repeat(key, e[key], side)
                    seen.add(typed)
        if carrying == len(elements):
            continue  # no element lacks the key: none carries another one instead
        shared = _shared(elements, key, others, every)
        if shared is not None:
            return Repeat(shared[0], shared[1], side, across=key)
    return None


def _shared(
    elements: Sequence[Any], key: str, others: list[str], every: set[Any]
) -> tuple[str, Any] | None:
    """The first other key field and its value, of an element without ``key``, that is
    among ``key``'s values (``every``)."""
    for e in elements:
        if key in e:
            continue
        for other in others:
            ident = e.get(other)
            if _hashable_id(ident) and (type(ident), ident) in every:
                return other, ident
    return None


_ABSENT = object()  # dict.get's answer for a missing key (_values_of)
_STRING = frozenset((str,))
_DICT = frozenset((dict,))


def _dicts(elements: Sequence[Any]) -> bool:
    """Whether every element is a plain dict, told in C (then its look-ups can be made in C
    too: most arrays a merge keys, issue 32); False: ask each one."""
    return set(map(type, elements)) <= _DICT


def _carrying(elements: Sequence[Any], key: str) -> int:
    """How many of the elements (objects) carry ``key`` (counted in C for plain dicts)."""
    if _dicts(elements):
        return sum(map(dict.__contains__, elements, [key] * len(elements)))
    return sum(1 for e in elements if key in e)


def identity_key(
    arrays: Iterable[Sequence[Any] | None], candidates: Sequence[str] = IDENTITY_KEYS
) -> str | None:
    """The key that identifies the objects of these arrays, or None (see ``key_choice``)."""
    return key_choice(arrays, candidates).key


def fingerprint(value: JsonValue) -> Any:
    """Hashable key under which equal elements, or elements with the same identity (the
    first of ``IDENTITY_KEYS`` an object carries as a string or integer), meet."""
    if isinstance(value, dict):
        for k in IDENTITY_KEYS:
            ident = value.get(k)
            if _hashable_id(ident):
                return ("@", k, ident)
        return ("=", canonical(value))
    if isinstance(value, list):
        return ("=", canonical(value))
    if isinstance(value, bool) or value is None:
        return ("c", value)
    if isinstance(value, (int, float)):
        return ("n", value)
    return ("s", value)


def element_id(element: JsonValue, key: str) -> Any:
    """The identity of one element under ``key`` (None when it has none)."""
    if isinstance(element, dict):
        ident = element.get(key)
        if type(ident) is str or _hashable_id(ident):  # (most are strings: one test)
            return ident
    return None
