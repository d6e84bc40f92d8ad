"""The only place that talks to git: pygit2 for reading, the git command where it must run."""

from __future__ import annotations

import os

from ..errors import OperationalError
from ..faults import step
from ..record import record

# pygit2 is imported inside the functions that use it (lazy): it is slow to import,
# and commands that never read a repository import this module too.
# subprocess, pathlib, re and shlex too: the merge driver reads git's state through
# gitio.replay (os calls only), and those imports cost it more than its merge (issue 32).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Mapping, Sequence
    from pathlib import Path
    from typing import Any

    from pygit2 import Commit, Repository
    from pygit2.enums import RepositoryOpenFlag


@record
class GitResult:
    """Outcome of one git command."""

    returncode: int
    stdout: str
    stderr: str


def git(
    args: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    input: str | None = None,
    check: bool = True,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
    outlive: bool = False,
) -> GitResult:
    """Run ``git args`` and return its output; a failure raises OperationalError (git's words).

    ``timeout``: seconds after which git and every process it started (an ssh, a
    ``git-remote-https``, a local ``upload-pack``) are killed; the result then fails, its
    stderr ending in a ``fatal: … timed out`` line of ours (``TIMED_OUT``).

    ``outlive``: git's output goes to files, not pipes, for a command that must finish what
    it started even when this process is killed (SIGKILL): a pipe whose reader is gone
    ends git by SIGPIPE at its next line, half-way (``git merge``: the work tree written,
    the index and MERGE_HEAD not)."""
    import subprocess

    step(" ".join(["git", *args[:2]]))  # a kill point of the fault-injection tests

    if outlive:  # (no input, no timeout: nothing ends it but git itself)
        assert input is None and timeout is None
        return _outliving(args, cwd=cwd, check=check, env=env)
    try:
        proc = subprocess.Popen(
            ["git", *args],
            cwd=cwd,
            stdin=subprocess.PIPE if input is not None else None,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            encoding="utf-8",
            errors="surrogateescape",  # file names that are not UTF-8 survive the round trip
            env=in_english(env),
        )
    except FileNotFoundError:
        raise OperationalError(_not_found(cwd)) from None
    code = None
    try:
        stdout, stderr = proc.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        stdout, stderr = _killed(proc)
        code = proc.returncode or -9  # a failure, even if git itself had ended (a process
        # it left behind held its output): what it wrote may be cut short
        stderr += (
            f"\nfatal: git {_command(args)} not done within {timeout:.1f} s: {TIMED_OUT} (killed,"
            " with the processes it started)\n"
        )
    except BaseException:  # Ctrl-C, a signal: git and its children go with us
        _killed(proc)
        raise
    code = proc.returncode if code is None else code
    result = GitResult(code, stdout, stderr)
    if check and code != 0:
        raise OperationalError(f"git {_command(args)}: {complaint(stderr, code)}")
    return result


def in_english(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment git runs in: this process's with ``env`` on top, and git's messages
    in English (``LC_ALL=C``, no ``LANGUAGE``). Sync, status and the hook read git's lines (a
    rejected ref, a lock in the way, a transient transport failure) and quote them inside
    their own English lines: a person whose git speaks German got ``[zurückgewiesen] …
    (kein Vorspulen)`` quoted as is, and git's words a parser looks for never came. (``C``,
    not ``C.UTF-8``, which some systems lack: the Python of our own hooks and driver then
    reads and writes UTF-8 all the same, PEP 540.)"""
    merged = {**os.environ, **env} if env else dict(os.environ)
    merged.pop("LANGUAGE", None)
    merged["LC_ALL"] = "C"
    return merged


def _outliving(
    args: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None,
    check: bool,
    env: dict[str, str] | None,
) -> GitResult:
    """``git(…, outlive=True)``: git's stdout and stderr are unnamed temporary files, which
    git keeps open (and writes to) after this process is gone."""
    import subprocess
    import tempfile

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(
                ["git", *args],
                cwd=cwd,
                stdout=out,
                stderr=err,
                env=in_english(env),
            )
        except FileNotFoundError:
            raise OperationalError(_not_found(cwd)) from None
        code = proc.wait()  # Ctrl-C reaches git from the terminal too; a kill of ours does not
        texts = []
        for held in (out, err):
            held.seek(0)
            texts.append(held.read().decode("utf-8", "surrogateescape"))
    result = GitResult(code, texts[0], texts[1])
    if check and code != 0:
        raise OperationalError(f"git {_command(args)}: {complaint(texts[1], code)}")
    return result


def _command(args: Sequence[str]) -> str:
    """The git command ``args`` run (``fetch`` of ``-c k=v fetch …``): git's own options, and
    the values of those that take one, skipped."""
    rest = iter(args)
    for arg in rest:
        if arg in ("-c", "-C"):
            next(rest, None)
        elif not arg.startswith("-"):
            return arg
    return "command"


TIMED_OUT = "timed out"
"""What the line of a git command killed at its ``timeout`` says (transport.TRANSIENT)."""


def _killed(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """Kill ``proc`` and the processes it started (a hanging ``git-remote-https`` or ssh
    holds the connection, and git's stderr, after git itself is gone), then collect what
    was written (at most a few seconds more: a process that left the tree may hold the
    pipes)."""
    import subprocess

    from .proctree import kill_tree

    kill_tree(proc.pid)
    try:
        out, err = proc.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        proc.wait()
        out, err = "", ""
    return out or "", err or ""


def git_at_terminal(args: Sequence[str], *, cwd: str | os.PathLike[str] | None = None) -> int:
    """Run ``git args`` on the person's terminal (an editor git opens); its exit status."""
    import subprocess

    step(" ".join(["git", *args[:2]]))

    try:
        return subprocess.run(["git", *args], cwd=cwd, check=False).returncode
    except FileNotFoundError:
        raise OperationalError(_not_found(cwd)) from None


def _not_found(cwd: str | os.PathLike[str] | None) -> str:
    """What a FileNotFoundError from starting git means: a folder to run in that is gone
    (a removed work tree) says so, rather than blaming git's installation."""
    if cwd is not None and not os.path.isdir(cwd):
        return f"no such folder: {os.fspath(cwd)!r} (git cannot run there)"
    return "git is not installed (no 'git' on PATH)"


def complaint(stderr: str, returncode: int) -> str:
    """git's reason for a failure in one line: its first ``fatal:``/``error:`` line (the
    lines after it are advice, e.g. "Please make sure you have the correct access
    rights"), else its last line; a URL's credentials in it masked."""
    from ..errors import shown_text

    lines = [ln.strip() for ln in shown_text(stderr).splitlines() if ln.strip()]
    for line in lines:
        for prefix in ("fatal: ", "error: "):
            if line.startswith(prefix):
                return line[len(prefix) :]
    return lines[-1] if lines else f"exit status {returncode}"


def open_repo(path: str | os.PathLike[str] = ".") -> Repository:
    """The pygit2 Repository git works on in ``path``, found as git finds it (``fsio``'s one
    reading of git's places: ``GIT_DIR``, ``GIT_CEILING_DIRECTORIES``,
    ``GIT_DISCOVERY_ACROSS_FILESYSTEM``; a relative ``GIT_DIR`` from this process's folder,
    as git reads it), with the work tree git gives it (``work_tree_as_git``);
    OperationalError when there is none."""
    import pygit2

    from ..fsio import discover, is_git_dir

    env = _from_here(os.environ)
    found, gitfile = discover(_folder(path), env)
    try:
        known = found is not None and is_git_dir(found)
        repo = pygit2.Repository(found) if known else open_trusted(path)
    except pygit2.GitError as exc:  # e.g. a config file git cannot parse, another owner
        if "owned by" in str(exc) or "ownership" in str(exc):
            repo = open_trusted(path)
        else:
            raise OperationalError(f"cannot open the repository: {exc}") from None
    if known and gitfile is not None and not env.get("GIT_WORK_TREE"):
        _gitfile_work_tree(repo, gitfile)
    return as_git_reads(repo, env)


def _gitfile_work_tree(repo: Repository, top: str) -> None:
    """A repository found through the ``.git`` file in ``top`` (``clone
    --separate-git-dir``) whose git directory names no work tree (no ``core.worktree``, not
    a linked worktree's): git's work tree is ``top``, where libgit2, opened at the git
    directory, takes the git directory's parent (``fsio.discover`` found both)."""
    if repo.is_bare:
        return
    if os.path.exists(os.path.join(repo.path, "commondir")) or _names_work_tree(repo):
        return  # a linked worktree's (libgit2 reads its gitdir file), a submodule's
    repo.workdir = top


def _names_work_tree(repo: Repository) -> bool:
    """Whether ``repo`` names its work tree (``core.worktree``), read where git's set-up
    reads it (``read_repository_format``): the common directory's ``config`` file alone (not
    ``git -c``, the user's or the system's file, an include), and with
    ``extensions.worktreeConfig`` the git directory's ``config.worktree``. No git process."""
    import pygit2

    from ..fsio import common_dir

    key, extension = "core.worktree", "extensions.worktreeconfig"
    try:
        shared = pygit2.Config(os.path.join(common_dir(repo.path, {}), "config"))
        if key in shared:
            return True
        if extension not in shared or not shared.get_bool(extension):
            return False
        return key in pygit2.Config(os.path.join(repo.path, "config.worktree"))
    except pygit2.GitError:  # (git stops on a file it cannot read)
        return False


def as_git_reads(repo: Repository, env: Mapping[str, str]) -> Repository:
    """``repo`` (opened where ``env``'s git works) read as git reads it: its work tree,
    one common directory, and missing objects fetched in a partial clone."""
    work_tree_as_git(repo, env)
    same_common_dir(repo, env)
    # lazy: only what a partial clone needs
    from .promisor import read_as_git

    read_as_git(repo)
    return repo


def _from_here(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with its relative ``GIT_DIR``, ``GIT_WORK_TREE`` and ``GIT_COMMON_DIR`` made
    absolute from this process's folder, where git would read them."""
    return {**env, **_places_from_here(env)}


def _places_from_here(env: Mapping[str, str]) -> dict[str, str]:
    here = os.getcwd()
    names = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR")
    return {n: os.path.join(here, env[n]) for n in names if env.get(n)}


def _folder(path: str | os.PathLike[str]) -> str:
    where = os.path.abspath(path)
    return where if os.path.isdir(where) else os.path.dirname(where)


def work_tree_as_git(repo: Repository, env: Mapping[str, str]) -> None:
    """Give ``repo`` the work tree git gives it: ``GIT_WORK_TREE`` when set; with
    ``GIT_DIR`` alone, in a repository that is not bare and names no ``core.worktree``,
    the folder git runs in (this process's), where libgit2 would take ``GIT_DIR``'s parent."""
    named = env.get("GIT_WORK_TREE")
    if named:
        repo.workdir = os.path.realpath(named)
    elif env.get("GIT_DIR") and not repo.is_bare and not _names_work_tree(repo):
        repo.workdir = os.path.realpath(os.getcwd())


def same_common_dir(repo: Repository, env: Mapping[str, str]) -> None:
    """OperationalError when ``GIT_COMMON_DIR`` names another folder than the one libgit2
    reads ``repo``'s refs and objects from (its ``commondir`` file's; libgit2 knows no
    ``GIT_COMMON_DIR``): git would read one repository there and this command another, and
    the verdict cache, the hooks folder and sync's folders would not be git's."""
    named = env.get("GIT_COMMON_DIR")
    if not named:
        return
    from ..fsio import common_dir

    wanted, opened = (os.path.realpath(p) for p in (named, common_dir(repo.path, {})))
    if wanted != opened:
        raise OperationalError(
            f"GIT_COMMON_DIR names {wanted}, but the repository at {repo.path} keeps its refs "
            f"and objects in {opened}, where git-vcontext reads them; unset GIT_COMMON_DIR "
            "(or set it to that folder)"
        )


def open_trusted(path: str | os.PathLike[str]) -> Repository:
    """The repository at ``path`` that libgit2 refused (another user's, or none found) when
    git itself opens it: git also reads ``safe.directory`` from ``git -c`` and from
    ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n`` (a CI runner's way of
    trusting a checkout), which libgit2 does not. git is the judge; its refusal is the
    one message of ``repository_error``. libgit2's check is off only while this one
    repository is opened (and again by ``reopen``): any other repository the command
    opens (a local remote) is judged as before, so git's refusal of it stands."""
    from pathlib import Path  # lazy: see the imports above

    where = Path(path)
    where = where if where.is_dir() else where.parent
    named = _places_from_here(os.environ)  # (git runs in ``where``; they name from here)
    asked = git(["rev-parse", "--absolute-git-dir"], cwd=where, check=False, env=named or None)
    if asked.returncode != 0 or not asked.stdout.strip():
        if "GIT_DIR" in named and "not a git repository" in asked.stderr:
            raise OperationalError(
                f"not a git repository: {named['GIT_DIR']} (named by GIT_DIR: unset it, or "
                "name a repository's git directory)"
            )
        raise repository_error(where, asked.stderr)
    found = asked.stdout.strip()
    _TRUSTED.add(os.path.realpath(found))
    return _unvalidated(found)


_TRUSTED: set[str] = set()  # git directories git accepted though libgit2 would not
_LOCKS: dict[str, Any] = {}


def reopen(repo: Repository, *, bare: bool = False) -> Repository:
    """Another handle on ``repo`` (``bare``: no work tree, e.g. an index of its own), trusted
    as the first one was."""
    import pygit2

    open_flag = pygit2.enums.RepositoryOpenFlag
    flags = open_flag.BARE if bare else open_flag.DEFAULT
    if os.path.realpath(repo.path) in _TRUSTED:
        return _unvalidated(repo.path, flags)
    return pygit2.Repository(repo.path, flags=flags)


def _unvalidated(git_dir: str, flags: RepositoryOpenFlag | None = None) -> Repository:
    """``git_dir`` opened with libgit2's owner check off for this one call."""
    import threading

    import pygit2
    from pygit2.enums import Option

    with _LOCKS.setdefault("owner", threading.Lock()):  # the option is the whole process's
        before = pygit2.option(Option.GET_OWNER_VALIDATION)
        pygit2.option(Option.SET_OWNER_VALIDATION, 0)
        try:
            return pygit2.Repository(
                git_dir, flags=flags or pygit2.enums.RepositoryOpenFlag.DEFAULT
            )
        except pygit2.GitError as exc:
            raise OperationalError(f"cannot open the repository: {exc}") from None
        finally:
            pygit2.option(Option.SET_OWNER_VALIDATION, before)


def library_errors() -> tuple[type[Exception], ...]:
    """What pygit2 raises when it cannot read or write a repository, for a caller outside
    this package that must catch it (only gitio imports pygit2)."""
    import pygit2

    return (pygit2.GitError,)


def repository_error(
    path: str | os.PathLike[str] = ".", stderr: str | None = None
) -> OperationalError:
    """The one message every command gives when ``path`` is in no repository it may use,
    with git's own fix: git's diagnosis (``stderr`` of a git command that failed there,
    else asked of ``git rev-parse``) in the same words whatever the command."""
    import re  # lazy: see the imports above
    from pathlib import Path

    from ..validation.model import command_word

    where = Path(path).resolve()
    if stderr is None:
        stderr = git(["rev-parse", "--git-dir"], cwd=where, check=False).stderr
    owned = re.search(r"dubious ownership in repository at '(.+?)'", stderr)
    if owned:
        top = owned.group(1)
        return OperationalError(
            f"the repository at {top} belongs to another user (git: dubious ownership); "
            f"if you trust it: git config --global --add safe.directory {command_word(top)}"
        )
    if "not a git repository" in stderr or not stderr.strip():
        return OperationalError(
            f"not a git repository (or any of the parent directories): {where} "
            "(run it in a clone, or git init)"
        )
    return OperationalError(f"cannot open the repository at {where}: {complaint(stderr, 128)}")


def workdir(repo: Repository) -> Path:
    """The top of the working tree (OperationalError for a bare repository)."""
    if repo.workdir is None:
        raise OperationalError("this command needs a working tree (the repository is bare)")
    from pathlib import Path  # lazy: see the imports above

    return Path(repo.workdir)


def work_tree(repo: Repository) -> str | None:
    """The top of the working tree as libgit2 names it (ending in ``/``); None when bare."""
    return repo.workdir


def git_dir(repo: Repository) -> str:
    """The repository's git directory (``.git``, or the bare repository itself)."""
    return str(repo.path)


def run_dir(repo: Repository) -> str:
    """Where git commands run for ``repo``: the top of its working tree, else its git dir."""
    return str(repo.workdir or repo.path)


def set_config(repo: Repository, key: str, value: str) -> None:
    """Write ``key = value`` into the repository's own git config."""
    repo.config[key] = value
    config_written()


def config_written() -> None:
    """After this process wrote a setting: what ``configread`` listed is read again."""
    from . import configread

    configread.forget()


def config_hooks(repo: Repository, *, given: bool = True) -> bool:
    """Whether git config names hooks for ``repo`` (``hook.*``: git 2.46 and later), as git
    reads its settings (``config_value``): this command's ``git -c`` ones too, unless
    ``given`` is False (a ``git receive-pack`` for a push to a path)."""
    from . import configread

    return bool(configread.matching(repo.path, r"^hook\.", given=given))


def is_ignored(repo: Repository, path: str) -> bool:
    """Whether git ignores ``path`` (relative to the top of the working tree)."""
    return bool(repo.path_is_ignored(path))


def config_value(repo: Repository, key: str, *, given: bool = True) -> str | None:
    """A git config value as ``git config --get`` answers it in ``repo`` ("" for a key
    written without one); None when the key is not set. git answers (``configread``: one
    ``git config --list`` per command, kept while its files stay as they were), not
    libgit2, which reads other settings than git where they matter: not this command's
    ``git -c KEY=VALUE``, not an ``includeIf "hasconfig:remote.*.url:…"`` include, not a
    ``GIT_CONFIG_GLOBAL`` or ``GIT_CONFIG_SYSTEM`` file, and the system's even under
    ``GIT_CONFIG_NOSYSTEM``. ``given`` False: as a ``git receive-pack`` that git starts for
    a push to a path reads it, without this command's ``git -c`` settings (git clears
    ``GIT_CONFIG_PARAMETERS`` for it: ``gitio.places.hooks_folder``)."""
    from . import configread

    return configread.value(repo.path, key, given=given)


def config_flag(repo: Repository, key: str, default: bool) -> bool:
    """A boolean git config value as git reads it (``true``/``yes``/``on``/``1``, …), read
    as ``config_value`` reads settings; ``default`` when the key is not set or is not a
    boolean."""
    from . import configread

    found = configread.flag(repo.path, key)
    return default if found is None else found


def config_entries(repo: Repository) -> list[tuple[str, str | None]]:
    """Every setting git reads in ``repo`` (keys as git lists them: section and name in
    lower case), those given to this one command (``git -c``) included, as ``config_value``
    reads them (git's own ``git config --list``, through configread)."""
    from . import configread

    return list(configread.entries(repo.path))


def resolve_commit(repo: Repository, rev: str) -> Commit:
    """The commit a revision names (``HEAD``, a branch, a sha, ``main~2``); a value that
    is no revision at all (``-x``, a control character) is a UsageError."""
    import pygit2

    from .operands import revision

    revision(rev)

    try:
        obj = repo.revparse_single(rev)
        commit = obj.peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        if rev == "HEAD" and repo.head_is_unborn:
            raise OperationalError("the current branch has no commits yet") from None
        raise OperationalError(f"unknown revision: {rev}") from None
    return commit


def revision_range(repo: Repository, spec: str) -> tuple[Commit, Commit, bool] | None:
    """``A..B`` or ``A...B`` as git reads them (an empty side is HEAD): (A's commit, B's
    commit, whether the range starts at their merge base, ``...``). None when ``spec`` is
    not a range of two commits: one revision, or none at all (``resolve_commit`` says so).
    A range with a side that names no commit: OperationalError naming that side."""
    import pygit2

    from .operands import revision

    revision(spec)

    try:
        parsed = repo.revparse(spec)
        if not parsed.flags & pygit2.GIT_REVSPEC_RANGE:
            return None
        start, end = (obj.peel(pygit2.Commit) for obj in (parsed.from_object, parsed.to_object))
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        if ".." in spec:
            for side in spec.replace("...", "..").split("..", 1):
                resolve_commit(repo, side or "HEAD")
        return None
    return start, end, bool(parsed.flags & pygit2.GIT_REVSPEC_MERGE_BASE)


def read_at(repo: Repository, rev: str, path: str) -> bytes:
    """The content of ``path`` (relative to the top of the repo) at revision ``rev``."""
    commit = resolve_commit(repo, rev)
    try:
        entry = commit.tree[path.replace(os.sep, "/")]
    except KeyError:
        raise OperationalError(f"{path}: not in {rev}") from None
    if entry.type_str != "blob":  # a folder (tree) or a submodule (commit)
        what = "a directory" if entry.type_str == "tree" else "a submodule"
        raise OperationalError(f"{path}: {what} in {rev}, not a file")
    # lazy: gitio is on the driver's conflict path; objects is not
    from .objects import blob_data

    return blob_data(repo, entry.id)


def relative_to_top(repo: Repository, path: str | os.PathLike[str]) -> str:
    """A path given on the command line, as the repo-relative '/'-separated path git uses:
    from this process's folder, or from the top when ``GIT_DIR``/``GIT_WORK_TREE`` name a
    work tree this folder is outside of (git then runs at the top)."""
    from pathlib import Path  # lazy: see the imports above

    top = workdir(repo).resolve()
    here = Path.cwd().resolve()
    named = os.environ.get("GIT_DIR") or os.environ.get("GIT_WORK_TREE")
    outside = bool(named) and here != top and top not in here.parents
    full = (top / path if outside else Path(path)).resolve()
    try:
        return full.relative_to(top).as_posix()
    except ValueError:
        raise OperationalError(f"{path}: outside the repository at {top}") from None
