"""A repository read through git's own plumbing, without pygit2 (whose import is most of what a
server hook costs): one ``git cat-file --batch`` process for objects, ``git rev-list`` for
history. For the guard's light path (``prepush.light``), which judges a push this way when
it is certain to reach the full check's verdict, and leaves everything else to the full
check.

Every command reads objects as they are (``--no-replace-objects``): a ``refs/replace/``
ref, which anyone may push, must not make the guard judge another object than the one a
ref will point to. Run in a pre-receive hook, git's environment (``GIT_DIR``, the quarantine as
``GIT_OBJECT_DIRECTORY`` with the repository's store as an alternate) makes these commands
see the pushed objects. Object ids are checked as hexadecimal before they reach a command
or the batch's input.
"""

from __future__ import annotations

import os

from .loose import is_oid as is_oid
from .loose import loose_dirs, loose_object, ref_names_in_files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

REGULAR = ("100644", "100755")
TREE = "40000"


class Unreadable(Exception):
    """What the light path cannot read for certain (the full check reads it instead)."""


class Commit:
    """The parts of a commit the checks read."""

    def __init__(self, oid: str, tree: str, parents: list[str], message: str) -> None:
        self.id, self.tree, self.parents, self.message = oid, tree, parents, message


LOOSE_LIMIT = 1 << 22
"""The biggest loose object ``Objects`` inflates itself (4 MiB); a bigger one git reads."""


class Objects:
    """Objects of the repository (and the push's quarantine) by id: a loose one read from
    its file where git's environment is the plain one of a hook in this repository
    (``loose_dirs``), anything else by one ``git cat-file --batch`` process, started when
    first needed; ``close`` ends it. A push of fewer objects than ``receive.unpackLimit``
    (100) arrives loose, so most guard runs start no ``cat-file`` at all."""

    def __init__(self, git_dir: str) -> None:
        self.git_dir = git_dir
        self._dirs = loose_dirs(git_dir)
        self._proc: _Process | None = None
        self._trees: dict[str, list[tuple[str, str, str]]] = {}
        self._read: dict[str, tuple[str, bytes]] = {}  # each object is asked for once

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.finish()

    def read(self, oid: str) -> tuple[str, bytes]:
        """(type, content) of an object; Unreadable when absent or not readable."""
        found = self._read.get(oid)
        if found is None:
            found = self._read[oid] = self._ask(oid)
        return found

    def _ask(self, oid: str) -> tuple[str, bytes]:
        if not is_oid(oid):
            raise Unreadable(f"not an object id: {oid!r}")
        if self._dirs:
            found = loose_object(self._dirs, oid, LOOSE_LIMIT)
            if found is not None and found[0] in KINDS:
                return found
        if self._proc is None:
            self._proc = _Process(
                self.git_dir, ["git", "--no-replace-objects", "cat-file", "--batch"], feed=True
            )
        proc = self._proc
        assert proc.stdin is not None
        try:
            proc.stdin.write(oid.encode() + b"\n")
            proc.stdin.flush()
            head = proc.stdout.readline().split()
            if len(head) != 3 or head[0].decode() != oid:
                raise Unreadable(f"object {oid} is not here")
            size = int(head[2])
            data = proc.stdout.read(size + 1)
        except (OSError, ValueError) as exc:
            raise Unreadable(str(exc)) from None
        if len(data) != size + 1:
            raise Unreadable(f"object {oid} read short")
        return head[1].decode(), data[:size]

    def kind(self, oid: str) -> str:
        return self.read(oid)[0]

    def blob(self, oid: str) -> bytes:
        kind, data = self.read(oid)
        if kind != "blob":
            raise Unreadable(f"{oid} is a {kind}, not a blob")
        return data

    def commit(self, oid: str) -> Commit:
        kind, data = self.read(oid)
        if kind != "commit":
            raise Unreadable(f"{oid} is a {kind}, not a commit")
        head, _, body = data.partition(b"\n\n")
        first, *rest = head.split(b"\n")
        tree = first[5:].decode("ascii", "replace") if first.startswith(b"tree ") else ""
        parents = []
        while rest and rest[0].startswith(b"parent "):
            parents.append(rest.pop(0)[7:].decode("ascii", "replace"))
        # git reads the first tree line and the parent lines right after it; another tree or
        # parent line further down is a commit made to mislead a reader: the full check
        # (which reads it as git does) judges it
        misleading = any(line.startswith((b"tree ", b"parent ")) for line in rest)
        if misleading or not is_oid(tree) or not all(is_oid(p) for p in parents):
            raise Unreadable(f"commit {oid} does not read")
        return Commit(oid, tree, parents, body.decode("utf-8", "replace"))

    def tree(self, oid: str) -> list[tuple[str, str, str]]:
        """(mode, name, id) of each entry of a tree."""
        if oid in self._trees:
            return self._trees[oid]
        kind, data = self.read(oid)
        if kind != "tree":
            raise Unreadable(f"{oid} is a {kind}, not a tree")
        width = len(oid) // 2
        entries, at = [], 0
        while at < len(data):
            space = data.index(b" ", at)
            nul = data.index(b"\0", space)
            mode = data[at:space].decode("ascii", "replace")
            name = data[space + 1 : nul].decode("utf-8", "surrogateescape")
            entries.append((mode, name, data[nul + 1 : nul + 1 + width].hex()))
            at = nul + 1 + width
        if not _well_formed(entries):
            raise Unreadable(f"tree {oid} does not read as git writes trees")
        self._trees[oid] = entries
        return entries

    def at(self, tree: str, path: str) -> tuple[str, str] | None:
        """(mode, id) of the entry at ``path`` in a tree, None when absent."""
        *folders, name = path.split("/")
        for folder in folders:
            found = [e for e in self.tree(tree) if e[1] == folder and e[0] == TREE]
            if not found:
                return None
            tree = found[0][2]
        for mode, entry, oid in self.tree(tree):
            if entry == name:
                return mode, oid
        return None

    def changes(self, old: str | None, new: str, prefix: str = "") -> Iterator[Change]:
        """Every entry that differs between two trees (``old`` None: the empty tree), by
        path, descending only into folders whose ids differ."""
        before = {} if old is None else {n: (m, o) for m, n, o in self.tree(old)}
        after = {n: (m, o) for m, n, o in self.tree(new)}
        for name in sorted(set(before) | set(after)):
            was, now = before.get(name), after.get(name)
            if was == now:
                continue
            path = prefix + name
            if was is not None and now is not None and was[0] == now[0] == TREE:
                yield from self.changes(was[1], now[1], path + "/")
            elif now is not None and now[0] == TREE and was is None:
                yield from self.changes(None, now[1], path + "/")
            else:
                yield Change(path, was, now)


KINDS = ("commit", "tree", "blob", "tag")


def _well_formed(entries: list[tuple[str, str, str]]) -> bool:
    """Names unique, none empty or holding '/', in git's order (a folder sorts as its name
    and '/'): a tree that is not (two entries of one name: git reads the first, a dict the
    last) is left to the full check, which reads it as git does."""
    keys = []
    for mode, name, _ in entries:
        if not name or "/" in name or name in (".", ".."):
            return False
        keys.append(name.encode("utf-8", "surrogateescape") + (b"/" if mode == TREE else b""))
    names = [name for _, name, _ in entries]
    return len(set(names)) == len(names) and keys == sorted(set(keys))


class Change:
    """One path that differs: (mode, id) before and after (None: absent)."""

    def __init__(self, path: str, old: tuple[str, str] | None, new: tuple[str, str] | None) -> None:
        self.path, self.old, self.new = path, old, new

    @property
    def regular(self) -> bool:
        """Both sides absent or a regular file (no folder, symlink or submodule involved)."""
        return all(side is None or side[0] in REGULAR for side in (self.old, self.new))


def rev_list(git_dir: str, args: list[str]) -> list[list[str]]:
    """``git rev-list --parents ARGS``: each commit with its parents; ARGS are object ids
    (checked) and the fixed words ``--not``, ``--all``, ``^``-prefixed ids."""
    for arg in args:
        if arg not in ("--not", "--all") and not is_oid(arg.removeprefix("^")):
            raise Unreadable(f"not an object id: {arg!r}")
    code, out = _Process(
        git_dir,
        ["git", "--no-replace-objects", "rev-list", "--parents", "--topo-order", "--reverse",
         *args, "--"],
    ).output()  # fmt: skip
    if code != 0:
        raise Unreadable("git rev-list failed")
    return [line.split() for line in out.decode("ascii", "replace").splitlines()]


def is_ancestor(git_dir: str, old: str, new: str) -> bool:
    """Whether ``old`` is in ``new``'s history (git merge-base --is-ancestor)."""
    if not (is_oid(old) and is_oid(new)):
        raise Unreadable("not an object id")
    code, _ = _Process(
        git_dir, ["git", "--no-replace-objects", "merge-base", "--is-ancestor", old, new]
    ).output()
    if code not in (0, 1):
        raise Unreadable("git merge-base failed")
    return code == 0


def ref_names(git_dir: str) -> set[str]:
    """Every ref of the repository, by full name: read from git's files where that is
    certain (``loose.ref_names_in_files``), else ``git for-each-ref``."""
    found = ref_names_in_files(git_dir)
    if found is not None:
        return found
    code, out = _Process(git_dir, ["git", "for-each-ref", "--format=%(refname)"]).output()
    if code != 0:
        raise Unreadable("git for-each-ref failed")
    return set(out.decode("utf-8", "surrogateescape").splitlines())


def config_value(git_dir: str, key: str) -> str | None:
    """``git config --get KEY`` (a fixed key of ours) in the repository; None when unset.
    A key that no file git would read names (the usual case: ours are rarely set) is
    answered without starting git (``unset_for_certain``)."""
    if unset_for_certain(git_dir, key):
        return None
    code, out = _Process(git_dir, ["git", "config", "--get", "--", key]).output()
    if code not in (0, 1):
        raise Unreadable("git config failed")
    return out.decode("utf-8", "replace").strip() if code == 0 else None


CONFIG_ENVIRONMENT = (
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
)
"""Variables by which git reads configuration from elsewhere than its usual files."""


def unset_for_certain(git_dir: str, key: str) -> bool:
    """Whether, for certain, no configuration git reads in ``git_dir`` sets ``key``: none of
    its usual files (the repository's, the user's two, the system's:
    ``system_config_files``) holds the key's name or an include, and
    no variable of ``CONFIG_ENVIRONMENT`` is set. Anything less certain (a file that cannot
    be read, a git in no ``PREFIX/bin`` or ``PREFIX/lib*/git-core`` folder) is False: ``git
    config`` answers then. Saves a git process per guard run (issue 28)."""
    if any(name in os.environ for name in CONFIG_ENVIRONMENT):
        return False
    name = key.rsplit(".", 1)[-1].lower().encode()
    home = os.environ.get("HOME")
    xdg = os.environ.get("XDG_CONFIG_HOME") or (home and os.path.join(home, ".config"))
    from ..fsio import system_config_files  # (the one reading of where git's file is)

    system = system_config_files()
    if system is None:
        return False
    files = [os.path.join(git_dir, "config"), *system]
    files += [os.path.join(home, ".gitconfig")] if home else []
    files += [os.path.join(xdg, "git", "config")] if xdg else []
    for path in files:
        try:
            with open(path, "rb") as fh:
                text = fh.read().lower()
        except FileNotFoundError:
            continue
        except OSError:
            return False
        if name in text or b"include" in text or b"worktreeconfig" in text:
            return False
    return True


class _Process:
    """One git command in the repository ``git_dir`` (``GIT_DIR``, whatever the current
    folder), its output read from a pipe, stderr dropped; started with ``os.posix_spawnp``
    rather than ``subprocess``, whose import (signal, threading, selectors, locale) costs a
    guard run more than the command itself. ``feed``: its stdin is a pipe (``stdin``)."""

    def __init__(self, git_dir: str, args: list[str], *, feed: bool = False) -> None:
        env = {**os.environ, "GIT_DIR": os.path.abspath(git_dir)}
        out_read, out_write = os.pipe()  # both close on exec; dup2 gives the child its end
        actions: list[tuple[int, ...] | tuple[int, int, str, int, int]] = [
            (os.POSIX_SPAWN_DUP2, out_write, 1),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
        ]
        in_read = in_write = -1
        if feed:
            in_read, in_write = os.pipe()
            actions.append((os.POSIX_SPAWN_DUP2, in_read, 0))
        else:
            actions.append((os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0))
        # as subprocess does: git starts with SIGPIPE at its default; the interpreter's own
        # _signal (loaded at start), not signal, whose enums load enum, functools, collections
        from _signal import SIGPIPE  # type: ignore[import-not-found,unused-ignore]

        try:
            self.pid = os.posix_spawnp("git", args, env, file_actions=actions, setsigdef=(SIGPIPE,))
        except OSError as exc:
            for fd in (out_read, in_write):
                if fd >= 0:
                    os.close(fd)
            raise Unreadable(f"git cannot run: {exc}") from None
        finally:
            for fd in (out_write, in_read):
                if fd >= 0:
                    os.close(fd)
        self.stdout = open(out_read, "rb")  # noqa: SIM115 (closed by finish)
        self.stdin = open(in_write, "wb") if feed else None  # noqa: SIM115

    def output(self) -> tuple[int, bytes]:
        """Everything the command wrote, once it ended, and its exit status."""
        try:
            out = self.stdout.read()
        finally:
            code = self.finish()
        return code, out

    def finish(self) -> int:
        """Close the pipes and wait for the command: its exit status."""
        for stream in (self.stdin, self.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        _, status = os.waitpid(self.pid, 0)
        return os.waitstatus_to_exitcode(status)
