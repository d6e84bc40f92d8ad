"""Which replaced array elements continue which: objects by what they share, never across ids."""

from __future__ import annotations

from .keys import IDENTITY_KEYS
from .values import same

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

MAX_CELLS = 20_000
"""Above this many (old x new) candidate pairs, replaced elements pair by position."""


def pairable(old: Any, new: Any) -> bool:
    """Containers pair only with their own kind, objects only when they carry the same
    identity keys (``id``, ``uid``, …) with the same values; scalars always pair."""
    if isinstance(old, dict) and isinstance(new, dict):
        return all(old.get(k) == new.get(k) for k in IDENTITY_KEYS if k in old or k in new)
    if isinstance(old, (dict, list)) or isinstance(new, (dict, list)):
        return type(old) is type(new)
    return True


def pair_replaced(old: Sequence[Any], new: Sequence[Any]) -> list[tuple[int, int]]:
    """Pairs (i, j), in order on both sides, of elements a side replaced (M4).

    Each new element continues at most one old one. Objects pair with the one
    they share the most fields with, so among twins (a repeated id) an edited
    element pairs with itself, not with its neighbour; with nothing to tell
    them apart (and for other values) elements pair by position.
    """
    n, m = len(old), len(new)
    if not n or not m:
        return []
    if n * m > MAX_CELLS or not any(isinstance(x, dict) for x in old):
        return [(i, i) for i in range(min(n, m)) if pairable(old[i], new[i])]
    score = [[_score(a, b) for b in new] for a in old]
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = best[i], best[i + 1]
        for j in range(m - 1, -1, -1):
            s = score[i][j]
            v = below[j] if below[j] > row[j + 1] else row[j + 1]
            if s and below[j + 1] + s > v:
                v = below[j + 1] + s
            row[j] = v
    return _walk(score, best, n, m)


def _walk(score: list[list[int]], best: list[list[int]], n: int, m: int) -> list[tuple[int, int]]:
    """The pairs of one best pairing, taking a pair as early as it can be taken."""
    pairs: list[tuple[int, int]] = []
    i = j = 0
    while i < n and j < m:
        s = score[i][j]
        if s and best[i][j] == best[i + 1][j + 1] + s:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs


def _score(old: Any, new: Any) -> int:
    """How well two elements pair: 0 never; objects 1 plus the fields they hold equal
    besides their ids. Objects with an id must share such a field: a twin is told
    from a new element with the same id only by what it holds."""
    if not pairable(old, new):
        return 0
    if not isinstance(old, dict):
        return 1
    shared = sum(1 for k, v in old.items() if k in new and k not in _IDS and same(v, new[k]))
    if shared or not any(k in old for k in _IDS):
        return 1 + shared
    return 0


_IDS = frozenset(IDENTITY_KEYS)
