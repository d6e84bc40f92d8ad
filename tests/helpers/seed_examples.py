"""The seeds' own examples, taken from ../shared/seeds as written (tests skip without it)."""

from __future__ import annotations

import re
from pathlib import Path

_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def seed_example(shared: Path, seed_prefix: str, heading: str, lang: str) -> str:
    """The first ``lang`` code block after the heading line that contains ``heading`` in seed
    ``seed_prefix`` (e.g. ``"000"``), exactly as the seed writes it."""
    path = next((shared / "seeds").glob(f"{seed_prefix}_*.txt"))
    text = path.read_text(encoding="utf-8")
    start = next(
        (m.end() for m in re.finditer(r"^#+ .*$", text, re.M) if heading in m.group(0)), None
    )
    if start is None:
        raise LookupError(f"no heading with {heading!r} in seed {seed_prefix}")
    for match in _BLOCK.finditer(text, start):
        if match.group(1) == lang:
            return match.group(2)
    raise LookupError(f"no {lang} block after {heading!r} in seed {seed_prefix}")
