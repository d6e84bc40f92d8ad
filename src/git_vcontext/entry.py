"""Console entry point: the commands git runs once per file take a fast path without click."""

from __future__ import annotations

import _frozen_importlib as _bootstrap  # importlib's core: loaded at every start, unlike importlib
import _frozen_importlib_external as _external
import _imp
import gc
import marshal
import sys
from _io import FileIO

from .fsio import check_stdout
from .oscalls import SEP, system

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from importlib.machinery import ModuleSpec
    from types import CodeType

# The options of the merge driver's fixed command line, as `install` writes it
# (``setup.boot.DRIVER_ARGUMENTS``/``LABEL_ARGUMENTS``, which tests/unit/test_driver_arguments
# holds this to: setup is a layer below this module, whose start loads no module more).
_DRIVER_OPTIONS = {
    "-p": "path",
    "-l": "marker_size",
    "-s": "base_label",
    "-x": "ours_label",
    "-y": "theirs_label",
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``git-vcontext``; returns the exit code."""
    return _main(argv)[0]


def _main(argv: Sequence[str] | None) -> tuple[int, bool]:
    """The exit code, and whether the process may end without the interpreter's teardown
    (a command git runs once per file, or the guard when it let a push in without the full
    check: see ``run``)."""
    # Each run is a short process over acyclic JSON data: the cyclic garbage collector
    # only costs time here (it nearly doubles the time to load a 40 MB playbook).
    gc.disable()
    own_modules_first()
    # File names that are not UTF-8 arrive decoded with surrogateescape: print them as
    # their bytes whatever the locale (a strict stdout would raise on them); and a write
    # to stdout that fails or falls short is an error, never output cut short (exit 3).
    check_stdout()
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(args)
    except KeyboardInterrupt:  # Ctrl-C while modules load, before the boundary is set up
        try:
            print("git-vcontext: interrupted", file=sys.stderr)
        except (OSError, ValueError):
            pass
        return 130, False


def _dispatch(args: list[str]) -> tuple[int, bool]:
    fast = _fast_driver(args)
    if fast is not None:
        return fast, True
    if args == ["hook", "pre-receive"]:
        return _fast_guard()
    fast = _fast_hook(args)
    if fast is None:
        fast = _fast_sync(args)
    if fast is not None:
        return fast, False
    call = _fast_diff(args)
    if call is not None:
        # lazy: an empty pre-push returns without it
        from .boundary import boundary

        return boundary(call), True
    # lazy: click only for the commands without a fast path
    from .cli import main as cli_main

    return cli_main(args), False


def _fast_driver(args: list[str]) -> int | None:
    """Run ``merge-driver`` without importing click when the arguments are git's exact form
    (with ``--virtual-base`` first: the driver of a criss-cross history's inner merges).

    Anything unusual (help, unknown options) returns None and click handles it,
    so usage errors and --help stay in one place.
    """
    virtual = args[1:2] == ["--virtual-base"]  # install's criss-cross base driver
    if virtual:
        args = [args[0], *args[2:]]
    if len(args) < 4 or args[0] != "merge-driver" or any(a.startswith("-") for a in args[1:4]):
        return None
    options: dict[str, object] = {"base": args[1], "ours": args[2], "theirs": args[3]}
    if virtual:
        options["virtual_base"] = True
    rest = args[4:]
    if len(rest) % 2:
        return None
    for flag, value in zip(rest[::2], rest[1::2], strict=True):
        name = _DRIVER_OPTIONS.get(flag)
        if name is None or name in options:
            return None
        options[name] = value
    if "marker_size" in options:
        size = str(options["marker_size"])
        if not size.isdecimal():  # what int() reads ("²" is a digit int() refuses)
            return None
        options["marker_size"] = int(size)

    def call() -> int:
        # lazy: each fast path loads its own command only
        from .commands import merge_driver

        return merge_driver.run(**options)  # type: ignore[arg-type]

    # lazy: an empty pre-push returns without it
    from .boundary import boundary

    return boundary(call)


def _fast_hook(args: list[str]) -> int | None:
    """``hook pre-push [REMOTE [URL]]`` as the shim runs it, without click; nothing to
    check (git's stdin is empty, as when every ref is up to date) returns before even
    a repository is opened. (``hook pre-receive``, the server's guard: ``_fast_guard``.)"""
    if not 2 <= len(args) <= 4 or args[:2] != ["hook", "pre-push"]:
        return None
    if any(a.startswith("-") for a in args[2:]):
        return None
    # lazy: each fast path loads its own command only
    from .commands import hook

    try:
        text: str | None = hook.read_input()
    except (OSError, ValueError):
        text = None  # hook.run reads again and says why it cannot
    if text is not None and not hook.wanted(text):
        return 0
    # lazy: an empty pre-push returns without it
    from .boundary import boundary

    remote = args[2] if len(args) > 2 else None
    url = args[3] if len(args) > 3 else None
    return boundary(lambda: hook.run(remote=remote, url=url, text=text))


def _fast_guard() -> tuple[int, bool]:
    """The guard on every push a bare repository receives, without click: the exit code,
    and whether the process may end without the interpreter's teardown (~2 ms of a light
    guard run, and every ``sync --push`` starts two or three: issue 28). That is when the
    push was let in without the full check, whose pygit2 objects, temporary folders and
    ``atexit`` handlers want the teardown; the light path's files are written whole (atomic
    replace) and its git processes waited for before it answers."""
    # lazy: each fast path loads its own command only
    from .commands import pre_receive

    try:
        text: str | None = pre_receive.read_input()
    except (OSError, ValueError):
        text = None  # run reads again and says why it cannot
    if text is not None and (not text.strip() or pre_receive.nothing_to_check(text)):
        return 0, True  # nothing pushed, or only sync's lease taken: no file changes
    # lazy: an empty input returns without it
    from .boundary import boundary

    light = False

    def call() -> int:
        nonlocal light
        code, light = pre_receive.judge(text)
        return code

    code = boundary(call)
    return code, light and code == 0


def _fast_sync(args: list[str]) -> int | None:
    """``sync AGENT… --push REMOTE``, which every agent runs after every round, without
    click (~30 ms of imports); any other form goes through click."""
    if len(args) < 4 or args[0] != "sync" or args[-2] != "--push":
        return None
    names, remote = args[1:-2], args[-1]
    if any(a.startswith("-") for a in [*names, remote]):
        return None
    # lazy: each fast path loads its own command only
    from .boundary import boundary
    from .commands import sync

    return boundary(lambda: sync.run(agents=tuple(names), push=remote))


def _fast_diff(args: list[str]) -> Callable[[], int] | None:
    """``textconv FILE`` and the external diff (7 or 9 arguments after ``diff``), which git
    runs once per file (twice per file and commit in ``git log -p``), without click."""
    if len(args) == 2 and args[0] == "textconv" and not args[1].startswith("-"):
        # lazy: each fast path loads its own command only
        from .commands import textconv

        return lambda: textconv.run(file=args[1])
    if len(args) in (8, 10) and args[0] == "diff":
        # lazy: git's patch into a pipe needs neither the diff engine nor click
        from . import rawpatch

        if not rawpatch.is_external(args[1:]):
            return None
        if not rawpatch.for_person():
            return lambda: rawpatch.run(args[1:])
        # lazy: each fast path loads its own command only
        from .commands import diff

        return lambda: diff.external(args[1:], fmt="text", color=diff.want_color("auto"))
    return None


class _OwnLoader(_external.SourceFileLoader):
    """A module of this package read from its bytecode cache by a stat of the source and one
    read of the cache (no buffered file, no second look at the names), when the
    cache is the one importlib's own loader would take (its header: magic number, timestamp
    flags, the source's mtime and size); anything else (no cache, a stale one, one checked
    by hash, a cache that does not hold code) goes to that loader, which compiles and
    writes it as usual."""

    def __init__(self, fullname: str, path: str, cached: str) -> None:
        super().__init__(fullname, path)
        self.cached = cached

    def get_code(self, fullname: str) -> CodeType | None:
        try:
            source = system.stat(self.path)
            with FileIO(self.cached) as f:
                data = f.readall()
        except OSError:
            return super().get_code(fullname)
        mtime, size = int(source.st_mtime) & 0xFFFFFFFF, source.st_size & 0xFFFFFFFF
        header = _MAGIC + bytes(4) + mtime.to_bytes(4, "little") + size.to_bytes(4, "little")
        if data[:16] == header:
            code = marshal.loads(memoryview(data)[16:])
            if type(code) is _CODE:
                _imp._fix_co_filename(code, self.path)  # type: ignore[attr-defined]  # as importlib
                return code
        return super().get_code(fullname)


class _OwnModules:
    """``sys.meta_path``'s first finder, for this package's modules only (issue 32): the
    processes git starts once per file load 40-50 of them, and importlib's path finder
    looks each up through its generic machinery (a fresh spec from the file's location,
    the cache's name worked out twice, the cache read through a buffered file). Here a
    module's folder is listed once, a module is ``NAME.py`` or ``NAME/__init__.py`` in it,
    read by ``_OwnLoader``. A folder holding anything the path finder would weigh otherwise
    (an extension module, a bytecode file without its source) and any name that is not a
    plain module or package of sources (a namespace package, a data folder) are left to
    the path finder: what is imported, from which file, is what it would find."""

    def __init__(self) -> None:
        self.folders: dict[str, frozenset[str] | None] = {}

    def _listing(self, folder: str) -> frozenset[str] | None:
        """The names in ``folder``; None when it is not a folder of plain sources."""
        if folder in self.folders:
            return self.folders[folder]
        try:
            names: frozenset[str] | None = frozenset(system.listdir(folder))
        except OSError:
            names = None
        if names is not None and any(n.endswith(_OTHER_SUFFIXES) for n in names):
            names = None
        self.folders[folder] = names
        return names

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: object = None
    ) -> ModuleSpec | None:
        if path is None or len(path) != 1 or not fullname.startswith(_PREFIX):
            return None
        folder = path[0]
        names = self._listing(folder)
        if names is None:
            return None
        tail = fullname.rpartition(".")[2]
        where = folder + SEP + tail
        if tail in names:  # a folder (or a file without a suffix: importlib tries it too)
            inside = self._listing(where)
            if inside is None or "__init__.py" not in inside:
                return None  # a namespace package, a data folder: the path finder's call
            return self._spec(fullname, where + SEP + "__init__.py", where)
        if tail + ".py" in names:
            return self._spec(fullname, where + ".py", None)
        return None

    @staticmethod
    def _spec(fullname: str, origin: str, package: str | None) -> ModuleSpec:
        cached = _external.cache_from_source(origin)
        loader = _OwnLoader(fullname, origin, cached)
        spec = _bootstrap.ModuleSpec(fullname, loader, origin=origin)
        spec.has_location = True
        spec.cached = cached
        if package is not None:
            spec.submodule_search_locations = [package]
        return spec


_PREFIX = __name__.rpartition(".")[0] + "."
_MAGIC = _external.MAGIC_NUMBER
_CODE = type(_main.__code__)
_OTHER_SUFFIXES = (*_external.EXTENSION_SUFFIXES, ".pyc")


def own_modules_first() -> None:
    """This package's modules found by ``_OwnModules`` before any other finder (once)."""
    if not any(type(f) is _OwnModules for f in sys.meta_path):
        sys.meta_path.insert(0, _OwnModules())


def run() -> None:
    """``sys.exit(main())`` for the console script; the commands git runs once per file
    (the merge driver, textconv, the external diff), and the guard when its light paths
    let a push in, end without the interpreter's teardown, which frees every module and
    object one by one (~4 ms of a ~35 ms merge)."""
    code, quick = _main(None)
    if quick:
        _exit_now(code)
    sys.exit(code)


def _exit_now(code: int) -> None:
    """Flush what was written to stdout and stderr, then end the process at once. Only
    for commands whose files are written whole before they return (no atexit handler,
    temporary directory or thread is left to the teardown)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:  # None: started with that descriptor closed
                stream.flush()
        except (BrokenPipeError, ValueError):  # a closed pipe (git log -p stopped
            pass  # reading): as the boundary does for a closed pipe, nothing more to say
        except OSError:  # (the boundary flushed stdout already: unlikely to come here)
            code = code or 3
    system._exit(code)
