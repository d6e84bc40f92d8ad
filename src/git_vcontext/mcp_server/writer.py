"""Writing one document: locked, re-read, changed by a pure edit, checked, replaced, committed.

Nothing is written unless the result renders in the file's own format and style,
reads back as the same data, and has no validation finding (``sync.judge``); the bytes are re-read
just before the atomic replace, and a document that changed meanwhile (another
server, a checkout, a merge) is edited again from its new state.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable
from typing import Any, NoReturn, Protocol, TypeVar

from ..codecs import Document, dumps, parse
from ..codecs.text import holds_markers
from ..errors import NoPlaybookError, OperationalError, ParseError, Refused, VContextError
from ..faults import step
from ..fsio import TargetChanged, check_inside, open_regular, read_regular, write_atomic
from ..gitio.commits import Committed
from ..playbook.edit import OldItemsLog
from ..record import record
from ..sync.judge import (
    findings_said,
    judged,
    refuse_invalid,
    refuse_unplayable,
)
from ..validation.files import check_document
from ..validation.incremental import still_valid
from ..validation.model import FileReport
from ..values import same
from .files import Stat
from .gitside import GitSide
from .locks import Locks
from .store import Loaded, Store, report_of

R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)
ATTEMPTS = 5
BUSY_SECONDS = 3.0
"""A write redone because the document changed meanwhile is tried again (at least
ATTEMPTS times) for this long before it is refused as busy: a person saving every few
milliseconds never makes an agent's write fail."""
SETTLE_TRIES = 20
SETTLE_PAUSE = 0.005
SETTLED_NS = 250_000_000
"""A document that does not parse and changed less than this long ago is being saved: the
write waits for it (SETTLE_TRIES pauses of SETTLE_PAUSE) before refusing."""
LATE_SAVE_WAIT = 0.2
RETIRED = 2.0
WATCH_PAUSE = 0.002
"""How long a file the server replaced is watched for a save its editor still makes into
it (checked before the next write of that document, which puts the save back)."""


class Edit(Protocol[R_co]):
    """A write's pure edit: document data -> outcome (with ``.data``); ``strict`` False
    when it is done again on another version (``expectedSequence`` is not checked there)."""

    def __call__(self, data: Any, strict: bool, /) -> R_co: ...


@record
class Target:
    """Where a write goes; ``new`` makes the document when the file does not exist yet."""

    rel: str
    real: str
    fmt: str = "json"
    new: Callable[[], Any] | None = None


@record
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
        # files this server replaced, still watched for a late save (real path -> oldest
        # first), and what it last put at each path (its stat then, its bytes)
        self._retired: dict[str, list[_Retired]] = {}
        self._placed: dict[str, tuple[Stat | None, bytes]] = {}
        self._targets: dict[str, Target] = {}
        self._watch_lock = threading.Lock()
        self._watcher: threading.Thread | None = None

    def write(
        self, target: Target, edit: Edit[R], message: Callable[[R], str]
    ) -> tuple[R, Written]:
        """Apply ``edit`` (document data, strict -> outcome with ``.data``) and write the
        result; ``strict`` False: the same edit on another version of the document (HEAD's,
        the index's), ``expectedSequence`` not checked there."""
        with self.locks.hold(target.real):
            self._rescue(target)
            deadline = time.monotonic() + BUSY_SECONDS
            tries = 0
            while tries < ATTEMPTS or time.monotonic() < deadline:
                done = self._attempt(target, edit, message)
                if done is not None:
                    return done
                tries += 1  # someone saved meanwhile: redo, out of step with their saves
                time.sleep(random.uniform(0, SETTLE_PAUSE))
        raise Refused(
            "busy", f"{target.rel} kept changing while being written; nothing written, try again"
        )

    def remove(
        self, target: Target, check: Callable[[Any], None], message: Callable[[], str]
    ) -> Written:
        """Delete a document: ``check(data)`` refuses what may not go; on an agent branch
        the removal is a commit of its own (``message()`` after the check). Nothing goes
        that changed since it was read."""
        with self.locks.hold(target.real):
            self._rescue(target)
            self._before(target)
            loaded = self._load(target)
            if loaded is None:
                raise Refused("gone", f"{target.rel} no longer exists")
            check(loaded.data)
            if self._commits():
                assert self.git is not None
                self.git.refuse_uncommitted(target.real, loaded.raw, target.rel)
            if not self._unchanged(loaded, target):
                raise Refused(
                    "busy", f"{target.rel} changed while being deleted; nothing done, try again"
                )
            said = message()
            journal = None
            if self._commits():  # journaled first, as a write is: a kill before the commit
                assert self.git is not None  # leaves the removal described, not a mystery
                journal = self.git.intend(target.real, loaded.raw, None, said)
            try:
                try:
                    os.unlink(target.real)
                except OSError as exc:
                    why = f"{target.rel}: cannot delete ({exc.strerror})"
                    raise Refused("not-written", why) from None
                self.store.forget(target.real)
                self._placed.pop(target.real, None)
                commit = None
                if self._commits():
                    assert self.git is not None
                    step("mcp removed")  # fault tests: the window the journal covers
                    commit = self.git.remove(target.real, loaded.raw, said)
            finally:
                if journal is not None:
                    assert self.git is not None
                    self.git.done(journal)
            return Written(target.rel, False, commit)

    def _before(self, target: Target) -> None:
        try:  # a link out of the served folder, a named pipe: refused before any work
            check_inside(target.real, self.root)
        except OperationalError as exc:
            raise Refused("not-written", exc.one_line()) from None
        if self.git is not None:
            self.git.finish_interrupted()
            self.git.refuse_if_conflicted(target.real, target.rel)

    def _load(self, target: Target) -> Loaded | None:
        """The document now; a file that does not parse but is being saved (changed in the
        last moments: a person's editor half way through) is waited for a little."""
        for _ in range(SETTLE_TRIES):
            loaded = self.store.load(target.rel, target.real)
            if loaded is None or loaded.doc is not None:
                return loaded
            if time.time_ns() - loaded.stat.mtime_ns > SETTLED_NS:
                break
            time.sleep(SETTLE_PAUSE)
        if loaded is not None and loaded.doc is None:
            raise Refused("unparsable", unparsable(loaded))
        return loaded

    def _attempt(
        self, target: Target, edit: Edit[R], message: Callable[[R], str]
    ) -> tuple[R, Written] | None:
        self._before(target)
        loaded = self._load(target)
        if loaded is None and target.new is None:
            raise Refused("gone", f"{target.rel} no longer exists")
        data = loaded.data if loaded is not None else _new(target)
        try:
            outcome = edit(data, True)
        except (NoPlaybookError, OldItemsLog) as exc:
            if loaded is not None and loaded.doc is not None:  # the one judge first
                self._refuse_unplayable(target.rel, loaded.doc, exc)
            raise
        text = _render(loaded, target, outcome.data)  # type: ignore[attr-defined]
        doc = _read_back(text, target.rel, loaded.doc if loaded is not None else None)
        if not same(doc.data, outcome.data):  # type: ignore[attr-defined]
            raise Refused("internal", f"{target.rel}: the edited document does not read back")
        place = self.store.place_of(target.rel)
        report = _validated(loaded, doc, outcome.data, target.rel, place)  # type: ignore[attr-defined]
        refuse_invalid(target.rel, report, report_of(loaded) if loaded else None)
        raw = text.encode("utf-8")
        before = loaded.raw if loaded is not None else None
        said = message(outcome)
        journal = None
        if self._commits():  # journaled first: a kill before the commit leaves it described
            assert self.git is not None
            self.git.refuse_unstageable(target.real, before, _again(target.rel, edit, place))
            journal = self.git.intend(target.real, before, raw, said)
        try:
            if not self._replace(target, loaded, raw):
                return None
            self.store.remember(target.rel, target.real, raw, doc, report)
            commit = None
            if self._commits():
                assert self.git is not None
                step("mcp replaced")  # fault tests: the window the journal covers
                again = _again(target.rel, edit, place)
                commit = self.git.record(target.real, before, raw, again, said)
        finally:
            if journal is not None:
                assert self.git is not None
                self.git.done(journal)
        return outcome, Written(target.rel, loaded is None, commit)

    def _refuse_unplayable(self, rel: str, doc: Any, exc: VContextError) -> NoReturn:
        """A playbook write into a document without one (``NoPlaybookError``) or with a log
        of v0.3 items (``OldItemsLog``): validate's finding if it rejects the document,
        else the one line with the person's step (the server chose the file: by its name,
        or pinned)."""
        try:
            refuse_unplayable(rel, doc, exc, place=self.store.place_of(rel))
        except NoPlaybookError as nope:
            raise Refused(
                "no-playbook", _no_playbook(rel, self.store.place_of(rel) or rel, nope)
            ) from None

    def _commits(self) -> bool:
        return self.git is not None and self.git.commits()

    def _replace(self, target: Target, loaded: Loaded | None, raw: bytes) -> bool:
        """Replace the file with ``raw`` if it is still what the edit started from, checked
        right before the rename (inode, size, mtime, bytes); a save that still lands on a
        file this server replaced (an editor that opened it before and writes in place) is
        put back, and the write is done again on it. False: the file changed, do the edit
        again."""
        if loaded is None:
            os.makedirs(os.path.dirname(target.real), exist_ok=True)
            if not self._write(target, raw, lambda: not os.path.lexists(target.real)):
                return False
            self._placed[target.real] = (Stat.of(target.real), raw)
            return True
        try:
            old = open_regular(target.real)
        except OperationalError:
            return False
        if not self._write(target, raw, lambda: _same_file(old, loaded)):
            os.close(old)
            self.store.forget(target.real)  # a save within the mtime's granularity
            return False
        self._placed[target.real] = (Stat.of(target.real), raw)
        self._retire(target, old, loaded.raw)
        late = self._late_saves(target)  # this file, and those replaced before, not let go yet
        if late is None:
            return True
        self._put_back(target, late)  # then the edit is redone on the person's save
        return False

    def _retire(self, target: Target, fd: int, raw: bytes) -> None:
        """Watch the replaced file ``fd`` (its bytes were ``raw``) for a while: a thread looks
        at its stat every few milliseconds, cheap; a change is put back at once, under the
        document's lock. Its bytes are compared by the write that retires it (its stat
        taken first, so a save after that shows), and once more when it is let go."""
        with self._watch_lock:
            self._retired.setdefault(target.real, []).append(
                _Retired(fd, raw, time.monotonic() + RETIRED)
            )
            self._targets[target.real] = target
            if self._watcher is None or not self._watcher.is_alive():
                self._watcher = threading.Thread(
                    target=self._watch, name="vcontext-late-saves", daemon=True
                )
                self._watcher.start()

    def _late_saves(self, target: Target) -> tuple[bytes, bytes] | None:
        """The newest save that landed in a file this server replaced (under the document's
        lock), with the bytes that file held when it was replaced (what the person's editor
        had): a file's bytes are compared when its stat changed since they last were, or
        it was never compared, or it is let go (watched long enough)."""
        with self._watch_lock:
            watched = self._retired.pop(target.real, [])
        found: list[tuple[int, bytes, bytes]] = []
        kept: list[_Retired] = []
        now = time.monotonic()
        for r in watched:
            stamp = _stamp(r.fd)  # before the bytes: a save after it changes it
            if stamp == r.seen and now < r.until:
                kept.append(r)
                continue
            late = _late_save(r.fd, r.raw, target.rel)
            if late is not None:
                found.append((_stamp(r.fd)[0], late, r.raw))
                os.close(r.fd)
            elif now < r.until:
                r.seen = stamp
                kept.append(r)
            else:
                os.close(r.fd)
        if kept:
            with self._watch_lock:
                self._retired.setdefault(target.real, [])[:0] = kept
        if not found:
            return None
        _, late, before = max(found)
        return late, before

    def _put_back(self, target: Target, late: tuple[bytes, bytes]) -> None:
        """Put a save that landed in a file this server replaced back in its place, if the
        path still holds what this server wrote last (else someone saved since: theirs
        stays); the file it replaces is watched in turn. What this server wrote since that
        file was replaced is merged into the save (three ways, from what the file held
        then), so an agent's write that already returned stays in the file; where the two
        conflict, or the save does not parse, the save goes back as it is (the agent's
        change is in its commit)."""
        placed = self._placed.get(target.real)
        self.store.forget(target.real)
        if placed is None:
            return
        try:
            fd = open_regular(target.real)
        except OperationalError:
            return
        saved = _merged(target.rel, late[1], placed[1], late[0])
        try:
            written = self._write(target, saved, lambda: _holds(fd, target.real, *placed))
        except Refused:
            os.close(fd)
            raise
        if not written:
            os.close(fd)
            return
        self._placed[target.real] = (Stat.of(target.real), saved)
        self._retire(target, fd, placed[1])

    def _watch(self) -> None:
        while True:
            time.sleep(WATCH_PAUSE)
            with self._watch_lock:
                pending = [(real, list(rs)) for real, rs in self._retired.items() if rs]
                if not pending:
                    self._watcher = None
                    return
            now = time.monotonic()
            for real, watched in pending:
                target = self._targets.get(real)
                if target is None:
                    continue
                if any(r.seen is not None and _stamp(r.fd) != r.seen for r in watched):
                    with self.locks.hold(real):
                        self._rescue(target)
                elif any(now >= r.until for r in watched):
                    self._let_go(target)

    def _let_go(self, target: Target) -> None:
        """The files watched long enough: their bytes compared a last time, then closed
        (the document's lock is taken only for a save found there, to put it back)."""
        now = time.monotonic()
        with self._watch_lock:
            watched = self._retired.get(target.real, [])
            done = [r for r in watched if now >= r.until]
            self._retired[target.real] = [r for r in watched if now < r.until]
        late = False
        for r in done:
            if _late_save(r.fd, r.raw, target.rel) is None:
                os.close(r.fd)
                continue
            late = True
            with self._watch_lock:
                self._retired.setdefault(target.real, []).append(r)
        if late:
            with self.locks.hold(target.real):
                self._rescue(target)

    def _rescue(self, target: Target) -> None:
        """Before a write (and when the watcher sees a change): a save that landed late in a
        file a previous write replaced (its editor had it open) goes back in place, so it
        is never lost."""
        try:
            late = self._late_saves(target)
            if late is not None:
                self._put_back(target, late)
        except Refused:
            pass

    def _write(self, target: Target, raw: bytes, guard: Callable[[], bool]) -> bool:
        try:  # checked again right before the rename: a link may have appeared meanwhile
            write_atomic(target.real, raw, inside=self.root, scratch=self.scratch, guard=guard)
        except TargetChanged:
            return False
        except OperationalError as exc:
            raise Refused("not-written", exc.one_line()) from None
        return True

    def _unchanged(self, loaded: Loaded, target: Target) -> bool:
        """Whether the file is still what was read (re-read, not just stat)."""
        if Stat.of(target.real) != loaded.stat:
            return False
        try:
            return read_regular(target.real) == loaded.raw
        except OperationalError:  # gone, or no longer a regular file
            return False


def unparsable(loaded: Loaded) -> str:
    """Why a document that does not parse takes no write, and what fixes it: the tools."""
    error = loaded.error or f"{loaded.rel}: does not parse"
    if holds_markers(loaded.raw):
        fix = (
            "it holds conflict markers: vcontext_conflicts lists the conflicts, "
            f"vcontext_resolve settles them (path {loaded.rel})"
        )
    else:
        fix = (
            "fix the file (vcontext_validate shows where); if a merge left it so, "
            "vcontext_conflicts and vcontext_resolve settle it"
        )
    return f"{error}; the document does not parse, so nothing was written: {fix}"


class _Retired:
    """A file this server replaced, watched for a late save: its descriptor, its bytes
    when replaced, until when, and its stat when its bytes were last compared (mtime,
    ctime, size; None: not yet)."""

    __slots__ = ("fd", "raw", "seen", "until")

    def __init__(self, fd: int, raw: bytes, until: float) -> None:
        self.fd = fd
        self.raw = raw
        self.until = until
        self.seen: tuple[int, int, int] | None = None


def _stamp(fd: int) -> tuple[int, int, int]:
    try:
        st = os.fstat(fd)
    except OSError:
        return (-1, -1, -1)
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size)


def _holds(fd: int, path: str, stat: Stat | None, raw: bytes) -> bool:
    """Whether the path still holds the file ``fd`` with this stat and these bytes."""
    try:
        st = os.fstat(fd)
        if stat is None or Stat.of_result(st) != stat:
            return False
        return Stat.of(path) == stat and os.pread(fd, st.st_size + 1, 0) == raw
    except OSError:
        return False


def _same_file(fd: int, loaded: Loaded) -> bool:
    """Whether the file at the path is still the one read: same inode, size, mtime, bytes."""
    try:
        st = os.fstat(fd)
        if Stat.of_result(st) != loaded.stat:
            return False
        now = Stat.of(loaded.real)
        return now == loaded.stat and os.pread(fd, st.st_size + 1, 0) == loaded.raw
    except OSError:
        return False


def _merged(rel: str, before: bytes, written: bytes, late: bytes) -> bytes:
    """A late save ``late`` (made on ``before``) with what this server wrote since
    (``written``) merged in; ``late`` itself where they conflict or a side does not parse."""
    if written == before:
        return late
    from ..merging.files import merge_files

    outcome = merge_files(before, written, late, path=rel)
    return outcome.output if outcome.clean and outcome.status == "clean" else late


def _late_save(fd: int, raw: bytes, rel: str) -> bytes | None:
    """What someone saved into the replaced file (its old inode, read as ``raw``) after
    the check right before the rename, once they are done (None: nothing)."""
    try:
        content = os.pread(fd, os.fstat(fd).st_size + 1, 0)
        if content == raw:
            return None
        if _parses(content, rel):  # a whole save: put it back at once
            return content
        deadline = time.monotonic() + LATE_SAVE_WAIT
        last = os.fstat(fd)
        while time.monotonic() < deadline:  # an editor half way through its write
            time.sleep(SETTLE_PAUSE)
            now = os.fstat(fd)
            if (now.st_mtime_ns, now.st_size) == (last.st_mtime_ns, last.st_size):
                break
            last = now
        return os.pread(fd, os.fstat(fd).st_size + 1, 0)
    except OSError:
        return None


def _parses(raw: bytes, rel: str) -> bool:
    try:
        parse(raw, path=rel)
    except (ParseError, RecursionError):
        return False
    return True


def _no_playbook(rel: str, path: str, exc: NoPlaybookError) -> str:
    """A playbook write into the file the server took for the playbook (its conventional
    name, or ``--playbook``) that holds none: the one line (``no_playbook_in``), and the
    person's step, which no tool can take (any write into it is refused the same way).
    The step moves the file (``path``: in the repository) to ``moved-NAME`` beside it, a
    name the same patterns route, in a commit of its own: its ``changeLog`` and events
    stay in the checked history (moved out of the vContext files, or replaced at its name
    in the commit of the new playbook, ``check`` and the hook reject them as removed)."""
    from ..sync.advice import PERSON
    from ..validation.model import command_path, command_word

    folder, _, name = path.rpartition("/")
    moved = f"{folder}/moved-{name}" if folder else f"moved-{name}"
    both = f"{command_path(path)} {command_path(moved)}"
    message = command_word(f"Move {name} aside")
    return (
        f"{exc.one_line()}; nothing written; {PERSON}move {rel} aside (it is not a "
        f"playbook) in a commit of its own: git mv -- {both} && git commit -m {message} -- "
        f"{both}; then write again: the playbook the server serves then takes it, or a new "
        f"one is started at {rel}"
    )


def _again(rel: str, edit: Edit[Any], place: str | None = None) -> Callable[[bytes], bytes]:
    """The write's edit done on another version of the document (HEAD's, the index's),
    in that version's style, never with more findings than it had. Its refusals say why
    that version cannot take the edit (kind ``unparsable`` or ``rejected``: that version
    as it is; the write itself is made already, so never "nothing written")."""

    def again(raw: bytes) -> bytes:
        try:
            doc = parse(raw, path=rel)
            outcome = edit(doc.data, False)
        except ParseError as exc:
            raise Refused("unparsable", f"that version does not parse ({exc.reason})") from None
        except Refused:
            raise
        except VContextError as exc:
            raise Refused("refused", exc.one_line()) from None
        text = doc.render(outcome.data)
        try:
            back = _read_back(text, rel, doc)
        except Refused:
            raise Refused("invalid-result", "that version would not read back with it") from None
        if not same(back.data, outcome.data):
            raise Refused("internal", f"{rel}: the edited version does not read back")
        verdict = judged(
            check_document(back, rel, place=place), lambda: check_document(doc, rel, place=place)
        )
        if verdict is not None:
            kind, found = verdict
            said = "is one git vcontext validate rejects as it is"
            if kind != "rejected":
                said = "would not be valid with it"
            raise Refused(kind, f"that version {said}: {findings_said(found)}")
        return text.encode("utf-8")

    return again


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


def _validated(
    loaded: Loaded | None, doc: Any, edited: Any, rel: str, place: str | None
) -> FileReport:
    """The new document's validation (a VerMAS file judged by its ``place`` in the
    repository); from what changed when the old one had no finding (``edited`` is the
    edit's own data: it shares the untouched parts with the old data)."""
    if loaded is not None and report_of(loaded).valid and still_valid(loaded.data, edited):
        return FileReport(rel)
    return check_document(doc, rel, place=place)
