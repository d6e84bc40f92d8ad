"""git's configuration as git reads it, listed once (``git config --list``) and kept while
the files it came from stay as they were.

Every setting that decides behaviour is read here, not through libgit2, which misses what
git reads (``GIT_CONFIG_GLOBAL``, ``GIT_CONFIG_SYSTEM``, ``includeIf "hasconfig:…"``).
Once, each setting was a ``git config`` process: about 25 per ``sync --push`` (1.5 ms of
CPU each). The listing is one, answered
for every key after it: ``value`` as ``git config --get KEY`` answers (the last value; ""
for a key written without one), ``flag`` as ``git config --type=bool --get KEY``,
``matching`` as ``git config --get-regexp``. It is kept per directory, per environment and
per ``given`` (with or without this command's ``git -c`` settings), and read again once
any file it came from (includes too), any file git would read were it there (the
repository's, the user's, the system's, an include's target) or ``HEAD`` (``includeIf
"onbranch:…"``) changed: a long-lived process (the MCP server) sees an edit as git would,
at its next read. ``forget`` drops every listing after a write of ours.
"""

from __future__ import annotations

import os
import re
import subprocess

from ..gitvalues import git_bool

_Entries = tuple[tuple[str, "str | None"], ...]
Stamp = tuple[int, int, int, int] | None  # (inode, size, mtime, ctime) in ns; None: absent

_Kept = tuple[_Entries, dict[str, Stamp]]  # the listing, and the files it depends on
_kept: dict[tuple[str, bool, tuple[tuple[str, str], ...]], _Kept] = {}


def value(cwd: str, key: str, *, given: bool = True) -> str | None:
    """``key``'s last value, as ``git config --get`` prints it ("" for a key written
    without a value); None when it is not set or git cannot read the settings."""
    found = _last(cwd, key, given)
    if found is _UNSET:
        return None
    return "" if found is None else str(found)


def flag(cwd: str, key: str, *, given: bool = True) -> bool | None:
    """``key`` as ``git config --type=bool --get`` reads it; None when it is not set or is
    no boolean (git refuses it then)."""
    found = _last(cwd, key, given)
    if found is _UNSET:
        return None
    return git_bool(None if found is None else str(found))


def matching(cwd: str, pattern: str, *, given: bool = True) -> list[tuple[str, str | None]]:
    """The settings whose key (as git lists it: section and name in lower case) matches
    ``pattern``, in git's order, as ``git config --get-regexp`` lists them (a value None:
    written without one)."""
    found = re.compile(pattern)
    return [(k, v) for k, v in entries(cwd, given=given) if found.search(k)]


def entries(cwd: str, *, given: bool = True) -> _Entries:
    """Every setting git reads in ``cwd``, in git's order (empty when git cannot list them:
    a configuration file git refuses, for one)."""
    where = os.path.abspath(cwd)
    given = given or not ("GIT_CONFIG_PARAMETERS" in os.environ or "GIT_CONFIG_COUNT" in os.environ)
    environment = _environment()
    git_dir = _located(where, environment)
    key = (git_dir or where, given, environment)  # (the same repository: one listing)
    kept = _kept.get(key)
    if kept is not None and all(stamp(path) == was for path, was in kept[1].items()):
        return kept[0]
    _kept.pop(key, None)
    before = {path: stamp(path) for path in _usual_files(git_dir, where)}
    env = {"GIT_DIR": git_dir} if git_dir else {}  # (the environment's may name another)
    if not given:
        env.update(GIT_CONFIG_PARAMETERS="", GIT_CONFIG_COUNT="0")
    done = git(["config", "--list", "-z", "--show-origin"], cwd=where, env=env)
    if done.returncode != 0:
        return ()
    listed, files = _parse(done.stdout, where)
    stamps = {path: stamp(path) for path in dict.fromkeys([*before, *files])}
    if all(stamps[path] == was for path, was in before.items()):  # (else changed while
        _kept[key] = (listed, stamps)  # git read it: used once, read again next time)
    return listed


_found: dict[tuple[str, tuple[tuple[str, str], ...]], str] = {}


def _located(where: str, environment: tuple[tuple[str, str], ...]) -> str | None:
    """The git directory whose settings git reads in ``where``: ``where`` itself when it
    is one (the callers pass ``repo.path``), else as git finds it there; a repository
    found is remembered (it stays where it is), so a read costs no search."""
    known = _found.get((where, environment))
    if known is not None:
        return known
    from ..fsio import find_git_dir, is_git_dir  # (the one reading of git's places)

    own = not os.path.lexists(os.path.join(where, ".git")) and is_git_dir(where)
    git_dir = where if own else find_git_dir(where, os.environ)
    if git_dir is not None:
        _found[(where, environment)] = git_dir
    return git_dir


def git(args: list[str], *, cwd: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``git args`` run in ``cwd`` (``env`` over this process's); its own runner, not the
    package's ``git``: the package reads every setting through this module (no circle)."""
    from ..faults import step

    step(" ".join(["git", *args[:2]]))  # a kill point, as the package's runner has
    try:
        return subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            encoding="utf-8",
            errors="surrogateescape",
            env={**os.environ, **env} if env else None,
            check=False,
        )
    except OSError as exc:  # no git at all: the settings cannot be listed (nothing is set)
        return subprocess.CompletedProcess(["git", *args], 127, "", str(exc))


def forget() -> None:
    """Drop every listing (after this process wrote a setting)."""
    _kept.clear()


_UNSET = object()


def _last(cwd: str, key: str, given: bool) -> object:
    """The last value of ``key`` (None: written without one), or ``_UNSET``."""
    from .overrides import canonical

    wanted = canonical(key)
    found: object = _UNSET
    for name, text in entries(cwd, given=given):
        if name == wanted:
            found = text
    return found


def _parse(out: str, cwd: str) -> tuple[_Entries, list[str]]:
    """The entries of ``git config --list -z --show-origin`` and the files they came from
    (and those their includes name, read or not)."""
    listed: list[tuple[str, str | None]] = []
    files: list[str] = []
    fields = out.split("\0")
    for origin, entry in zip(fields[0::2], fields[1::2], strict=False):
        name, newline, text = entry.partition("\n")
        listed.append((name, text if newline else None))
        if not origin.startswith("file:"):  # (command line: nothing to watch)
            continue
        path = os.path.join(cwd, origin[5:])
        files.append(path)
        if text and newline and (name == "include.path" or _conditional_include(name)):
            target = os.path.expanduser(text) if text.startswith("~/") else text
            files.append(os.path.join(os.path.dirname(path), target))
    return tuple(listed), files


def _conditional_include(name: str) -> bool:
    return name.startswith("includeif.") and name.endswith(".path")


def _usual_files(git_dir: str | None, where: str) -> list[str]:
    """The files git reads settings from, present or not (a file created later changes the
    answer): the system's (where this git reads it: ``fsio.system_config_files``), the
    user's two, and in ``git_dir``'s repository its own (its worktree's too) and ``HEAD``,
    which ``includeIf "onbranch:…"`` reads."""
    env = os.environ
    home = env.get("HOME", "")
    xdg = env.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else "")
    from ..fsio import system_config_files  # (the one reading of where git's is)

    system = system_config_files()
    files = ["/etc/gitconfig"] if system is None else system
    files.append(env.get("GIT_CONFIG_GLOBAL") or os.path.join(home, ".gitconfig"))
    files += [os.path.join(xdg, "git", "config")] if xdg else []
    if git_dir is not None:
        from ..fsio import common_dir

        common = common_dir(git_dir, env, where)
        files += [
            os.path.join(common, "config"),
            os.path.join(git_dir, "config.worktree"),
            os.path.join(git_dir, "HEAD"),
        ]
    return [f for f in files if f]


def stamp(path: str) -> Stamp:
    """A file's signature (inode, size, mtime, ctime in ns), None when it is absent: a
    change of any says the file changed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


_seen: list[object] = [None, ()]  # (the environment's bytes last read, its key)


def _environment() -> tuple[tuple[str, str], ...]:
    """What in this process's environment changes what git reads: git's variables, where
    the user's files are, which git runs (``PATH``: where its system file is). Read again
    only when the environment changed: comparing ``os.environ``'s own bytes is ~1 µs, while
    decoding every variable of it was most of a setting's read (~60 µs of ~100 µs)."""
    data = getattr(os.environ, "_data", None)  # (CPython's; elsewhere read each time)
    if data is not None and data == _seen[0]:
        return _seen[1]  # type: ignore[return-value]
    found = tuple(
        sorted(
            (k, v)
            for k, v in os.environ.items()
            if k.startswith("GIT_") or k in ("HOME", "XDG_CONFIG_HOME", "PATH")
        )
    )
    if isinstance(data, dict):
        _seen[:] = [dict(data), found]
    return found
