"""The one judge of what a writer may write (PRODUCT.md, "One truth"; the write path: "the
result is validated before it is written — an invalid result is refused, nothing written").

Every writer asks it: the MCP server's tools, ``playbook add|update|deprecate``, ``ace
apply``, ``fork``'s metadata. A result ``validate`` would report a finding in is never
written: whatever one part writes, ``validate``, the pre-push hook and the server guard
accept (they refuse a commit bringing a new blob of an invalid document, whoever had the
finding first). A finding the document already had names the document as rejected, mending
it the person's step; a finding the edit brought names the edit's result as invalid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

from ..errors import NoPlaybookError, OperationalError, ParseError, Refused, VContextError
from ..validation.model import command_path
from ..validation.verdict import split
from .advice import person

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..codecs import Document
    from ..validation.model import FileReport, Finding

SHOWN = 3
"""How many findings a refusal names (then "and N more")."""


def refuse_invalid(
    rel: str, after: FileReport, before: FileReport | Callable[[], FileReport] | None
) -> None:
    """Refuse (``Refused``, nothing written) a result with any finding ``validate`` reports.

    ``after``: the result's report; ``before``: the document's as it was (a callable: only
    asked for when the result has findings; None: a new document). Kind ``rejected`` when
    the result keeps findings the document had (the person mends it: no edit of a tool
    does), else ``invalid-result`` naming the findings the edit brought.
    """
    verdict = judged(after, before)
    if verdict is None:
        return
    kind, found = verdict
    if kind == "rejected":
        raise Refused("rejected", rejected_message(rel, found))
    said = f"{rel}: the result would not be valid, nothing written: {findings_said(found)}"
    raise Refused("invalid-result", said)


def judged(
    after: FileReport, before: FileReport | Callable[[], FileReport] | None
) -> tuple[str, list[Finding]] | None:
    """``refuse_invalid``'s verdict without its refusal: None for a valid result, else
    (``rejected``, the findings the document had and the result keeps) or
    (``invalid-result``, the findings the edit brought)."""
    if after.valid:
        return None
    kept, new = split(after, before)
    return ("rejected", kept) if kept else ("invalid-result", new)


def findings_said(findings: list[Finding]) -> str:
    """The first findings in one line (then "and N more"), as a refusal names them."""
    shown = "; ".join(_said(f) for f in findings[:SHOWN])
    more = f" (and {len(findings) - SHOWN} more)" if len(findings) > SHOWN else ""
    return shown + more


def rejected_message(rel: str, findings: list[Finding]) -> str:
    """One short line: the document ``validate`` rejects as it is, its first finding in full
    (the rule named) and the other findings' rules, and the person's step (``validate``
    names every finding)."""
    if not findings:
        return _rejected_line(rel, rel)
    first, rest = findings[0], findings[1:]
    rules = list(dict.fromkeys(f"[{f.rule}]" for f in rest))
    more = f" (and {len(rest)} more: {' '.join(rules)})" if rest else ""
    return _rejected_line(rel, f"{rel}: {_said(first)}{more}")


def _rejected_line(rel: str, said: str) -> str:
    step = person(f"mend it first (git vcontext validate {command_path(rel)})")
    return f"{said}; nothing written, validate rejects it as it is; {step}"


def parsed_or_refused(raw: bytes, rel: str) -> Document:
    """The document a writer edits, parsed; one that does not parse is refused as the
    judge refuses any other document ``validate`` rejects (its rule named, the person's
    step), nothing written."""
    from ..codecs import parse

    try:
        return parse(raw, path=rel)
    except ParseError as err:
        said = f"{err.location()}: {err.reason} [{err.rule}]"
        raise Refused("unparsable", _rejected_line(rel, said)) from None


def refuse_invalid_document(
    rel: str, after: Document, before: Document | None, *, place: str | None = None
) -> None:
    """``refuse_invalid`` for parsed documents: the result judged as ``validate`` judges a
    file named to it; the document before only when the result has findings. ``place``:
    the path as the repository names it when ``rel`` is a name given on the command line
    (``validation.files.check_bytes``: a VerMAS file is known by its place in the
    repository, as the pre-push hook knows it)."""
    from ..validation.files import check_document

    report = check_document(after, rel, place=place)
    if report.valid:
        return
    refuse_invalid(
        rel,
        report,
        None if before is None else lambda: check_document(before, rel, place=place),
    )


def refuse_unwritable(
    rel: str, text: str, data: Any, before: Document | None, *, place: str | None = None
) -> None:
    """The last check of a command-line writer before it writes ``text`` (``data`` rendered
    in ``before``'s style; None: a new document): it reads back as ``data`` (an
    ``OperationalError`` else: never written what cannot be read back), and ``validate``
    would accept it (``refuse_invalid_document``, ``place`` as there). The codec's own
    reading of ``text``, made by ``render`` to check its edit, is handed over rather than
    parsed again (``Document.read_back``, as the MCP writer reads back)."""
    from ..codecs import parse
    from ..values import same

    back = before.read_back(text) if before is not None else None
    if back is None:
        back = parse(text, path=rel)
    if not same(back.data, data):
        raise OperationalError(f"{rel}: the rewritten document does not read back; not written")
    refuse_invalid_document(rel, back, before, place=place)


def refuse_rejected(rel: str, doc: Document, *, place: str | None = None) -> None:
    """Refuse (``rejected``, nothing written) an edit that could not be made into a
    document ``validate`` rejects as it is (``playbook add`` finding no playbook in
    ``{"playbook": {"events": []}}``): its findings and the person's step, as any write
    into it is refused, rather than the writer's own complaint, which names no way on.
    Returns when ``validate`` accepts the document, or does not take it for one (only
    ``not-vcontext``: in the vContext file set ``validate`` skips it, "not checked", and
    its step would lead nowhere): the writer's complaint stands."""
    from ..validation.files import check_document

    report = check_document(doc, rel, place=place)
    if any(f.rule != "not-vcontext" for f in report.findings):
        raise Refused("rejected", rejected_message(rel, list(report.findings)))


def refuse_unplayable(
    rel: str, doc: Document, exc: VContextError, *, place: str | None = None
) -> NoReturn:
    """A playbook edit (``playbook add|update|deprecate``, ``ace apply``, an MCP learning)
    the playbook layer refused (``NoPlaybookError``; ``playbook.edit.OldItemsLog``: a log of
    v0.3 items; for ``ace apply``, any refusal): refused as any write into a document
    ``validate`` rejects when it does (its findings name the way on: ``{"playbook":
    {"events": []}}``, v0.3 items), else ``exc`` as it is, a missing playbook with the one
    line naming the file (``playbook.view.no_playbook_in``). One place for every writer."""
    from ..playbook.view import no_playbook_in

    refuse_rejected(rel, doc, place=place)
    if isinstance(exc, NoPlaybookError):
        raise no_playbook_in(rel, doc.data) from None
    raise exc


def _said(f: Finding) -> str:
    where = f"{f.where}: " if f.where else ""
    return f"{where}{f.message} [{f.rule}]"
