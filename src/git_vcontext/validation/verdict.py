"""The one judge's comparison (``sync.judge``, ``resolve``): a result's findings as those the
document had before and those the edit brought."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from .model import FileReport, Finding


def split(
    after: FileReport, before: FileReport | Callable[[], FileReport] | None
) -> tuple[list[Finding], list[Finding]]:
    """The result's findings (errors, never notes: as ``validate`` counts them) as those the
    document had before (each as often as it had it) and those the edit brought (``before``
    a callable: only asked for when the result has findings; None: a new document)."""
    if after.valid:
        return [], []
    had = before() if callable(before) else before
    known = Counter(key(f) for f in (had.findings if had is not None else ()))
    kept: list[Finding] = []
    new: list[Finding] = []
    for finding in after.findings:
        if known[key(finding)]:
            known[key(finding)] -= 1
            kept.append(finding)
        else:
            new.append(finding)
    return kept, new


def key(f: Finding) -> tuple[str, str, str]:
    """What makes two findings the same one (rule, place, message)."""
    return (f.rule, f.where, f.message)
