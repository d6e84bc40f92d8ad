"""Regular expressions compiled on first use: a process compiles only the ones it needs (the
merge driver of a JSON document needs none of TRON's, TOML's or the error paths'), and one
that needs none never imports ``re``. Flags go inline (``(?m)``)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable


def lazy(source: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A function that returns ``re.compile(source, flags)``, compiled by its first call."""
    compiled: list[re.Pattern[str]] = []

    def pattern() -> re.Pattern[str]:
        if not compiled:
            # lazy: a process that compiles no pattern never loads re (nor the enum it loads)
            import re

            compiled.append(re.compile(source, flags))
        return compiled[0]

    return pattern
