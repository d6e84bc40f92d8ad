"""Which files are vContext files: install's patterns plus what .gitattributes sends to the driver.

One set for ``validate``, ``doctor`` and the pre-push hook (PRODUCT.md "Validation"):
a path is in it when it matches ``document.FILE_PATTERNS`` or its ``merge`` attribute
is ``vcontext``. The attributes are those of the work tree (``validate``, ``doctor``)
or those of one commit (the hook judges a pushed commit by its own ``.gitattributes``,
whatever the work tree says), plus ``$GIT_DIR/info/attributes`` and the user's
attributes file, as git itself reads them when it merges.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..document import matches_file_patterns

# pygit2 is imported inside the functions that use it (lazy): it is slow to import,
# and commands that never read a repository import this module too.
if TYPE_CHECKING:
    from pygit2 import Commit, Oid, Repository, Tree
    from pygit2.enums import AttrCheck

DRIVER = "vcontext"


class FileSet:
    """``files(path)``: whether a repo path ('/'-separated) is a vContext file.

    libgit2 reads the attributes, except where an attributes file that applies to the path
    holds a quoted pattern (``"notes/agent playbook.json" merge=vcontext``, C-style escapes:
    gitattributes(5)), which libgit2 does not read as git does: there git itself answers
    (``git check-attr``, on the commit's tree through an index of its own), so the set is
    git's own wherever the two could differ."""

    def __init__(
        self,
        reader: Repository,
        flags: AttrCheck,
        commit: str | None,
        shared: dict[str, bool] | None = None,
    ) -> None:
        self._reader = reader
        self._shared = {} if shared is None else shared  # what all commits' sets read alike
        self._flags = flags
        self._commit = commit
        self._quoted: dict[str, bool] = {}  # attributes file (by place) -> holds a quoted line
        self._folders: dict[str, bool] = {}  # folder -> a file that applies holds one
        self._said: dict[str, bool] = {}  # path -> what git check-attr said
        self._index: str | None = None  # the commit's tree as an index file, for git

    def __call__(self, path: str) -> bool:
        return matches_file_patterns(path) or self.routed(path)

    def routed(self, path: str) -> bool:
        """Whether the attributes send ``path`` to the vcontext merge driver: a commit's
        set also holds what its own ``.gitattributes`` alone route (attributes kept outside
        the commit, ``info/attributes``, the user's or the system's file, add to the set and
        never take a file out of it: a server's own file must not un-route a document its
        guard then lets anyone damage, while ``check`` and clones' hooks check it)."""
        if self._any_quoted(path) or self._user_file_moved():
            said = self._git_says(path)
        else:
            try:
                value = self._reader.get_attr(path, "merge", flags=self._flags, commit=self._commit)
            except Exception:  # pygit2 raises various errors for odd paths: not routed
                value = None
            said = bool(value == DRIVER)
        if said or self._commit is None or not self._outside_says_merge():
            return said
        return self._git_says(path, own_only=True)

    def _outside_says_merge(self) -> bool:
        """Whether an attributes file outside the commit may un-route a file the commit's
        own attributes route (a line that unsets ``merge``, sets another driver, or uses
        ``binary`` or a macro of its own): then those answer too."""
        if OUTSIDE_UNROUTES not in self._shared:
            texts = [self._read(place) for place in _OUTSIDE]
            try:
                with open(SYSTEM_ATTRIBUTES, "rb") as fh:
                    texts.append(fh.read())
            except OSError:
                pass
            self._shared[OUTSIDE_UNROUTES] = any(unroutes(text) for text in texts)
        return self._shared[OUTSIDE_UNROUTES]

    def _user_file_moved(self) -> bool:
        """Whether git reads another user attributes file than libgit2 does: one named by
        ``git -c core.attributesFile=…`` or in a ``GIT_CONFIG_GLOBAL`` file (libgit2 sees
        neither): then git answers for every path."""
        if USER_MOVED not in self._shared:
            from . import config_value

            repo = self._reader
            try:
                libgit2 = repo.config["core.attributesFile"]
            except KeyError:
                libgit2 = None
            self._shared[USER_MOVED] = config_value(repo, "core.attributesFile") != libgit2
        return self._shared[USER_MOVED]

    def _any_quoted(self, path: str) -> bool:
        """Whether an attributes file that applies to ``path`` holds a quoted pattern: the
        ``.gitattributes`` of each folder above it, ``info/attributes``, the user's file."""
        folder = path.rpartition("/")[0]
        if folder not in self._folders:
            parts = folder.split("/") if folder else []
            places = ["/".join([*parts[:n], ATTRIBUTES]) for n in range(len(parts) + 1)]
            self._folders[folder] = any(self._holds_quoted(place) for place in [*places, *_OUTSIDE])
        return self._folders[folder]

    def _holds_quoted(self, place: str) -> bool:
        if place not in self._quoted:
            self._quoted[place] = has_quoted_pattern(self._read(place))
        return self._quoted[place]

    def _read(self, place: str) -> bytes:
        """An attributes file's bytes (b"" when absent): ``place`` is a repo path, or
        ``_INFO`` / ``_USER`` for the repository's and the user's own."""
        from pathlib import Path

        from .objects import blob_data, tree_blob

        repo = self._reader
        if place in _OUTSIDE:
            where = _user_attributes(repo) if place == _USER else _info_attributes(repo)
            try:
                return b"" if where is None else Path(where).read_bytes()
            except OSError:
                return b""
        if self._commit is not None:
            tree = self._tree()
            blob = None if tree is None else tree_blob(tree, place)
            return b"" if blob is None else bytes(blob.data)
        if repo.workdir is not None:
            try:
                return (Path(repo.workdir) / place).read_bytes()
            except OSError:
                pass
        try:
            return blob_data(repo, repo.index[place].id) if place in repo.index else b""
        except (KeyError, TypeError, ValueError):
            return b""

    def _tree(self) -> Tree | None:
        from .objects import commit_at

        try:
            return commit_at(self._reader, self._commit or "").tree
        except (KeyError, TypeError, ValueError):
            return None

    def _git_says(self, path: str, *, own_only: bool = False) -> bool:
        """``git check-attr merge`` for ``path`` (the commit's tree, or the work tree);
        ``own_only``: the commit's ``.gitattributes`` alone (git run in a repository of its
        own that reads this one's objects: no ``info/attributes``, user or system file)."""
        key = f"\0own\0{path}" if own_only else path
        if key in self._said:
            return self._said[key]
        from . import git

        env = {"GIT_DIR": self._reader.path}
        cwd = self._reader.workdir or self._reader.path
        if self._commit is not None:
            env["GIT_INDEX_FILE"] = self._commit_index()
            cwd = self._reader.path
        if own_only:
            env.update(self._own_only_env())
            cwd = env["GIT_DIR"]
        if self._commit is None and self._reader.workdir is not None:
            env["GIT_WORK_TREE"] = self._reader.workdir
        given = path + "\0"
        if self._commit is not None:  # the commit's attributes: in its index (--cached)
            out = git(["check-attr", "-z", "--cached", "--stdin", "merge"], cwd=cwd,
                      input=given, env=env, check=False)  # fmt: skip
        else:
            out = git(["check-attr", "-z", "--stdin", "merge"], cwd=cwd,
                      input=given, env=env, check=False)  # fmt: skip
        fields = out.stdout.split("\0")
        said = out.returncode == 0 and len(fields) >= 3 and fields[2] == DRIVER
        self._said[key] = said
        return said

    def _own_only_env(self) -> dict[str, str]:
        """git's environment for reading a commit's own attributes: an empty repository of
        ours (no ``info/attributes``) reading this one's objects (the quarantine's too),
        with no user or system configuration or attributes."""
        import os

        from . import git
        from .places import common_dir

        folder = os.path.dirname(self._commit_index())
        own = os.path.join(folder, "own.git")
        if not os.path.isdir(own):
            git(["init", "-q", "--bare", "--", own], cwd=folder, check=False)
        objects = os.path.join(str(common_dir(self._reader)), "objects")
        alternates = [a for a in (os.environ.get("GIT_ALTERNATE_OBJECT_DIRECTORIES"),) if a]
        return {
            "GIT_DIR": own,
            "GIT_OBJECT_DIRECTORY": os.environ.get("GIT_OBJECT_DIRECTORY") or objects,
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": os.pathsep.join([*alternates, objects]),
            "GIT_ATTR_NOSYSTEM": "1",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "HOME": folder,
            "XDG_CONFIG_HOME": folder,
        }

    def _commit_index(self) -> str:
        """An index file holding the commit's tree (git 2.39 has no ``check-attr --source``)."""
        if self._index is None:
            import atexit
            import os
            import tempfile

            import pygit2

            folder = tempfile.mkdtemp(prefix="vcontext-attr-")
            atexit.register(_remove, folder)
            name = os.path.join(folder, "index")
            index = pygit2.Index(name)
            if (tree := self._tree()) is not None:
                index.read_tree(tree)
            index.write()
            self._index = name
        return self._index


ATTRIBUTES = ".gitattributes"
OUTSIDE_UNROUTES = "outside-unroutes"
USER_MOVED = "user-attributes-moved"
SYSTEM_ATTRIBUTES = "/etc/gitattributes"
"""git's system attributes file where it is usually built to look (``git config --system``'s
folder)."""
_INFO = "\0info"
_USER = "\0user"
_OUTSIDE = (_INFO, _USER)


def unroutes(text: bytes) -> bool:
    """Whether an attributes file may send a file to another merge than ours: a line that
    unsets or unspecifies ``merge``, names another driver, or uses ``binary`` (``-merge``)
    or defines a macro (which may)."""
    for line in text.split(b"\n"):
        words = line.split()
        if not words or words[0].startswith(b"#"):
            continue
        if words[0].startswith(b"[attr]"):
            return True
        for word in words[1:]:
            if word in (b"-merge", b"!merge", b"merge", b"binary"):
                return True
            if word.startswith(b"merge=") and word != b"merge=" + DRIVER.encode():
                return True
    return False


def has_quoted_pattern(text: bytes) -> bool:
    """Whether an attributes file holds a line whose pattern is quoted (gitattributes(5):
    "Patterns that begin with a double quote are quoted in C style"): git skips leading
    blanks, then a line starting with ``"`` has a quoted pattern."""
    return any(line.lstrip(b" \t\r").startswith(b'"') for line in text.split(b"\n"))


def _info_attributes(repo: Repository) -> str | None:
    from .places import common_dir

    return str(common_dir(repo) / "info" / "attributes")


def _user_attributes(repo: Repository) -> str | None:
    """The user's attributes file: ``core.attributesFile``, else git's XDG default."""
    import os

    from . import config_value  # git -c and GIT_CONFIG_GLOBAL as git reads them

    configured = config_value(repo, "core.attributesFile")
    if configured:
        return os.path.expanduser(str(configured))
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(xdg, "git", "attributes")


def _remove(folder: str) -> None:
    import shutil

    shutil.rmtree(folder, ignore_errors=True)


def work_tree_files(repo: Repository) -> FileSet:
    """The set by the work tree's attributes (the index's where a file is only staged)."""
    from pygit2.enums import AttrCheck

    return FileSet(repo, AttrCheck.FILE_THEN_INDEX, None)


def commit_files(repo: Repository) -> Callable[[Commit | Oid | str], FileSet]:
    """A function from a commit (or its id) to the set by that commit's attributes."""
    from pygit2.enums import AttrCheck

    reader = _without_index(repo)
    flags = AttrCheck.INDEX_ONLY | AttrCheck.INCLUDE_COMMIT
    sets: dict[str, FileSet] = {}
    shared: dict[str, bool] = {}

    def at(commit: Commit | Oid | str) -> FileSet:
        key = str(getattr(commit, "id", commit))
        if key not in sets:  # one per commit: what it read of the attributes is kept
            sets[key] = FileSet(reader, flags, key, shared)
        return sets[key]

    return at


def stricter(*sets: Callable[[str], bool]) -> Callable[[str], bool]:
    """The union of file sets: a path any of them holds is checked (PRODUCT.md "Validation":
    the hook takes the stricter of the commit's routing and the remote's, so a push that
    un-routes a file is still checked for it)."""
    return lambda path: any(files(path) for files in sets)


def _without_index(repo: Repository) -> Repository:
    """The repository opened again with an empty in-memory index (never written), so that
    attributes come from a commit only, not from what is staged now."""

    # lazy: only what a partial clone, or a push being received, needs
    from . import reopen
    from .incoming import see_quarantine
    from .promisor import read_as_git

    reader = reopen(repo, bare=True)
    reader.index.clear()
    see_quarantine(reader)  # the server's guard: the pushed commits are still in quarantine
    read_as_git(reader)  # a commit's .gitattributes may not be fetched yet
    return reader
