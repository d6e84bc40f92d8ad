"""Writing one document: locked, re-read, changed by a pure edit, checked, replaced, committed.

Nothing is written unless the result renders in the file's own format and style,
reads back as the same data, and adds no validation finding; the bytes are re-read
just before the atomic replace, and a document that changed meanwhile (another
server, a checkout, a merge) is edited again from its new state.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..codecs import Document, dumps, parse
from ..edits.stamp import Refused
from ..errors import OperationalError, ParseError
from ..fsio import check_inside, read_regular, write_atomic
from ..gitio.commits import Committed
from ..validation.files import check_document
from ..validation.incremental import still_valid
from ..validation.model import FileReport, Finding
from ..values import same
from .files import Stat
from .gitside import GitSide
from .locks import Locks
from .store import Loaded, Store, report_of

R = TypeVar("R")
ATTEMPTS = 5


@dataclass(frozen=True)
class Target:
    """Where a write goes; ``new`` makes the document when the file does not exist yet."""

    rel: str
    real: str
    fmt: str = "json"
    new: Callable[[], Any] | None = None


@dataclass(frozen=True)
class Written:
    """What a write did on disk and in git."""

    rel: str
    created: bool
    commit: Committed | None


class Writer:
    """Writes documents for the tools; one per server."""

    def __init__(
        self,
        store: Store,
        locks: Locks,
        git: GitSide | None,
        *,
        root: str,
        scratch: str | None = None,
    ) -> None:
        self.store = store
        self.locks = locks
        self.git = git
        self.root = root  # nothing is ever written outside it, nor through a link leading out
        self.scratch = scratch  # where temporaries go (the git directory's vcontext/tmp)

    def write(
        self, target: Target, edit: Callable[[Any], R], message: Callable[[R], str]
    ) -> tuple[R, Written]:
        """Apply ``edit`` (document data -> outcome with ``.data``) and write the result."""
        with self.locks.hold(target.real):
            for _ in range(ATTEMPTS):
                done = self._attempt(target, edit, message)
                if done is not None:
                    return done
        raise Refused(
            "busy", f"{target.rel} kept changing while being written; nothing written, try again"
        )

    def _attempt(
        self, target: Target, edit: Callable[[Any], R], message: Callable[[R], str]
    ) -> tuple[R, Written] | None:
        try:  # a link out of the served folder, a named pipe: refused before any work
            check_inside(target.real, self.root)
        except OperationalError as exc:
            raise Refused("not-written", exc.one_line()) from None
        if self.git is not None:
            self.git.finish_interrupted()
        loaded = self.store.load(target.rel, target.real)
        if loaded is None and target.new is None:
            raise Refused("gone", f"{target.rel} no longer exists")
        if loaded is not None and loaded.doc is None:
            raise Refused(
                "unparsable",
                f"{loaded.error}; the document does not parse, so nothing was written: fix it "
                f"(git vcontext validate {target.rel}) and retry",
            )
        if self.git is not None:
            self.git.refuse_if_conflicted(target.real, target.rel)
        data = loaded.data if loaded is not None else _new(target)
        outcome = edit(data)
        text = _render(loaded, target, outcome.data)  # type: ignore[attr-defined]
        doc = _read_back(text, target.rel, loaded.doc if loaded is not None else None)
        if not same(doc.data, outcome.data):  # type: ignore[attr-defined]
            raise Refused("internal", f"{target.rel}: the edited document does not read back")
        report = _validated(loaded, doc, outcome.data, target.rel)  # type: ignore[attr-defined]
        _refuse_new_findings(loaded, report, target.rel)
        raw = text.encode("utf-8")
        if not self._still(loaded, target):
            return None
        _replace(target, raw, create=loaded is None, root=self.root, scratch=self.scratch)
        self.store.remember(target.rel, target.real, raw, doc, report)
        commit = self._commit(target, raw, message(outcome))
        return outcome, Written(target.rel, loaded is None, commit)

    def _still(self, loaded: Loaded | None, target: Target) -> bool:
        """Whether the file is still what the edit started from (re-read, not just stat)."""
        if loaded is None:
            return not os.path.lexists(target.real)
        if Stat.of(target.real) != loaded.stat:
            return False
        try:
            return read_regular(target.real) == loaded.raw
        except OperationalError:  # gone, or no longer a regular file
            return False

    def _commit(self, target: Target, raw: bytes, message: str) -> Committed | None:
        if self.git is None or not self.git.commits():
            return None
        return self.git.commit(target.real, raw, message)


def _read_back(text: str, rel: str, before: Document | None) -> Any:
    """The written text parsed again: what cannot be read back is never written (a codec
    that parsed its edit to check it hands that reading over)."""
    if before is not None and (again := before.read_back(text)) is not None:
        return again
    try:
        return parse(text, path=rel)
    except ParseError as exc:
        raise Refused(
            "invalid-result", f"the result would not read back ({exc.reason}), nothing written"
        ) from None


def _new(target: Target) -> Any:
    assert target.new is not None
    return target.new()


def _render(loaded: Loaded | None, target: Target, data: Any) -> str:
    if loaded is not None and loaded.doc is not None:
        return loaded.doc.render(data)
    return dumps(data, "tron" if target.fmt == "tron" else "json")


def _replace(target: Target, raw: bytes, *, create: bool, root: str, scratch: str | None) -> None:
    if create:
        os.makedirs(os.path.dirname(target.real), exist_ok=True)
    try:  # checked again right before the rename: a link may have appeared meanwhile
        write_atomic(target.real, raw, inside=root, scratch=scratch)
    except OperationalError as exc:
        raise Refused("not-written", exc.one_line()) from None


def _validated(loaded: Loaded | None, doc: Any, edited: Any, rel: str) -> FileReport:
    """The new document's validation; from what changed when the old one had no finding
    (``edited`` is the edit's own data: it shares the untouched parts with the old data)."""
    if loaded is not None and report_of(loaded).valid and still_valid(loaded.data, edited):
        return FileReport(rel)
    return check_document(doc, rel)


def _refuse_new_findings(loaded: Loaded | None, after: FileReport, rel: str) -> None:
    """Refuse a result with findings the document did not have before the edit."""
    before = Counter(_key(f) for f in (report_of(loaded).findings if loaded else ()))
    new: list[Finding] = []
    for finding in after.findings:
        if before[_key(finding)]:
            before[_key(finding)] -= 1
        else:
            new.append(finding)
    if new:
        shown = "; ".join(_said(f) for f in new[:3])
        more = f" (and {len(new) - 3} more)" if len(new) > 3 else ""
        raise Refused(
            "invalid-result", f"the result would not be valid, nothing written: {shown}{more}"
        )


def _key(f: Finding) -> tuple[str, str, str]:
    return (f.rule, f.where, f.message)


def _said(f: Finding) -> str:
    where = f"{f.where}: " if f.where else ""
    return f"{where}{f.message} [{f.rule}]"
