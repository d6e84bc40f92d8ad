"""``git vcontext ace apply PATCH DOC``: apply an AcePatch, 3-way when the document moved on."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ..clock import now_rfc3339
from ..codecs import Document, parse
from ..errors import ExitCode, NoPlaybookError, OperationalError, Refused, VContextError
from ..fsio import read_bytes, write_atomic
from ..gitio import open_repo, relative_to_top
from ..gitio.history import file_versions
from ..merging import merge3
from ..merging.result import MergeOptions
from ..playbook.ace import AcePatch, apply_patch, document_sequence, read_patch
from ..sync.judge import parsed_or_refused, refuse_unplayable, refuse_unwritable
from ..values import pointer_parts


def run(*, patch: str, doc: str) -> int:
    """Apply PATCH to DOC; the document is only written when everything applies cleanly."""
    ace_patch = read_patch(parse(read_bytes(patch), path=None if patch == "-" else patch).data)
    document = parsed_or_refused(read_bytes(doc), doc)
    try:
        data, how = _patched(doc, document, ace_patch)
    except VContextError as exc:  # a document validate rejects: its findings name the way
        if not _event_log(document.data):  # on, unless it is another tool's (said as it is)
            from .validate import place_of

            refuse_unplayable(doc, document, exc, place=place_of(doc))
        raise
    _write(doc, document, data)
    print(f"{doc}: applied {len(ace_patch.operations)} operations ({how})")
    return int(ExitCode.OK)


def _event_log(data: Any) -> bool:
    """Whether the document's playbook logs events (``apply_patch`` refuses it, naming
    ``git vcontext playbook``: the tool for it, whatever else the document needs); a log
    of v0.3 items is not one (no tool writes into it: validate's finding names the rewrite)."""
    from ..playbook.log import log_kind, log_of
    from ..playbook.view import locate

    try:
        _, playbook = locate(data)
    except NoPlaybookError:
        return False
    log = log_of(playbook)[1]
    return bool(log) and log_kind(log) == "events"


def _patched(doc: str, document: Document, ace_patch: AcePatch) -> tuple[Any, str]:
    """The document with the patch applied (3-way when its sequence moved on), and how."""
    now = now_rfc3339()
    current = document_sequence(document.data)
    base = ace_patch.base_sequence
    if base is None or base == current:
        data = _applied(document.data, ace_patch, now)
        after = document_sequence(data)
        return data, f"sequence {current} -> {after}" if after != current else "no sequence"
    data = _merged(doc, document, ace_patch, now, current)
    return data, f"merged 3-way from sequence {base} into {current}"


def _applied(data: Any, patch: AcePatch, now: str) -> Any:
    result = apply_patch(data, patch, now=now)
    for op in result.skipped:
        print(f"git-vcontext: note: {op.label()}: identical entry already there", file=sys.stderr)
    if result.problems:
        lines = [f"{op.label()}: {why}" for op, why in result.problems]
        raise Refused("refused", "patch does not apply, document untouched: " + "; ".join(lines))
    return result.data


def _merged(path: str, document: Document, patch: AcePatch, now: str, current: int) -> Any:
    """Apply to the version of the document at the patch's base sequence, then merge 3-way."""
    base = _base_version(path, patch.base_sequence, current, patch)
    theirs = _applied(base, patch, now)
    result = merge3(base, document.data, theirs, MergeOptions(now=now, path=path))
    if not result.clean:
        raise Refused("refused", _conflict_message(result.conflicts, result.data, patch))
    return result.data


def _base_version(path: str, sequence: int | None, current: int, patch: AcePatch) -> Any:
    """The newest version of ``path`` in git history whose container sequence is ``sequence``."""
    why = f"baseDocumentSequence {sequence} differs from the document's sequence {current}"
    try:
        repo = open_repo(Path(path).parent)
        versions = list(file_versions(repo, relative_to_top(repo, path)))
    except OperationalError as exc:
        raise Refused(
            "refused", f"{why} and there is no git history to find it ({exc.one_line()})"
        ) from None
    for _, raw in versions:
        data = _parsed(raw, path)
        if data is not None and document_sequence(data) == sequence:
            return data
    ops = ", ".join(op.label() for op in patch.operations)
    raise Refused(
        "refused", f"{why} and no committed version has sequence {sequence}: {ops} not applied"
    )


def _parsed(raw: bytes, path: str) -> Any:
    """A past version's data, or None when it does not parse or holds no playbook."""
    try:
        data = parse(raw, path=path).data
        document_sequence(data)
    except VContextError:
        return None
    return data


def _conflict_message(conflicts: Any, data: Any, patch: AcePatch) -> str:
    """Which operations conflict with what changed since the base, and where."""
    lines = []
    for c in conflicts:
        ids = _entry_ids_at(data, c.path)
        ops = [op.label() for op in patch.operations if op.entry_id in ids]
        lines.append(f"{', '.join(ops) or 'the patch'} conflicts at {c.path} ({c.kind})")
    return "patch conflicts with changes since its base, document untouched: " + "; ".join(lines)


def _entry_ids_at(data: Any, pointer: str) -> set[str]:
    """The ``id`` of every object on the way to ``pointer`` (the ACE entries it lies in)."""
    ids, node = set(), data
    for part in pointer_parts(pointer):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            break
        if isinstance(node, dict) and isinstance(node.get("id"), str):
            ids.add(node["id"])
    return ids


def _write(path: str, document: Document, data: Any) -> None:
    text = document.render(data)
    from .validate import place_of  # lazy: a git rev-parse, only once an edit is made

    # what does not read back, or validate would reject, is never written (a VerMAS file
    # known by its place)
    refuse_unwritable(path, text, data, document, place=place_of(path))
    write_atomic(path, text.encode("utf-8"))
