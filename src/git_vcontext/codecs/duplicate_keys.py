"""Repeated keys in an object (the spec forbids them; some tools write them), as the merge
reads them (M18): the n-th pair (n >= 2) of a repeated key ``k`` is held under
``k + DUPLICATE_MARK + str(n)``, so every pair is data and is written back as it was.
Everything else reads a repeated key as an error."""

from __future__ import annotations

from _contextvars import ContextVar  # (contextvars is this module re-exported: issue 32)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

DUPLICATE_MARK = "\x00"

_keeping: ContextVar[bool] = ContextVar("keep_duplicates", default=False)


def duplicate_name(key: str, n: int) -> str:
    """The name under which the ``n``-th pair (n >= 2) of a repeated ``key`` is held."""
    return f"{key}{DUPLICATE_MARK}{n}"


def written_key(name: str) -> str:
    """The key as written in the text (a repeated pair's name without its number)."""
    return name.split(DUPLICATE_MARK, 1)[0] if DUPLICATE_MARK in name else name


def named_pairs(pairs: Iterator[tuple[str, Any]] | list[tuple[str, Any]]) -> dict[str, Any]:
    """An object from its pairs, each repeated key's later pairs under ``duplicate_name``."""
    d: dict[str, Any] = {}
    count: dict[str, int] = {}
    for k, v in pairs:
        n = count.get(k, 0) + 1
        count[k] = n
        d[k if n == 1 else duplicate_name(k, n)] = v
    return d


def keeping() -> bool:
    """Whether the TRON parsers keep repeated keys now (inside ``KeepDuplicates``)."""
    return _keeping.get()


class KeepDuplicates:
    """Within the block, the TRON parsers keep repeated keys instead of failing."""

    def __enter__(self) -> None:
        self._token = _keeping.set(True)

    def __exit__(self, *exc: object) -> None:
        _keeping.reset(self._token)
