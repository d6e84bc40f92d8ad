"""Validation of vContext documents: schemas, semantic rules, history rules (PRODUCT.md).

    >>> from git_vcontext.validation import validate
    >>> report = validate({"vContextInfo": {"version": "0.4"},
    ...                    "todoList": {"items": [{"title": "A", "status": "done"}]}})
    >>> report.valid, [f.rule for f in report.findings]
    (False, ['schema'])

The same function is the library's ``git_vcontext.validate``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .model import FileReport


def validate(doc_or_data: Any, *, path: str = "") -> FileReport:
    """Validate parsed data, a ``Document`` (from ``git_vcontext.load``), text or bytes.

    Text and bytes are parsed first (format from ``path``, else the content); findings
    are located (line, column) whenever there is source text.
    """
    # lazy: the pre-push hook imports the package, not always its checks
    from .files import check_bytes, check_document

    if isinstance(doc_or_data, (bytes, str)):
        raw = doc_or_data.encode() if isinstance(doc_or_data, str) else doc_or_data
        return check_bytes(raw, path)
    if hasattr(doc_or_data, "render") and hasattr(doc_or_data, "data"):
        return check_document(doc_or_data, path)
    return _check_data(doc_or_data, path)


def _check_data(data: Any, path: str) -> FileReport:
    # lazy: the pre-push hook imports the package, not always its checks
    from .files import check_value, findings_of, report_of

    issues, skipped = check_value(data, path, jsonl=isinstance(data, list))
    return report_of(path, findings_of(issues, data, None), skipped)
