"""The server's view of git: who the agent is, whether writes commit, conflicts, commits."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, TypeVar

from ..branches.agents import agent_of_branch, agent_prefix, agent_signatures
from ..errors import OperationalError, Refused
from ..fsio import alive, remove_stale_temporaries, this_process, write_atomic
from ..gitio import (
    config_value,
    git_dir,
    is_ignored,
    library_errors,
    read_at,
    reopen,
    resolve_commit,
    work_tree,
)
from ..gitio.commits import (
    Committed,
    blob_data,
    blob_id,
    cannot_commit,
    commit_path,
    conflicted,
    current_branch,
    head_commit,
    head_entry,
    set_staged,
    staged_entry,
)
from ..gitio.commits import operation_in_progress as in_progress
from ..gitio.fileset import work_tree_files
from ..gitio.index import tracked_paths
from ..gitio.places import common_dir
from ..sync.advice import PERSON, finish_or_abort
from ..validation.model import command_path, command_word
from .files import Watched, contents

if TYPE_CHECKING:
    from pygit2 import Oid, Repository

    from ..gitio.fileset import FileSet

DEFAULT_AGENT = "mcp"
T = TypeVar("T")
Again = Callable[[bytes], bytes]
"""The write's edit done again on another version of the document (HEAD's, the index's),
rendered in that version's style; raises Refused when that version cannot take it."""

PENDING = "mcp-pending"
"""The journal of writes between the file's replace and their commit, under the work tree's
git directory's ``vcontext/`` (one JSON file per document, as git's ``index.lock``: made
before the replace, removed once the commit is made): a server killed in that window leaves
its write described, and the next tool call or server start finishes it."""
STAGED_INTO = ("merge", "cherry pick", "cherrypick", "revert")
"""Stopped operations a write is staged into (their one commit takes it)."""
REPLAYS = ("rebase", "apply mailbox")
"""Stopped operations that refuse writes: they replay commits one by one."""


def _drop_step(message: str) -> str:
    """The command that commits a removal staged into a stopped merge (cherry-pick, revert)
    with the ``Vcontext-Drop:`` trailer of the server's own message: without it check and
    the hooks refuse the records the deleted document held."""
    from ..branches.commits import SAID

    trailer = next((ln for ln in message.splitlines() if ln.startswith(SAID)), None)
    if trailer is None:
        return ""
    return (
        "; its commit must say the deletion is meant: git commit --no-edit --trailer "
        + command_word(trailer)
    )


class GitSide:
    """One pygit2 repository used under a lock (tools run in worker threads)."""

    def __init__(self, repo: Repository, *, agent: str | None = None, commit: bool = False) -> None:
        self.repo = repo
        self._agent = agent
        self._commit = commit
        self._lock = threading.Lock()
        self._files: FileSet | None = None  # declared's, read with _rules (None: read again)
        self._routing = Watched()  # the rule files, for routing_moved
        info = os.path.join(common_dir(repo), "info")
        self._info = [os.path.join(info, "attributes"), os.path.join(info, "exclude")]
        self._rules = repo  # what reads the rule files: opened anew once they changed
        self.held: list[str] = []  # lines of writes finished at start, for the first answer
        self.hold: Callable[[str], AbstractContextManager[None]] | None = None
        """A document's lock, as the writer holds it (``Locks.hold``): finishing a killed
        server's write holds it too, so no live server's write is between its replace and
        its commit meanwhile."""
        top = work_tree(repo)
        self.top = os.path.realpath(top) if top else None

    def config(self, key: str) -> str | None:
        """A git config value of the repository (None when unset)."""
        with self._lock:
            return config_value(self.repo, key)

    def branch(self) -> str | None:
        with self._lock:
            return current_branch(self.repo)

    def agent_branch(self) -> str | None:
        """The agent whose ``agents/NAME`` branch is checked out here, if any."""
        branch = self.branch()
        with self._lock:
            return agent_of_branch(self.repo, branch) if branch else None

    def prefix(self) -> str:
        """The agent prefix this server reads (``vcontext.agentPrefix``)."""
        with self._lock:
            return agent_prefix(self.repo)

    def working_as(self) -> str | None:
        """The agent this work tree works as: ``--agent``, else the agent of the branch
        checked out; None for a person's (``agents.running_agent``'s judgement: ``git vcontext
        mcp`` takes ``GIT_VCONTEXT_AGENT`` as its ``--agent`` when none is given)."""
        return self._agent or self.agent_branch()

    def agent(self) -> str:
        """Who writes: ``working_as``, else ``mcp``."""
        return self.working_as() or DEFAULT_AGENT

    def commits(self) -> bool:
        """Whether writes are committed: ``--commit``, or an agent branch is checked out."""
        return self._commit or self.agent_branch() is not None

    def path_of(self, real: str) -> str | None:
        """The repo-relative path of a file (None when it is not in this work tree)."""
        if self.top is None:
            return None
        rel = os.path.relpath(real, self.top)
        return None if rel.startswith("..") else rel.replace(os.sep, "/")

    def finish_interrupted(self) -> None:
        """Finish a work-tree update an interrupted sync left (``sync/interrupted``) before
        a write reads a document: never an edit of the files it left behind."""
        from ..errors import Unfinished
        from ..sync.interrupted import finish

        with self._lock:
            try:
                finish(self.repo)
            except Unfinished as exc:
                raise Refused("stale", exc.message) from None

    def intend(
        self, real: str, before: bytes | None, after: bytes | None, message: str
    ) -> str | None:
        """Journal the commit a write is about to make (before its file is replaced, or
        removed: ``after`` None): the document, the branch and HEAD, the blob ids of the
        file before and after, the agent and message, this process (its pid and start
        time: a pid reused since is not this server). The journal's path (None: no commit
        is meant here, nothing kept)."""
        path = self.path_of(real)
        if path is None:
            return None
        agent = self.agent()  # before the lock: it takes the lock itself
        with self._lock:
            if in_progress(self.repo) is not None or self._ignored(path):
                return None  # staged into a stopped merge, or no commit at all
            pid, start, ns = this_process()
            entry = {
                "path": path,
                "branch": current_branch(self.repo),  # None: a detached HEAD
                "head": head_commit(self.repo),
                "before": str(blob_id(before)) if before is not None else None,
                "after": str(blob_id(after)) if after is not None else None,  # None: removed
                "agent": agent,
                "message": message,
                "pid": pid,
                "started": start,
                "namespace": ns,  # (a pid of another namespace means nothing)
            }
        folder = self._pending_folder()
        # one entry per document and server: a server finishing a killed one's entry never
        # reads, or removes, a live server's entry for the same document
        name = os.path.join(folder, f"{blob_id(path.encode())}.{os.getpid()}.json")
        try:
            os.makedirs(folder, exist_ok=True)
            # its temporary named by pid and start time: finish_pending removes a killed one's
            write_atomic(name, json.dumps(entry).encode(), durable=True, force=True)
        except (OSError, OperationalError):  # a read-only git directory: unjournaled
            return None
        return name

    def done(self, journal: str) -> None:
        """The journaled write was committed (or not made): its entry goes."""
        try:
            os.unlink(journal)
        except OSError:
            pass

    def finish_pending(self) -> list[str]:
        """Finish the writes a killed server left between replacing a file and committing
        it (``PENDING``): one whose file still holds exactly what it wrote, on the commit it
        was made on, is committed as it meant to be; one already committed is dropped; a
        file changed since is left as it is. A line for each one not silently dropped."""
        notes, self.held = self.held, []
        folder = self._pending_folder()
        remove_stale_temporaries(folder)  # an entry a killed server was writing
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
        except OSError:
            return notes
        for name in names:
            journal = os.path.join(folder, name)
            entry = self._entry(journal)
            if entry is None:
                continue  # a live server is still making that commit, or no entry at all
            unfinished: tuple[type[Exception], ...] = (OperationalError, OSError, *library_errors())
            path = entry.get("path")
            real = self._file_of(path) if isinstance(path, str) else None
            with self._held(real), self._lock:
                if not os.path.exists(journal):
                    continue  # another server finished it meanwhile
                if in_progress(self.repo) is not None:
                    return notes  # a stopped merge or rebase: finished once it is over
                try:
                    note = self._finish(entry)
                except unfinished as exc:
                    note = f"{path}: an interrupted MCP write not finished ({exc})"
                except (KeyError, TypeError, ValueError) as exc:  # an entry not as written
                    note = f"{path}: an interrupted MCP write not finished ({exc})"
                self.done(journal)
            if note:
                notes.append(note)
        return notes

    def _entry(self, journal: str) -> dict[str, object] | None:
        """The entry of a killed server (None: its server is alive; an entry not as
        ``intend`` writes it, whose write never replaced the file, removed). Its server is
        judged by pid and start time: a pid the system gave to another process since (the
        server killed long ago) is not that server, whose entry would stay for ever. A
        server in another pid namespace (the entry says which) is left alone: alive."""
        try:
            with open(journal, encoding="utf-8") as fh:
                entry = json.load(fh)
            pid = int(entry["pid"])
            if not 0 < pid < 2**31:  # no process's (os.kill: OverflowError, or a group)
                raise ValueError(pid)
            start = entry.get("started")  # (absent from an older server's entries)
            if start is not None and (isinstance(start, bool) or not isinstance(start, int)):
                raise ValueError(start)
            ns = entry.get("namespace")  # (absent from an older server's entries)
            if ns is not None and (isinstance(ns, bool) or not isinstance(ns, int)):
                raise ValueError(ns)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self.done(journal)
            return None
        return None if alive(pid, start, ns) else dict(entry)  # (another pid namespace:
        # a container sharing the repository, its pid means nothing here: alive)

    def _held(self, real: str | None) -> AbstractContextManager[None]:
        return nullcontext() if real is None or self.hold is None else self.hold(real)

    def _finish(self, entry: dict[str, object]) -> str | None:
        path = entry["path"]
        if not isinstance(path, str) or self._file_of(path) is None:
            # not what ``intend`` writes (``path_of``): a file outside the work tree, or
            # reached through a symbolic link, is never committed from here
            return f"an MCP write journal entry naming no file of this work tree dropped ({path!r})"
        after = entry["after"]
        if after is not None and not isinstance(after, str):
            raise TypeError(f"after: {after!r}")
        removal = after is None  # a document's deletion (``Writer.remove``)
        now, _ = head_entry(self.repo, path)
        if (str(now) if now is not None else None) == after:
            return None  # committed before the kill
        shown = command_path(path)
        what = "MCP removal" if removal else "MCP write"
        cut = f"{path}: an {what} cut off before its commit (its server was killed)"
        way_out = f"{PERSON}git diff -- {shown}, then commit it (git commit -- {shown}) or drop it"
        if removal:
            way_out = (
                f"{PERSON}git status -- {shown}, then commit it (git rm -- {shown}) or restore it"
            )
        data = contents(str(self._file_of(path)))
        found = None if data is None else str(blob_id(data))
        if found == entry["before"]:  # (None: a new document's file never made)
            # killed before its replace: the file holds what it held, nothing of the write
            # to commit (``git diff`` shows only the person's own edits, if any)
            return (
                f"{path}: an {what} was never made (its server was killed before it): "
                "the file is as it was"
            )
        if found != after:
            if now is not None and found == str(now):
                return None  # the file is as committed (a later write's commit took it)
            return f"{cut} was changed since: left as it is ({way_out})"
        return self._commit_pending(entry, path, data, now, cut, way_out)

    def _commit_pending(
        self,
        entry: dict[str, object],
        path: str,
        data: bytes | None,
        now: Oid | None,
        cut: str,
        way_out: str,
    ) -> str:
        """Commit a killed server's write (``data``; None: a removal) the file holds, when
        it is on the branch and commit it was made on."""
        made_on = entry.get("branch", "")  # ("": an older server's entry names none)
        branch = current_branch(self.repo)
        if made_on != branch:  # never onto a branch switched to since (HEAD's commit alike)
            return (
                f"{cut} was made on {_on(made_on)}, and {_on(branch)} is checked out now: "
                f"not committed here, left as it is ({way_out})"
            )
        tip = head_commit(self.repo)
        if tip != entry["head"] or (str(now) if now is not None else None) != entry["before"]:
            return f"{cut} sits on other changes not committed: left as it is ({way_out})"
        why = cannot_commit(self.repo)
        if why is not None:
            return f"{cut}: {why}"
        author, committer = agent_signatures(self.repo, str(entry["agent"]))
        staged = staged_entry(self.repo, path)
        done = commit_path(self.repo, path, data, str(entry["message"]), author, committer)
        if done.commit is None:
            return f"{cut}: {done.note}"
        if staged == now:  # nothing else staged: the index follows the commit
            set_staged(self.repo, path, data)
        return f"{cut} is committed now, as it meant to be ({done.commit[:12]})"

    def _file_of(self, path: str) -> str | None:
        """The file of the work tree that ``path`` (a journal entry's) names, as ``path_of``
        gives it back: relative, no ``.``, ``..`` or empty part, not in ``.git``, no symbolic
        link on the way; None otherwise."""
        if self.top is None or not path or "\0" in path or os.path.isabs(path):
            return None
        parts = path.split("/")
        if any(part in ("", ".", "..") or part.lower() == ".git" for part in parts):
            return None
        full = os.path.join(self.top, *parts)
        return full if os.path.realpath(full) == full else None

    def _pending_folder(self) -> str:
        return os.path.join(git_dir(self.repo), "vcontext", PENDING)

    def refuse_if_conflicted(self, real: str, shown: str) -> None:
        """Refuse writing a document git left conflicted in a stopped merge, and any write
        during a stopped rebase (it would land in a commit being replayed)."""
        path = self.path_of(real)
        with self._lock:
            busy = in_progress(self.repo)
            stuck = busy is not None and path is not None and conflicted(self.repo, path)
        if busy is not None and busy.startswith(REPLAYS):
            verb = "am" if busy.startswith("apply mailbox") and "rebase" not in busy else "rebase"
            raise Refused(
                "busy",
                f"a {busy} is in progress here: a write now would go into a commit being "
                f"replayed; {PERSON}{finish_or_abort(verb)}; then write again",
            )
        if stuck:
            raise Refused(
                "conflicted",
                f"{shown} has unresolved conflicts from the stopped {busy}: settle them first "
                "(vcontext_conflicts lists them, vcontext_resolve settles them)",
            )

    def record(
        self,
        real: str,
        before: bytes | None,
        after: bytes,
        again: Again,
        message: str,
    ) -> Committed:
        """Commit an agent's write of one document (the work tree went from ``before`` to
        ``after``), as ``git commit --only`` would, with the agent as author: the commit
        holds the agent's change on HEAD's version (``again`` redoes the edit on another
        version's bytes when the person has edits of their own); the index entry keeps the
        person's staged edits and gains the agent's change. During a stopped merge (or
        cherry-pick, revert) the change is staged into it instead."""
        path = self.path_of(real)
        if path is None:
            return Committed(None, "not committed: the file is outside this work tree")
        agent = self.agent()  # before the lock: it takes the lock itself
        with self._lock:
            try:
                if self._ignored(path):
                    return Committed(
                        None,
                        f"not committed: {path} is ignored by git, so it stays out of git "
                        "(as git add leaves it): the person's local memory",
                    )
                busy = in_progress(self.repo)
                if busy is not None and busy.startswith(STAGED_INTO):
                    return self._stage_into(path, before, after, again, busy)
                return self._commit_change(path, before, after, again, message, agent)
            except OperationalError as exc:
                return Committed(None, f"not committed: {exc.message}")

    def remove(self, real: str, before: bytes, message: str) -> Committed:
        """Commit the removal of one document (its file is already gone from the work tree);
        the index entry goes too unless the person staged another version."""
        path = self.path_of(real)
        if path is None:
            return Committed(None, "not committed: the file is outside this work tree")
        agent = self.agent()  # before the lock: it takes the lock itself
        with self._lock:
            try:
                busy = in_progress(self.repo)
                if busy is not None and busy.startswith(STAGED_INTO):
                    note = set_staged(self.repo, path, None)
                    said = note or f"removal staged into the {busy} in progress"
                    return Committed(None, said + _drop_step(message))
                head, _ = head_entry(self.repo, path)
                if head is None:
                    return Committed(None, "not in the last commit: nothing to commit")
                author, committer = agent_signatures(self.repo, agent)
                staged = staged_entry(self.repo, path)
                done = commit_path(self.repo, path, None, message, author, committer)
                if done.commit is None or staged not in (head, blob_id(before)):
                    return done
                return Committed(done.commit, set_staged(self.repo, path, None))
            except OperationalError as exc:
                return Committed(None, f"not committed: {exc.message}")

    def refuse_uncommitted(self, real: str, raw: bytes, shown: str) -> None:
        """Refuse deleting a document that holds edits not committed (they would be lost)."""
        path = self.path_of(real)
        if path is None:
            return
        with self._lock:
            head, _ = head_entry(self.repo, path)
        if head is not None and head != blob_id(raw):
            raise Refused(
                "uncommitted",
                f"{shown} has changes that are not committed: {PERSON}git diff -- "
                f"{command_path(shown)}, then commit or discard them; "
                "then delete it",
            )

    def refuse_unstageable(self, real: str, before: bytes | None, again: Again) -> None:
        """Before a write replaces the file: during a stopped merge (cherry-pick, revert) whose
        index holds another version of the document, refuse (nothing written yet) when that
        version cannot take the change, so the write is never made and then called refused."""
        path = self.path_of(real)
        if path is None:
            return
        with self._lock:
            busy = in_progress(self.repo)
            if busy is None or not busy.startswith(STAGED_INTO) or self._ignored(path):
                return
            try:
                self._staged_content(path, before, b"", again)
            except Refused as exc:
                raise Refused(exc.kind, _not_stageable(path, busy, exc)) from None

    def _staged_content(self, path: str, before: bytes | None, after: bytes, again: Again) -> bytes:
        """What the index takes for a write staged into a stopped merge: the written bytes,
        or the change done again on the version the person staged (Refused: it cannot)."""
        staged = staged_entry(self.repo, path)
        if staged is None or before is None or staged == blob_id(before):
            return after
        return again(blob_data(self.repo, staged))

    def _stage_into(
        self, path: str, before: bytes | None, after: bytes, again: Again, busy: str
    ) -> Committed:
        try:
            content = self._staged_content(path, before, after, again)
        except Refused as exc:  # the index changed since the check: the file has the write
            return Committed(None, _not_staged(path, busy, exc))
        note = set_staged(self.repo, path, content)
        return Committed(
            None,
            note or f"staged into the {busy} in progress: its commit (git commit) takes it",
        )

    def _commit_change(
        self,
        path: str,
        before: bytes | None,
        after: bytes,
        again: Again,
        message: str,
        agent: str,
    ) -> Committed:
        why = cannot_commit(self.repo)
        if why is not None:
            return Committed(None, why)
        head, _ = head_entry(self.repo, path)
        worktree = blob_id(before) if before is not None else None
        if head is None or head == worktree:
            content = after
        else:
            try:
                content = again(blob_data(self.repo, head))
            except Refused as exc:
                return Committed(None, _not_committed(path, exc))
        author, committer = agent_signatures(self.repo, agent)
        staged = staged_entry(self.repo, path)
        done = commit_path(self.repo, path, content, message, author, committer)
        if done.commit is None:
            return done
        kept = self._keep_index(path, staged, head, worktree, after, content, again)
        return Committed(done.commit, kept)

    def _keep_index(
        self,
        path: str,
        staged: Oid | None,
        head: Oid | None,
        worktree: Oid | None,
        after: bytes,
        committed: bytes,
        again: Again,
    ) -> str | None:
        """The index entry after the agent's commit, in step as ``git commit --only`` keeps
        it: the commit's content when nothing else was staged, else the person's staged
        version with the agent's change (so their next plain ``git commit`` keeps it)."""
        if staged == head:
            return set_staged(self.repo, path, committed)
        if staged is not None and staged == worktree:
            return set_staged(self.repo, path, after)
        if staged is None:
            return f"committed; {path} is staged for removal, so the index was left alone"
        try:
            return set_staged(self.repo, path, again(blob_data(self.repo, staged)))
        except Refused as exc:
            note = set_staged(self.repo, path, committed)
            return note or (
                f"committed; your staged version of {path} (blob {str(staged)[:12]}, "
                f"git show {str(staged)[:12]}) could not take the agent's change "
                f"({exc.one_line()}): the index now holds the commit's, your edits are "
                "still in the work tree"
            )

    def _ignored(self, path: str) -> bool:
        """``ignored`` of a repo-relative path, the lock held."""
        try:
            return is_ignored(self._rules, path)
        except Exception:  # pygit2 raises various errors for odd paths
            return False

    def locked(self, work: Callable[[Repository], T]) -> T:
        """Run ``work(repo)`` holding the repository lock (status, sync)."""
        with self._lock:
            return work(self.repo)

    def tracked(self) -> list[str]:
        """Every path the index holds (repo-relative), as ``git ls-files`` lists them."""
        with self._lock:
            return tracked_paths(self.repo)

    def read_at(self, rev: str, path: str) -> bytes | None:
        """The content of ``path`` at ``rev`` (None when the revision does not have it)."""
        with self._lock:
            resolve_commit(self.repo, rev)  # an unknown revision is an error, not "absent"
            try:
                return read_at(self.repo, rev, path)
            except OperationalError:
                return None

    def ignored(self, full: str) -> bool:
        """Whether git ignores the folder or file at the absolute path ``full``."""
        path = self.path_of(full)
        if not path or path == ".":
            return False
        with self._lock:
            return self._ignored(path)

    def routing_moved(self, rule_files: list[str]) -> bool:
        """Whether what decides which files are served changed since the previous call:
        ``rule_files`` (the work tree's ``.gitattributes`` and ``.gitignore`` files) or the
        git directory's ``info/attributes`` and ``info/exclude``, looked at as served files
        are (``Watched``). When they did, ``declared`` and ``ignored`` read them again
        with a repository opened anew (each call sees a person's edit)."""
        with self._lock:
            moved = self._routing.changed([*rule_files, *self._info])
            if moved:  # libgit2 keeps what it read while a file's mtime, size, inode stay
                self._files = None
                if self.top is not None:  # (trusted as the first handle was)
                    self._rules = reopen(self.repo)
            return moved

    def declared(self, full: str) -> bool:
        """Whether ``.gitattributes`` routes the file at ``full`` to the vcontext driver
        (the file set ``validate``, ``doctor`` and the hook use; read again when
        ``routing_moved`` says the attributes changed)."""
        path = self.path_of(full)
        if not path:
            return False
        with self._lock:
            if self._files is None:
                self._files = work_tree_files(self._rules)
            return bool(self._files.routed(path))


def _not_committed(path: str, exc: Refused) -> str:
    """What a write the file took but its commit could not (HEAD's version cannot take the
    change: ``again`` refused) says: written, not committed, why, the person's step."""
    shown = command_path(path)
    if exc.kind in ("unparsable", "rejected"):  # HEAD's copy itself, the work tree mended
        return (
            f"written to {path}, not committed: the last commit's version of it cannot "
            f"take the change ({exc.one_line()}); {PERSON}commit the mended "
            f"{path} (git commit -- {shown}; that commit takes this write too); "
            "later writes commit again"
        )
    return (
        f"written to {path}, not committed: the change builds on edits of {path} that are "
        f"not committed ({exc.one_line()}); {PERSON}commit them (git commit -- {shown}; "
        "that commit takes this write too); later writes commit again"
    )


def _not_stageable(path: str, busy: str, exc: Refused) -> str:
    """A write refused before it was made: the version staged for the stopped merge cannot
    take it. One line: what, why, the person's step."""
    return (
        f"{path}: the version staged for the {busy} in progress cannot take the change "
        f"({exc.one_line()}), nothing written; {PERSON}stage the version the {busy} should "
        f"take (git add -- {command_path(path)} stages the work tree's); then write again"
    )


def _not_staged(path: str, busy: str, exc: Refused) -> str:
    """A write the file took but the index of the stopped merge could not (the person
    staged another version meanwhile): written, not staged, why, the person's step."""
    return (
        f"written to {path}, not staged: the version staged for the {busy} in progress "
        f"cannot take the change ({exc.one_line()}); {PERSON}stage the version the {busy} "
        f"should take (git add -- {command_path(path)} stages the work tree's, which has it)"
    )


def _on(branch: object) -> str:
    """A journal entry's branch (``current_branch``) as a sentence names it."""
    if branch == "":
        return "a branch its entry does not name"
    return "a detached HEAD" if branch is None else f"branch {branch}"
