"""Validation findings a resolution adds: a value given must not make the document invalid.

Judged by the one judge (``validation.verdict.split``, what every writer asks): the findings
``validate`` counts (notes are not), each new one not in the data before (as often as it
was there); a resolution is judged against the merge's inputs (M19)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..merging.result import MISSING
from ..validation.files import check_value, findings_of, report_of
from ..validation.verdict import split

if TYPE_CHECKING:
    from typing import Any

    from ..validation.model import FileReport


def new_findings(before: Any, after: Any, path: str, fmt: str) -> list[str]:
    """Validation findings the new data has that the data before it did not, judged in
    ``fmt``: the format the resolved document was read in (by its name, else its content,
    as ``validate`` reads the file: a template ``.gitattributes`` routes under a name
    without ``.toml`` is TOML)."""
    if after is MISSING:
        return []
    report = _report(after, path, fmt)
    _, new = split(report, None if before is MISSING else lambda: _report(before, path, fmt))
    said = (f"{f.where or '(document)'}: {f.message} [{f.rule}]" for f in new)
    return list(dict.fromkeys(said))  # once each, however many schemas found it


def _report(data: Any, path: str, fmt: str) -> FileReport:
    """``validate``'s report of the data (unlocated: a resolution's data has no text yet)."""
    issues, skipped = check_value(data, path, fmt=fmt)
    return report_of(path, findings_of(issues, data, None), skipped)
