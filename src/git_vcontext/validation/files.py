"""Validating one file's bytes: the entry point the command, the hook and the library share.

Parse (rules ``parse``/``conflict-markers``), then the checks that apply to what was
parsed (``checks`` for vContext, ``records`` for JSONL, ``vermas_docs`` for VerMAS
templates, processes, evidence and assignments; ``projections`` when the files next to
it can be read), then each finding located in the source text.
Heavy imports (jsonschema) happen only when a schema check runs, once per process.
"""

from __future__ import annotations

from ..codecs import parse
from ..document import anchored_path
from ..errors import ParseError
from ..values import pointer
from ..vermas.kinds import document_kind
from .checks import NOT_A_DOCUMENT, is_document
from .checks import check_document as check_data
from .model import FileReport, Finding
from .rules import NOTE_RULES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..codecs import Document
    from .model import Issue

    Sibling = Callable[[str], bytes | None]


def check_bytes(
    raw: bytes,
    path: str,
    *,
    covered: bool = False,
    sibling: Sibling | None = None,
    place: str | None = None,
) -> FileReport:
    """Validate the content ``raw`` of the file ``path`` (format from the name, else content).

    ``covered``: the path is in the vContext file set (install's patterns, .gitattributes);
    there, a JSON or TRON value that is not a vContext document (a config next to the
    documents) is skipped with a note instead of refused (PRODUCT.md "Validation"); a
    VerMAS file (a process, evidence) is checked as what it is.
    ``sibling(name)`` reads a file next to it (None when absent): given, a VerMAS
    projection is checked against the ``events.jsonl`` beside it.
    ``place``: the path as the repository names it, when ``path`` is a name given on the
    command line (``pb.json`` from inside ``.work/processes/``): a VerMAS file is known by
    its place in the repository, as the pre-push hook and the guard know it.
    """
    try:
        doc = parse(raw, path=path)
    except ParseError as err:
        finding = Finding(err.rule, "", err.reason, err.line, err.column)
        return FileReport(path, (finding,))
    except RecursionError:  # belt and braces: the codecs limit nesting themselves
        return FileReport(path, (Finding("parse", "", "nesting too deep to read"),))
    if (
        covered
        and doc.format in ("json", "tron")
        and not _vermas(place or path, doc)
        and not is_document(doc.data)
    ):
        note = f"not a vContext document ({NOT_A_DOCUMENT}): not checked"
        return FileReport(path, (), (note,), checked=False)
    return check_document(doc, path, sibling=sibling, place=place)


def _vermas(path: str, doc: Document) -> bool:
    return document_kind(path, doc.data, doc.format) is not None


def check_document(
    doc: Document, path: str = "", *, sibling: Sibling | None = None, place: str | None = None
) -> FileReport:
    """Validate a parsed document; findings are located in its source text (``place``: as
    ``check_bytes``)."""
    text = getattr(doc, "text", None)
    issues, skipped = check_value(
        doc.data, place or path, fmt=doc.format, text=text if isinstance(text, str) else None
    )
    if sibling is not None and doc.format == "jsonl":
        # lazy: only a VerMAS log read beside its projections (the guard checks none)
        from .projections import projection_issues

        drift, not_checked = projection_issues(path, doc.data, sibling)
        issues.extend(drift)
        skipped.extend(not_checked)
    locate = _locator(doc) if issues else None  # most documents: nothing to locate
    return report_of(path, findings_of(issues, doc.data, locate), skipped)


def report_of(path: str, findings: tuple[Finding, ...], skipped: list[str]) -> FileReport:
    """A report with the findings of note rules (``rules.NOTE_RULES``) set apart as notes."""
    errors = tuple(f for f in findings if f.rule not in NOTE_RULES)
    notes = tuple(f for f in findings if f.rule in NOTE_RULES)
    return FileReport(path, errors, tuple(skipped), notes=notes)


def check_value(
    data: Any,
    path: str = "",
    *,
    fmt: str | None = None,
    jsonl: bool = False,
    text: str | None = None,
) -> tuple[list[Issue], list[str]]:
    """Unlocated findings and skipped checks for parsed data of format ``fmt`` (JSONL: the
    list of records; ``jsonl=True`` says the same); VerMAS files by place, else content.
    At most MAX_ERRORS schema errors are explained, whatever the number of records.
    ``text``: the text ``data`` was parsed from, if known (rules skip what it cannot hold)."""
    from .schemas import error_budget  # lazy: jsonschema's helpers only where they run

    with error_budget():
        return _check_value(data, path, fmt or ("jsonl" if jsonl else "json"), text)


def _check_value(
    data: Any, path: str, fmt: str, text: str | None = None
) -> tuple[list[Issue], list[str]]:
    if fmt == "jsonl":
        # lazy: only for JSONL files
        from .records import check_records

        return check_records(path, data)

    kind = document_kind(path, data, fmt)
    if kind is not None:
        # lazy: only for VerMAS files
        from .vermas_docs import check_vermas_document

        return check_vermas_document(kind, data), []
    if fmt == "toml":
        msg = "a TOML file that is not a VerMAS template (no [[steps]]); nothing to validate"
        return [("not-vcontext", (), msg)], []

    return check_data(data, text=text)


def findings_of(issues: list[Issue], data: Any, locate: Any) -> tuple[Finding, ...]:
    """Located findings in document order (``locate``: parts -> (line, column), or None)."""
    keys: dict[int, str | None] = {}  # identity key of each array, computed once
    found = [_finding(issue, data, locate, keys) for issue in _ordered(issues)]
    if locate is not None:  # the order of the text: what an editor jumps through
        found.sort(key=lambda f: (f.line or 0, f.column or 0))
    return tuple(found)


def _ordered(issues: list[Issue]) -> list[Issue]:
    """Document order (by path), then rule; exact duplicates dropped."""
    unique = dict.fromkeys(issues)
    return sorted(unique, key=lambda i: ([(isinstance(p, str), p) for p in i[1]], i[0]))


def _finding(issue: Issue, data: Any, locate: Any, keys: dict[int, str | None]) -> Finding:
    rule, parts, message = issue
    line, column = locate(parts) if locate else (None, None)
    where = anchored_path(data, parts, keys) if parts else ""
    return Finding(rule, pointer(parts), message, line, column, where)


def _locator(doc: Any) -> Any:
    """A function from path parts to (line, column) in the document's text, if it has one."""
    text = getattr(doc, "text", None)
    if not isinstance(text, str):
        return None
    scan = getattr(doc, "_container", None)  # cached per document (codecs.json_text)
    # lazy: only a document with findings is located (positions loads re and bisect, which
    # the guard's light path, judging clean documents, does without)
    from . import positions

    return positions.locator(text, doc.format, scan=scan)
