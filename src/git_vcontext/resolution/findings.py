"""Validation findings a resolution adds: a value given must not make the document invalid."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..codecs import format_from_name
from ..document import anchored_path
from ..merging.result import MISSING
from ..validation.files import check_value

if TYPE_CHECKING:
    from typing import Any


def new_findings(before: Any, after: Any, path: str) -> list[str]:
    """Validation findings the new data has that the data before it did not."""
    if after is MISSING:
        return []

    jsonl = format_from_name(path) == "jsonl"
    old = set() if before is MISSING else set(_keys(check_value(before, path, jsonl=jsonl)[0]))
    issues = [i for i in check_value(after, path, jsonl=jsonl)[0] if _key(i) not in old]
    said = (
        f"{anchored_path(after, list(p)) if p else '(document)'}: {m} [{r}]" for r, p, m in issues
    )
    return list(dict.fromkeys(said))  # once each, however many schemas found it


def _keys(issues: list[Any]) -> list[Any]:
    return [_key(i) for i in issues]


def _key(issue: Any) -> Any:
    rule, parts, message = issue
    return rule, tuple(parts), message
