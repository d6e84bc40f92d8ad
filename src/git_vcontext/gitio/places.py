"""Where things are in a repository: the one a hook runs in, git's common directory, the
hooks folder, and the namespace ``sync --push`` fetches a remote into."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import OperationalError
from . import config_value, open_repo, open_trusted, same_common_dir

# pygit2 is imported inside the functions that use it (lazy): it is slow to import,
# and commands that never read a repository import this module too.
if TYPE_CHECKING:
    from pygit2 import Repository


def open_pushing_repo(cwd: str | os.PathLike[str] = ".") -> Repository:
    """The repository a hook runs in (``$GIT_DIR`` when git set it)."""
    import pygit2

    git_dir = os.environ.get("GIT_DIR")
    if git_dir:
        try:
            repo = pygit2.Repository(git_dir)
        except pygit2.GitError as exc:
            if "owned by" not in str(exc):
                msg = f"cannot open the repository at {git_dir}: {exc}"
                raise OperationalError(msg) from None
            repo = open_trusted(git_dir)
        # (the work tree libgit2 gives it: git runs a push's hooks at its top, or in a bare
        # repository's git directory)
        same_common_dir(repo, os.environ)
        from .promisor import read_as_git

        read_as_git(repo)
        return repo
    return open_repo(cwd)


def common_dir(repo: Repository) -> Path:
    """Git's common directory (the main ``.git`` even from a linked worktree), where libgit2
    reads ``repo``'s refs and objects: ``fsio.common_dir`` (the one reading of it) without
    ``GIT_COMMON_DIR``, which libgit2 does not read (a repository opened where
    ``GIT_COMMON_DIR`` names another folder is refused: ``gitio.same_common_dir``; so
    this is the hook's ``fsio.find_common_dir`` too)."""
    from ..fsio import common_dir as found

    return Path(found(str(repo.path or ""), {})).resolve()


def is_shallow(repo: Repository) -> bool:
    """Whether ``repo`` is shallow as git sees it: a ``shallow`` file in git's common
    directory. libgit2's ``is_shallow`` reads the git directory of the worktree it opened,
    so from a linked worktree of a shallow clone it says no."""
    from .promisor import shallow_boundary  # the one reading of git's ``shallow`` file

    return repo.is_shallow or bool(shallow_boundary(repo))


FETCHED = "refs/vcontext/remotes/"
"""Where ``sync --push`` keeps what it fetched of a remote (its branches, requests, lease)."""


def hooks_folder(repo: Repository, *, receiving: bool = False) -> Path:
    """Where git runs ``repo``'s hooks from: ``core.hooksPath`` (``configured_hooks``),
    else the common git directory's ``hooks``. ``receiving``: where the ``git
    receive-pack`` of a push to ``repo`` as a path runs them from, which does not see
    this command's ``git -c`` settings (git clears them for it): a remote's."""
    configured = configured_hooks(repo, receiving=receiving)
    return common_dir(repo) / "hooks" if configured is None else configured


EMPTY_HOOKS_PATH = (
    "core.hooksPath is set but empty: git looks for hooks at /<name>, outside the repository, "
    "and runs none of its own; fix: git config --unset core.hooksPath (or set it to a folder)"
)
"""The one line for a hooks folder that is ``nowhere``."""


def nowhere(folder: Path) -> bool:
    """Whether a hooks folder is the filesystem's root (an empty ``core.hooksPath``): no
    repository's hooks are there, and nothing of ours is put or looked for under it."""
    return folder == Path(folder.anchor)


def configured_hooks(repo: Repository, *, receiving: bool = False) -> Path | None:
    """``core.hooksPath`` as git resolves it (``~`` expanded; a relative path from where
    git runs hooks: the top of the work tree, else the git directory, as in a bare
    repository and for ``receiving``: a push's ``receive-pack`` runs them in the git
    directory even where there is a work tree), None when unset. The one reading of it
    (install, uninstall, doctor, the guard, sync): git's own (``config_value``).
    An empty value is the filesystem's root (``nowhere``), where git looks for them."""
    configured = config_value(repo, "core.hooksPath", given=not receiving)
    if configured is None:
        return None
    if not configured:  # git joins the value and the hook's name with "/": /pre-push
        return Path(os.sep)  # (rev-parse --git-path hooks/pre-push), outside every repository
    path = Path(os.path.expanduser(configured))
    where = repo.path if receiving else repo.workdir or repo.path
    return path if path.is_absolute() else Path(where) / path


def fetched_namespace(repo: Repository, remote: str) -> str:
    """``refs/vcontext/remotes/<key>/`` of a remote: its name when it is a configured one,
    else a name made from its URL or path."""
    import pygit2

    if remote in repo.remotes.names() and pygit2.reference_is_valid_name(f"{FETCHED}{remote}"):
        return f"{FETCHED}{remote}/"
    digest = hashlib.sha1(remote.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"{FETCHED}url-{digest}/"
