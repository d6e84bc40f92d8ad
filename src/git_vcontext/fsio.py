"""File input/output for commands: readable errors, atomic replacement, stdin/stdout as ``-``."""

from __future__ import annotations

import codecs
import io
import sys

from .errors import OperationalError, OutputError
from .oscalls import basename, dirname, join, stat, system
from .patterns import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    import os
    from collections.abc import Callable, Mapping
    from typing import Any

OUTPUT_ERRORS = "git-vcontext-output"
"""How text that is not plain Unicode goes out: file names that were not UTF-8 (decoded
with surrogateescape) as their bytes, any other lone surrogate (a ``\\ud800`` escape in a
document) as that escape."""


def _output_errors(exc: UnicodeError) -> tuple[str | bytes, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    chunk = exc.object[exc.start : exc.end]
    if all("\udc80" <= c <= "\udcff" for c in chunk):
        return bytes(ord(c) - 0xDC00 for c in chunk), exc.end
    return "".join(f"\\u{ord(c):04x}" for c in chunk), exc.end


codecs.register_error(OUTPUT_ERRORS, _output_errors)


class _CheckedOutput(io.RawIOBase):
    """A file descriptor that takes every byte it is given or raises OutputError.

    Python's own buffered stdout ignores a short write (``ulimit -f``: the kernel writes
    up to the limit and says how much; a large write then loses the rest and exits 0).
    """

    def __init__(self, fd: int, stream: object = None) -> None:
        super().__init__()
        self._fd = fd
        self._stream = stream  # the stream whose descriptor this is: kept open while we are

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return system.isatty(self._fd)

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            try:
                written = system.write(self._fd, view[done:])
            except BlockingIOError:  # a non-blocking pipe that is full: wait for room
                # lazy: only then (the driver's start-up does without it)
                import select

                select.select([], [self._fd], [])
                continue
            except BrokenPipeError:
                raise  # the reader went away (git log -p | head): not an error of ours
            except OSError as exc:
                raise OutputError(f"cannot write the output ({exc.strerror})") from None
            if written <= 0:
                raise OutputError("cannot write the output (nothing was written)")
            done += written
        return done


def check_stdout() -> None:
    """Make ``sys.stdout`` raise OutputError on a failed or short write (same encoding;
    file names that are not UTF-8 come out as their bytes)."""
    current = sys.stdout
    if current is None:  # started with that descriptor closed
        return
    try:
        fd = current.fileno()
    except (OSError, ValueError, AttributeError):  # not a real file (a test's capture)
        return
    raw = _CheckedOutput(fd, current)
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(raw),
        encoding=current.encoding,
        errors=OUTPUT_ERRORS,
        line_buffering=raw.isatty(),
    )


def read_bytes(path: str) -> bytes:
    """The bytes of a file (``-`` = stdin), or an OperationalError saying why not."""
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise unreadable(path, exc) from None


def unreadable(path: str, exc: OSError) -> OperationalError:
    """Why ``path`` could not be opened or read, in one line."""
    if isinstance(exc, FileNotFoundError):
        return OperationalError(f"{path}: no such file")
    if isinstance(exc, IsADirectoryError):
        return OperationalError(f"{path}: is a directory, not a file")
    if isinstance(exc, PermissionError):
        return OperationalError(f"{path}: permission denied")
    return OperationalError(f"{path}: cannot read ({exc.strerror})")  # ENXIO, ELOOP, …


def read_regular(path: str, *, follow: bool = True, limit: int | None = None) -> bytes:
    """The bytes of a regular file the tool found itself (a folder's scan, a served
    document, a claim in the repository), or an OperationalError: a named pipe, a socket
    or a device is never opened for reading (a FIFO would block forever); the check is
    made on the opened file, so a swap between a look and the read changes nothing.
    ``follow`` False: a symbolic link is refused too (``open_regular``); ``limit``: a file
    of more bytes is refused, and never read whole."""
    fd = open_regular(path, follow=follow)
    with open(fd, "rb") as fh:
        try:
            data = fh.read() if limit is None else fh.read(limit + 1)
        except OSError as exc:
            raise unreadable(path, exc) from None
    if limit is not None and len(data) > limit:
        raise OperationalError(f"{path}: larger than {limit} bytes: not read")
    return data


def open_regular(path: str, *, follow: bool = True) -> int:
    """A descriptor of ``path`` opened for reading when it is a regular file (through
    symbolic links; ``follow`` False: not through one, ``O_NOFOLLOW``'s ELOOP), else an
    OperationalError saying what it is. The open never blocks: ``O_NONBLOCK`` (a FIFO
    without a writer), then ``fstat`` of what was opened."""
    flags = system.O_RDONLY | system.O_NONBLOCK | getattr(system, "O_NOCTTY", 0)
    if not follow:
        flags |= getattr(system, "O_NOFOLLOW", 0)
    try:
        fd = system.open(path, flags)
    except OSError as exc:  # ENXIO: a socket; ELOOP: a link loop (or a link, not followed)
        raise unreadable(path, exc) from None
    try:
        mode = system.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OperationalError(f"{path}: not a regular file ({_kind(mode)}): not read")
        system.set_blocking(fd, True)
    except BaseException:
        system.close(fd)
        raise
    return fd


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"


def write_atomic(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    durable: bool = False,
    inside: str | None = None,
    force: bool = False,
    scratch: str | None = None,
    guard: Callable[[], bool] | None = None,
) -> None:
    """Replace a file's content all at once: readers see the old or the new bytes, never half.

    The new content goes to a temporary file (``.NAME.PID-START-NS.RANDOM.tmp``: see
    ``temporary_name``) in the same
    directory, or in ``scratch`` (a folder of the git directory, which git never shows)
    when that is on the same file system; it gets the old file's permission bits and is
    renamed over the target. A symbolic link is written through, as an editor does: its
    target is replaced and the link stays (a dangling link gets its target created).
    ``durable`` also flushes the file to disk first (git itself does not fsync work-tree
    files). A target that is no regular file (``-o /dev/null``, a named pipe) is written
    into, never renamed over.

    Refuses (an OperationalError, nothing written) a read-only file (no write permission
    bit: as git refuses without ``-f``) unless ``force`` (a file of git's or of ours that
    must be replaced, e.g. the merge driver's %A); with ``inside`` (a file the tool picked
    itself, not one the user named), a file whose real path, through links, lies outside
    that folder, or that is not a regular file.

    ``guard``, when given, is asked right before the rename whether the target is still
    what the caller read; False: nothing is replaced and ``TargetChanged`` is raised (the
    caller redoes its edit on what is there now).
    """
    given = system.fspath(path)
    if inside is not None:
        check_inside(given, inside)
    elif _special(given):
        _write_into(given, data)
        return
    target = link_target(given)
    shown = given if target == given else f"{given} (a link to {target})"
    directory = dirname(target) or "."
    mode = _mode_of(target, shown, force)
    for folder in ([scratch] if scratch else []) + [directory]:
        tmp = temporary_name(folder, basename(target))
        try:
            fd = system.open(tmp, system.O_WRONLY | system.O_CREAT | system.O_EXCL, 0o600)
            with open(fd, "wb") as fh:
                fh.write(data)
                if durable:
                    fh.flush()
                    system.fsync(fh.fileno())
            system.chmod(tmp, mode)
            if guard is not None:
                _guarded_replace(tmp, target, guard, shown)
                return
            system.replace(tmp, target)
            return
        except OSError as exc:
            _remove(tmp)
            if folder == scratch and folder != directory:
                continue  # another file system (EXDEV), or no such folder: beside the file
            raise OperationalError(f"{shown}: cannot write ({exc.strerror})") from None


class TargetChanged(Exception):
    """``write_atomic``'s guard found the target changed since it was read: nothing written."""


RENAME_NOREPLACE = 1
RENAME_EXCHANGE = 2
"""renameat2's flags (linux/fs.h)."""


def _guarded_replace(tmp: str, target: str, guard: Callable[[], bool], shown: str) -> None:
    """Rename ``tmp`` over ``target`` if ``guard()`` still says the target is what the caller
    read. A file someone renames into place after that check (an editor saving by rename)
    is never unlinked: where the system exchanges two names atomically (Linux renameat2),
    the file taken out of place must be the one there at the check (same inode), else it
    is put back and TargetChanged raised; a target that was absent is never clobbered."""
    try:
        before: os.stat_result | None = system.lstat(target)
    except FileNotFoundError:
        before = None
    if not guard():
        _remove(tmp)
        raise TargetChanged(shown)
    if before is None:
        try:
            done = _rename2(tmp, target, RENAME_NOREPLACE)
        except FileExistsError:
            _remove(tmp)
            raise TargetChanged(shown) from None
        if not done:
            system.replace(tmp, target)
        return
    ours = system.lstat(tmp)
    if not _rename2(tmp, target, RENAME_EXCHANGE):
        system.replace(tmp, target)  # no exchange here: the rename, right after the check
        return
    out = system.lstat(tmp)  # what was at the target
    if (out.st_dev, out.st_ino) == (before.st_dev, before.st_ino):
        _remove(tmp)
        return
    _rename2(tmp, target, RENAME_EXCHANGE)  # theirs back in place, ours out
    back = system.lstat(tmp)
    if (back.st_dev, back.st_ino) == (ours.st_dev, ours.st_ino):
        _remove(tmp)
    raise TargetChanged(shown)


_RENAMEAT2: list[Any] = []


def _rename2(source: str, target: str, flags: int) -> bool:
    """renameat2(2) with ``flags``; False where the system or file system has none."""
    if not _RENAMEAT2:
        import ctypes  # lazy: only the MCP server's guarded writes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            _RENAMEAT2.append(getattr(libc, "renameat2", None))
        except (OSError, TypeError):  # no C library to look in (Windows)
            _RENAMEAT2.append(None)
    call = _RENAMEAT2[0]
    if call is None:
        return False
    import ctypes
    import errno
    import os

    here = -100  # AT_FDCWD
    if call(here, os.fsencode(source), here, os.fsencode(target), flags) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(err, system.strerror(err), target)


def _mode_of(target: str, shown: str, force: bool) -> int:
    """The permission bits the new file gets (the old file's; new: by the umask)."""
    try:
        mode = system.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        return 0o666 & ~_umask()
    except OSError as exc:
        raise OperationalError(f"{shown}: cannot write ({exc.strerror})") from None
    if not force and not mode & 0o222:
        raise OperationalError(
            f"{shown}: read-only (mode {mode & 0o777:04o}): not written "
            "(make it writable, e.g. chmod u+w, to allow it)"
        )
    return mode


TEMPORARY = lazy(
    r"(?s)\.(?P<name>.+)\.(?P<pid>[0-9]+)(?:-(?P<start>[0-9]+)(?:-(?P<ns>[0-9]+))?)?"
    r"\.[0-9a-f]{8}\.tmp\Z"
)
"""What ``write_atomic`` names its temporaries (``temporary_name``): ``.NAME.PID-START-NS.
RANDOM.tmp`` (NS: the writer's pid namespace, ``pid_namespace``), ``.NAME.PID-START.RANDOM.
tmp`` (an earlier version's), or ``.NAME.PID.RANDOM.tmp`` (no start time to read; an older
version's). One reading each: an older name never has a ``-`` in its last part before
RANDOM. NAME may hold a newline (``(?s)``); nothing follows ``.tmp`` (``\\Z``, not ``$``)."""


def private_folder(path: str) -> bool:
    """Make ``path`` a folder of this user's alone (mode 0700) when nothing has that name;
    whether it now is one: a folder, not a link to one, owned by this user, closed to
    others. A name in a shared folder (``/tmp``) that anyone else made first is not ours
    to put sockets or lock files in."""
    try:
        system.mkdir(path, 0o700)
    except OSError:
        pass  # there already, or not ours to make: lstat says which
    try:
        info = system.lstat(path)
    except OSError:
        return False
    getuid = getattr(system, "getuid", None)
    if getuid is None:  # no user ids (Windows): no owner to compare, no mode bits (0777)
        return stat.S_ISDIR(info.st_mode)
    mine = info.st_uid == getuid()
    return stat.S_ISDIR(info.st_mode) and mine and not info.st_mode & 0o077


def temporary_name(folder: str, name: str) -> str:
    """A temporary's name: the writing process by its pid and, where the system tells it,
    its start time (``started``), so that ``remove_stale_temporaries`` does not take a pid
    given since to another process for the writer (older versions, which know the name
    without ``-START`` alone, leave such a temporary be). The NAME part is the file's name,
    cut (``_fit``) so that the whole stays within ``NAME_MAX`` bytes."""
    pid, start, ns = this_process()
    who = str(pid) if start is None else f"{pid}-{start}" if ns is None else f"{pid}-{start}-{ns}"
    tail = f".{who}.{system.urandom(4).hex()}.tmp"
    return join(folder, "." + _fit(name, NAME_MAX - 1 - len(tail)) + tail)


NAME_MAX = 255
"""The longest file name, in bytes, that every file system we write on takes (ext4, XFS,
APFS, btrfs: 255 bytes; NTFS: 255 UTF-16 units, never more than the UTF-8 bytes)."""


def _fit(name: str, room: int) -> str:
    """``name`` cut to its first ``room`` bytes of UTF-8, at a character's boundary: a
    document whose own name is near the limit still gets a temporary that the file system
    takes (the pid, start time, namespace and random part, which keep writers apart, are
    never cut)."""
    raw = name.encode("utf-8", "surrogatepass")  # a surrogateescape'd byte counts 3: safe
    if len(raw) <= room:
        return name
    while room > 0 and raw[room] & 0xC0 == 0x80:  # not in the middle of a character
        room -= 1
    return raw[:room].decode("utf-8", "surrogatepass")


def this_process() -> tuple[int, int | None, int | None]:
    """This process as others judge whether it still runs (``alive``): its pid, start time
    (``started``) and pid namespace (``pid_namespace``), read once per process (a fork has
    another pid: read again). What a temporary's name, a lease and the MCP journal say."""
    pid = system.getpid()
    if _OWN.get("pid") != pid:
        _OWN.update(pid=pid, start=started(pid), ns=pid_namespace())
    return pid, _OWN["start"], _OWN["ns"]


_OWN: dict[str, int | None] = {}


def remove_stale_temporaries(folder: str) -> list[str]:
    """Remove the temporaries ``write_atomic`` left in ``folder`` when its process was killed:
    only files named as it names them whose process is gone (``alive``: by its pid and,
    when the name says it, its start time; a writer in another pid namespace is left be).
    Returns their paths."""
    removed: list[str] = []
    try:
        names = system.listdir(folder)
    except OSError:
        return removed
    for name in names:
        found = TEMPORARY().match(name)
        if found is None:
            continue
        start, ns = found.group("start"), found.group("ns")
        if alive(
            int(found.group("pid")),
            None if start is None else int(start),
            None if ns is None else int(ns),
        ):
            continue
        path = join(folder, name)
        try:
            if stat.S_ISREG(system.lstat(path).st_mode):
                system.unlink(path)
                removed.append(path)
        except OSError:
            continue
    return removed


def running(pid: int) -> bool:
    if pid == system.getpid():
        return True
    try:
        system.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # gone, or a pid no process can have
        return False
    except OSError:  # someone else's process: alive
        return True
    return True


def started(pid: int) -> int | None:
    """When process ``pid`` started: field 22 of ``/proc/PID/stat`` (clock ticks after the
    machine's boot), which a later process given the same pid does not share; None where
    it cannot be read (no ``/proc``: macOS, the BSDs; the process gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat_line = fh.read()
        # "pid (comm) state ...": comm may hold spaces and ")"; field 22 is the 20th after it
        return int(stat_line[stat_line.rfind(b")") + 2 :].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def pid_namespace() -> int | None:
    """This process's pid namespace (the inode of ``/proc/self/ns/pid``): pids and start
    times read in one namespace mean nothing in another (a container sharing the host's
    name and a repository). None where it cannot be read (no ``/proc``)."""
    try:
        return system.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return None


def alive(pid: int, start: int | None, namespace: int | None = None) -> bool:
    """Whether the process ``pid`` that started at ``start`` (``started``) still runs: a
    pid given since to another process is not it. ``start`` None, or no start time to
    read: judged by the pid alone (``running``). ``namespace``: the pid namespace the pid
    and start were read in (``pid_namespace``; None: unsaid); another than ours (a
    container sharing the folder or the repository): alive, its pid means nothing here."""
    if namespace is not None and namespace != pid_namespace():
        return True
    if pid <= 0 or not running(pid):  # (0, -N: no process's, kill would signal a group)
        return False
    if start is None:
        return True
    now = started(pid)
    return now is None or now == start


def check_inside(path: str, folder: str) -> None:
    """Refuse to write ``path``, a file the tool picked itself, when it is a symbolic link
    (or lies in a linked folder) leading outside ``folder``, or when it is no regular file
    (a named pipe would block the writer; a device is not a document)."""
    import os  # lazy: a file the tool picked itself (the MCP server's), not the driver's

    real = os.path.realpath(path)
    top = os.path.realpath(folder)
    if real != top and not real.startswith(top.rstrip(os.sep) + os.sep):
        raise OperationalError(
            f"{path}: a symbolic link leading outside {top} (to {real}): not written"
        )
    try:
        mode = system.stat(path).st_mode
    except OSError:
        return  # absent (or a dangling link inside): created
    if not stat.S_ISREG(mode):
        raise OperationalError(f"{path}: not a regular file ({_kind(mode)}): not written")


def _remove(path: str) -> None:
    """Remove a file if it is there (contextlib.suppress would add an import to the driver)."""
    try:
        system.unlink(path)
    except OSError:
        pass


def _special(path: str) -> bool:
    """Whether ``path`` (through its links, as the kernel follows them: ``/dev/stdout``
    too) is a device, pipe or socket: renaming a file over it would replace ``/dev/null``
    itself for every program on the machine."""
    try:
        mode = system.stat(path).st_mode
    except OSError:
        return False  # missing, a link loop, …: write_atomic reports it
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _write_into(path: str, data: bytes) -> None:
    """Write into a device or pipe (``-o /dev/stdout``): every byte, or an error."""
    try:
        fd = system.open(path, system.O_WRONLY | system.O_TRUNC)
    except OSError as exc:
        raise OperationalError(f"{path}: cannot write ({exc.strerror})") from None
    try:
        _CheckedOutput(fd).write(data)
    except OutputError as exc:
        raise OperationalError(f"{path}: {exc.message}") from None
    finally:
        system.close(fd)


MAX_LINKS = 40
"""Links followed before giving up, as the kernel does (ELOOP)."""


def link_target(path: str) -> str:
    """The file that writing ``path`` should replace: ``path`` itself, or where its chain
    of symbolic links ends (relative links resolved from their own folder; the end may
    not exist yet). A loop is an OperationalError."""
    current = path
    for _ in range(MAX_LINKS):
        try:
            link = system.readlink(current)
        except OSError:  # not a link (or not there): this is the file
            return current
        current = join(dirname(current), link)
    raise OperationalError(f"{path}: cannot write (too many levels of symbolic links)")


def sniffed_vcontext(path: str, suffixes: tuple[str, ...] = (".json", ".tron")) -> bool:
    """Whether a regular file with one of ``suffixes`` names a vContext root in its first
    4 KB (unreadable, or a named pipe or device: no)."""
    # lazy: fsio is loaded by every command; document is not
    from .document import looks_like_vcontext

    if not path.endswith(suffixes):
        return False
    try:
        with open(open_regular(path), "rb") as fh:
            return looks_like_vcontext(fh.read(4096))
    except (OSError, OperationalError):  # not a regular file: never read
        return False


def _umask() -> int:
    mask = system.umask(0)
    system.umask(mask)
    return mask


def write_output(path: str | None, text: str) -> None:
    """Write text to a file atomically, or to stdout when ``path`` is None or ``-``.

    File names that are not UTF-8 (decoded with surrogateescape) come out as their bytes.
    """
    data = text.encode("utf-8", OUTPUT_ERRORS)
    if path is None or path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        write_atomic(path, data)


def find_common_dir(cwd: str, env: Mapping[str, str]) -> str | None:
    """Git's common directory for a git command started in ``cwd`` with ``env`` (a hook's),
    found by reading files only (no git, no pygit2: the pre-push hook's fast path):
    ``common_dir`` of ``find_git_dir``; None outside a repository."""
    git_dir = find_git_dir(cwd, env)
    return None if git_dir is None else common_dir(git_dir, env, cwd)


def find_git_dir(start: str, env: Mapping[str, str]) -> str | None:
    """The git directory a git command started in ``start`` with ``env`` works on, read from
    files as git's ``setup_git_directory`` finds it: the one reading of it (``open_repo``,
    the merge driver's labels, ``configread``, the hook, sync's checkout). ``$GIT_DIR``
    (relative to ``start``; a ``.git`` file there is followed), else from ``start`` (as
    ``getcwd`` names it: symbolic links resolved) up the first folder whose ``.git`` is a
    git directory or a file naming one (a linked worktree, a submodule; git stops at a file
    that names none), or that is one itself (a bare repository, or inside ``.git``); the
    search goes no higher than ``$GIT_CEILING_DIRECTORIES`` allow and, unless
    ``$GIT_DISCOVERY_ACROSS_FILESYSTEM`` is true, stays on ``start``'s file system. None
    outside any."""
    return discover(start, env)[0]


def discover(start: str, env: Mapping[str, str]) -> tuple[str | None, str | None]:
    """``find_git_dir``'s search, with where it ended: (the git directory or None, the
    folder whose ``.git`` file named it, else None). That folder is the top of git's work
    tree when the git directory names none (``clone --separate-git-dir``: no
    ``core.worktree``, not a linked worktree's), where libgit2 takes the git directory's
    parent (``gitio.open_repo``)."""
    import os  # lazy: the hook's start-up, which loads os anyway (site)

    join = os.path.join
    named = env.get("GIT_DIR")
    if named:
        path = join(os.path.abspath(start), named)
        return (_followed(path) if os.path.isfile(path) else os.path.normpath(path)), None
    here = os.path.realpath(start)
    ceiling = _ceiling(here, env.get("GIT_CEILING_DIRECTORIES"))
    device = None if across_filesystems(env) else _device(here)
    while True:
        dot = join(here, ".git")
        if os.path.isfile(dot):
            followed = _followed(dot)
            return followed, (here if followed is not None else None)
        if os.path.isdir(dot) and is_git_dir(dot):
            return dot, None
        if is_git_dir(here):
            return here, None
        up = os.path.dirname(here)
        if up == here or (len(up) if up != os.sep else 0) <= ceiling:
            return None, None  # (git's offset: where the separator before ``here``'s name is)
        if device is not None and _device(up) != device:
            return None, None  # git: "stopping at filesystem boundary"
        here = up


def _ceiling(here: str, listed: str | None) -> int:
    """How long a folder the search from ``here`` may still enter is at least, as git's
    ``longest_ancestor_length`` sets it: the longest of ``GIT_CEILING_DIRECTORIES`` that is
    a proper ancestor of ``here`` (absolute entries only, each with its links resolved
    unless it comes after an empty entry); -1 when none is."""
    import os

    longest = -1
    if not listed or here == os.sep:
        return longest
    after_empty = False
    for entry in listed.split(os.pathsep):
        if not entry:
            after_empty = True
            continue
        if not os.path.isabs(entry):
            continue
        if not after_empty:
            if not os.path.exists(entry):
                continue
            entry = os.path.realpath(entry)
        length = len(entry) - 1 if entry.endswith(os.sep) else len(entry)
        inside = here.startswith(entry[:length]) and here[length : length + 1] == os.sep
        if inside and len(here) > length + 1:
            longest = max(longest, length)
    return longest


def across_filesystems(env: Mapping[str, str]) -> bool:
    """``GIT_DISCOVERY_ACROSS_FILESYSTEM`` as git reads it (``git_env_bool``: unset false,
    else a boolean as ``gitvalues.git_bool`` reads one; one git refuses: false)."""
    value = env.get("GIT_DISCOVERY_ACROSS_FILESYSTEM")
    if value is None:
        return False
    from .gitvalues import git_bool  # lazy: only when the variable is set

    return bool(git_bool(value))


def _device(folder: str) -> int | None:
    import os

    try:
        return os.stat(folder).st_dev
    except OSError:
        return None


def common_dir(git_dir: str, env: Mapping[str, str], start: str = ".") -> str:
    """Where ``git_dir``'s repository keeps what its worktrees share, as git reads it:
    ``$GIT_COMMON_DIR`` (relative to ``start``, where git runs), else the folder its
    ``commondir`` file names (a linked worktree's; relative to ``git_dir``, symbolic links
    resolved as git resolves them), else ``git_dir`` itself. ``env`` {}: as libgit2 reads a
    repository it opened (``gitio.places.common_dir``), which knows no ``GIT_COMMON_DIR``."""
    import os

    named = env.get("GIT_COMMON_DIR")
    if named:
        return os.path.normpath(os.path.join(os.path.abspath(start), named))
    pointer = _git_file(os.path.join(git_dir, "commondir"))
    if not pointer:
        return git_dir
    return os.path.realpath(os.path.join(git_dir, pointer))


def is_git_dir(folder: str) -> bool:
    """Whether ``folder`` is a git directory, as git's ``is_git_directory`` judges it: a
    file ``HEAD``, and folders ``objects`` and ``refs`` in it or in the folder its
    ``commondir`` names (a work tree's file ``HEAD`` and folder ``objects``, documents,
    make none)."""
    import os

    if not os.path.isfile(os.path.join(folder, "HEAD")):
        return False
    pointer = _git_file(os.path.join(folder, "commondir"))
    common = os.path.join(folder, pointer) if pointer else folder
    return os.path.isdir(os.path.join(common, "objects")) and os.path.isdir(
        os.path.join(common, "refs")
    )


def _install_prefix(git: str | None) -> str | None:
    """The prefix git was installed under, from where its program is: ``PREFIX/bin/git``,
    or ``PREFIX/lib/git-core/git`` (``libexec``: a hook's ``PATH`` starts with git's exec
    path); None for any other place."""
    import os

    if git is None:
        return None
    folder = os.path.dirname(git)
    if os.path.basename(folder) == "bin":
        return os.path.dirname(folder)
    lib = os.path.dirname(folder)
    if os.path.basename(folder) == "git-core" and os.path.basename(lib) in ("lib", "libexec"):
        return os.path.dirname(lib)
    return None


def system_config_files() -> list[str] | None:
    """The files git may read its system settings from (``git config --system``), as git
    resolves the path: ``GIT_CONFIG_SYSTEM`` when set; else its ``ETC_GITCONFIG``, which is
    ``/etc/gitconfig`` for a git built with the prefix ``/usr`` and ``PREFIX/etc/gitconfig``
    for another prefix or a ``RUNTIME_PREFIX`` build: both, PREFIX read from the git on
    ``PATH``, from the folder ``PATH`` names and from the one its links lead to (Homebrew's
    ``/opt/homebrew/bin/git`` links into its Cellar; its settings are in
    ``/opt/homebrew/etc``). None when that git is in no ``PREFIX/bin`` or
    ``PREFIX/lib*/git-core`` folder: unsure."""
    import os

    named = os.environ.get("GIT_CONFIG_SYSTEM")
    if named is not None:
        return [named] if named else []
    found = _git_program("git")
    prefixes = [p for p in dict.fromkeys(_install_prefix(f) for f in found) if p is not None]
    if not prefixes:
        return None
    return ["/etc/gitconfig", *(os.path.join(p, "etc", "gitconfig") for p in prefixes)]


def _git_program(name: str) -> tuple[str, ...]:
    """The file ``posix_spawnp`` starts for ``name`` (``PATH`` searched), as ``PATH`` names
    it and with its symbolic links followed; () when not found."""
    import os

    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        path = os.path.join(folder or ".", name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return (os.path.abspath(path), os.path.realpath(path))
    return ()


def _followed(dot: str) -> str | None:
    """The git directory a ``.git`` file names (``gitdir: PATH``, relative to the file's
    folder); None when it names none (git stops there: "invalid gitfile format", "not a
    git repository")."""
    import os

    text = _git_file(dot)
    if text is None or not text.startswith("gitdir: "):
        return None
    found = os.path.normpath(os.path.join(os.path.dirname(dot), text[len("gitdir: ") :]))
    return found if is_git_dir(found) else None


def _git_file(path: str) -> str | None:
    """A small file of git's (``.git``, ``commondir``) as git reads it: its text without
    the line ends that close it; None when it cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as fh:
            return fh.read().rstrip("\r\n")
    except OSError:
        return None


def permitted(path: str | os.PathLike[str], mode: int) -> bool:
    """``os.access`` as this process acts: with its effective user and capabilities, as
    ``exec``, ``open`` and git's hooks are judged (plain ``access`` asks for the real user
    and drops capabilities, so it can say no to what this process may do)."""
    import os

    return system.access(path, mode, effective_ids=system.access in os.supports_effective_ids)
