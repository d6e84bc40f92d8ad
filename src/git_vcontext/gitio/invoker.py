"""Which git command runs the merge driver: the command line of the ``git`` process above us.

git 2.39 tells a driver nothing of the operation it merges for: no labels (``%S %X %Y``
came with 2.44), and ``git stash pop``, ``git checkout -m``, a single ``git cherry-pick``
or ``git revert`` leave no state file while the driver runs. Their command line does:
git starts the driver through ``sh -c``, so the ``git`` process is the parent or the
grandparent. Read from ``/proc`` where there is one, else from ``ps``; None when it cannot
be told (the labels then fall back to what git's state files say).
"""

from __future__ import annotations

import os

MAX_DEPTH = 4
"""Processes looked at above this one: sh, git, and a git that runs git (pull, rebase)."""

_GLOBAL_WITH_VALUE = frozenset(("-c", "-C", "--git-dir", "--work-tree", "--namespace"))


def git_commands(pid: int | None = None) -> list[list[str]]:
    """The argument lists (after ``git`` and its global options) of the git processes above
    ``pid`` (default: this process), nearest first; empty when none can be read."""
    found: list[list[str]] = []
    current = os.getppid() if pid is None else pid
    for _ in range(MAX_DEPTH):
        if current <= 1:
            break
        argv, parent = _process(current)
        if argv and _is_git(argv[0]):
            found.append(_subcommand(argv[1:]))
        elif argv and argv[0].rsplit("/", 1)[-1].startswith("git-") and "git-core" in argv[0]:
            found.append([argv[0].rsplit("/", 1)[-1][4:], *argv[1:]])  # git-core/git-stash
        if parent is None:
            break
        current = parent
    return found


def _is_git(program: str) -> bool:
    return program.rsplit("/", 1)[-1] in ("git", "git.exe")


def _subcommand(args: list[str]) -> list[str]:
    """``args`` without git's global options (``-c k=v``, ``-C dir``, ``--no-pager``…)."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] in _GLOBAL_WITH_VALUE:
            i += 2
        else:
            i += 1
    return args[i:]


def _process(pid: int) -> tuple[list[str], int | None]:
    """(argv, parent pid) of process ``pid``."""
    proc = f"/proc/{pid}"
    if os.path.isdir(proc):
        return _from_proc(proc)
    return _from_ps(pid)


def _from_proc(proc: str) -> tuple[list[str], int | None]:
    try:
        with open(f"{proc}/cmdline", "rb") as fh:
            raw = fh.read()
        with open(f"{proc}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return [], None
    argv = [a.decode("utf-8", "surrogateescape") for a in raw.split(b"\0") if a]
    # "pid (comm) state ppid ...": comm may hold spaces and parentheses
    fields = stat[stat.rfind(b")") + 2 :].split()
    try:
        return argv, int(fields[1])
    except (IndexError, ValueError):
        return argv, None


def _from_ps(pid: int) -> tuple[list[str], int | None]:
    """Where there is no /proc (macOS, the BSDs): ``ps`` (arguments split at spaces)."""
    import subprocess  # lazy: /proc is read with os alone (a conflicted merge's driver)

    try:
        out = subprocess.run(
            ["ps", "-o", "ppid=", "-o", "command=", "-p", str(pid)],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return [], None
    parent, _, command = out.partition(" ")
    try:
        return command.split(), int(parent)
    except ValueError:
        return command.split(), None


def describe(git_dir: str, rev: str) -> tuple[str, str] | None:
    """(full id, subject) of commit ``rev`` (as git's command line named it); None when git
    does not know it."""
    import subprocess  # lazy: see _from_ps

    try:
        log = ["log", "-1", "--no-walk", "--format=%H%x00%s", "--end-of-options", rev, "--"]
        proc = subprocess.run(
            ["git", f"--git-dir={git_dir}", *log],
            capture_output=True,
            encoding="utf-8",
            errors="replace",
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    sha, _, subject = proc.stdout.strip().partition("\0")
    return (sha, subject) if proc.returncode == 0 and sha else None
