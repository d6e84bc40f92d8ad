"""The verdict cache as the tests look at it (``prepush/cache.py``: one file per verdict,
``<git common dir>/vcontext/verdicts/<fingerprint>/<fan-out>/<key>``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def verdict_files(common_dir: Path) -> dict[str, Path]:
    """Every verdict kept in a repository (its git common dir), by key."""
    root = common_dir / "vcontext" / "verdicts"
    return {p.name: p for p in root.glob("*/*/*") if p.is_file() and not p.name.startswith(".")}


def verdicts(common_dir: Path) -> dict[str, Any]:
    """Every verdict kept in a repository, by key, as read from its file."""
    return {key: json.loads(path.read_text()) for key, path in verdict_files(common_dir).items()}


def leftovers(common_dir: Path) -> list[Path]:
    """Temporary files left in the cache (a writer that did not finish)."""
    return list((common_dir / "vcontext" / "verdicts").glob("*/*/.*"))
