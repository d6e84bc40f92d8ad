"""Regular expressions compiled on first use: a process compiles only the ones it needs (the
merge driver of a JSON document needs none of TRON's, TOML's or the error paths')."""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def lazy(source: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A function that returns ``re.compile(source, flags)``, compiled by its first call."""
    compiled: list[re.Pattern[str]] = []

    def pattern() -> re.Pattern[str]:
        if not compiled:
            compiled.append(re.compile(source, flags))
        return compiled[0]

    return pattern
