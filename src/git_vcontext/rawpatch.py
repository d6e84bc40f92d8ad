"""git's own patch of one file, written by the external diff when no person reads it.

git runs ``diff.vcontext.command`` for ``git diff`` whatever its output is for. A person
(a terminal, or git's pager) gets the structural view; a file or another program's pipe
gets the patch git itself would have written, so ``git diff > p && git apply p`` and
every script reading ``git diff`` keep working. git writes that patch here: the two
versions are copied into a temporary folder under the names git knows them by, with
their modes, and ``git diff --no-index`` compares them there (the repository's own
configuration and abbreviation apply: ``GIT_DIR``). Only the ``diff --git`` line (git
names an added or deleted file twice after the side that exists) and, for a rename, the
lines git handed over (``similarity index``, ``rename from``/``to``, ``index``) are ours.

Imports stay light: this runs once per file of a ``git diff`` into a pipe.
"""

from __future__ import annotations

import os
import stat
import sys

from .errors import OperationalError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

DEV_NULL = "/dev/null"
_OCTAL = frozenset("01234567")
_HEXDIGITS = frozenset("0123456789abcdef")
_NO_INDEX = ("git", "diff", "--no-index", "--no-ext-diff", "--no-color", "--no-prefix")
_ESCAPES = {7: b"\\a", 8: b"\\b", 9: b"\\t", 10: b"\\n", 11: b"\\v", 12: b"\\f", 13: b"\\r"}
_ESCAPES |= {0x22: b'\\"', 0x5C: b"\\\\"}


def is_external(args: Sequence[str]) -> bool:
    """git's external-diff calls: ``path old-file old-hex old-mode new-file new-hex new-mode``
    (7 arguments) plus ``new-path metainfo`` for renames and copies (9 arguments)."""
    if len(args) not in (7, 9):
        return False
    return all(_is_hex(args[i]) for i in (2, 5)) and all(_is_mode(args[i]) for i in (3, 6))


def _is_hex(arg: str) -> bool:
    """An object name as git passes it (4 to 64 lowercase hex digits), or "." (none)."""
    return arg == "." or (4 <= len(arg) <= 64 and _HEXDIGITS.issuperset(arg))


def _is_mode(arg: str) -> bool:
    """A file mode as git passes it (six octal digits), or "." (none). No regular
    expression: this is asked once per file of every ``git diff``."""
    return arg == "." or (len(arg) == 6 and _OCTAL.issuperset(arg))


def run(args: Sequence[str]) -> int:
    """Write git's patch for one external-diff call; exit 0 whatever happens (a non-zero
    exit stops git's whole diff), a problem said in one line on stderr."""
    try:
        data = raw_patch(args)
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        print(f"git-vcontext: {args[0]}: {exc.strerror or exc}", file=sys.stderr)
    except OperationalError as exc:
        print(f"git-vcontext: {exc.one_line()}", file=sys.stderr)
    return 0


def for_person() -> bool:
    """Whether a person reads the output: a terminal, or the pager git started (a pipe,
    with ``GIT_PAGER_IN_USE``). A file, or a pipe into another program, is not."""
    try:
        if os.isatty(1):
            return True
        mode = os.fstat(1).st_mode
    except OSError:
        return False
    pager = os.environ.get("GIT_PAGER_IN_USE", "").lower() in ("true", "1", "yes", "on")
    return pager and stat.S_ISFIFO(mode)


def raw_patch(args: Sequence[str]) -> bytes:
    """git's patch for one external-diff call (7 arguments, or 9 for a rename or copy)."""
    path, old_file, _, old_mode, new_file, _, new_mode = args[:7]
    new_path = args[7] if len(args) == 9 else path
    meta = os.fsencode(args[8]) if len(args) == 9 else b""
    # lazy: the structural view (commands.diff imports this module) never runs git
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="git-vcontext-") as tmp:
        a = _place(tmp, "a", path, old_file, old_mode)
        b = _place(tmp, "b", new_path, new_file, new_mode)
        proc = subprocess.run(
            [*_NO_INDEX, "--", a, b],
            cwd=tmp,
            capture_output=True,
            env=_environment(tmp),
        )
    if proc.returncode > 1:
        why = proc.stderr.decode(errors="replace").strip().splitlines()
        raise OperationalError(f"{path}: git diff --no-index: {why[-1] if why else 'failed'}")
    header = b"diff --git " + quote("a/" + path) + b" " + quote("b/" + new_path) + b"\n"
    return _headed(proc.stdout, header, meta)


def _environment(tmp: str) -> dict[str, str]:
    """The repository's configuration for the child (diff.algorithm, core.abbrev, …):
    git runs the external diff at the top of the work tree."""
    env = dict(os.environ)
    git_dir = env.get("GIT_DIR") or (".git" if os.path.exists(".git") else None)
    if git_dir is not None:
        env["GIT_DIR"] = os.path.abspath(git_dir)
        env["GIT_WORK_TREE"] = tmp  # not core.worktree: the paths are relative to tmp
    return env


def _place(tmp: str, side: str, path: str, source: str, mode: str) -> str:
    """Copy one version to ``tmp/side/path`` with its mode; /dev/null stays."""
    if source == DEV_NULL or mode == ".":
        return DEV_NULL
    target = os.path.join(tmp, side, path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if mode == "120000":  # git hands a symbolic link over as a file holding its target
        with open(source, "rb") as fh:
            os.symlink(fh.read(), os.fsencode(target))
    else:
        # lazy: only the raw patch copies files
        import shutil

        shutil.copyfile(source, target)
        os.chmod(target, 0o755 if mode == "100755" else 0o644)
    return f"{side}/{path}"


def _headed(patch: bytes, header: bytes, meta: bytes) -> bytes:
    """``patch`` with git's ``diff --git`` line and, for a rename, git's own lines in
    place of the ``index`` line (after any mode lines), as git orders them."""
    if not patch:
        return header + meta if meta else b""
    lines = patch.split(b"\n")
    lines[0] = header[:-1]
    if meta:
        at = next(
            (i for i, ln in enumerate(lines) if ln.startswith((b"index ", b"--- ", b"Binary"))),
            len(lines),
        )
        if at < len(lines) and lines[at].startswith(b"index "):
            del lines[at]
        lines[at:at] = meta.rstrip(b"\n").split(b"\n")
    return b"\n".join(lines)


def quote(name: str) -> bytes:
    """A path as git writes it in a patch header (``core.quotePath``: bytes that are not
    ASCII, control characters, quotes and backslashes make it a C-style quoted string)."""
    raw = os.fsencode(name)
    if not any(c < 0x20 or c >= 0x7F or c in (0x22, 0x5C) for c in raw):
        return raw
    out = bytearray(b'"')
    for c in raw:
        if c in _ESCAPES:
            out += _ESCAPES[c]
        elif c < 0x20 or c >= 0x7F:
            out += b"\\%03o" % c
        else:
            out.append(c)
    return bytes(out + b'"')
