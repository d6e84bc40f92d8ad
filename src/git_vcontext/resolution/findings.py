"""Validation findings a resolution adds: a value given must not make the document invalid.

Judged by the one judge (``validation.verdict.split``, what every writer asks): the findings
``validate`` counts (notes are not), each new one not in the data before (as often as it
was there); a resolution is judged against the merge's inputs (M19)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..codecs import format_from_name
from ..merging.result import MISSING
from ..validation.files import check_value, findings_of, report_of
from ..validation.verdict import split

if TYPE_CHECKING:
    from typing import Any

    from ..validation.model import FileReport


def new_findings(before: Any, after: Any, path: str) -> list[str]:
    """Validation findings the new data has that the data before it did not."""
    if after is MISSING:
        return []
    report = _report(after, path)
    _, new = split(report, None if before is MISSING else lambda: _report(before, path))
    said = (f"{f.where or '(document)'}: {f.message} [{f.rule}]" for f in new)
    return list(dict.fromkeys(said))  # once each, however many schemas found it


def _report(data: Any, path: str) -> FileReport:
    """``validate``'s report of the data (unlocated: a resolution's data has no text yet)."""
    issues, skipped = check_value(data, path, fmt=format_from_name(path) or "json")
    return report_of(path, findings_of(issues, data, None), skipped)
