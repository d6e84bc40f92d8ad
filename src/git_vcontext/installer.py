"""What `install` writes (declared as data) and how it is added, checked and removed again."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from .document import FILE_PATTERNS
from .errors import OperationalError, UsageError
from .fsio import read_bytes, write_atomic
from .gitio import git, open_repo
from .gitio.push import common_dir
from .verdict_cache import cache_root

PATTERNS = FILE_PATTERNS
ATTRIBUTES = "merge=vcontext diff=vcontext"

ATTRIBUTE_LINES = tuple(f"{p} {ATTRIBUTES}" for p in PATTERNS)
ATTRIBUTES_HEADER = "# git-vcontext: merge and diff vContext documents by meaning"
SIGNATURE = "merge-driver %O %A %B"  # how we recognise our own driver line
BASE_DRIVER = "vcontext-base"  # the driver git runs for the inner merges of criss-cross histories
BASE_SIGNATURE = "merge-driver --virtual-base %O %A %B"


def script_command() -> str:
    """The absolute, shell-quoted command that runs this installation of git-vcontext."""
    here = Path(sys.executable).parent / "git-vcontext"
    if here.is_file() and os.access(here, os.X_OK):
        return shlex.quote(str(here.resolve()))
    argv0 = Path(sys.argv[0])
    if argv0.name == "git-vcontext" and argv0.is_file():
        return shlex.quote(str(argv0.resolve()))
    return f"{shlex.quote(str(Path(sys.executable).resolve()))} -m git_vcontext"


def config_entries(command: str) -> dict[str, str]:
    """The git configuration install writes; %S %X %Y are left alone by gits before 2.44.

    ``$MERGED`` is the path git knows a file by, ``$LOCAL``/``$REMOTE`` temporary copies.
    ``merge.vcontext.recursive`` names the driver git runs for the inner merges that
    build a criss-cross history's virtual base (M16): every conflict there takes the
    base's value, so the outer merge starts from a valid document.
    """
    return {
        "merge.vcontext.name": "vContext documents (git-vcontext)",
        "merge.vcontext.driver": f"{command} {SIGNATURE} -p %P -l %L -s %S -x %X -y %Y",
        "merge.vcontext.recursive": BASE_DRIVER,
        f"merge.{BASE_DRIVER}.name": "vContext virtual merge bases (git-vcontext)",
        f"merge.{BASE_DRIVER}.driver": f"{command} {BASE_SIGNATURE} -p %P -l %L",
        "diff.vcontext.textconv": f"{command} textconv",
        "diff.vcontext.cachetextconv": "true",  # git log -p: each blob converted once
        "difftool.vcontext.cmd": f'{command} diff --path "$MERGED" "$LOCAL" "$REMOTE"',
        "mergetool.vcontext.cmd": f'{command} mergetool "$BASE" "$LOCAL" "$REMOTE" "$MERGED"',
        "mergetool.vcontext.trustExitCode": "true",  # exit 0: resolved, git mergetool stages it
    }


SETTINGS = frozenset(
    {
        "merge.vcontext.name",
        "merge.vcontext.recursive",
        f"merge.{BASE_DRIVER}.name",
        "diff.vcontext.cachetextconv",
        "mergetool.vcontext.trustExitCode",
    }
)
"""Entries whose value does not run git-vcontext: set when absent, another value is the
user's (kept, and said, unless --force); uninstall removes them while they hold ours."""


def _ours(key: str, value: str | None) -> bool:
    """Whether ``value`` of ``key`` is one install writes (this or any installation)."""
    return is_ours(value) or (key in SETTINGS and value == config_entries("")[key])


def is_ours(value: str | None) -> bool:
    """Whether a configured value was written by git-vcontext (any installation)."""
    return value is not None and ("git-vcontext" in value or "git_vcontext" in value)


@dataclass(frozen=True)
class Scope:
    """Where install writes: this repository (``local``) or the user's configuration."""

    name: str  # "local" | "global"
    cwd: Path

    @property
    def flag(self) -> str:
        return f"--{self.name}"

    def get(self, key: str) -> str | None:
        out = git(["config", self.flag, "--get", "--", key], cwd=self.cwd, check=False)
        return out.stdout.rstrip("\n") if out.returncode == 0 else None

    def set(self, key: str, value: str) -> None:
        git(["config", self.flag, "--", key, value], cwd=self.cwd)

    def unset(self, key: str) -> None:
        git(["config", self.flag, "--unset-all", "--", key], cwd=self.cwd, check=False)

    def attributes_file(self) -> Path:
        if self.name == "local":
            return repo_top(self.cwd) / ".gitattributes"
        configured = Scope("global", self.cwd).get("core.attributesFile")
        if configured:
            return Path(os.path.expanduser(configured))
        return _xdg_git() / "attributes"


def repo_top(cwd: Path) -> Path:
    """The top of the working tree, or an OperationalError outside a repository."""
    out = git(["rev-parse", "--show-toplevel"], cwd=cwd, check=False)
    if out.returncode != 0:
        raise OperationalError(f"not a git repository (or any parent): {cwd.resolve()}")
    return Path(out.stdout.strip())


# -- config ---------------------------------------------------------------------------


def config_refusal(scope: Scope, force: bool) -> str | None:
    """Why install must not write the driver entries (a foreign value), or None."""
    if force:
        return None
    for key in config_entries("git-vcontext"):
        value = scope.get(key)
        if value is not None and not _ours(key, value) and key not in SETTINGS:
            return (
                f"{key} is already set to {value!r} by another tool; "
                "re-run with --force to replace it"
            )
    return None


def install_config(scope: Scope, command: str, force: bool) -> list[str]:
    """Write the driver entries; refuse to replace foreign values without --force."""
    if why := config_refusal(scope, force):
        raise UsageError(why)
    messages = []
    for key, value in config_entries(command).items():
        current = scope.get(key)
        if current == value:
            continue
        if current is not None and key in SETTINGS and not _ours(key, current) and not force:
            messages.append(f"kept {key} = {current} (yours; --force sets {value})")
            continue
        scope.set(key, value)
        messages.append(f"set {key}")
    return messages


def uninstall_config(scope: Scope) -> list[str]:
    """Remove the entries install wrote (foreign values are left alone)."""
    removed = []
    entries = config_entries("git-vcontext")
    for key in entries:
        value = scope.get(key)
        if value is not None and (_ours(key, value) or key == "merge.vcontext.name"):
            scope.unset(key)
            removed.append(key)
    for section in sorted({key.rsplit(".", 1)[0] for key in entries}):
        pattern = "^" + section.replace(".", "\\.") + "\\."
        where = scope.cwd
        left = git(["config", scope.flag, "--get-regexp", "--", pattern], cwd=where, check=False)
        if not left.stdout.strip():  # only an empty section header: a foreign value stays
            git(["config", scope.flag, "--remove-section", "--", section], cwd=where, check=False)
    return [f"removed {k}" for k in removed]


# -- attributes -----------------------------------------------------------------------


def attributes_refusal(path: Path, force: bool) -> str | None:
    """Why install must not add its attribute lines (others for our patterns), or None."""
    _refuse_linked(path)
    if force or not path.exists():
        return None
    clashes = _clashes(_read_lines(path)[0])
    return (
        f"{path} already says {clashes[0].strip()!r}; re-run with --force to replace it"
        if clashes
        else None
    )


def _refuse_linked(path: Path) -> None:
    """A repository's ``.gitattributes`` that is a symbolic link: git does not read it (it
    never follows one), and writing through it would change a file elsewhere."""
    if _repo_link(path):
        raise OperationalError(
            f"{path} is a symbolic link (to {os.readlink(path)}), which git does not read: "
            "replace it with a file, then install again; nothing changed"
        )


def _repo_link(path: Path) -> bool:
    return path.name == ".gitattributes" and path.is_symlink() and (path.parent / ".git").exists()


def _clashes(lines: list[str]) -> list[str]:
    return [ln for ln in lines if _pattern(ln) in PATTERNS and ln.strip() not in ATTRIBUTE_LINES]


def install_attributes(path: Path, force: bool) -> list[str]:
    """Add the attribute lines that are missing; refuse other attributes for our patterns."""
    if why := attributes_refusal(path, force):
        raise UsageError(why)
    lines, newline = _read_lines(path) if path.exists() else ([], "\n")
    clashes = _clashes(lines)
    kept = [ln for ln in lines if ln not in clashes]
    missing = [ln for ln in ATTRIBUTE_LINES if ln not in {x.strip() for x in kept}]
    if not missing and not clashes:
        return []
    block = ([ATTRIBUTES_HEADER] if ATTRIBUTES_HEADER not in kept else []) + missing
    if kept and kept[-1].strip():
        block.insert(0, "")
    _write_lines(path, kept + block, newline)
    return [f"added {len(missing)} pattern(s) to {path}"]


def uninstall_attributes(path: Path) -> list[str]:
    """Remove our lines (and header) from an attributes file; delete it if nothing is left."""
    if not path.exists() or _repo_link(path):  # a link install never wrote through
        return []
    lines, newline = _read_lines(path)
    ours = set(ATTRIBUTE_LINES) | {ATTRIBUTES_HEADER}
    kept = [ln for ln in lines if ln.strip() not in ours]
    if kept == lines:
        return []
    while kept and not kept[-1].strip():
        kept.pop()
    if kept:
        _write_lines(path, kept, newline)
        return [f"removed our patterns from {path}"]
    path.unlink()
    return [f"removed {path} (only our patterns were in it)", *_remove_if_empty(path.parent)]


def _xdg_git() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
    return Path(base) / "git"


def _remove_if_empty(folder: Path) -> list[str]:
    """Remove git's folder under ``~/.config`` when install's files were all it held (only
    that folder: a custom attributes file may sit in the home folder itself)."""
    if folder != _xdg_git():
        return []
    try:
        folder.rmdir()  # fails unless empty: never removes anything but the folder
    except OSError:
        return []
    return [f"removed the empty folder {folder}"]


def global_config_file() -> Path:
    """The file ``git config --global`` writes (git's order of choice)."""
    configured = os.environ.get("GIT_CONFIG_GLOBAL")
    if configured:
        return Path(configured)
    home = Path(os.path.expanduser("~/.gitconfig"))
    xdg = _xdg_git() / "config"
    return xdg if not home.exists() and xdg.exists() else home


def remove_empty_config(path: Path) -> list[str]:
    """Delete a configuration file that uninstall left without any setting."""
    try:
        if not path.is_file() or path.read_bytes().strip():
            return []
        path.unlink()
    except OSError:
        return []
    return [f"removed the empty {path}", *_remove_if_empty(path.parent)]


def _pattern(line: str) -> str | None:
    parts = line.split()
    return parts[0] if parts and not parts[0].startswith("#") else None


def _read_lines(path: Path) -> tuple[list[str], str]:
    """An attributes file's lines and its line ending (bytes that are not UTF-8 kept as is)."""
    text = read_bytes(str(path)).decode("utf-8", "surrogateescape")
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(newline)
    if lines and not lines[-1]:
        lines.pop()
    return lines, newline


def _write_lines(path: Path, lines: list[str], newline: str = "\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, (newline.join(lines) + newline).encode("utf-8", "surrogateescape"))


# -- the pre-push hook's cache ------------------------------------------------------


def uninstall_cache(cwd: Path) -> list[str]:
    """Remove the pre-push hook's verdict cache (and our folder under .git if empty)."""
    root = cache_root(common_dir(open_repo(cwd)))
    if not root.exists():
        return []
    shutil.rmtree(root, ignore_errors=True)
    try:
        root.parent.rmdir()  # .git/vcontext, when nothing else of ours is left there
    except OSError:
        pass
    return [f"removed the verdict cache {root}"]
