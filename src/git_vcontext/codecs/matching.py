"""Which old element a new one continues, for writers that re-print edits of ours' text."""

from __future__ import annotations

from ..keys import fingerprint
from ..values import JsonValue, same

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def appended_only(old: list[Any], new: list[Any]) -> bool:
    """``new`` is ``old`` (the very same elements, in order) plus elements at the end."""
    if len(old) < 2 or len(new) <= len(old):
        return False
    return all(a is b for a, b in zip(old, new, strict=False))


def match_elements(old: list[Any], new: list[Any]) -> list[int | None]:
    """For each new element, the index of the old element it continues (or None): the very
    same object, else one with the same identity (``keys.fingerprint``) or content."""
    result: list[int | None] = [None] * len(new)
    used = [False] * len(old)
    pending = _pair_same_objects(old, new, result, used)
    if not pending:
        return result
    prints = {i: fingerprint(new[i]) for i in pending}
    old_prints: dict[int, Any] = {}  # old elements' fingerprints, each worked out once
    _pair_in_place(old, result, used, prints, old_prints)
    rest = _pair_same_prints(old, result, used, prints, old_prints)
    _uncross_equal(result, prints)
    _pair_by_position(old, new, result, used, rest)
    _pair_renamed(old, new, result, used)
    return result


def _pair_same_objects(
    old: list[Any], new: list[Any], result: list[int | None], used: list[bool]
) -> list[int]:
    """Pair each new container that is the very same object as an old one; the indexes of the
    new elements left unpaired, in order."""
    # Only containers: None, booleans, small ints and interned strings are shared by equal
    # values, so their ids tell no places apart.
    by_id = {id(v): j for j, v in enumerate(old) if isinstance(v, (dict, list))}
    pending: list[int] = []
    for i, v in enumerate(new):
        j = by_id.get(id(v)) if isinstance(v, (dict, list)) else None
        if j is not None and not used[j] and old[j] is v:
            result[i] = j
            used[j] = True
        else:
            pending.append(i)
    return pending


def _pair_in_place(
    old: list[Any],
    result: list[int | None],
    used: list[bool],
    prints: dict[int, Any],
    old_prints: dict[int, Any],
) -> None:
    """An equal value (no identity) at the same index stays where it is: when an edit makes a
    value equal to a later neighbour, the neighbour keeps its own text (the edited one is paired
    later)."""
    for i, key in prints.items():
        if i >= len(old) or used[i] or key[0] == "@":
            continue
        old_prints[i] = fingerprint(old[i])
        if old_prints[i] == key:
            result[i] = i
            used[i] = True


def _pair_same_prints(
    old: list[Any],
    result: list[int | None],
    used: list[bool],
    prints: dict[int, Any],
    old_prints: dict[int, Any],
) -> list[int]:
    """Pair the new elements still unpaired with unused old ones of the same fingerprint, first
    come first served; the indexes of the new elements left unpaired, in order."""
    buckets: dict[Any, list[int]] = {}
    for j in range(len(old) - 1, -1, -1):
        if not used[j]:
            key = old_prints[j] if j in old_prints else fingerprint(old[j])
            buckets.setdefault(key, []).append(j)
    rest: list[int] = []
    for i, key in prints.items():
        if result[i] is not None:
            continue
        stack = buckets.get(key)
        while stack and used[stack[-1]]:
            stack.pop()
        if stack:
            j = stack.pop()
            result[i] = j
            used[j] = True
        else:
            rest.append(i)
    return rest


def _uncross_equal(result: list[int | None], prints: dict[int, Any]) -> None:
    """Equal values (no identity) paired out of order are paired in order: they are equal, so
    only their texts (and comments) change places, and in order they stay where they were."""
    groups: dict[Any, list[int]] = {}
    for i, key in prints.items():
        if key[0] != "@" and result[i] is not None:
            groups.setdefault(key, []).append(i)
    for members in groups.values():
        if len(members) > 1:
            olds = sorted(result[i] for i in members)  # type: ignore[type-var]
            for i, j in zip(members, olds, strict=True):
                result[i] = j


def _pair_renamed(
    old: list[Any], new: list[Any], result: list[int | None], used: list[bool]
) -> None:
    """Pair a leftover element with the leftover old one in its place (the same element
    before it): a scalar edited in place, or an object whose id was edited while most of
    its fields stay. It keeps its text and comments instead of being written anew."""
    for i, v in enumerate(new):
        if result[i] is not None or isinstance(v, list):
            continue
        before = result[i - 1] if i else -1
        if before is None or before + 1 >= len(old) or used[before + 1]:
            continue
        j = before + 1
        was = old[j]
        if isinstance(v, dict):
            alike = isinstance(was, dict) and _mostly_alike(was, v)
        else:
            alike = not isinstance(was, (dict, list))
        if alike:
            result[i] = j
            used[j] = True


def _mostly_alike(a: dict[str, Any], b: dict[str, Any]) -> bool:
    shared = sum(1 for k, v in a.items() if k in b and same(v, b[k]))
    return 2 * shared > len(a.keys() | b.keys())


def _pair_by_position(
    old: list[Any], new: list[Any], result: list[int | None], used: list[bool], rest: list[int]
) -> None:
    """Pair leftover containers without identity in order (an element edited in place)."""
    free = [j for j in range(len(old)) if not used[j] and _anonymous(old[j])]
    k = 0
    for i in rest:
        if k >= len(free) or not _anonymous(new[i]):
            continue
        j = free[k]
        if type(old[j]) is type(new[i]):
            result[i] = j
            used[j] = True
            k += 1


def _anonymous(value: JsonValue) -> bool:
    """A container that carries no identity key."""
    if isinstance(value, list):
        return True
    return isinstance(value, dict) and fingerprint(value)[0] != "@"
