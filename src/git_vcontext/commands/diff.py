"""``git vcontext diff``: two files, revisions like ``git diff``, git's external-diff forms."""

from __future__ import annotations

import os
import sys

from ..diffing.files import FileDiff, compare, unified
from ..diffing.report import render_files
from ..errors import ExitCode, OperationalError, UsageError
from ..filechange import FileChange
from ..fsio import read_bytes, write_output
from ..rawpatch import DEV_NULL, for_person, is_external
from ..rawpatch import run as raw_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["is_external", "run"]


def run(
    *,
    args: Sequence[str],
    fmt: str = "text",
    color: str = "auto",
    exit_code: bool = False,
    cached: bool = False,
    stat: bool = False,
    paths: Sequence[str] = (),
    name: str | None = None,
) -> int:
    """Dispatch on the argument form; exit 1 with ``--exit-code`` when anything differs.

    ``name``: for two files, the name git knows them by (difftool's temporary copies).
    """
    use_color = want_color(color)
    if is_external(args):
        return external(args, fmt=fmt, color=use_color)
    if len(args) == 1 and "GIT_DIFF_PATH_TOTAL" in os.environ and not cached and not paths:
        write_output(None, f"* Unmerged path {args[0]}\n")  # git's own words for this case
        return int(ExitCode.OK)
    if _two_files(args, cached, paths):
        diffs = [_files(args[0], args[1], name)]
    else:
        if name is not None:
            raise UsageError("--path names the two files of 'diff OLD NEW'")
        _missing_file(args, cached, paths)
        # lazy: the external diff never reads revisions
        from .diff_revisions import revisions

        diffs, unmerged = revisions(args, cached=cached, paths=paths)
        if unmerged and fmt == "text":  # git's own words (git diff --cached mid-merge)
            write_output(None, "".join(f"* Unmerged path {path}\n" for path in unmerged))
    write_output(None, render_files(diffs, fmt=fmt, color=use_color, stat=stat))
    found = exit_code and any(d.differs for d in diffs)
    return int(ExitCode.FOUND if found else ExitCode.OK)


def want_color(choice: str) -> bool:
    """``always``/``never``; ``auto``: a terminal (or git's pager), unless NO_COLOR or TERM=dumb."""
    if choice in ("always", "never"):
        return choice == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return sys.stdout.isatty() or os.environ.get("GIT_PAGER_IN_USE") in ("true", "1")


def external(args: Sequence[str], *, fmt: str, color: bool) -> int:
    """Show one file for git; always exit 0, or git would stop the whole diff.

    A person (a terminal, git's pager) gets the structural view; a file or another
    program's pipe gets git's own patch (``git diff > p && git apply p``)."""
    if fmt == "text" and not for_person():
        return raw_run(args)
    path, old_file, new_file = args[0], args[1], args[4]
    new_path = args[7] if len(args) == 9 else path
    old_gone = old_file == DEV_NULL or args[3] == "."
    new_gone = new_file == DEV_NULL or args[6] == "."
    try:
        old = None if old_gone else read_bytes(old_file)
        new = None if new_gone else read_bytes(new_file)
        file = FileChange(
            None if old_gone else path,
            None if new_gone else new_path,
            old=old,
            new=new,
            renamed=new_path != path,
        )
        result = _compare_safely(file)
        write_output(None, render_files([result], fmt=fmt, color=color))
    except OperationalError as exc:
        print(f"git-vcontext: {exc.one_line()}", file=sys.stderr)
    return int(ExitCode.OK)


def _compare_safely(file: FileChange) -> FileDiff:
    """A structural diff, or a line diff if anything at all goes wrong (git must show something)."""
    try:
        return compare(file)
    except Exception as exc:  # never abort git's diff over one file
        if os.environ.get("GIT_VCONTEXT_DEBUG"):
            raise
        why = f"internal error: {type(exc).__name__}: {exc}"
        return FileDiff(file, None, why, unified(file))


def _two_files(args: Sequence[str], cached: bool, paths: Sequence[str]) -> bool:
    """``OLD NEW`` (also the difftool form ``LOCAL REMOTE``): two existing files or /dev/null."""
    if len(args) != 2 or cached or paths:
        return False
    return all(a == DEV_NULL or _a_file(a) for a in args) and list(args) != [DEV_NULL] * 2


def _a_file(arg: str) -> bool:
    """Whatever exists and is not a folder: a regular file, or a pipe such as the
    ``/dev/fd/N`` of a shell's ``<(git show REV:FILE)``."""
    return os.path.exists(arg) and not os.path.isdir(arg)


def _missing_file(args: Sequence[str], cached: bool, paths: Sequence[str]) -> None:
    """``diff FILE MISSING`` outside a repository: name the missing file (revisions cannot
    be meant without a repository, so 'not a git repository' would mislead)."""
    if len(args) != 2 or cached or paths or not any(_a_file(a) for a in args):
        return
    # lazy: the external diff never runs git
    from ..gitio import git

    if git(["rev-parse", "--git-dir"], check=False).returncode == 0:
        return  # inside a repository: REV FILE is a revision and a path
    missing = next(a for a in args if not (a == DEV_NULL or _a_file(a)))
    what = "is a directory, not a file" if os.path.isdir(missing) else "no such file"
    raise OperationalError(f"{missing}: {what}")


def _files(old_file: str, new_file: str, name: str | None = None) -> FileDiff:
    old = None if old_file == DEV_NULL else read_bytes(old_file)
    new = None if new_file == DEV_NULL else read_bytes(new_file)
    old_path = None if old is None else (name or old_file)
    new_path = None if new is None else (name or new_file)
    return compare(FileChange(old_path, new_path, old=old, new=new))
